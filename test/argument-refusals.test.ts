// A handler's refusal of its arguments (a check the schema cannot express) ends in the spec's text,
// makes no upstream request and is not metered, exactly like a schema refusal (DECISIONS §8).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { casesDescriptor } from '../generated/cases/descriptor.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { startLedgerSandbox, type LedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  createTenant,
  mcpClient,
  resultText,
  startGateway,
  usageOf,
  type StartedGateway,
  type Tenant,
  connectTenant,
} from './support/gateway.ts';

describe('argument refusals by handlers', () => {
  let store: PlatformStore;
  let ledger: LedgerSandbox;
  let cases: CasesSandbox;
  let gw: StartedGateway;
  let tenant: Tenant;
  const clients: Client[] = [];

  beforeAll(async () => {
    store = await openStore({});
    ledger = await startLedgerSandbox({});
    cases = await startCasesSandbox({ rateLimitPerMinute: 6000 });
    gw = await startGateway(store, {
      env: { CONNECTOR_LEDGER_BASE_URL: ledger.url, CONNECTOR_CASES_BASE_URL: cases.url, RATE_LIMIT_BURST: '1000' },
    });
    tenant = await createTenant(store, { subscribe: ['ledger', 'cases'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });
    await connectTenant(gw, tenant, 'cases', { apiKey: cases.tokens.demo });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await gw?.close();
    await Promise.all([ledger?.close(), cases?.close()]);
    await store?.close();
  });

  const refusals: Array<[instance: string, tool: string, args: Record<string, unknown>]> = [
    ['ledger', 'query', { entity: '../Crud' }],
    ['ledger', 'list_debtors', { account: '1;2' }],
    ['ledger', 'list_gl_transactions', { fromDate: '2026-02-01', toDate: '2026-01-01' }],
    ['cases', 'list_case_hours', { caseId: 1, from: '2026-02-01', to: '2026-01-01' }],
    ['cases', 'graphql_query', { query: 'mutation { updateCase(id: 1, description: "x") { id } }' }],
  ];

  for (const [instance, tool, args] of refusals) {
    it(`${instance}__${tool} ${JSON.stringify(args)}: the generic text, no upstream request, no unit`, async () => {
      const client = await mcpClient(gw.url, instance, tenant.token);
      clients.push(client);
      const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
      const [ledgerBefore, casesBefore] = [ledger.stats.requests, cases.stats.requests];
      const result = await client.callTool({ name: `${instance}__${tool}`, arguments: args });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toBe('Tool invocation failed.');
      expect([ledger.stats.requests, cases.stats.requests]).toEqual([ledgerBefore, casesBefore]);
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before);
    });
  }

  it('cases__graphql_query refuses the alias bomb (660 × cases(limit 200)): cost text, unsent, unmetered', async () => {
    const client = await mcpClient(gw.url, 'cases', tenant.token);
    clients.push(client);
    const alias = (i: number): string => `c${i}: cases(pagination: { limit: 200 }) { items { id } }`;
    const bomb = `{ ${Array.from({ length: 660 }, (_, i) => alias(i)).join(' ')} }`;
    const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
    const casesBefore = cases.stats.requests;
    const result = await client.callTool({ name: 'cases__graphql_query', arguments: { query: bomb } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      casesDescriptor.errors['document_too_costly']!.text.replace('{upstream}', 'Ordrestyring')
        .replace('{list_selections}', '660')
        .replace('{max_list_selections}', '20')
        .replace('{estimated_rows}', '132000')
        .replace('{max_estimated_rows}', '10000')
        .replace('{assumed_page_size}', '200'),
    );
    expect(cases.stats.requests).toBe(casesBefore);
    expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before);
    // An ordinary query of a few pages still goes through (and is metered once).
    const ordinary = await client.callTool({
      name: 'cases__graphql_query',
      arguments: {
        query:
          '{ a: cases(pagination: { limit: 200 }) { items { id } } b: ' +
          'cases(pagination: { limit: 5 }) { items { id caseNumber } } }',
      },
    });
    expect(ordinary.isError).toBeFalsy();
    expect(cases.stats.requests).toBe(casesBefore + 1);
    expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before + 1);
  });

  it('a call that passes the handler checks is metered once', async () => {
    const client = await mcpClient(gw.url, 'ledger', tenant.token);
    clients.push(client);
    const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
    const result = await client.callTool({ name: 'ledger__list_debtors', arguments: { account: '10001' } });
    expect(result.isError).toBeFalsy();
    expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before + 1);
  });
});

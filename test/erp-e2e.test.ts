// The ERP connector end to end: an MCP client → the gateway → the Business Central sandbox over
// HTTP. What a new user does: find the environments and companies, read the company, see which
// sets are queryable, page through customers with the opaque cursor, filter with a doubled quote,
// expand invoice lines; and what must never happen: a write, an @odata key, a webhook secret.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  ERP_APOSTROPHE_CUSTOMER,
  ERP_DEMO_COMPANY_ID,
  ERP_DEMO_COMPANY_NAME,
  ERP_SUBSCRIPTION_CLIENT_STATE,
} from '../sandbox/erp/data.ts';
import { ERP_SANDBOX_TOKEN, startErpSandbox } from '../sandbox/erp/server.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  resultJson,
  resultText,
  startGateway,
  type StartedGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';

describe('ERP end to end against its sandbox', () => {
  let store: PlatformStore;
  let sandbox: Awaited<ReturnType<typeof startErpSandbox>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  let client: Client;
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name: `erp__${name}`, arguments: args });

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startErpSandbox({});
    gw = await startGateway(store, {
      env: { CONNECTOR_ERP_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' },
    });
    tenant = await createTenant(store, { subscribe: ['erp'] });
    await connectTenant(gw, tenant, 'erp', { accessToken: ERP_SANDBOX_TOKEN });
    client = await mcpClient(gw.url, 'erp', tenant.token);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('lists the Business Central environments and the companies of Production', async () => {
    const envs = resultJson(await call('list_environments')) as
      | { environments?: { name: string }[] }
      | { name: string }[];
    expect(JSON.stringify(envs)).toContain('Production');
    expect(JSON.stringify(envs)).toContain('Sandbox');
    expect(JSON.stringify(envs)).not.toContain('FieldServiceProd');
    const companies = JSON.stringify(resultJson(await call('list_companies')));
    expect(companies).toContain(ERP_DEMO_COMPANY_ID);
    expect(companies).toContain(ERP_DEMO_COMPANY_NAME);
    expect(companies).not.toContain('@odata');
  });

  it('reads the company information and the entity metadata', async () => {
    const info = JSON.stringify(resultJson(await call('get_company_information', { companyId: ERP_DEMO_COMPANY_ID })));
    expect(info).toContain(ERP_DEMO_COMPANY_NAME.split(' ')[0]);
    expect(info).not.toContain('@odata');
    const meta = JSON.stringify(resultJson(await call('list_entity_metadata', { search: 'customer' })));
    expect(meta).toContain('customers');
  });

  it('pages through all customers with the opaque cursor, each row once', async () => {
    const ids = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = resultJson(
        await call('query_entity', {
          companyId: ERP_DEMO_COMPANY_ID,
          entity: 'customers',
          select: ['id', 'displayName'],
          pageSize: 50,
          ...(cursor ? { cursor } : {}),
        }),
      ) as {
        items?: { id: string }[];
        value?: { id: string }[];
        nextCursor?: string | null;
      };
      const rows = page.items ?? page.value ?? [];
      for (const r of rows) ids.add(r.id);
      expect(JSON.stringify(page)).not.toContain('@odata');
      expect(page.nextCursor ?? '').not.toContain('http');
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(ids.size).toBe(120);
  });

  it('refuses an altered cursor without any request upstream', async () => {
    const first = resultJson(
      await call('query_entity', { companyId: ERP_DEMO_COMPANY_ID, entity: 'customers', select: ['id'], pageSize: 50 }),
    ) as { nextCursor: string };
    const before = sandbox.stats.requests;
    const altered = `${first.nextCursor.slice(0, -2)}${first.nextCursor.endsWith('A') ? 'BB' : 'AA'}`;
    const refused = await call('query_entity', {
      companyId: ERP_DEMO_COMPANY_ID,
      entity: 'customers',
      cursor: altered,
    });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe('Invalid cursor. Restart the query without a cursor to get a fresh first page.');
    expect(sandbox.stats.requests).toBe(before);
  });

  it('a next link with options the gateway did not send (`$expand=*&$top=100000&callback=x`) is dropped', async () => {
    sandbox.setSwitches({ nextLinkExtraQuery: '$expand=*&$top=100000&callback=x' });
    try {
      const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
      sandbox.resetStats();
      const first = await call('query_entity', {
        companyId: ERP_DEMO_COMPANY_ID,
        entity: 'customers',
        select: ['id'],
        pageSize: 50,
      });
      expect(first.isError).toBe(true);
      expect(resultText(first)).toBe('Invalid cursor. Restart the query without a cursor to get a fresh first page.');
      // The page was read (one unit, DECISIONS §8); the tampered link was never requested.
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before + 1);
      const reads = sandbox.requests.filter((r) => r.path.endsWith('/customers'));
      expect(reads).toHaveLength(1);
      expect(reads[0]!.query).toEqual({ $select: 'id' });
      expect(sandbox.requests.some((r) => 'callback' in r.query || '$skiptoken' in r.query)).toBe(false);
    } finally {
      sandbox.resetSwitches();
    }
    // The clean link of the same query pages on, and a refused continuation costs nothing.
    const clean = resultJson(
      await call('query_entity', { companyId: ERP_DEMO_COMPANY_ID, entity: 'customers', select: ['id'], pageSize: 50 }),
    ) as { nextCursor: string };
    const next = resultJson(
      await call('query_entity', {
        companyId: ERP_DEMO_COMPANY_ID,
        entity: 'customers',
        cursor: clean.nextCursor,
        pageSize: 50,
      }),
    ) as { items: unknown[] };
    expect(next.items).toHaveLength(50);
    const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
    const requests = sandbox.stats.requests;
    const refused = await call('query_entity', {
      companyId: ERP_DEMO_COMPANY_ID,
      entity: 'vendors',
      cursor: clean.nextCursor,
    });
    expect(resultText(refused)).toBe('Invalid cursor. Restart the query without a cursor to get a fresh first page.');
    expect(sandbox.stats.requests).toBe(requests);
    expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before);
  });

  it('filters with a doubled quote and expands invoice lines', async () => {
    const found = JSON.stringify(
      resultJson(
        await call('query_entity', {
          companyId: ERP_DEMO_COMPANY_ID,
          entity: 'customers',
          filter: `displayName eq '${ERP_APOSTROPHE_CUSTOMER.replaceAll("'", "''")}'`,
          select: ['displayName'],
        }),
      ),
    );
    expect(found).toContain('Brien');
    const invoices = JSON.stringify(
      resultJson(
        await call('query_entity', {
          companyId: ERP_DEMO_COMPANY_ID,
          entity: 'salesInvoices',
          expand: 'salesInvoiceLines',
          pageSize: 2,
        }),
      ),
    );
    expect(invoices).toContain('salesInvoiceLines');
    expect(invoices).not.toContain('@odata');
  });

  it('answers an unknown entity with the closest matches, and a bad filter with the upstream message', async () => {
    const unknown = await call('query_entity', { companyId: ERP_DEMO_COMPANY_ID, entity: 'custmers' });
    expect(resultText(unknown)).toMatch(/^Unknown entity 'custmers'\. Closest matches: .*customers/);
    const bad = await call('query_entity', {
      companyId: ERP_DEMO_COMPANY_ID,
      entity: 'customers',
      filter: 'nosuchfield eq 1',
    });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/^Business Central|rejected the request \(400 /);
  });

  it('never sends a write and never returns the webhook secret of a subscription', async () => {
    const subs = JSON.stringify(
      resultJson(await call('query_entity', { companyId: ERP_DEMO_COMPANY_ID, entity: 'subscriptions' })),
    );
    expect(subs).not.toContain(ERP_SUBSCRIPTION_CLIENT_STATE);
    expect(sandbox.stats.writeLog).toEqual([]);
  });
});

// The case-management connector end to end: an MCP client → the gateway → the GraphQL sandbox
// (a real graphql-js schema). Every upstream request is recorded: no document that writes or that
// the spec refuses ever reaches it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { casesDescriptor } from '../generated/cases/descriptor.ts';
import { clearSchemaMaps } from '../handlers/cases/schema-map.ts';
import { localMidnightUnix, nextDay } from '../handlers/cases/period.ts';
import { openStore } from '../runtime/platform/open-store.ts';
import type { PlatformStore } from '../runtime/platform/store.ts';
import { BIG_HOURS_CASE_ID, casesDataset, DEMO_CASE_ID, DST_CASE_ID, DST_DAYS, MANY_INVOICES_CASE_ID, SEARCH_WORD, SIX_HUNDRED_HOURS_CASE_ID, UNKNOWN_CASE_ID } from '../sandbox/cases/data.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import { createTenant, mcpClient, startGateway, type StartedGateway, reconnectParts, resultJson, resultText, connectTenant } from './support/gateway.ts';

const NOW = new Date('2026-11-13T15:00:00Z');
const json = resultJson;
const text = resultText;
const texts = casesDescriptor.errors;

describe('case management end to end against its sandbox', () => {
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let gw: StartedGateway;
  let client: Client;
  const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name: `cases__${name}`, arguments: args });

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 100_000 });
    gw = await startGateway(store, { env: { CONNECTOR_CASES_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' }, now: () => NOW });
    const t = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, t, 'cases', { apiKey: sandbox.tokens.demo });
    client = await mcpClient(gw.url, 'cases', t.token);
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });
  beforeEach(() => {
    sandbox.resetSwitches();
    clearSchemaMaps();
  });

  it('a new user finds a case by text, reads last month, discovers an unknown field and reads it', async () => {
    const found = json(await call('find_cases', { text: SEARCH_WORD }));
    expect(found).toMatchObject({ scanned: 600, pagesScanned: 3, truncated: true });
    expect(found.count).toBe(3);
    expect(found.note).toBe(casesDescriptor.texts.findCasesTruncated!.replace('{scanned}', '600').replace('{pages}', '3'));
    const wider = json(await call('find_cases', { text: SEARCH_WORD.toUpperCase(), maxPages: 5 }));
    expect(wider).toMatchObject({ count: 4, scanned: 1000, pagesScanned: 5, truncated: true });
    const caseId = found.items[0].id as number;
    const summary = json(await call('get_case_work_summary', { caseId, from: '2026-10-01', to: '2026-10-31' }));
    expect(summary.period).toEqual({
      from: '2026-10-01',
      to: '2026-10-31',
      fromUnix: localMidnightUnix('2026-10-01', 'Europe/Copenhagen'),
      toUnix: localMidnightUnix('2026-11-01', 'Europe/Copenhagen'),
      toIsExclusive: true,
      timeZone: 'Europe/Copenhagen',
    });
    expect(summary.hours).toHaveProperty('rows');
    expect(summary.materials).toHaveProperty('totalCostPrice');
    expect(summary.amountsNote).toBe(casesDescriptor.texts.amountsNote);
    const schema = json(await call('introspect_schema', { search: 'hour' }));
    expect(schema.fields.map((f: { name: string }) => f.name)).toContain('hours');
    const hourType = json(await call('describe_type', { name: 'Hour' }));
    expect(hourType.found).toBe(true);
    expect(hourType.fields.items.map((f: { name: string }) => f.name)).toContain('billableHours');
    const data = json(
      await call('graphql_query', {
        query: `query Q($case: Int) { hours(pagination: { limit: 3 }, filters: { case: $case }) { items { id billableHours description } nextCursor } }`,
        variables: { case: SIX_HUNDRED_HOURS_CASE_ID },
      }),
    );
    expect(data.hours.items.length).toBeGreaterThan(0);
    expect(data.hours.items[0]).toHaveProperty('billableHours');
  });

  it('pages list_cases with the upstream cursor, and reads one case or a validation error', async () => {
    const first = json(await call('list_cases', { limit: 2, orderBy: 'id', direction: 'ASC' }));
    expect(first).toMatchObject({ count: 2, hasMore: true });
    const second = json(await call('list_cases', { limit: 2, orderBy: 'id', direction: 'ASC', cursor: first.nextCursor }));
    expect(second.items[0].id).toBeGreaterThan(first.items[1].id);
    expect(json(await call('get_case', { id: DEMO_CASE_ID }))).toMatchObject({ id: DEMO_CASE_ID, caseNumber: '24003' });
    expect(text(await call('get_case', { id: UNKNOWN_CASE_ID }))).toBe('Ordrestyring rejected the request: id: The selected id is invalid.');
    sandbox.setSwitches({ validationLayout: 'legacy' });
    expect(text(await call('get_case', { id: UNKNOWN_CASE_ID }))).toBe('Ordrestyring rejected the request: id: The selected id is invalid.');
  });

  it('caps hours and invoices at maxRows and the summary at 2,000 rows, with truncated set', async () => {
    const hours = json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }));
    expect(hours).toMatchObject({ count: 500, truncated: true });
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID, maxRows: 2000 }))).toMatchObject({ count: 600, truncated: false });
    const summary = json(await call('get_case_work_summary', { caseId: BIG_HOURS_CASE_ID }));
    expect(summary.hours).toMatchObject({ rows: 2000, truncated: true });
    const invoices = json(await call('list_case_sales_invoices', { caseId: MANY_INVOICES_CASE_ID }));
    expect(invoices).toMatchObject({ count: 500, truncated: true });
    expect(invoices.items[0]).toHaveProperty('amount');
  });

  it('counts hours of daylight-saving days exactly by Copenhagen calendar day', async () => {
    const company = casesDataset().companies.get(1)!;
    const rows = company.hoursByCase.get(DST_CASE_ID)!;
    for (const day of DST_DAYS) {
      const from = localMidnightUnix(day, 'Europe/Copenhagen');
      const to = localMidnightUnix(nextDay(day), 'Europe/Copenhagen');
      const expected = rows.filter((h) => h.startTime >= from && h.startTime < to);
      const r = json(await call('list_case_hours', { caseId: DST_CASE_ID, from: day, to: day, maxRows: 2000 }));
      expect(r.count, day).toBe(expected.length);
      expect(r.costPriceTotal).toBeCloseTo(
        expected.reduce((s, h) => s + h.costPrice, 0),
        6,
      );
      expect(r.period.toUnix - r.period.fromUnix).toBe(day.endsWith('-03-30') || day.endsWith('-03-29') ? 23 * 3600 : 25 * 3600);
    }
    sandbox.setSwitches({ betweenTo: 'exclusive' });
    clearSchemaMaps();
    const day = DST_DAYS[1];
    const r = json(await call('list_case_hours', { caseId: DST_CASE_ID, from: day, to: day }));
    const from = localMidnightUnix(day, 'Europe/Copenhagen');
    const to = localMidnightUnix(nextDay(day), 'Europe/Copenhagen');
    expect(r.count).toBe(rows.filter((h) => h.startTime >= from && h.startTime < to).length);
  });

  it('degrades cleanly on the public schema and the upper-case enum spelling', async () => {
    sandbox.setSwitches({ schemaMode: 'public' });
    const c = json(await call('get_case', { id: DEMO_CASE_ID }));
    expect(c).toMatchObject({ id: DEMO_CASE_ID });
    expect(c.foreman === null || typeof c.foreman.fullName === 'string').toBe(true);
    sandbox.setSwitches({ schemaMode: 'upper-enum' });
    clearSchemaMaps();
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID, from: '2000-01-01' })).count).toBe(500);
  });

  it('a transient failure of schema discovery does not poison the next call (upper-case enum spellings)', async () => {
    sandbox.setSwitches({ schemaMode: 'upper-enum', failNext: { count: 1, status: 500 } });
    // The first call of the connection meets a 500 on discovery: the public names serve this call
    // only (the enum spelling comes from the validation answer), and nothing of it is remembered.
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }))).toMatchObject({ count: 500, truncated: true });
    expect(sandbox.switches.failNext.count).toBe(0);
    sandbox.resetStats();
    const hours = json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }));
    expect(hours).toMatchObject({ count: 500, truncated: true });
    const invoices = json(await call('list_case_sales_invoices', { caseId: MANY_INVOICES_CASE_ID }));
    expect(invoices).toMatchObject({ count: 500, truncated: true });
    const summary = json(await call('get_case_work_summary', { caseId: SIX_HUNDRED_HOURS_CASE_ID }));
    expect(summary.hours).toMatchObject({ rows: 600, truncated: false });
    expect(summary.salesInvoices).toHaveProperty('amountTotal');
    const documents = sandbox.stats.requestBodies.map((b) => (b as { query: string }).query);
    expect(documents.some((q) => /field: START_TIME/.test(q))).toBe(true);
    expect(documents.some((q) => /field: DATE/.test(q))).toBe(true);
    expect(documents.some((q) => /field: (startTime|date)\b/.test(q))).toBe(false);
  });

  it('learns the enum spelling from the validation answer when introspection is disabled, and remembers it', async () => {
    sandbox.setSwitches({ schemaMode: 'upper-enum', introspection: false });
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }))).toMatchObject({ count: 500, truncated: true });
    expect(json(await call('list_case_sales_invoices', { caseId: MANY_INVOICES_CASE_ID }))).toMatchObject({ count: 500, truncated: true });
    sandbox.resetStats();
    const summary = json(await call('get_case_work_summary', { caseId: SIX_HUNDRED_HOURS_CASE_ID }));
    expect(summary.hours).toMatchObject({ rows: 600, truncated: false });
    expect(summary.salesInvoices).toHaveProperty('amountTotal');
    // Remembered: the second time no document with the other spelling is sent.
    const documents = sandbox.stats.requestBodies.map((b) => (b as { query: string }).query);
    expect(documents.some((q) => /field: (startTime|date)\b/.test(q))).toBe(false);
    // A failure on the public spelling that is not about the spelling is not retried with another one.
    sandbox.setSwitches({ schemaMode: 'extended', introspection: false, sqlErrorField: 'Query.hours' });
    clearSchemaMaps();
    sandbox.resetStats();
    expect(text(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }))).toBe('Tool invocation failed.');
    expect(sandbox.stats.requestBodies.filter((b) => /CaseHours/.test((b as { query: string }).query))).toHaveLength(1);
  });

  it('gives the spec texts for a rejected key, throttling and a disabled introspection', async () => {
    const reconnect = texts.key_rejected.text.replace('{upstream}', 'Ordrestyring');
    for (const unauthenticated of ['http401', 'http403', 'http200'] as const) {
      sandbox.setSwitches({ unauthenticated, revokedTokens: [sandbox.tokens.demo] });
      const r = await call('list_cases');
      expect(r.isError).toBe(true);
      // One text block: the spec's text, then the reconnect instruction with its link.
      expect(r.content).toHaveLength(1);
      expect(reconnectParts(r)).toMatchObject({ text: reconnect, link: expect.stringMatching(/\/portal\/connect\/\S+$/) });
    }
    sandbox.resetSwitches();
    sandbox.setSwitches({ throttleNext: 1, retryAfter: 30 });
    expect(json(await call('list_cases', { limit: 1 })).count).toBe(1); // throttled once, retried after the clamped wait
    sandbox.setSwitches({ throttleNext: 2, throttleMode: 'http200' });
    expect(text(await call('list_cases', { limit: 1 }))).toBe(texts.throttled.text.replace('{upstream}', 'Ordrestyring'));
    sandbox.resetSwitches();
    sandbox.setSwitches({ introspection: false });
    expect(text(await call('introspect_schema'))).toBe('Tool invocation failed.');
    expect(json(await call('list_cases', { limit: 1 })).count).toBe(1);
  });

  it('cases-2 connected with a key the upstream rejects: get_case answers one text block holding the spec text and the connect link of cases-2', async () => {
    const t = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, t, 'cases', { apiKey: 'rejected-by-the-sandbox-4Rw' }, 'cases-2');
    const other = await mcpClient(gw.url, 'cases-2', t.token);
    try {
      const r = await other.callTool({ name: 'cases-2__get_case', arguments: { id: DEMO_CASE_ID } });
      expect(r.isError).toBe(true);
      expect(r.content).toEqual([{ type: 'text', text: expect.any(String) }]);
      const { text: first, instruction, link } = reconnectParts(r);
      expect(first).toBe(texts.key_rejected.text.replace('{upstream}', 'Ordrestyring'));
      expect(instruction).toMatch(/^Reconnect .+ for the endpoint cases-2 here \(.*\): http:\/\/127\.0\.0\.1:\d+\/portal\/connect\/\S+$/);
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/portal\/connect\/\S+$/);
    } finally {
      await other.close();
    }
  });

  it('refuses a result over the connector result cap with the generic text, for every tool that grows with the data', async () => {
    const wide = await call('find_cases', { text: 'e', maxPages: 5 });
    expect(text(wide).length).toBeLessThan(1000);
    expect(text(wide)).toBe(texts.generic.text);
    expect(wide.isError).toBe(true);
    const cap = casesDescriptor.limits.resultMaxChars!;
    expect(cap).toBe(100_000);
    // Just under the cap still answers.
    const narrow = await call('find_cases', { text: SEARCH_WORD, maxPages: 5 });
    expect(narrow.isError).toBeFalsy();
    expect(text(narrow).length).toBeLessThanOrEqual(cap);
    // A full page of 200 cases answers (under the cap), a big hour listing answers too.
    expect(text(await call('list_cases', { limit: 200 })).length).toBeLessThanOrEqual(cap);
    expect(json(await call('list_case_hours', { caseId: BIG_HOURS_CASE_ID, maxRows: 2000 })).count).toBe(2000);
  });

  it('sends no document that writes, and nothing the document check refuses', async () => {
    sandbox.resetStats();
    for (const query of [
      'mutation { updateCase(id: 1, description: "x") { id } }',
      'subscription S { cases { id } }',
      'query A { __typename } mutation B { updateCase(id: 1) { id } }',
      'type Query { x: Int }',
      `{ ${'a { '.repeat(5000)}`,
      '{ caseById(id: 1) { id } } # ' + '#'.repeat(70_000),
    ]) {
      expect(text(await call('graphql_query', { query }))).toBe('Tool invocation failed.');
    }
    expect(sandbox.stats.requests).toBe(0);
    expect(sandbox.mutationLog).toEqual([]);
  });
});

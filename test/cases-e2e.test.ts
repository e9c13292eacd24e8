// The case-management connector end to end: an MCP client → the gateway → the GraphQL sandbox
// (a real graphql-js schema). Every upstream request is recorded: no document that writes or that
// the spec refuses ever reaches it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { casesDescriptor } from '../generated/cases/descriptor.ts';
import { clearSchemaMaps } from '../handlers/cases/schema-map.ts';
import { localMidnightUnix, nextDay } from '../handlers/cases/period.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  BIG_HOURS_CASE_ID,
  casesDataset,
  DEMO_CASE_ID,
  DST_CASE_ID,
  DST_DAYS,
  MANY_INVOICES_CASE_ID,
  PARENT_CASE_ID,
  SEARCH_WORD,
  SIX_HUNDRED_HOURS_CASE_ID,
  UNKNOWN_CASE_ID,
  type CaseRecord,
} from '../sandbox/cases/data.ts';
import type { CasesSchemaShapes } from '../sandbox/cases/schema.ts';
import { startCasesSandbox, type CasesSandbox, type CasesSwitches } from '../sandbox/cases/server.ts';
import {
  createTenant,
  mcpClient,
  startGateway,
  type StartedGateway,
  reconnectParts,
  resultJson,
  resultText,
  connectTenant,
} from './support/gateway.ts';

const NOW = new Date('2026-11-13T15:00:00Z');
const json = resultJson;
const text = resultText;
const texts = casesDescriptor.errors;
const company = () => casesDataset().companies.get(1)!;

/** The cases most recently updated first (ties on id, descending), as the upstream orders them. */
const newestFirst = (): CaseRecord[] => [...company().cases].sort((a, b) => b.updatedAt - a.updatedAt || b.id - a.id);
const matches = (c: CaseRecord, needle: string) =>
  [c.caseNumber, c.description, c.customer.name].some((v) => v.toLocaleLowerCase('da-DK').includes(needle));

/**
 * The schema shapes public material disagrees on (docs/decisions/connector-cases.md, 'Case-management schema shapes
 * learned, not assumed'), each on its own and all
 * together (a public client's model of the same API), learned from introspection; with
 * introspection disabled, learned from the upstream's validation answers. Every tool runs against
 * each (the schema tools fail by the spec when introspection is disabled).
 */
const SHAPES: ReadonlyArray<[name: string, shapes: CasesSchemaShapes, introspection: boolean]> = [
  ["today's shapes", { caseTexts: 'object', orderBy: 'list', hoursCaseFilter: 'int' }, true],
  ['scalar status and caseType', { caseTexts: 'scalar', orderBy: 'list', hoursCaseFilter: 'int' }, true],
  ['single-object orderBy', { caseTexts: 'object', orderBy: 'object', hoursCaseFilter: 'int' }, true],
  ['object hours case filter', { caseTexts: 'object', orderBy: 'list', hoursCaseFilter: 'object' }, true],
  ['all three public-client shapes', { caseTexts: 'scalar', orderBy: 'object', hoursCaseFilter: 'object' }, true],
  ["today's shapes, introspection disabled", { caseTexts: 'object', orderBy: 'list', hoursCaseFilter: 'int' }, false],
  [
    'all three public-client shapes, introspection disabled',
    { caseTexts: 'scalar', orderBy: 'object', hoursCaseFilter: 'object' },
    false,
  ],
];
const switchesOf = (shapes: CasesSchemaShapes, introspection: boolean): Partial<CasesSwitches> => ({
  caseTexts: shapes.caseTexts,
  orderByShape: shapes.orderBy,
  hoursCaseFilter: shapes.hoursCaseFilter,
  introspection,
});

describe('case management end to end against its sandbox', () => {
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let gw: StartedGateway;
  let client: Client;
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name: `cases__${name}`, arguments: args });

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 100_000 });
    gw = await startGateway(store, {
      env: { CONNECTOR_CASES_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' },
      now: () => NOW,
    });
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
    // The note names list_cases as this endpoint serves it.
    expect(found.note).toBe(
      renderToolReferences(casesDescriptor.texts.findCasesTruncated!, 'cases')
        .replace('{scanned}', '600')
        .replace('{pages}', '3'),
    );
    expect(found.note).toContain('page through cases__list_cases.');
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
        query:
          'query Q($case: Int) { hours(pagination: { limit: 3 }, filters: { case: ' +
          '$case }) { items { id billableHours description } nextCursor } }',
        variables: { case: SIX_HUNDRED_HOURS_CASE_ID },
      }),
    );
    expect(data.hours.items.length).toBeGreaterThan(0);
    expect(data.hours.items[0]).toHaveProperty('billableHours');
  });

  it('pages list_cases with the upstream cursor, and reads one case or a validation error', async () => {
    const first = json(await call('list_cases', { limit: 2, orderBy: 'id', direction: 'ASC' }));
    expect(first).toMatchObject({ count: 2, hasMore: true });
    const second = json(
      await call('list_cases', { limit: 2, orderBy: 'id', direction: 'ASC', cursor: first.nextCursor }),
    );
    expect(second.items[0].id).toBeGreaterThan(first.items[1].id);
    expect(json(await call('get_case', { id: DEMO_CASE_ID }))).toMatchObject({ id: DEMO_CASE_ID, caseNumber: '24003' });
    expect(text(await call('get_case', { id: UNKNOWN_CASE_ID }))).toBe(
      'Ordrestyring rejected the request: id: The selected id is invalid.',
    );
    sandbox.setSwitches({ validationLayout: 'legacy' });
    expect(text(await call('get_case', { id: UNKNOWN_CASE_ID }))).toBe(
      'Ordrestyring rejected the request: id: The selected id is invalid.',
    );
  });

  it('caps hours and invoices at maxRows and the summary at 2,000 rows, with truncated set', async () => {
    const hours = json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }));
    expect(hours).toMatchObject({ count: 500, truncated: true });
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID, maxRows: 2000 }))).toMatchObject({
      count: 600,
      truncated: false,
    });
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
      expect(r.period.toUnix - r.period.fromUnix).toBe(
        day.endsWith('-03-30') || day.endsWith('-03-29') ? 23 * 3600 : 25 * 3600,
      );
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
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID, from: '2000-01-01' })).count).toBe(
      500,
    );
  });

  it('a transient failure of schema discovery does not poison the next call (upper-case enum spellings)', async () => {
    sandbox.setSwitches({ schemaMode: 'upper-enum', failNext: { count: 1, status: 500 } });
    // The first call of the connection meets a 500 on discovery: the public names serve this call
    // only (the enum spelling comes from the validation answer), and nothing of it is remembered.
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }))).toMatchObject({
      count: 500,
      truncated: true,
    });
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

  it('learns the enum spelling from the validation answer without introspection, and remembers it', async () => {
    sandbox.setSwitches({ schemaMode: 'upper-enum', introspection: false });
    expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }))).toMatchObject({
      count: 500,
      truncated: true,
    });
    expect(json(await call('list_case_sales_invoices', { caseId: MANY_INVOICES_CASE_ID }))).toMatchObject({
      count: 500,
      truncated: true,
    });
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
      expect(reconnectParts(r)).toMatchObject({
        text: reconnect,
        link: expect.stringMatching(/\/portal\/connect\/\S+$/),
      });
    }
    sandbox.resetSwitches();
    sandbox.setSwitches({ throttleNext: 1, retryAfter: 30 });
    // throttled once, retried after the clamped wait
    expect(json(await call('list_cases', { limit: 1 })).count).toBe(1);
    sandbox.setSwitches({ throttleNext: 2, throttleMode: 'http200' });
    expect(text(await call('list_cases', { limit: 1 }))).toBe(
      texts.throttled.text.replace('{upstream}', 'Ordrestyring'),
    );
    sandbox.resetSwitches();
    sandbox.setSwitches({ introspection: false });
    expect(text(await call('introspect_schema'))).toBe('Tool invocation failed.');
    expect(json(await call('list_cases', { limit: 1 })).count).toBe(1);
  });

  it('cases-2 with a key the upstream rejects: get_case answers one text block: spec text, connect link', async () => {
    const t = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, t, 'cases', { apiKey: 'rejected-by-the-sandbox-4Rw' }, 'cases-2');
    const other = await mcpClient(gw.url, 'cases-2', t.token);
    try {
      const r = await other.callTool({ name: 'cases-2__get_case', arguments: { id: DEMO_CASE_ID } });
      expect(r.isError).toBe(true);
      expect(r.content).toEqual([{ type: 'text', text: expect.any(String) }]);
      const { text: first, instruction, link } = reconnectParts(r);
      expect(first).toBe(texts.key_rejected.text.replace('{upstream}', 'Ordrestyring'));
      expect(instruction).toMatch(
        /^Reconnect .+ for the endpoint cases-2 here \(.*\): http:\/\/127\.0\.0\.1:\d+\/portal\/connect\/\S+$/,
      );
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/portal\/connect\/\S+$/);
    } finally {
      await other.close();
    }
  });

  it('answers a broad find_cases with the newest matches that fit, the match count and how to narrow', async () => {
    const cap = casesDescriptor.limits.resultMaxChars!;
    expect(cap).toBe(100_000);
    for (const [args, pages] of [
      [{ text: 'a' }, 3],
      [{ text: 'e', maxPages: 5 }, 5],
    ] as const) {
      const r = await call('find_cases', args);
      expect(r.isError, args.text).toBeFalsy();
      expect(text(r).length).toBeLessThanOrEqual(cap);
      const found = json(r);
      const scannedCases = newestFirst().slice(0, pages * 200);
      const all = scannedCases.filter((c) => matches(c, args.text));
      expect(found).toMatchObject({ matched: all.length, scanned: pages * 200, pagesScanned: pages, truncated: true });
      expect(found.count).toBeGreaterThan(0);
      expect(found.count).toBeLessThan(all.length);
      expect(found.items).toHaveLength(found.count);
      // Newest first: the first `count` of all matches, in order.
      expect(found.items.map((c: { id: number }) => c.id)).toEqual(all.slice(0, found.count).map((c) => c.id));
      const overflow = casesDescriptor.texts
        .findCasesOverflow!.replace('{matched}', String(all.length))
        .replace('{scanned}', String(pages * 200))
        .replace('{count}', String(found.count))
        .replace('{max_chars}', String(cap));
      expect(found.note).toContain(overflow);
      expect(found.note).toContain(
        renderToolReferences(casesDescriptor.texts.findCasesTruncated!, 'cases')
          .replace('{scanned}', String(pages * 200))
          .replace('{pages}', String(pages)),
      );
    }
  });

  it('keeps the answers of the other tools that grow with the data under the connector result cap', async () => {
    const cap = casesDescriptor.limits.resultMaxChars!;
    // Just under the cap still answers.
    const narrow = await call('find_cases', { text: SEARCH_WORD, maxPages: 5 });
    expect(narrow.isError).toBeFalsy();
    expect(text(narrow).length).toBeLessThanOrEqual(cap);
    expect(json(narrow)).toMatchObject({ count: 4, matched: 4 });
    expect(json(narrow).note).toBe(
      renderToolReferences(casesDescriptor.texts.findCasesTruncated!, 'cases')
        .replace('{scanned}', '1000')
        .replace('{pages}', '5'),
    );
    // A full page of 200 cases answers (under the cap), a big hour listing answers too.
    expect(text(await call('list_cases', { limit: 200 })).length).toBeLessThanOrEqual(cap);
    expect(json(await call('list_case_hours', { caseId: BIG_HOURS_CASE_ID, maxRows: 2000 })).count).toBe(2000);
  });

  describe.each(SHAPES)('every tool against the schema shapes: %s', (_name, shapes, introspection) => {
    beforeEach(() => {
      sandbox.setSwitches(switchesOf(shapes, introspection));
      sandbox.resetStats();
    });
    const documents = () => sandbox.stats.requestBodies.map((b) => (b as { query: string }).query.replace(/\s+/g, ' '));
    const caseTexts = (c: CaseRecord) => ({ status: { text: c.status.text }, caseType: { text: c.caseType.text } });

    it('list_cases, find_cases and get_case: the spec shapes, the upstream order and paging', async () => {
      const newest = newestFirst();
      const page = json(await call('list_cases', { limit: 5 }));
      expect(page).toMatchObject({ count: 5, hasMore: true });
      expect(page.items.map((c: { id: number }) => c.id)).toEqual(newest.slice(0, 5).map((c) => c.id));
      for (const [i, item] of page.items.entries()) expect(item).toMatchObject(caseTexts(newest[i]!));
      const byId = [...company().cases].sort((a, b) => a.id - b.id);
      const first = json(await call('list_cases', { limit: 2, orderBy: 'id', direction: 'ASC' }));
      const second = json(
        await call('list_cases', { limit: 2, orderBy: 'id', direction: 'ASC', cursor: first.nextCursor }),
      );
      expect([...first.items, ...second.items].map((c: { id: number }) => c.id)).toEqual(
        byId.slice(0, 4).map((c) => c.id),
      );

      const found = json(await call('find_cases', { text: SEARCH_WORD }));
      const expected = newest.slice(0, 600).filter((c) => matches(c, SEARCH_WORD));
      expect(found).toMatchObject({ count: expected.length, matched: expected.length, scanned: 600, truncated: true });
      expect(found.items).toEqual(expected.map((c) => expect.objectContaining({ id: c.id, ...caseTexts(c) })));
      const broad = json(await call('find_cases', { text: 'a' }));
      expect(broad.matched).toBe(newest.slice(0, 600).filter((c) => matches(c, 'a')).length);
      expect(broad.count).toBeLessThan(broad.matched);

      const demo = company().casesById.get(DEMO_CASE_ID)!;
      expect(json(await call('get_case', { id: DEMO_CASE_ID }))).toMatchObject({
        id: DEMO_CASE_ID,
        caseNumber: demo.caseNumber,
        ...caseTexts(demo),
        customer: { name: demo.customer.name },
      });
      expect(text(await call('get_case', { id: UNKNOWN_CASE_ID }))).toBe(
        'Ordrestyring rejected the request: id: The selected id is invalid.',
      );

      // The documents follow the shapes learned from the schema; without introspection the first
      // document may meet the upstream's validation answer, once: the shape learned is remembered.
      const sent = documents();
      const caseDocuments = sent.filter((q) => /ListCases|FindCases|GetCase/.test(q));
      expect(caseDocuments.length).toBeGreaterThan(5);
      const shaped = (q: string) =>
        shapes.caseTexts === 'scalar' ? /\bstatus caseType\b/.test(q) : q.includes('status { text } caseType { text }');
      expect(caseDocuments.filter((q) => !shaped(q))).toHaveLength(
        introspection || shapes.caseTexts === 'object' ? 0 : 1,
      );
      expect(shaped(caseDocuments.at(-1)!)).toBe(true);
      expect(
        sent
          .filter((q) => /ListCases|FindCases/.test(q))
          .every((q) => /orderBy: \{ field: "(updatedAt|id)", direction: (ASC|DESC) \}/.test(q)),
      ).toBe(true);
    });

    it('list_case_hours, list_case_sales_invoices and get_case_work_summary: one case, capped as before', async () => {
      const data = company();
      const parentHours = data.hoursByCase.get(PARENT_CASE_ID)!;
      const subHours = data.casesById.get(PARENT_CASE_ID)!.subCaseIds.flatMap((id) => data.hoursByCase.get(id) ?? []);
      expect(subHours.length).toBeGreaterThan(0);
      const parent = json(await call('list_case_hours', { caseId: PARENT_CASE_ID, maxRows: 2000 }));
      expect(parent).toMatchObject({ caseId: PARENT_CASE_ID, count: parentHours.length, truncated: false });
      expect(parent.costPriceTotal).toBeCloseTo(
        parentHours.reduce((sum, h) => sum + h.costPrice, 0),
        6,
      );
      expect(json(await call('list_case_hours', { caseId: SIX_HUNDRED_HOURS_CASE_ID }))).toMatchObject({
        count: 500,
        truncated: true,
      });
      const invoices = json(await call('list_case_sales_invoices', { caseId: MANY_INVOICES_CASE_ID }));
      expect(invoices).toMatchObject({ count: 500, truncated: true });
      const summary = json(await call('get_case_work_summary', { caseId: SIX_HUNDRED_HOURS_CASE_ID }));
      expect(summary.hours).toMatchObject({ rows: 600, truncated: false });
      expect(summary.materials).toEqual({
        totalCostPrice: data.casesById.get(SIX_HUNDRED_HOURS_CASE_ID)!.economy.materialsCostprice,
        scope: casesDescriptor.texts.materialsScope,
      });
      expect(summary.salesInvoices).toMatchObject({
        count: (data.invoicesByCase.get(SIX_HUNDRED_HOURS_CASE_ID) ?? []).length,
        truncated: false,
      });
      const hourDocuments = documents().filter((q) => q.includes('CaseHours'));
      expect(hourDocuments.length).toBeGreaterThan(2);
      // Introspected: sub-cases excluded explicitly. Without introspection `includeSubcases` is
      // unknown, so only `id` is sent (after one validation answer, remembered).
      const filter =
        shapes.hoursCaseFilter === 'int'
          ? 'filters: { case: $caseId }'
          : introspection
            ? 'filters: { case: { id: $caseId, includeSubcases: false } }'
            : 'filters: { case: { id: $caseId } }';
      expect(hourDocuments.filter((q) => !q.includes(filter))).toHaveLength(
        introspection || shapes.hoursCaseFilter === 'int' ? 0 : 1,
      );
    });

    it('introspect_schema, describe_type and graphql_query: the schema as served', async () => {
      if (introspection) {
        const schema = json(await call('introspect_schema', { search: 'cases' }));
        const signature = schema.fields.find((f: { name: string }) => f.name === 'cases').signature as string;
        expect(signature).toContain(shapes.orderBy === 'list' ? 'orderBy: [OrderByInput]' : 'orderBy: OrderByInput');
        const caseType = json(await call('describe_type', { name: 'Case' }));
        expect(caseType.found).toBe(true);
        expect(caseType.fields.items.map((f: { name: string }) => f.name)).toEqual(
          expect.arrayContaining(['status', 'caseType']),
        );
        const filter = json(await call('describe_type', { name: 'HoursFilterInput' }));
        expect(JSON.stringify(filter.inputFields.items)).toContain(
          shapes.hoursCaseFilter === 'object' ? 'HourCaseFilterInput' : 'Int',
        );
      } else {
        // The spec: the schema tools fail when introspection is disabled for the account.
        expect(text(await call('introspect_schema', { search: 'cases' }))).toBe(texts.generic.text);
        expect(text(await call('describe_type', { name: 'Case' }))).toBe(texts.generic.text);
      }
      const status = shapes.caseTexts === 'scalar' ? 'status' : 'status { text }';
      const caseFilter = shapes.hoursCaseFilter === 'object' ? '{ id: $id }' : '$id';
      const data = json(
        await call('graphql_query', {
          query:
            `query Q($id: Int!) { caseById(id: $id) { id ${status} } cases(pagination: { limit: 1 }, ` +
            'orderBy: { field: "updatedAt", direction: DESC }) { items { id } } hours(pagination: { ' +
            `limit: 200 }, filters: { case: ${caseFilter} }) { items { id } } }`,
          variables: { id: PARENT_CASE_ID },
        }),
      );
      expect(data.caseById.status).toEqual(
        shapes.caseTexts === 'scalar'
          ? company().casesById.get(PARENT_CASE_ID)!.status.text
          : { text: company().casesById.get(PARENT_CASE_ID)!.status.text },
      );
      expect(data.cases.items).toEqual([{ id: newestFirst()[0]!.id }]);
      expect(data.hours.items).toHaveLength(company().hoursByCase.get(PARENT_CASE_ID)!.length);
    });
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

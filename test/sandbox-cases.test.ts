// The case-management sandbox (fake Ordrestyring.dk GraphQL API), tested through its own HTTP
// interface: transport, bearer auth and isolation, cursors and orderBy, between bounds,
// validation layouts, throttling, introspection and schema modes, deprecation, the mutation log,
// faults, the control endpoints and the seeded data the connector relies on.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BIG_HOURS_CASE_ID,
  BIG_HOURS_COUNT,
  CASES_DEMO_TOKEN,
  CASES_OTHER_TOKEN,
  DEMO_CASE_COUNT,
  DEMO_CASE_ID,
  DEMO_CASE_NUMBER,
  DST_CASE_DAYS,
  DST_CASE_ID,
  DST_DAYS,
  MANY_INVOICES_CASE_ID,
  MANY_INVOICES_COUNT,
  OTHER_COMPANY_CASE_IDS,
  PARENT_CASE_ID,
  PARENT_SUB_PAIRS,
  SEARCH_WORD,
  SEARCH_WORD_CASES,
  SHARED_CASE_NUMBER,
  SIX_HUNDRED_HOURS_CASE_ID,
  SIX_HUNDRED_HOURS_COUNT,
  SUB_CASE_IDS,
  UNKNOWN_CASE_ID,
  casesDataset,
  copenhagenDate,
  copenhagenMidnight,
} from '../sandbox/cases/data.ts';
import { FOREIGN_CURSOR_MESSAGE, INVALID_CURSOR_MESSAGE, SQL_ERROR_MESSAGE } from '../sandbox/cases/schema.ts';
import { startCasesSandbox } from '../sandbox/cases/server.ts';
import type { CasesSandbox } from '../sandbox/cases/server.ts';

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: () => any;
}

interface GqlOptions {
  token?: string | null;
  operationName?: string;
  raw?: string;
  method?: string;
  url?: string;
  signal?: AbortSignal;
}

let sandbox: CasesSandbox;

async function post(
  url: string,
  body: string | undefined,
  options: { token?: string | null; method?: string; signal?: AbortSignal } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? CASES_DEMO_TOKEN}`;
  const res = await fetch(url, {
    method: options.method ?? 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

function gql(query: string, variables?: Record<string, unknown>, options: GqlOptions = {}): Promise<Reply> {
  const body =
    options.raw ??
    JSON.stringify({
      query,
      ...(variables === undefined ? {} : { variables }),
      ...(options.operationName === undefined ? {} : { operationName: options.operationName }),
    });
  return post(options.url ?? sandbox.url, options.method === 'GET' ? undefined : body, options);
}

/** Runs a query that must succeed without errors and returns `data`. */
async function data(
  query: string,
  variables?: Record<string, unknown>,
  token: string = CASES_DEMO_TOKEN,
): Promise<any> {
  const r = await gql(query, variables, { token });
  expect(r.status).toBe(200);
  const body = r.json();
  expect(body.errors).toBeUndefined();
  return body.data;
}

function control(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<Reply> {
  const base = sandbox.url.replace(/\/graphql$/, '');
  return fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(async (res) => {
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  });
}

function decodeCursor(cursor: string): unknown {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
}

const CASES_PAGE = `query Page($cursor: String, $limit: Int!, $orderBy: [OrderByInput]) {
  cases(pagination: { cursor: $cursor, limit: $limit }, orderBy: $orderBy) {
    items { id caseNumber updatedAt } nextCursor previousCursor
  }
}`;

const HOURS_PAGE = `query Hours($cursor: String, $case: Int, $between: HourBetweenInput) {
  hours(pagination: { cursor: $cursor, limit: 200 }, filters: { case: $case }, between: $between) {
    items { id startTime costPrice } nextCursor
  }
}`;

const INVOICES_PAGE = `query Invoices($cursor: String, $case: Int, $between: SalesInvoiceBetweenInput) {
  salesInvoices(pagination: { cursor: $cursor, limit: 200 }, filters: { case: $case }, between: $between) {
    items { id date amount case { id } } nextCursor
  }
}`;

async function allPages(
  query: string,
  root: string,
  variables: Record<string, unknown>,
  token = CASES_DEMO_TOKEN,
): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const d = await data(query, { ...variables, cursor }, token);
    items.push(...d[root].items);
    cursor = d[root].nextCursor;
    pages++;
  } while (cursor !== null && pages < 100);
  return { items, pages };
}

beforeAll(async () => {
  sandbox = await startCasesSandbox({ port: 0, rateLimitPerMinute: 1_000_000 });
});

afterAll(async () => {
  await sandbox.close();
});

afterEach(() => {
  sandbox.resetSwitches();
});

describe('cases sandbox: HTTP surface', () => {
  it('listens on 127.0.0.1 with an endpoint URL ending in /graphql and exposes both tokens', () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    expect(sandbox.tokens).toEqual({ demo: CASES_DEMO_TOKEN, other: CASES_OTHER_TOKEN });
    expect(sandbox.switches.schemaMode).toBe('extended');
  });

  it('accepts POST only, answers non-JSON with 400 and a missing query with 400', async () => {
    expect((await gql('{ __typename }', undefined, { method: 'GET' })).status).toBe(405);
    const broken = await gql('', undefined, { raw: '{"query": ' });
    expect(broken.status).toBe(400);
    expect(broken.json().errors[0].message).toMatch(/JSON/);
    expect((await gql('', undefined, { raw: '{"variables":{}}' })).status).toBe(400);
    expect((await gql('{ __typename }', undefined, { raw: '{"query":"{ __typename }","variables":[1]}' })).status).toBe(
      400,
    );
    expect((await gql('{ __typename }', undefined, { url: sandbox.url.replace(/graphql$/, 'graphiql') })).status).toBe(
      404,
    );
  });

  it('returns parse and validation errors with HTTP 200, locations and no data', async () => {
    for (const query of ['{ cases(', '{ nope }', '{ cases { items { id } } }']) {
      const r = await gql(query);
      expect(r.status).toBe(200);
      const body = r.json();
      expect(body).not.toHaveProperty('data');
      expect(body.errors[0].message).toEqual(expect.any(String));
      expect(body.errors[0].locations[0]).toEqual({ line: expect.any(Number), column: expect.any(Number) });
    }
  });

  it('runs the named operation and uses variables', async () => {
    const source = 'query A { caseById(id: 1) { id } } query B($id: Int!) { caseById(id: $id) { id caseNumber } }';
    const d = await gql(source, { id: DEMO_CASE_ID }, { operationName: 'B' });
    expect(d.json()).toEqual({ data: { caseById: { id: DEMO_CASE_ID, caseNumber: DEMO_CASE_NUMBER } } });
  });

  it('records requests for tests (last request, body log)', async () => {
    sandbox.resetStats();
    await gql('{ __typename }', undefined);
    await gql('query Q { caseById(id: 1003) { id } }');
    expect(sandbox.stats.requests).toBe(2);
    expect(sandbox.stats.lastRequest?.headers.authorization).toBe(`Bearer ${CASES_DEMO_TOKEN}`);
    expect(sandbox.stats.lastRequest?.body).toEqual({ query: 'query Q { caseById(id: 1003) { id } }' });
    expect(sandbox.stats.requestBodies).toHaveLength(2);
    const remote = (await control('/__sandbox/stats')).json();
    expect(remote).toMatchObject({ requests: 2, mutationLog: [] });
  });
});

describe('cases sandbox: bearer auth and isolation', () => {
  it('answers a missing or unknown token with 401 {"message":"Unauthenticated."} by default', async () => {
    for (const token of [null, 'not-a-token']) {
      const r = await gql('{ __typename }', undefined, { token });
      expect(r.status).toBe(401);
      expect(r.json()).toEqual({ message: 'Unauthenticated.' });
      expect(r.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
  });

  it('switches to an Unauthenticated. error inside HTTP 200, or to 403', async () => {
    sandbox.setSwitches({ unauthenticated: 'http200' });
    const r = await gql('{ __typename }', undefined, { token: 'wrong' });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      data: null,
      errors: [{ message: 'Unauthenticated.', extensions: { category: 'authentication' } }],
    });
    sandbox.setSwitches({ unauthenticated: 'http403' });
    expect((await gql('{ __typename }', undefined, { token: null })).status).toBe(403);
  });

  it('treats a revoked token as unknown and leaves the other token working', async () => {
    sandbox.setSwitches({ revokedTokens: [CASES_DEMO_TOKEN] });
    expect((await gql('{ __typename }')).status).toBe(401);
    expect((await gql('{ __typename }', undefined, { token: CASES_OTHER_TOKEN })).status).toBe(200);
  });

  it('scopes every resolver to the token company', async () => {
    const other = await allPages(CASES_PAGE, 'cases', { limit: 200 }, CASES_OTHER_TOKEN);
    expect(other.items.map((c) => c.id).sort()).toEqual([...OTHER_COMPANY_CASE_IDS].sort());
    const a = await data('query($n: String!) { caseByCaseNumber(caseNumber: $n) { id } }', { n: SHARED_CASE_NUMBER });
    const b = await data(
      'query($n: String!) { caseByCaseNumber(caseNumber: $n) { id } }',
      { n: SHARED_CASE_NUMBER },
      CASES_OTHER_TOKEN,
    );
    expect(a.caseByCaseNumber.id).not.toBe(b.caseByCaseNumber.id);
    expect(OTHER_COMPANY_CASE_IDS).toContain(b.caseByCaseNumber.id);
    const foreign = (
      await gql('query($id: Int!) { caseById(id: $id) { id } }', { id: OTHER_COMPANY_CASE_IDS[0] })
    ).json();
    expect(foreign.data.caseById).toBeNull();
    expect(foreign.errors[0].extensions.validation).toEqual({ id: ['The selected id is invalid.'] });
    const hours = await data(HOURS_PAGE, { case: OTHER_COMPANY_CASE_IDS[0] });
    expect(hours.hours.items).toEqual([]);
    const invoices = await data(INVOICES_PAGE, {}, CASES_OTHER_TOKEN);
    expect(
      invoices.salesInvoices.items.every((i: any) => (OTHER_COMPANY_CASE_IDS as readonly number[]).includes(i.case.id)),
    ).toBe(true);
  });
});

describe('cases sandbox: cursors, limit and orderBy', () => {
  it('walks every demo case in updatedAt DESC order with ties broken on id', async () => {
    const { items, pages } = await allPages(CASES_PAGE, 'cases', {
      limit: 200,
      orderBy: [{ field: 'updatedAt', direction: 'DESC' }],
    });
    expect(items).toHaveLength(DEMO_CASE_COUNT);
    expect(pages).toBe(Math.ceil(DEMO_CASE_COUNT / 200));
    expect(new Set(items.map((c) => c.id)).size).toBe(DEMO_CASE_COUNT);
    let ties = 0;
    for (let i = 1; i < items.length; i++) {
      const [prev, cur] = [items[i - 1], items[i]];
      expect(cur.updatedAt).toBeLessThanOrEqual(prev.updatedAt);
      if (cur.updatedAt === prev.updatedAt) {
        ties++;
        expect(cur.id).toBeLessThan(prev.id);
      }
    }
    expect(ties).toBeGreaterThan(10);
    for (const { id, rank } of SEARCH_WORD_CASES) expect(items[rank].id).toBe(id);
  });

  it('emits Laravel-style base64url cursors tied to the sort, null at the ends', async () => {
    const first = (await data(CASES_PAGE, { limit: 3, orderBy: { field: 'updatedAt', direction: 'DESC' } })).cases;
    expect(first.previousCursor).toBeNull();
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const last = first.items[2];
    expect(decodeCursor(first.nextCursor)).toEqual({
      updatedAt: last.updatedAt,
      id: last.id,
      _pointsToNextItems: true,
    });
    const second = (
      await data(CASES_PAGE, { limit: 3, cursor: first.nextCursor, orderBy: { field: 'updatedAt', direction: 'DESC' } })
    ).cases;
    expect(second.items[0].id).not.toBe(last.id);
    expect(decodeCursor(second.previousCursor)).toMatchObject({ id: second.items[0].id, _pointsToNextItems: false });
    const back = (
      await data(CASES_PAGE, {
        limit: 3,
        cursor: second.previousCursor,
        orderBy: { field: 'updatedAt', direction: 'DESC' },
      })
    ).cases;
    expect(back.items).toEqual(first.items);
    expect(back.previousCursor).toBeNull();
    const byId = (await data(CASES_PAGE, { limit: 2, orderBy: { field: 'id', direction: 'ASC' } })).cases;
    expect(decodeCursor(byId.nextCursor)).toEqual({ id: byId.items[1].id, _pointsToNextItems: true });
    const tail = (await data(CASES_PAGE, { limit: 200, orderBy: { field: 'id', direction: 'DESC' } })).cases;
    const lastPage = (
      await data(CASES_PAGE, {
        limit: 200,
        orderBy: { field: 'id', direction: 'ASC' },
        cursor: Buffer.from(JSON.stringify({ id: tail.items[5].id, _pointsToNextItems: true })).toString('base64url'),
      })
    ).cases;
    expect(lastPage.items).toHaveLength(5);
    expect(lastPage.nextCursor).toBeNull();
  });

  it('rejects malformed and foreign-order cursors with a GraphQL error', async () => {
    const byId = (await data(CASES_PAGE, { limit: 2, orderBy: { field: 'id', direction: 'ASC' } })).cases;
    const foreign = (
      await gql(CASES_PAGE, { limit: 2, cursor: byId.nextCursor, orderBy: { field: 'updatedAt', direction: 'DESC' } })
    ).json();
    expect(foreign.data.cases).toBeNull();
    expect(foreign.errors[0]).toMatchObject({ message: FOREIGN_CURSOR_MESSAGE, path: ['cases'] });
    for (const cursor of [
      'not base64!',
      Buffer.from('{oops').toString('base64url'),
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('{"id":"x","_pointsToNextItems":true}').toString('base64url'),
      '',
    ]) {
      const r = (await gql(CASES_PAGE, { limit: 2, cursor })).json();
      expect(r.errors[0].message).toBe(INVALID_CURSOR_MESSAGE);
    }
  });

  it('accepts orderBy as a list or a single object and checks the field name', async () => {
    const single = await data(
      '{ cases(pagination: { limit: 5 }, orderBy: { field: ' +
        '"caseNumber", direction: ASC }) { items { id caseNumber } } }',
    );
    const list = await data(
      '{ cases(pagination: { limit: 5 }, orderBy: [{ field: ' +
        '"caseNumber", direction: ASC }]) { items { id caseNumber } } }',
    );
    expect(single).toEqual(list);
    const numbers = single.cases.items.map((c: any) => c.caseNumber);
    expect(numbers).toEqual([...numbers].sort());
    for (const field of ['createdAt', 'id', 'updatedAt'])
      await data(
        `{ cases(pagination: { limit: 1 }, orderBy: { field: "${field}", direction: DESC }) { items { id } } }`,
      );
    const bad = (
      await gql(
        '{ cases(pagination: { limit: 1 }, orderBy: [{ field: "id", direction: ASC }, ' +
          '{ field: "updated_at", direction: DESC }]) { items { id } } }',
      )
    ).json();
    expect(bad.data.cases).toBeNull();
    expect(bad.errors[0].extensions.validation).toEqual({
      'orderBy.1.field': ['The selected orderBy.1.field is invalid.'],
    });
    const enumDirection = (
      await gql('{ cases(pagination: { limit: 1 }, orderBy: { field: "id", direction: "ASC" }) { items { id } } }')
    ).json();
    expect(enumDirection.data).toBeUndefined();
  });

  it('rejects limit < 1 and limit over the cap, or clamps when switched', async () => {
    for (const limit of [0, -1]) {
      const r = (await gql(CASES_PAGE, { limit })).json();
      expect(r.errors[0].extensions.validation).toEqual({
        'pagination.limit': ['The pagination.limit must be at least 1.'],
      });
    }
    const over = (await gql(CASES_PAGE, { limit: 201 })).json();
    expect(over.errors[0].extensions.validation['pagination.limit'][0]).toMatch(/greater than 200/);
    expect((await data(CASES_PAGE, { limit: 200 })).cases.items).toHaveLength(200);
    sandbox.setSwitches({ overCap: 'clamp' });
    expect((await data(CASES_PAGE, { limit: 5_000 })).cases.items).toHaveLength(200);
  });

  it('filters and searches cases server-side', async () => {
    const found = await data(
      'query($q: String) { cases(pagination: { limit: 50 }, search: { query: $q, ' +
        'fields: ["description"] }) { items { id description } } }',
      {
        q: SEARCH_WORD.toUpperCase(),
      },
    );
    expect(found.cases.items.map((c: any) => c.id).sort()).toEqual(SEARCH_WORD_CASES.map((c) => c.id).sort());
    const badField = (
      await gql('{ cases(pagination: { limit: 1 }, search: { query: "x", fields: ["nope"] }) { items { id } } }')
    ).json();
    expect(badField.errors[0].extensions.validation).toHaveProperty(['search.fields.0']);
    const closed = await data(
      '{ cases(pagination: { limit: 200 }, filters: { statuses: [5] }) { items { status { text } } } }',
    );
    expect(closed.cases.items.length).toBeGreaterThan(0);
    expect(new Set(closed.cases.items.map((c: any) => c.status.text))).toEqual(new Set(['Lukket']));
  });
});

describe('cases sandbox: between bounds (Unix seconds)', () => {
  it('includes rows exactly at `to` by default and excludes them when switched to exclusive', async () => {
    for (const day of DST_CASE_DAYS) {
      const from = copenhagenMidnight(day);
      const to = copenhagenMidnight(copenhagenDate(from + 36 * 3600)); // next local midnight
      const between = { field: 'startTime', from, to };
      const inclusive = (await data(HOURS_PAGE, { case: DST_CASE_ID, between })).hours.items;
      sandbox.setSwitches({ betweenTo: 'exclusive' });
      const exclusive = (await data(HOURS_PAGE, { case: DST_CASE_ID, between })).hours.items;
      sandbox.resetSwitches();
      expect(inclusive.length).toBe(exclusive.length + 1);
      expect(inclusive.some((h: any) => h.startTime === to)).toBe(true);
      expect(exclusive.every((h: any) => h.startTime >= from && h.startTime < to)).toBe(true);
      expect(exclusive.some((h: any) => h.startTime === from)).toBe(true);
      expect(exclusive.some((h: any) => h.startTime === to - 1)).toBe(true);
      const invoices = (await data(INVOICES_PAGE, { case: DST_CASE_ID, between: { field: 'date', from, to } }))
        .salesInvoices.items;
      expect(invoices.map((i: any) => i.date).sort()).toEqual([from, to]);
    }
  });

  it('spells HourBetweenColumn START_TIME and SalesInvoiceBetweenColumn DATE in upper-enum mode', async () => {
    const upper = { case: DST_CASE_ID, between: { field: 'START_TIME', from: 0, to: 2_000_000_000 } };
    expect((await gql(HOURS_PAGE, upper)).json().errors[0].message).toMatch(/START_TIME/);
    sandbox.setSwitches({ schemaMode: 'upper-enum' });
    expect((await data(HOURS_PAGE, upper)).hours.items.length).toBeGreaterThan(0);
    const lower = (await gql(HOURS_PAGE, { case: DST_CASE_ID, between: { field: 'startTime' } })).json();
    expect(lower.data).toBeUndefined();
    const values = await data('{ __type(name: "HourBetweenColumn") { enumValues { name } } }');
    expect(values.__type.enumValues.map((v: any) => v.name)).toEqual(['START_TIME', 'CREATED_AT', 'UPDATED_AT']);
    const invoiceColumns = await data('{ __type(name: "SalesInvoiceBetweenColumn") { enumValues { name } } }');
    expect(invoiceColumns.__type.enumValues.map((v: any) => v.name)).toEqual(['DATE', 'CREATED_AT']);
    expect(
      (await data(INVOICES_PAGE, { case: DST_CASE_ID, between: { field: 'DATE', from: 0, to: 2_000_000_000 } }))
        .salesInvoices.items.length,
    ).toBeGreaterThan(0);
  });
});

describe('cases sandbox: validation error layouts', () => {
  it('answers an unknown caseById with null data, a path and extensions.validation', async () => {
    const r = await gql('query($id: Int!) { caseById(id: $id) { id } }', { id: UNKNOWN_CASE_ID });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body.data).toEqual({ caseById: null });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({
      message: 'validation',
      path: ['caseById'],
      extensions: { validation: { id: ['The selected id is invalid.'] } },
    });
    expect(body.errors[0].locations).toHaveLength(1);
  });

  it('switches to the legacy top-level validation + type layout', async () => {
    sandbox.setSwitches({ validationLayout: 'legacy' });
    const body = (await gql('query($id: Int!) { caseById(id: $id) { id } }', { id: UNKNOWN_CASE_ID })).json();
    expect(body.data).toEqual({ caseById: null });
    expect(body.errors[0]).toMatchObject({
      message: 'validation',
      path: ['caseById'],
      type: 'ValidationError',
      validation: { id: ['The selected id is invalid.'] },
    });
    expect(body.errors[0].extensions?.validation).toBeUndefined();
  });

  it('returns null without an error for an unknown case number', async () => {
    expect(await data('{ caseByCaseNumber(caseNumber: "no-such-case") { id } }')).toEqual({ caseByCaseNumber: null });
  });
});

describe('cases sandbox: throttling', () => {
  const headersOf = (r: Reply) => ({
    limit: r.headers.get('x-ratelimit-limit'),
    remaining: r.headers.get('x-ratelimit-remaining'),
    retryAfter: r.headers.get('retry-after'),
  });

  it('throttles exactly the next N requests with 429, Retry-After and the Laravel body', async () => {
    sandbox.setSwitches({ throttleNext: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await gql('{ __typename }');
      expect(r.status).toBe(429);
      expect(r.json()).toEqual({ errors: [{ message: 'Too Many Attempts.', type: 'ThrottleRequestsException' }] });
      expect(headersOf(r)).toMatchObject({ limit: '1000000', remaining: '0', retryAfter: '1' });
    }
    const ok = await gql('{ __typename }');
    expect(ok.status).toBe(200);
    expect(Number(ok.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
  });

  it('switches Retry-After to 30 or leaves it out, and can throttle inside HTTP 200', async () => {
    sandbox.setSwitches({ throttleNext: 1, retryAfter: 30 });
    expect(headersOf(await gql('{ __typename }')).retryAfter).toBe('30');
    sandbox.setSwitches({ throttleNext: 1, retryAfter: 'none' });
    const none = await gql('{ __typename }');
    expect(none.status).toBe(429);
    expect(none.headers.has('retry-after')).toBe(false);
    sandbox.setSwitches({ throttleNext: 1, retryAfter: 'auto', throttleMode: 'http200' });
    const inside = await gql('{ __typename }');
    expect(inside.status).toBe(200);
    expect(inside.json()).toEqual({
      data: null,
      errors: [{ message: 'Too Many Attempts.', type: 'ThrottleRequestsException' }],
    });
    expect(headersOf(inside).retryAfter).toBe('1');
  });

  it('keeps a per-token window and counts down X-RateLimit-Remaining', async () => {
    const local = await startCasesSandbox({ port: 0, rateLimitPerMinute: 3 });
    try {
      const remaining: Array<string | null> = [];
      for (let i = 0; i < 3; i++) {
        const r = await gql('{ __typename }', undefined, { url: local.url });
        expect(r.status).toBe(200);
        remaining.push(r.headers.get('x-ratelimit-remaining'));
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const limited = await gql('{ __typename }', undefined, { url: local.url });
      expect(limited.status).toBe(429);
      expect(headersOf(limited)).toMatchObject({ limit: '3', remaining: '0' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await gql('{ __typename }', undefined, { url: local.url, token: CASES_OTHER_TOKEN })).status).toBe(200);
      expect(local.stats.throttled).toBe(1);
      local.resetStats();
      expect((await gql('{ __typename }', undefined, { url: local.url })).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});

describe('cases sandbox: introspection, schema modes and deprecation', () => {
  const CASE_FIELDS =
    '{ __type(name: "Case") { fields { name } } economy: __type(name: "Economy") { fields { name } } }';
  const names = (d: any, key: string): string[] => d[key].fields.map((f: any) => f.name);

  it('serves genuine introspection by default and refuses it when switched off', async () => {
    const d = await data('{ __schema { queryType { name } mutationType { name } } }');
    expect(d.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
    sandbox.setSwitches({ introspection: false });
    const off = (await gql('{ __schema { queryType { name } } }')).json();
    expect(off.data).toBeUndefined();
    expect(off.errors[0].message).toMatch(/introspection/i);
    expect((await gql('{ __type(name: "Case") { name } }')).json().errors).toHaveLength(1);
    expect(await data('{ caseById(id: 1003) { id } }')).toEqual({ caseById: { id: DEMO_CASE_ID } });
  });

  it('has the spec-only case fields in extended mode only', async () => {
    const spec = ['foreman', 'offerTotal', 'parentCaseId', 'subCases'];
    const specEconomy = ['expectedCoverageRatio', 'revenue', 'materialsSalesprice'];
    const extended = await data(CASE_FIELDS);
    expect(names(extended, '__type')).toEqual(expect.arrayContaining(spec));
    expect(names(extended, 'economy')).toEqual(expect.arrayContaining(specEconomy));
    sandbox.setSwitches({ schemaMode: 'public' });
    const pub = await data(CASE_FIELDS);
    for (const f of spec) expect(names(pub, '__type')).not.toContain(f);
    for (const f of specEconomy) expect(names(pub, 'economy')).not.toContain(f);
    expect(names(pub, '__type')).toEqual(
      expect.arrayContaining([
        'id',
        'caseNumber',
        'description',
        'status',
        'caseType',
        'customer',
        'responsibleUser',
        'economy',
        'updatedAt',
      ]),
    );
    const failing = (await gql('{ caseById(id: 1003) { id foreman { fullName } } }')).json();
    expect(failing.data).toBeUndefined();
    expect(failing.errors[0].message).toMatch(/foreman/);
    const ok = await data('{ caseById(id: 1003) { id responsibleUser { fullName } economy { offer revisedOffer } } }');
    expect(ok.caseById.responsibleUser.fullName).toEqual(expect.any(String));
  });

  it('serves scalar status/caseType, an object orderBy and an object hours case filter behind switches', async () => {
    const demo = casesDataset().companies.get(1)!.casesById.get(DEMO_CASE_ID)!;
    const parentHours = casesDataset().companies.get(1)!.hoursByCase.get(PARENT_CASE_ID)!.length;
    const subHours = SUB_CASE_IDS.reduce(
      (n, id) => n + (casesDataset().companies.get(1)!.hoursByCase.get(id)?.length ?? 0),
      0,
    );
    const shapes =
      '{ s: __type(name: "Case") { fields { name type { kind name } } } q: __type(name: "Query") ' +
      '{ fields { name args { name type { kind name ofType { kind name } } } } } f: __type(name: ' +
      '"HoursFilterInput") { inputFields { name type { kind name } } } }';
    const typeOf = (d: any, field: string) => d.s.fields.find((f: any) => f.name === field).type;
    const orderByOf = (d: any) =>
      d.q.fields.find((f: any) => f.name === 'cases').args.find((a: any) => a.name === 'orderBy').type;
    const caseFilterOf = (d: any) => d.f.inputFields.find((f: any) => f.name === 'case').type;

    // Today's shapes (the defaults).
    const today = await data(shapes);
    expect(typeOf(today, 'status')).toEqual({ kind: 'OBJECT', name: 'CaseStatus' });
    expect(typeOf(today, 'caseType')).toEqual({ kind: 'OBJECT', name: 'CaseType' });
    expect(orderByOf(today)).toEqual({
      kind: 'LIST',
      name: null,
      ofType: { kind: 'INPUT_OBJECT', name: 'OrderByInput' },
    });
    expect(caseFilterOf(today)).toEqual({ kind: 'SCALAR', name: 'Int' });
    expect((await gql('{ caseById(id: 1003) { status } }')).json().errors[0].message).toMatch(
      /must have a selection of subfields/,
    );

    sandbox.setSwitches({ caseTexts: 'scalar', orderByShape: 'object', hoursCaseFilter: 'object' });
    const other = await data(shapes);
    expect(typeOf(other, 'status')).toEqual({ kind: 'SCALAR', name: 'String' });
    expect(typeOf(other, 'caseType')).toEqual({ kind: 'SCALAR', name: 'String' });
    expect(orderByOf(other)).toEqual({ kind: 'INPUT_OBJECT', name: 'OrderByInput', ofType: null });
    expect(caseFilterOf(other)).toEqual({ kind: 'INPUT_OBJECT', name: 'HourCaseFilterInput' });
    expect(await data('{ caseById(id: 1003) { status caseType } }')).toEqual({
      caseById: { status: demo.status.text, caseType: demo.caseType.text },
    });
    expect((await gql('{ caseById(id: 1003) { status { text } } }')).json().errors[0].message).toMatch(
      /must not have a selection/,
    );
    // The single-object form validates under both declarations; a list only under the list one.
    const single = '{ cases(pagination: { limit: 3 }, orderBy: { field: "id", direction: DESC }) { items { id } } }';
    expect((await data(single)).cases.items.map((c: any) => c.id)).toEqual(
      [...casesDataset().companies.get(1)!.cases]
        .sort((a, b) => b.id - a.id)
        .slice(0, 3)
        .map((c) => c.id),
    );
    expect(
      (
        await gql('{ cases(pagination: { limit: 3 }, orderBy: [{ field: "id", direction: DESC }]) { items { id } } }')
      ).json().errors,
    ).toHaveLength(1);
    const hours = (filter: string) =>
      data(`{ hours(pagination: { limit: 200 }, filters: { case: ${filter} }) { items { id } } }`);
    expect((await hours(`{ id: ${PARENT_CASE_ID} }`)).hours.items).toHaveLength(parentHours);
    expect((await hours(`{ id: ${PARENT_CASE_ID}, includeSubcases: false }`)).hours.items).toHaveLength(parentHours);
    expect((await hours(`{ id: ${PARENT_CASE_ID}, includeSubcases: true }`)).hours.items).toHaveLength(
      parentHours + subHours,
    );
    expect(
      (await gql(`{ hours(pagination: { limit: 5 }, filters: { case: ${PARENT_CASE_ID} }) { items { id } } }`)).json()
        .errors,
    ).toHaveLength(1);

    sandbox.resetSwitches();
    expect((await data(single)).cases.items).toHaveLength(3);
    expect(await data('{ caseById(id: 1003) { status { text } } }')).toEqual({
      caseById: { status: { text: demo.status.text } },
    });
  });

  it('hides the deprecated gpsEntries from introspection but still executes it', async () => {
    const fields = await data(
      '{ __schema { queryType { fields { name } } } all: __type(name: "Query") { ' +
        'fields(includeDeprecated: true) { name isDeprecated } } }',
    );
    const visible = fields.__schema.queryType.fields.map((f: any) => f.name);
    expect(visible).toEqual(
      expect.arrayContaining([
        'cases',
        'caseById',
        'caseByCaseNumber',
        'hours',
        'hourAggregate',
        'caseMaterials',
        'salesInvoices',
      ]),
    );
    expect(visible).not.toContain('gpsEntries');
    expect(fields.all.fields).toContainEqual({ name: 'gpsEntries', isDeprecated: true });
    const gps = await data(
      '{ gpsEntries(pagination: { limit: 3 }) { items { id latitude timestamp user { fullName } } nextCursor } }',
    );
    expect(gps.gpsEntries.items).toHaveLength(3);
  });
});

describe('cases sandbox: mutations', () => {
  it('has logged no mutation after all the reads above', () => {
    expect(sandbox.mutationLog).toEqual([]);
  });

  it('resolves updateCase, logs it and changes nothing', async () => {
    const before = await data('{ caseById(id: 1003) { description } }');
    const r = await data('mutation { updateCase(id: 1003, description: "hacked") { id description } }');
    expect(r.updateCase).toEqual({ id: DEMO_CASE_ID, description: 'hacked' });
    expect(sandbox.mutationLog).toHaveLength(1);
    expect(JSON.parse(sandbox.mutationLog[0]!)).toMatchObject({
      field: 'updateCase',
      companyId: 1,
      args: { id: 1003, description: 'hacked' },
    });
    expect(await data('{ caseById(id: 1003) { description } }')).toEqual(before);
    sandbox.resetStats();
    expect(sandbox.mutationLog).toEqual([]);
  });
});

describe('cases sandbox: faults', () => {
  it('fails one field with an SQLSTATE error beside partial data', async () => {
    sandbox.setSwitches({ sqlErrorField: 'Query.salesInvoices' });
    const body = (
      await gql('{ caseById(id: 1003) { id } salesInvoices(pagination: { limit: 1 }) { items { id } } }')
    ).json();
    expect(body.data).toEqual({ caseById: { id: DEMO_CASE_ID }, salesInvoices: null });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ message: SQL_ERROR_MESSAGE, path: ['salesInvoices'] });
    expect(body.errors[0].message).toMatch(/^SQLSTATE\[42000\]/);
    sandbox.setSwitches({ sqlErrorField: 'Case.economy' });
    const nested = (await gql('{ caseById(id: 1003) { id economy { offer } } }')).json();
    expect(nested.data).toEqual({ caseById: { id: DEMO_CASE_ID, economy: null } });
    expect(nested.errors[0].path).toEqual(['caseById', 'economy']);
  });

  it('answers with an HTML 500 page when switched', async () => {
    sandbox.setSwitches({ html500: true });
    const r = await gql('{ __typename }');
    expect(r.status).toBe(500);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toMatch(/^<!DOCTYPE html>/);
  });

  it('fails exactly the next N requests with the given status, then serves normally', async () => {
    sandbox.setSwitches({ failNext: { count: 2, status: 502 } });
    for (let i = 0; i < 2; i++) {
      const r = await gql('{ __typename }');
      expect(r.status).toBe(502);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    }
    expect(sandbox.switches.failNext).toEqual({ count: 0, status: 502 });
    expect((await gql('{ __typename }')).status).toBe(200);
    expect(() => sandbox.setSwitches({ failNext: { count: 1, status: 200 } })).toThrow(TypeError);
    expect((await control('/__sandbox/switches', { failNext: { count: -1, status: 500 } })).status).toBe(400);
  });

  it('delays replies and survives clients that give up', async () => {
    sandbox.setSwitches({ delayMs: 30 });
    expect((await gql('{ __typename }')).status).toBe(200);
    sandbox.setSwitches({ delayMs: 600_000 });
    await expect(gql('{ __typename }', undefined, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    sandbox.setSwitches({ delayMs: 0 });
    expect((await gql('{ __typename }')).status).toBe(200);
  });

  it('closes promptly with a delayed request pending', async () => {
    const local = await startCasesSandbox({ port: 0, rateLimitPerMinute: 100 });
    local.setSwitches({ delayMs: 600_000 });
    const pending = gql('{ __typename }', undefined, { url: local.url }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await local.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('cases sandbox: control endpoints', () => {
  it('changes switches over HTTP and refuses unknown or invalid ones', async () => {
    const r = await control('/__sandbox/switches', { validationLayout: 'legacy', retryAfter: 30 });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ validationLayout: 'legacy', retryAfter: 30 });
    expect(sandbox.switches.validationLayout).toBe('legacy');
    expect((await control('/__sandbox/switches')).json().retryAfter).toBe(30);
    const unknown = await control('/__sandbox/switches', { nope: true });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toEqual({
      error: 'unknown switch "nope"',
      switches: expect.arrayContaining(['schemaMode', 'limitCap', 'failNext']),
    });
    const invalid = await control('/__sandbox/switches', { schemaMode: 'weird' });
    expect(invalid.status).toBe(400);
    expect(invalid.json().error).toBe('invalid value for schemaMode: "weird"');
    expect((await control('/__sandbox/switches', { limitCap: 0 })).status).toBe(400);
    expect((await control('/__sandbox/switches', [1])).status).toBe(400);
    expect(sandbox.switches.schemaMode).toBe('extended');
    expect(() => sandbox.setSwitches({ betweenTo: 'sometimes' as never })).toThrow(TypeError);
    const reset = await control('/__sandbox/reset', {});
    expect(reset.json()).toMatchObject({
      validationLayout: 'extensions',
      retryAfter: 'auto',
      rateLimitPerMinute: 1_000_000,
    });
    expect((await control('/__sandbox/nothing')).status).toBe(404);
    const noLog = await control('/__sandbox/requests');
    expect(noLog.status).toBe(404);
    expect(noLog.json().controls).toEqual([
      'GET /__sandbox/switches',
      'POST /__sandbox/switches',
      'GET /__sandbox/stats',
      'POST /__sandbox/reset',
    ]);
  });

  it('starts in the schema mode given as an option', async () => {
    const local = await startCasesSandbox({ port: 0, schemaMode: 'public' });
    try {
      expect(local.switches.schemaMode).toBe('public');
      const r = (await gql('{ caseById(id: 1003) { offerTotal } }', undefined, { url: local.url })).json();
      expect(r.errors[0].message).toMatch(/offerTotal/);
    } finally {
      await local.close();
    }
    await expect(startCasesSandbox({ schemaMode: 'odd' as never })).rejects.toThrow(TypeError);
    const shaped = await startCasesSandbox({
      port: 0,
      shapes: { caseTexts: 'scalar', orderBy: 'object', hoursCaseFilter: 'object' },
    });
    try {
      expect(shaped.switches).toMatchObject({ caseTexts: 'scalar', orderByShape: 'object', hoursCaseFilter: 'object' });
      shaped.resetSwitches();
      expect(shaped.switches).toMatchObject({ caseTexts: 'scalar', orderByShape: 'object', hoursCaseFilter: 'object' });
      const r = await gql('{ caseById(id: 1003) { status } }', undefined, { url: shaped.url });
      expect(r.json().data.caseById.status).toEqual(expect.any(String));
    } finally {
      await shaped.close();
    }
    await expect(startCasesSandbox({ shapes: { orderBy: 'sideways' as never } })).rejects.toThrow(TypeError);
  });
});

describe('cases sandbox: seeded data', () => {
  it('has at least 1,200 demo cases spread over two years, with Danish status texts and float economy', async () => {
    const { items } = await allPages(
      'query($cursor: String) { cases(pagination: { cursor: $cursor, limit: 200 }) { items { id updatedAt ' +
        'status { text } economy { hoursCostprice offer revisedOffer materialsCostprice } } nextCursor } }',
      'cases',
      {},
    );
    expect(items.length).toBeGreaterThanOrEqual(1_200);
    const times = items.map((c) => c.updatedAt);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(700 * 86_400);
    const texts = new Set(items.map((c) => c.status.text));
    for (const text of ['Åben', 'I gang', 'Lukket']) expect(texts).toContain(text);
    expect(items.some((c) => !Number.isInteger(c.economy.hoursCostprice))).toBe(true);
    expect(items.some((c) => c.economy.offer !== null && !Number.isInteger(c.economy.offer))).toBe(true);
  });

  it('is deterministic: a fresh process builds a byte-identical dataset', async () => {
    const fingerprint = (ds: ReturnType<typeof casesDataset>): string =>
      createHash('sha256')
        .update(
          JSON.stringify(
            [...ds.companies.values()].map((c) => [c.cases, c.hours, c.invoices, c.materials, c.products]),
          ),
        )
        .digest('hex');
    const dataModule = fileURLToPath(new URL('../sandbox/cases/data.ts', import.meta.url));
    const script =
      `import { createHash } from 'node:crypto'; import { casesDataset } from ${JSON.stringify(dataModule)};` +
      'const ds = casesDataset(); ' +
      `process.stdout.write(createHash('sha256').update(JSON.stringify([...ds.companies.values()].map((c) => ` +
      `[c.cases, c.hours, c.invoices, c.materials, c.products]))).digest('hex'));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    await once(child, 'exit');
    expect(output).toMatch(/^[0-9a-f]{64}$/);
    expect(output).toBe(fingerprint(casesDataset()));
    expect(casesDataset()).toBe(casesDataset());
    expect(casesDataset().companies.get(1)!.casesById.get(DEMO_CASE_ID)!.caseNumber).toBe(DEMO_CASE_NUMBER);
  });

  it(`has cases of ${BIG_HOURS_COUNT}, ${SIX_HUNDRED_HOURS_COUNT} hours, ${MANY_INVOICES_COUNT} invoices`, async () => {
    const big = await allPages(HOURS_PAGE, 'hours', { case: BIG_HOURS_CASE_ID });
    expect(big.items).toHaveLength(BIG_HOURS_COUNT);
    expect(big.pages).toBe(Math.ceil(BIG_HOURS_COUNT / 200));
    const six = await allPages(HOURS_PAGE, 'hours', { case: SIX_HUNDRED_HOURS_CASE_ID });
    expect(six.items).toHaveLength(SIX_HUNDRED_HOURS_COUNT);
    const invoices = await allPages(INVOICES_PAGE, 'salesInvoices', { case: MANY_INVOICES_CASE_ID });
    expect(invoices.items).toHaveLength(MANY_INVOICES_COUNT);
    const agg = await data(
      'query($id: Int!) { hourAggregate(caseId: $id) { totalCostPrice totalHours hourTypes { name ' +
        'totalCostPrice totalHours } } caseById(id: $id) { economy { hoursCostprice } } }',
      { id: BIG_HOURS_CASE_ID },
    );
    const sum = big.items.reduce((s, h) => s + h.costPrice, 0);
    expect(agg.hourAggregate.totalCostPrice).toBeCloseTo(sum, 1);
    expect(agg.caseById.economy.hoursCostprice).toBeCloseTo(sum, 1);
    expect(agg.hourAggregate.hourTypes.length).toBeGreaterThan(1);
    const unknown = (await gql('{ hourAggregate(caseId: 7654321) { totalHours } }')).json();
    expect(unknown.errors[0].extensions.validation).toEqual({ caseId: ['The selected case id is invalid.'] });
  });

  it('places hours and invoices on Copenhagen midnights and DST days, with hours over the change', async () => {
    const hours = (
      await allPages(
        'query($cursor: String) { hours(pagination: { cursor: $cursor, limit: 200 }, filters: { case: ' +
          '1012 }) { items { id description startTime stopTime billableHours } nextCursor } }',
        'hours',
        {},
      )
    ).items;
    const fmt = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Copenhagen',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    const local = (unix: number) => fmt.format(unix * 1000);
    for (const day of DST_DAYS) {
      const midnight = copenhagenMidnight(day);
      expect(local(midnight)).toMatch(/, 00:00:00$/);
      expect(copenhagenDate(midnight)).toBe(day);
      expect(hours.some((h) => h.startTime === midnight)).toBe(true);
      const over = hours.find(
        (h) => h.description === 'Akut udkald over tidsskift' && copenhagenDate(h.startTime) === day,
      );
      expect(over).toBeDefined();
      // 01:30 to 03:30 on the wall clock: one real hour in March, three in October.
      expect(over.stopTime - over.startTime).toBe(day.slice(5, 7) === '03' ? 3600 : 3 * 3600);
    }
    const invoices = (await allPages(INVOICES_PAGE, 'salesInvoices', { case: DST_CASE_ID })).items;
    for (const day of DST_DAYS) expect(invoices.some((i) => i.date === copenhagenMidnight(day))).toBe(true);
    expect(invoices.every((i) => local(i.date).endsWith('00:00:00'))).toBe(true);
    expect(new Set(invoices.map((i) => i.case.id))).toEqual(new Set([DST_CASE_ID]));
    const all = (await allPages(INVOICES_PAGE, 'salesInvoices', {})).items;
    expect(new Set(all.map((i) => i.case.id)).size).toBeGreaterThan(500);
    expect(all.map((i) => i.id)).toEqual([...all.map((i) => i.id)].sort((a, b) => a - b));
  });

  it('has parent/sub-case pairs that agree both ways', async () => {
    const d = await data(
      'query($id: Int!) { caseById(id: $id) { id subCases { id parentCaseId caseNumber } caseNumber } }',
      { id: PARENT_CASE_ID },
    );
    expect(d.caseById.subCases.map((s: any) => s.id)).toEqual([...SUB_CASE_IDS]);
    for (const sub of d.caseById.subCases) {
      expect(sub.parentCaseId).toBe(PARENT_CASE_ID);
      expect(sub.caseNumber.startsWith(`${d.caseById.caseNumber}-`)).toBe(true);
    }
    const demo = casesDataset().companies.get(1)!;
    expect(PARENT_SUB_PAIRS.length).toBeGreaterThanOrEqual(5);
    for (const [parent, sub] of PARENT_SUB_PAIRS) {
      expect(demo.casesById.get(sub)?.parentCaseId).toBe(parent);
      expect(demo.casesById.get(parent)?.subCaseIds).toContain(sub);
    }
  });

  it('keeps economy consistent with the rows (materials, offers, foreman)', async () => {
    const d = await data(
      'query($id: Int!) { caseById(id: $id) { foreman { fullName } offerTotal economy { offer ' +
        'revisedOffer materialsCostprice materialsSalesprice revenue } } caseMaterials(caseId: $id, type: ' +
        'MATERIAL, pagination: { limit: 200 }) { items { totalCostPrice addedBy case { id } } } ' +
        'salesInvoices(pagination: { limit: 200 }, filters: { case: $id }) { items { amount } } }',
      { id: DEMO_CASE_ID },
    );
    const materials = d.caseMaterials.items.reduce((s: number, m: any) => s + m.totalCostPrice, 0);
    expect(d.caseById.economy.materialsCostprice).toBeCloseTo(materials, 1);
    expect(d.caseMaterials.items.every((m: any) => m.addedBy === 'MATERIAL' && m.case.id === DEMO_CASE_ID)).toBe(true);
    expect(d.caseById.economy.revenue).toBeCloseTo(
      d.salesInvoices.items.reduce((s: number, i: any) => s + i.amount, 0),
      1,
    );
    expect(d.caseById.offerTotal).toBe(d.caseById.economy.revisedOffer ?? d.caseById.economy.offer);
    const products = await data('{ products(pagination: { limit: 5 }) { items { costPrice listPrice } } }');
    for (const p of products.products.items)
      expect(Number.isInteger(p.listPrice) && Number.isInteger(p.costPrice)).toBe(true);
  });
});

describe('cases sandbox: script mode', () => {
  it('starts, prints its URL and the demo token when run with node', async () => {
    const script = fileURLToPath(new URL('../sandbox/cases/server.ts', import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, CASES_SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const text = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('demo token:') && output.split('\n').length > 3) resolve(output);
        });
        child.once('exit', (code) => reject(new Error(`sandbox exited early with ${String(code)}`)));
      });
      const url = text.split('\n')[0]!.trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      expect(text).toContain(CASES_DEMO_TOKEN);
      const r = await gql('{ caseById(id: 1003) { caseNumber } }', undefined, { url });
      expect(r.json()).toEqual({ data: { caseById: { caseNumber: DEMO_CASE_NUMBER } } });
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});

// The search-analytics handlers against a nock-faked Search Console API (upstreams/search.md §2–3):
// exact paths (siteUrl as one percent-encoded segment, both property kinds) and request bodies,
// the Bearer token, every error text, compare_periods arithmetic against hand-computed values
// (zero baselines, an empty period, position weighting, startRow paging), and the allow-list of
// search_analytics_query (the schema refuses hostile bodies; the handler rebuilds what it sends).
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { searchDescriptor } from '../generated/search/descriptor.ts';
import { registry } from '../generated/registry.ts';
import type { Credential } from '../runtime/handler-api/tool-context.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import { callHandler, failureOf } from './support/handler-call.ts';
import { testContext } from './support/tool-context.ts';

const ORIGIN = 'https://searchconsole.test';
const SECRET = 'ya29.Zq7-search-access-4Kx';
const CREDENTIAL: Credential = {
  kind: 'oauth2',
  accessToken: SECRET,
  refreshToken: '1//search-refresh-Zq7',
  expiresAt: 4102444800000,
};
const DOMAIN = 'sc-domain:example.com';
const PREFIX = 'https://www.example.com/';
const module = registry.search;

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
  readonly body: unknown;
}
/** Status, body (a string is sent as is, as an HTML page), extra response headers. */
type Reply = [number, unknown] | [number, unknown, Record<string, string>];
const sent: Sent[] = [];

/** Every request is recorded; `respond` answers it (undefined: 404). */
function upstream(respond: (s: Sent, index: number) => Reply | undefined) {
  const reply = async (request: Request): Promise<[number, string, Record<string, string>]> => {
    const url = new URL(request.url);
    const text = request.method === 'POST' ? await request.text() : '';
    const entry: Sent = {
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: text === '' ? undefined : JSON.parse(text),
    };
    sent.push(entry);
    const [status, body, headers = {}] = respond(entry, sent.length - 1) ?? [
      404,
      { error: { code: 404, message: 'Not Found' } },
    ];
    if (typeof body === 'string') return [status, body, { 'content-type': 'text/html; charset=UTF-8', ...headers }];
    return [status, JSON.stringify(body), { 'content-type': 'application/json', ...headers }];
  };
  nock(ORIGIN).persist().get(/.*/).reply(reply).post(/.*/).reply(reply);
}

const call = (tool: string, raw: Record<string, unknown>, credential: Credential | null = CREDENTIAL) =>
  callHandler(module, tool, raw, testContext({ descriptor: searchDescriptor, tool, credential, baseUrl: ORIGIN }));
const failure = (tool: string, raw: Record<string, unknown>, credential?: Credential | null) =>
  failureOf(module, call(tool, raw, credential));
const row = (keys: string[] | undefined, clicks: number, impressions: number, position: number) => ({
  ...(keys ? { keys } : {}),
  clicks,
  impressions,
  ctr: impressions ? clicks / impressions : 0,
  position,
});
const period = { startDate: '2025-05-01', endDate: '2025-05-31' };

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => {
  sent.length = 0;
});
afterEach(() => {
  nock.cleanAll();
});

describe('request paths and bodies', () => {
  it('list_sites: GET /webmasters/v3/sites with the bearer token; unverified dropped, levels kept', async () => {
    upstream(() => [
      200,
      {
        siteEntry: [
          { siteUrl: DOMAIN, permissionLevel: 'siteOwner' },
          { siteUrl: PREFIX, permissionLevel: 'siteRestrictedUser' },
          { siteUrl: 'https://shop.example.com/', permissionLevel: 'siteUnverifiedUser' },
          { siteUrl: 'https://old.example.com/', permissionLevel: 'SITE_UNVERIFIED_USER' },
        ],
      },
    ]);
    expect(await call('list_sites', {})).toEqual({
      sites: [
        { siteUrl: DOMAIN, permissionLevel: 'siteOwner' },
        { siteUrl: PREFIX, permissionLevel: 'siteRestrictedUser' },
      ],
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'GET', path: '/webmasters/v3/sites' });
    expect(sent[0]!.headers.get('authorization')).toBe(`Bearer ${SECRET}`);
  });

  it('list_sites: an account without properties ({} or an empty siteEntry) has no sites', async () => {
    upstream((_s, i) => [200, i === 0 ? {} : { siteEntry: [] }]);
    expect(await call('list_sites', {})).toEqual({ sites: [] });
    expect(await call('list_sites', {})).toEqual({ sites: [] });
  });

  it('top_queries: POST to the property as one segment, by query, rowLimit = limit (10), by clicks', async () => {
    upstream(() => [
      200,
      {
        rows: [row(['b'], 5, 50, 3), row(['a'], 9, 90, 2.5), row(['c'], 5, 70, 4)],
        responseAggregationType: 'byProperty',
      },
    ]);
    const result = await call('top_queries', { siteUrl: DOMAIN, ...period });
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.path).toBe('/webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query');
    expect(sent[0]!.body).toEqual({ ...period, dimensions: ['query'], rowLimit: 10 });
    expect(sent[0]!.headers.get('content-type')).toContain('application/json');
    expect(result).toEqual({
      siteUrl: DOMAIN,
      ...period,
      queries: [
        { query: 'a', ...row(undefined, 9, 90, 2.5) },
        { query: 'b', ...row(undefined, 5, 50, 3) },
        { query: 'c', ...row(undefined, 5, 70, 4) },
      ],
    });
    await call('top_queries', { siteUrl: PREFIX, ...period, limit: 25_000 });
    expect(sent[1]!.path).toBe('/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/searchAnalytics/query');
    expect(sent[1]!.body).toEqual({ ...period, dimensions: ['query'], rowLimit: 25_000 });
  });

  it('top_pages: grouped by page; no data is an empty list', async () => {
    upstream((_s, i) => [
      200,
      i === 0
        ? { rows: [row([`${PREFIX}a/`], 3, 30, 5)], responseAggregationType: 'byPage' }
        : { responseAggregationType: 'byPage' },
    ]);
    expect((await call('top_pages', { siteUrl: PREFIX, ...period, limit: 3 })).pages).toEqual([
      { page: `${PREFIX}a/`, ...row(undefined, 3, 30, 5) },
    ]);
    expect(sent[0]!.body).toEqual({ ...period, dimensions: ['page'], rowLimit: 3 });
    expect((await call('top_pages', { siteUrl: PREFIX, ...period })).pages).toEqual([]);
  });

  it('query_performance, page_performance: an equals filter, no grouping; keyless row as is, else zeros', async () => {
    upstream((s) => [
      200,
      (s.body as any).dimensionFilterGroups[0].filters[0].dimension === 'query'
        ? { rows: [row(undefined, 7, 140, 6.25)], responseAggregationType: 'byProperty' }
        : {},
    ]);
    const q = await call('query_performance', { siteUrl: DOMAIN, query: 'Sofa Tilbud', ...period });
    expect(sent[0]!.body).toEqual({
      ...period,
      dimensionFilterGroups: [
        { groupType: 'and', filters: [{ dimension: 'query', operator: 'equals', expression: 'Sofa Tilbud' }] },
      ],
    });
    expect(q).toEqual({
      siteUrl: DOMAIN,
      query: 'Sofa Tilbud',
      ...period,
      metrics: { clicks: 7, impressions: 140, ctr: 0.05, position: 6.25 },
    });
    const p = await call('page_performance', { siteUrl: PREFIX, page: `${PREFIX}produkter/`, ...period });
    expect(sent[1]!.body).toEqual({
      ...period,
      dimensionFilterGroups: [
        { groupType: 'and', filters: [{ dimension: 'page', operator: 'equals', expression: `${PREFIX}produkter/` }] },
      ],
    });
    expect(p.metrics).toEqual({ clicks: 0, impressions: 0, ctr: 0, position: 0 });
  });

  it('search_analytics_query: the allow-listed body sent as given; metadata dropped, rows passed through', async () => {
    const requestBody = {
      ...period,
      dimensions: ['date', 'device'],
      type: 'image',
      dimensionFilterGroups: [
        {
          groupType: 'and',
          filters: [
            { dimension: 'country', operator: 'notEquals', expression: 'usa' },
            { dimension: 'query', expression: 'sofa' },
          ],
        },
      ],
      aggregationType: 'byProperty',
      rowLimit: 25_000,
      startRow: 25_000,
      dataState: 'all',
    };
    upstream(() => [
      200,
      {
        rows: [row(['2025-05-02', 'MOBILE'], 1, 10, 2)],
        responseAggregationType: 'byProperty',
        metadata: { first_incomplete_date: '2025-05-30' },
      },
    ]);
    const result = await call('search_analytics_query', { siteUrl: DOMAIN, requestBody });
    expect(sent[0]!.body).toEqual(requestBody);
    expect(result).toEqual({
      siteUrl: DOMAIN,
      responseAggregationType: 'byProperty',
      rows: [row(['2025-05-02', 'MOBILE'], 1, 10, 2)],
    });
  });

  it('search_analytics_query: hourly data (keys with offset) read; metadata in either casing dropped', async () => {
    const requestBody = {
      startDate: '2025-04-07',
      endDate: '2025-04-07',
      dimensions: ['HOUR'],
      dataState: 'HOURLY_ALL',
    };
    const hourRow = row(['2025-04-07T00:00:00-07:00'], 2, 40, 3.5);
    upstream((_s, i) => [
      200,
      i === 0
        ? {
            rows: [hourRow],
            responseAggregationType: 'byProperty',
            metadata: { first_incomplete_hour: '2025-04-07T05:00:00-07:00' },
          }
        : {
            kind: 'webmasters#searchAnalyticsQueryResponse',
            rows: [hourRow],
            responseAggregationType: 'BY_PROPERTY',
            metadata: { firstIncompleteHour: '2025-04-07T05:00:00-07:00' },
          },
    ]);
    expect(await call('search_analytics_query', { siteUrl: DOMAIN, requestBody })).toEqual({
      siteUrl: DOMAIN,
      responseAggregationType: 'byProperty',
      rows: [hourRow],
    });
    expect(await call('search_analytics_query', { siteUrl: DOMAIN, requestBody })).toEqual({
      siteUrl: DOMAIN,
      responseAggregationType: 'BY_PROPERTY',
      rows: [hourRow],
    });
    expect(sent[0]!.body).toEqual(requestBody);
  });

  it('search_analytics_query: no rows and no aggregation type → rows [] and null', async () => {
    upstream(() => [200, {}]);
    expect(await call('search_analytics_query', { siteUrl: PREFIX, requestBody: period })).toEqual({
      siteUrl: PREFIX,
      responseAggregationType: null,
      rows: [],
    });
    expect(sent[0]!.body).toEqual(period);
  });
});

describe('compare_periods arithmetic (hand-computed)', () => {
  /** Answers period A's requests with `a` and period B's with `b` (pages chosen by startRow). */
  const periods = (a: (startRow: number) => unknown, b: (startRow: number) => unknown) =>
    upstream((s) => {
      const body = s.body as { startDate: string; startRow?: number };
      return [200, body.startDate === '2025-04-01' ? a(body.startRow ?? 0) : b(body.startRow ?? 0)];
    });
  const args = {
    siteUrl: DOMAIN,
    periodAStart: '2025-04-01',
    periodAEnd: '2025-04-30',
    periodBStart: '2025-05-01',
    periodBEnd: '2025-05-31',
  };

  it('the whole property: the keyless rows, B − A, percent of A', async () => {
    periods(
      () => ({ rows: [row(undefined, 100, 1000, 4)] }),
      () => ({ rows: [row(undefined, 150, 1500, 3)] }),
    );
    const result = await call('compare_periods', args);
    expect(sent.map((s) => s.body)).toEqual(
      expect.arrayContaining([
        { startDate: '2025-04-01', endDate: '2025-04-30' },
        { startDate: '2025-05-01', endDate: '2025-05-31' },
      ]),
    );
    expect(result).toEqual({
      siteUrl: DOMAIN,
      dimension: null,
      periodA: {
        startDate: '2025-04-01',
        endDate: '2025-04-30',
        totals: { clicks: 100, impressions: 1000, ctr: 0.1, position: 4 },
      },
      periodB: {
        startDate: '2025-05-01',
        endDate: '2025-05-31',
        totals: { clicks: 150, impressions: 1500, ctr: 0.1, position: 3 },
      },
      delta: {
        clicks: { absolute: 50, percent: 50 },
        impressions: { absolute: 500, percent: 50 },
        ctr: { absolute: 0 },
        position: { absolute: -1 },
      },
    });
  });

  it('rows summed with the impression-weighted position; an empty period (rows absent) is zeros', async () => {
    // A: clicks 10 + 0 + 30 = 40, impressions 100 + 300 + 400 = 800, position (2×100 + 10×300 + 5×400) / 800 = 6.5, ctr
    // 40/800 = 0.05.
    periods(
      () => ({ rows: [row(['a'], 10, 100, 2), row(['b'], 0, 300, 10), row(['c'], 30, 400, 5)] }),
      () => ({ responseAggregationType: 'byProperty' }),
    );
    const result = await call('compare_periods', { ...args, dimension: 'query' });
    expect(result.dimension).toBe('query');
    expect(result.periodA.totals).toEqual({ clicks: 40, impressions: 800, ctr: 0.05, position: 6.5 });
    expect(result.periodB.totals).toEqual({ clicks: 0, impressions: 0, ctr: 0, position: 0 });
    expect(result.delta).toEqual({
      clicks: { absolute: -40, percent: -100 },
      impressions: { absolute: -800, percent: -100 },
      ctr: { absolute: -0.05 },
      position: { absolute: -6.5 },
    });
    for (const s of sent) expect(s.body).toMatchObject({ dimensions: ['query'], rowLimit: 25_000 });
    // A short first page is not the end (the doc pages until a page has no rows): period A asks
    // startRow 25,000 too, gets the same page back (this fake ignores startRow) and stops without
    // counting it twice; period B's first page is already empty.
    const startRows = (start: string) =>
      sent
        .filter((s) => (s.body as { startDate: string }).startDate === start)
        .map((s) => (s.body as { startRow: number }).startRow);
    expect(startRows('2025-04-01')).toEqual([0, 25_000]);
    expect(startRows('2025-05-01')).toEqual([0]);
  });

  it('a zero baseline gives percent null', async () => {
    // B: clicks 3, impressions 40 + 10 = 50, position (1×40 + 11×10) / 50 = 3, ctr 0.06.
    periods(
      () => ({}),
      () => ({ rows: [row(['DESKTOP'], 3, 40, 1), row(['MOBILE'], 0, 10, 11)] }),
    );
    const result = await call('compare_periods', { ...args, dimension: 'device' });
    expect(result.periodB.totals).toEqual({ clicks: 3, impressions: 50, ctr: 0.06, position: 3 });
    expect(result.delta).toEqual({
      clicks: { absolute: 3, percent: null },
      impressions: { absolute: 50, percent: null },
      ctr: { absolute: 0.06 },
      position: { absolute: 3 },
    });
  });

  it('clicks zero in A but impressions not: percent null for clicks only', async () => {
    periods(
      () => ({ rows: [row(['dnk'], 0, 200, 8)] }),
      () => ({ rows: [row(['dnk'], 4, 100, 6)] }),
    );
    const result = await call('compare_periods', { ...args, dimension: 'country' });
    expect(result.delta).toEqual({
      clicks: { absolute: 4, percent: null },
      impressions: { absolute: -100, percent: -50 },
      ctr: { absolute: 0.04 },
      position: { absolute: -2 },
    });
  });

  it('pages with startRow += 25,000 until a page has no rows (a short one is not the end), sums all', async () => {
    const full = Array.from({ length: 25_000 }, (_, i) => row([`q${i}`], 1, 10, 2));
    periods(
      // A fake that answers fewer rows than asked before its last page (the doc does not promise full pages).
      (startRow) =>
        startRow === 0
          ? { rows: full }
          : startRow === 25_000
            ? { rows: [row(['last'], 5, 50, 8)] }
            : startRow === 50_000
              ? { rows: [row(['later'], 1, 10, 4)] }
              : {},
      (startRow) => (startRow === 0 ? { rows: [row(['x'], 1, 1, 1)] } : { responseAggregationType: 'byProperty' }),
    );
    const result = await call('compare_periods', { ...args, dimension: 'query' });
    const aBodies = sent
      .map((s) => s.body as { startDate: string; startRow: number })
      .filter((b) => b.startDate === '2025-04-01');
    expect(aBodies.map((b) => b.startRow)).toEqual([0, 25_000, 50_000, 75_000]);
    for (const b of aBodies) expect(b).toMatchObject({ rowLimit: 25_000 });
    // 25,000 + 5 + 1 clicks; 250,000 + 50 + 10 impressions; position (2×250,000 + 8×50 + 4×10) / 250,060.
    expect(result.periodA.totals.clicks).toBe(25_006);
    expect(result.periodA.totals.impressions).toBe(250_060);
    expect(result.periodA.totals.position).toBeCloseTo((2 * 250_000 + 8 * 50 + 4 * 10) / 250_060, 12);
    expect(result.periodA.totals.ctr).toBeCloseTo(25_006 / 250_060, 12);
    expect(result.periodB.totals).toEqual({ clicks: 1, impressions: 1, ctr: 1, position: 1 });
  });
});

describe('error texts', () => {
  const googleError = (code: number, reason: string, message = 'msg') => ({
    error: { code, message, status: 'X', errors: [{ message, domain: 'global', reason }] },
  });
  const cases: Array<[string, number, unknown, string]> = [
    ['401 (expired or revoked token)', 401, googleError(401, 'authError'), 'access_token_expired'],
    ['403 insufficientPermissions (scope)', 403, googleError(403, 'insufficientPermissions'), 'insufficient_scope'],
    [
      '403 ACCESS_TOKEN_SCOPE_INSUFFICIENT (newer body)',
      403,
      { error: { code: 403, status: 'PERMISSION_DENIED', details: [{ reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' }] } },
      'insufficient_scope',
    ],
    [
      '403 forbidden (a property the user cannot see)',
      403,
      googleError(403, 'forbidden', "User does not have sufficient permission for site 'x'."),
      'property_access_denied',
    ],
    ['404 on the property', 404, googleError(404, 'notFound'), 'property_access_denied'],
    ['429 RESOURCE_EXHAUSTED', 429, googleError(429, 'rateLimitExceeded'), 'quota_exceeded'],
    [
      'legacy 403 quotaExceeded',
      403,
      { error: { code: 403, errors: [{ domain: 'usageLimits', reason: 'quotaExceeded' }] } },
      'quota_exceeded',
    ],
    // Audit against search.md: every quota form Google formats, and bodies that are not Google's JSON.
    [
      '403 rateLimitExceeded (domain usageLimits)',
      403,
      {
        error: {
          code: 403,
          message: 'Rate Limit Exceeded',
          status: 'PERMISSION_DENIED',
          errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
        },
      },
      'quota_exceeded',
    ],
    ['403 userRateLimitExceeded', 403, googleError(403, 'userRateLimitExceeded'), 'quota_exceeded'],
    ['403 dailyLimitExceeded', 403, googleError(403, 'dailyLimitExceeded'), 'quota_exceeded'],
    [
      '403 with status RESOURCE_EXHAUSTED and no reasons',
      403,
      { error: { code: 403, message: 'Quota exceeded for quota metric.', status: 'RESOURCE_EXHAUSTED' } },
      'quota_exceeded',
    ],
    [
      '429 with status RESOURCE_EXHAUSTED and no errors list',
      429,
      { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } },
      'quota_exceeded',
    ],
    ['429 with an HTML page', 429, '<html><body>Too Many Requests</body></html>', 'quota_exceeded'],
    [
      '403 scope message without reasons',
      403,
      { error: { code: 403, message: 'Request had insufficient authentication scopes.', status: 'PERMISSION_DENIED' } },
      'insufficient_scope',
    ],
    [
      '403 PERMISSION_DENIED without reasons',
      403,
      {
        error: {
          code: 403,
          message: "User does not have sufficient permission for site 'https://www.example.com/'.",
          status: 'PERMISSION_DENIED',
        },
      },
      'property_access_denied',
    ],
    ['401 with an HTML page', 401, '<html><body>Unauthorized</body></html>', 'access_token_expired'],
    ['401 required (no credential)', 401, googleError(401, 'required'), 'access_token_expired'],
  ];
  for (const [label, status, body, code] of cases) {
    it(`${label} → ${code}`, async () => {
      upstream(() => [status, body]);
      const f = await failure('top_queries', { siteUrl: PREFIX, ...period });
      expect(f.code).toBe(code);
      expect(f.refusal).toBe(false);
      expect(sent).toHaveLength(1);
      expect(f.text).not.toContain(SECRET);
    });
  }

  it('the texts: reconnect on 401, the property on 403 forbidden, Google’s message (cut at 500) on 400', async () => {
    upstream((_s, i) =>
      i === 0
        ? [401, googleError(401, 'authError')]
        : i === 1
          ? [403, googleError(403, 'forbidden')]
          : [400, googleError(400, 'badRequest', `startDate is too old. ${'x'.repeat(600)}`)],
    );
    expect((await failure('top_pages', { siteUrl: PREFIX, ...period })).text).toBe(
      searchDescriptor.errors.access_token_expired.text,
    );
    expect((await failure('top_pages', { siteUrl: PREFIX, ...period })).text).toBe(
      'Google Search Console denied access to the property https://www.example.com/: the connected ' +
        'account has no access to it. Use a siteUrl exactly as returned by search__list_sites (a domain ' +
        'property is written sc-domain:example.com); reconnecting will not fix this.',
    );
    const bad = await failure('top_pages', { siteUrl: PREFIX, ...period });
    expect(bad.code).toBe('bad_request');
    expect(bad.text).toBe(
      'Google Search Console rejected the request (400): startDate is too ' +
        `old. ${'x'.repeat(500 - 'startDate is too old. '.length)}`,
    );
  });

  it('403 with a WWW-Authenticate insufficient_scope header and no Google body → the scope text', async () => {
    upstream(() => [
      403,
      '',
      {
        'www-authenticate':
          'Bearer realm="https://accounts.google.com/", error="insufficient_scope", ' +
          'scope="https://www.googleapis.com/auth/webmasters.readonly"',
      },
    ]);
    expect((await failure('top_queries', { siteUrl: PREFIX, ...period })).code).toBe('insufficient_scope');
  });

  it('403 accessNotConfigured (API disabled: usageLimits, not quota) → the generic text', async () => {
    upstream(() => [
      403,
      {
        error: {
          code: 403,
          message: 'Google Search Console API has not been used in project 1 before or it is disabled.',
          status: 'PERMISSION_DENIED',
          errors: [{ domain: 'usageLimits', reason: 'accessNotConfigured' }],
          details: [{ reason: 'SERVICE_DISABLED' }],
        },
      },
    ]);
    expect((await failure('top_queries', { siteUrl: PREFIX, ...period })).code).toBeUndefined();
  });

  it('400 with a non-JSON body: a plain-text body is the message, an HTML page is never shown', async () => {
    upstream((_s, i) =>
      i === 0 ? [400, 'Bad date'] : [400, '<!DOCTYPE html><html><title>Error 400 (Bad Request)!!1</title></html>'],
    );
    expect((await failure('top_queries', { siteUrl: PREFIX, ...period })).text).toBe(
      'Google Search Console rejected the request (400): Bad date',
    );
    const html = await failure('top_queries', { siteUrl: PREFIX, ...period });
    expect(html.code).toBe('bad_request');
    expect(html.text).toBe('Google Search Console rejected the request (400): no message given');
  });

  it('5xx HTML pages and a 200 that is not JSON are the generic text', async () => {
    upstream((_s, i) =>
      i === 0
        ? [502, '<html>502. That’s an error.</html>']
        : i === 1
          ? [503, { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } }]
          : [200, '<html>Sign in</html>'],
    );
    for (let i = 0; i < 3; i++)
      expect((await failure('query_performance', { siteUrl: DOMAIN, query: 'x', ...period })).code).toBeUndefined();
    expect((await failure('list_sites', {})).code).toBeUndefined();
  });

  it('list_sites: 401 reconnect, 403 scope, 429 quota; another 403 is the generic text', async () => {
    const replies: Reply[] = [
      [401, googleError(401, 'authError')],
      [403, googleError(403, 'insufficientPermissions')],
      [429, googleError(429, 'rateLimitExceeded')],
      [403, googleError(403, 'forbidden')],
    ];
    upstream((_s, i) => replies[i]);
    expect((await failure('list_sites', {})).code).toBe('access_token_expired');
    expect((await failure('list_sites', {})).code).toBe('insufficient_scope');
    expect((await failure('list_sites', {})).code).toBe('quota_exceeded');
    expect((await failure('list_sites', {})).code).toBeUndefined();
  });

  it('5xx and a body that is not the documented shape are the generic text (no spec code)', async () => {
    upstream((_s, i) =>
      i === 0
        ? [500, googleError(500, 'backendError')]
        : i === 1
          ? [200, { rows: 'none' }]
          : [200, { rows: [{ keys: ['a'], clicks: '1' }] }],
    );
    for (let i = 0; i < 3; i++)
      expect((await failure('top_queries', { siteUrl: DOMAIN, ...period })).code).toBeUndefined();
    expect(sent).toHaveLength(3);
  });

  it('no access token: reconnect without any request', async () => {
    upstream(() => [200, {}]);
    expect((await failure('list_sites', {}, null)).code).toBe('access_token_expired');
    expect(sent).toHaveLength(0);
  });

  it('a period ending before it starts is refused before any request (unmetered: an argument refusal)', async () => {
    upstream(() => [200, {}]);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['top_queries', { siteUrl: DOMAIN, startDate: '2025-05-31', endDate: '2025-05-01' }],
      ['top_pages', { siteUrl: DOMAIN, startDate: '2025-05-31', endDate: '2025-05-01' }],
      ['query_performance', { siteUrl: DOMAIN, query: 'x', startDate: '2025-05-31', endDate: '2025-05-01' }],
      ['page_performance', { siteUrl: DOMAIN, page: PREFIX, startDate: '2025-05-31', endDate: '2025-05-01' }],
      [
        'compare_periods',
        {
          siteUrl: DOMAIN,
          periodAStart: '2025-04-01',
          periodAEnd: '2025-04-30',
          periodBStart: '2025-05-31',
          periodBEnd: '2025-05-01',
        },
      ],
      ['search_analytics_query', { siteUrl: DOMAIN, requestBody: { startDate: '2025-05-31', endDate: '2025-05-01' } }],
    ];
    for (const [tool, args] of cases) {
      const f = await failure(tool, args);
      expect(f, tool).toMatchObject({ code: 'invalid_date_range', refusal: true });
      expect(f.text).toBe(
        'The period 2025-05-31 to 2025-05-01 ends before it starts: give the first day as ' +
          'the start and the last day as the end (YYYY-MM-DD, both inclusive).',
      );
    }
    expect(sent).toHaveLength(0);
  });
});

describe('search_analytics_query allow-list (DECISIONS §18)', () => {
  const validate = (requestBody: unknown) =>
    checkArguments({ coerce: [] }, module.validators.input_search_analytics_query!, { siteUrl: DOMAIN, requestBody });
  const hostile: Array<[string, string]> = [
    ['an unknown key', '{"startDate":"2025-05-01","endDate":"2025-05-31","searchType":"web"}'],
    ['__proto__', '{"startDate":"2025-05-01","endDate":"2025-05-31","__proto__":{"rowLimit":1}}'],
    ['constructor', '{"startDate":"2025-05-01","endDate":"2025-05-31","constructor":{"prototype":{}}}'],
    [
      '__proto__ inside a filter group',
      '{"startDate":"2025-05-01","endDate":"2025-05-31","dimensionFilterGroups":[{"__proto__":{"x":1},"filters":[]}]}',
    ],
    [
      'an unknown key inside a filter',
      '{"startDate":"2025-05-01","endDate":"2025-05-31",' +
        '"dimensionFilterGroups":[{"filters":[{"dimension":"query","expression":"a","x":1}]}]}',
    ],
    [
      'a nested object as a dimension',
      '{"startDate":"2025-05-01","endDate":"2025-05-31","dimensions":[{"query":true}]}',
    ],
    ['an object as a date', '{"startDate":{"$gt":"2025"},"endDate":"2025-05-31"}'],
    ['an object as the type', '{"startDate":"2025-05-01","endDate":"2025-05-31","type":{"web":1}}'],
    ['rowLimit 25,001', '{"startDate":"2025-05-01","endDate":"2025-05-31","rowLimit":25001}'],
    ['rowLimit 1e9', '{"startDate":"2025-05-01","endDate":"2025-05-31","rowLimit":1000000000}'],
    ['a fractional rowLimit', '{"startDate":"2025-05-01","endDate":"2025-05-31","rowLimit":10.5}'],
    ['a negative startRow', '{"startDate":"2025-05-01","endDate":"2025-05-31","startRow":-1}'],
    ['no endDate', '{"startDate":"2025-05-01"}'],
    ['a date that does not exist', '{"startDate":"2025-02-30","endDate":"2025-05-31"}'],
    ['an array as the body', '[{"startDate":"2025-05-01","endDate":"2025-05-31"}]'],
  ];
  for (const [label, json] of hostile) {
    it(`refuses ${label}`, () => {
      expect(validate(JSON.parse(json)).ok).toBe(false);
    });
  }

  it('accepts every allow-listed field, and the rebuilt body carries nothing else', async () => {
    const requestBody = JSON.parse(
      '{"startDate":"2025-05-01","endDate":"2025-05-31","dimensions":["query"],"type":"web",' +
        '"dimensionFilterGroups":[{"groupType":"and","filters":[{"dimension":"page","operator":"contains",' +
        '"expression":"/blog/"}]}],"aggregationType":"auto","rowLimit":25000,"startRow":0,"dataState":"final"}',
    );
    expect(validate(requestBody).ok).toBe(true);
    upstream(() => [200, {}]);
    await call('search_analytics_query', { siteUrl: DOMAIN, requestBody });
    expect(sent[0]!.body).toEqual(requestBody);
    expect(Object.getPrototypeOf(sent[0]!.body)).toBe(Object.prototype);
  });
});

// The Search Console sandbox over HTTP, as a client of the real API would see it (upstreams/search.md
// §4): properties of both kinds, the siteUrl decoded once, Google's 401/403 bodies, the body
// validation, rows sorted by clicks and paged with startRow past 25,000 rows, `rows` absent when
// empty, final versus fresh data, anonymised queries, and totals that add up across groupings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityProvider, type IdentityProvider, verifyAccessToken } from '../sandbox/identity/index.ts';
import { dayNumber, hourKey, SEARCH_QUERY_COUNT } from '../sandbox/search/data.ts';
import { SEARCH_SCOPES, startSearchSandbox, type SearchSandbox } from '../sandbox/search/server.ts';

const CLIENT = 'sandbox-search-test.apps.googleusercontent.com';
const TODAY = '2025-06-10';
const DOMAIN = 'sc-domain:example.dk';
const WWW = 'https://www.example.dk/';

type Row = { keys?: string[]; clicks: number; impressions: number; ctr: number; position: number };
type Answer = { rows?: Row[]; responseAggregationType?: string; metadata?: Record<string, string> };

describe('Search Console sandbox', () => {
  let idp: IdentityProvider;
  let sandbox: SearchSandbox;
  let token: string;

  beforeAll(async () => {
    idp = await startIdentityProvider({
      clients: [
        {
          style: 'google',
          clientId: CLIENT,
          clientSecret: 'sandbox-search-Secret-9',
          redirectUris: ['http://127.0.0.1/cb'],
        },
      ],
    });
    sandbox = await startSearchSandbox({ verifyToken: verifyAccessToken, switches: { today: TODAY } });
    token = idp.issueGrant({ clientId: CLIENT, scope: [SEARCH_SCOPES[0]!] }).access_token;
  });
  afterAll(async () => {
    await sandbox?.close();
    await idp?.close();
  });

  const get = (path: string, bearer: string | null = token) =>
    fetch(`${sandbox.url}${path}`, { headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` } });
  const query = async (site: string, body: unknown, bearer = token): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${sandbox.url}/webmasters/v3/sites/${encodeURIComponent(site)}/searchAnalytics/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const ok = async (site: string, body: unknown): Promise<Answer> => {
    const answer = await query(site, body);
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(200);
    return answer.json as Answer;
  };
  const sum = (rows: readonly Row[] = []) =>
    rows.reduce((a, r) => ({ clicks: a.clicks + r.clicks, impressions: a.impressions + r.impressions }), {
      clicks: 0,
      impressions: 0,
    });
  const may = { startDate: '2025-05-01', endDate: '2025-05-31' };

  it('lists both property kinds for the demo account and nothing for another account', async () => {
    const res = await get('/webmasters/v3/sites');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { siteEntry: Array<{ siteUrl: string; permissionLevel: string }> };
    expect(body.siteEntry).toContainEqual({ siteUrl: DOMAIN, permissionLevel: 'siteOwner' });
    expect(body.siteEntry).toContainEqual({ siteUrl: WWW, permissionLevel: 'siteFullUser' });
    expect(body.siteEntry).toContainEqual({
      siteUrl: 'https://shop.example.dk/',
      permissionLevel: 'siteUnverifiedUser',
    });
    const other = idp.issueGrant({
      clientId: CLIENT,
      scope: [SEARCH_SCOPES[0]!],
      subject: 'someone.else@gmail.com',
    }).access_token;
    expect(await (await get('/webmasters/v3/sites', other)).json()).toEqual({});
    expect(await (await get(`/webmasters/v3/sites/${encodeURIComponent(WWW)}`)).json()).toEqual({
      siteUrl: WWW,
      permissionLevel: 'siteFullUser',
    });
  });

  it("answers Google's 401 and 403 bodies", async () => {
    const none = await get('/webmasters/v3/sites', null);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.errors[0].reason).toBe('required');
    const bad = await get('/webmasters/v3/sites', 'ya29.not-a-token');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as any).error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      errors: [{ reason: 'authError' }],
    });
    const noScope = idp.issueGrant({ clientId: CLIENT, scope: ['openid', 'email'] }).access_token;
    const scope = await query(DOMAIN, may, noScope);
    expect(scope.status).toBe(403);
    expect(scope.json.error.errors[0].reason).toBe('insufficientPermissions');
    for (const site of ['https://shop.example.dk/', 'sc-domain:other.dk', encodeURIComponent(WWW)]) {
      const denied = await query(site, may);
      expect(denied.status, site).toBe(403);
      expect(denied.json.error.errors[0].reason).toBe('forbidden');
      expect(denied.json.error.message).toContain(site);
    }
  });

  it('validates the body as Google documents it', async () => {
    const bad = [
      {},
      { startDate: '2025-05-01' },
      { ...may, startDate: '2025-02-30' },
      { startDate: '2025-05-31', endDate: '2025-05-01' },
      { ...may, dimensions: ['keyword'] },
      { ...may, type: 'shopping' },
      { ...may, rowLimit: 25_001 },
      { ...may, rowLimit: 0 },
      { ...may, startRow: -1 },
      { ...may, dataState: 'fresh' },
      { ...may, unknownField: 1 },
      { ...may, dimensions: ['page'], aggregationType: 'byProperty' },
      { ...may, dimensionFilterGroups: [{ filters: [{ dimension: 'query', operator: 'like', expression: 'x' }] }] },
      {
        ...may,
        dimensionFilterGroups: [{ filters: [{ dimension: 'query', operator: 'includingRegex', expression: '(' }] }],
      },
    ];
    for (const body of bad) {
      const answer = await query(DOMAIN, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.status).toBe('INVALID_ARGUMENT');
    }
    // Enums in the discovery document's upper-snake case are accepted too.
    expect(
      (await ok(DOMAIN, { ...may, dimensions: ['QUERY'], aggregationType: 'BY_PAGE', searchType: 'WEB', rowLimit: 1 }))
        .responseAggregationType,
    ).toBe('byPage');
  });

  it('has 30,000+ query rows a month: rowLimit 25,000 and startRow paging reach all, sorted by clicks', async () => {
    const first = await ok(DOMAIN, { ...may, dimensions: ['query'], rowLimit: 25_000 });
    const second = await ok(DOMAIN, { ...may, dimensions: ['query'], rowLimit: 25_000, startRow: 25_000 });
    expect(first.rows).toHaveLength(25_000);
    expect(second.rows!.length).toBeGreaterThan(5_000);
    const third = await ok(DOMAIN, { ...may, dimensions: ['query'], rowLimit: 25_000, startRow: 50_000 });
    expect(third.rows).toBeUndefined();
    const all = [...first.rows!, ...second.rows!];
    expect(new Set(all.map((r) => r.keys![0])).size).toBe(all.length);
    expect(all.length).toBeLessThanOrEqual(SEARCH_QUERY_COUNT);
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.clicks >= all[i]!.clicks).toBe(true);
    for (const r of all.slice(0, 500)) {
      expect(r.clicks).toBeLessThanOrEqual(r.impressions);
      expect(r.ctr).toBeCloseTo(r.clicks / r.impressions, 12);
      expect(r.position).toBeGreaterThanOrEqual(1);
    }
    expect(first.responseAggregationType).toBe('byProperty');
  });

  it('adds up: every grouping sums to the keyless totals; anonymised queries count only there', async () => {
    const [total] = (await ok(DOMAIN, may)).rows!;
    expect(total!.keys).toBeUndefined();
    for (const dimensions of [['date'], ['country'], ['device'], ['page'], ['country', 'device']]) {
      const rows = (await ok(DOMAIN, { ...may, dimensions, rowLimit: 25_000 })).rows!;
      expect(sum(rows), dimensions.join()).toEqual({ clicks: total!.clicks, impressions: total!.impressions });
      const weighted = rows.reduce((a, r) => a + r.position * r.impressions, 0) / total!.impressions;
      expect(weighted).toBeCloseTo(total!.position, 6);
    }
    const queries = (await ok(DOMAIN, { ...may, dimensions: ['query'], rowLimit: 25_000 })).rows!;
    const more = (await ok(DOMAIN, { ...may, dimensions: ['query'], rowLimit: 25_000, startRow: 25_000 })).rows!;
    const visible = sum([...queries, ...more]);
    // About a fifth of the impressions are on anonymised queries.
    expect(visible.impressions / total!.impressions).toBeGreaterThan(0.7);
    expect(visible.impressions / total!.impressions).toBeLessThan(0.9);
    // The URL-prefix property is the www part of the domain property.
    const [www] = (await ok(WWW, may)).rows!;
    expect(www!.impressions).toBeLessThan(total!.impressions);
    const pages = (await ok(WWW, { ...may, dimensions: ['page'], rowLimit: 25_000 })).rows!;
    expect(pages.every((r) => r.keys![0]!.startsWith(WWW))).toBe(true);
  });

  it('filters: equals is case-sensitive on query, contains is not; countries, devices; search appearance', async () => {
    const [top] = (await ok(DOMAIN, { ...may, dimensions: ['query'], rowLimit: 1 })).rows!;
    const filter = (dimension: string, operator: string, expression: string) => ({
      ...may,
      dimensionFilterGroups: [{ groupType: 'and', filters: [{ dimension, operator, expression }] }],
    });
    const [exact] = (await ok(DOMAIN, filter('query', 'equals', top!.keys![0]!))).rows!;
    expect({ clicks: exact!.clicks, impressions: exact!.impressions }).toEqual({
      clicks: top!.clicks,
      impressions: top!.impressions,
    });
    expect((await ok(DOMAIN, filter('query', 'equals', top!.keys![0]!.toUpperCase()))).rows).toBeUndefined();
    expect(
      (await ok(DOMAIN, filter('query', 'contains', top!.keys![0]!.toUpperCase()))).rows![0]!.impressions,
    ).toBeGreaterThanOrEqual(top!.impressions);
    const countries = (await ok(DOMAIN, { ...may, dimensions: ['country'] })).rows!.map((r) => r.keys![0]);
    expect(countries.sort()).toEqual(['deu', 'dnk', 'nor', 'swe', 'usa']);
    const dnk = (await ok(DOMAIN, { ...filter('country', 'equals', 'DNK'), dimensions: ['device'] })).rows!;
    expect(dnk.map((r) => r.keys![0]).sort()).toEqual(['DESKTOP', 'MOBILE', 'TABLET']);
    const appearances = (await ok(DOMAIN, { ...may, dimensions: ['searchAppearance'] })).rows!;
    expect(appearances.length).toBeGreaterThan(2);
    expect(appearances.every((r) => /^[A-Z_]+$/.test(r.keys![0]!))).toBe(true);
  });

  it('serves final data to three days ago, fresh data with dataState all, nothing older than 16 months', async () => {
    const recent = { startDate: '2025-06-01', endDate: '2025-06-12', dimensions: ['date'] };
    const final = (await ok(DOMAIN, recent)).rows!.map((r) => r.keys![0]).sort();
    expect(final.at(-1)).toBe('2025-06-07');
    const all = await ok(DOMAIN, { ...recent, dataState: 'all' });
    expect(
      all
        .rows!.map((r) => r.keys![0])
        .sort()
        .at(-1),
    ).toBe('2025-06-09');
    expect(all.metadata).toEqual({ first_incomplete_date: '2025-06-08' });
    expect((await ok(DOMAIN, { startDate: '2023-01-01', endDate: '2023-12-31' })).rows).toBeUndefined();
    expect((await ok('http://www.example.dk/', may)).rows).toBeUndefined();
  });

  it('gives the same numbers on every run (deterministic)', async () => {
    const a = await ok(DOMAIN, { ...may, dimensions: ['page'], rowLimit: 3 });
    const fresh = await startSearchSandbox({ verifyToken: verifyAccessToken, switches: { today: TODAY } });
    try {
      const res = await fetch(`${fresh.url}/webmasters/v3/sites/${encodeURIComponent(DOMAIN)}/searchAnalytics/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...may, dimensions: ['page'], rowLimit: 3 }),
      });
      expect(await res.json()).toEqual(a);
    } finally {
      await fresh.close();
    }
  });

  it('answers the quota and fault switches', async () => {
    sandbox.setSwitches({ quotaPerMinute: 1 });
    try {
      await query(WWW, may);
      const limited = await query(WWW, may);
      expect(limited.status).toBe(429);
      expect(limited.json.error.status).toBe('RESOURCE_EXHAUSTED');
      sandbox.setSwitches({ quotaForm: 'legacy403' });
      const legacy = await query(WWW, may);
      expect(legacy.status).toBe(403);
      expect(legacy.json.error.errors[0]).toMatchObject({ reason: 'quotaExceeded', domain: 'usageLimits' });
    } finally {
      sandbox.setSwitches({ quotaPerMinute: 0, quotaForm: 'status429' });
    }
    sandbox.setSwitches({ fault: 'unavailable', faultCount: 1 });
    expect((await query(DOMAIN, may)).status).toBe(503);
    expect((await query(DOMAIN, { ...may, rowLimit: 1 })).status).toBe(200);
    // Bodies that are not JSON: Google's front-end 502 page, and an HTML page answered 200.
    sandbox.setSwitches({ fault: 'badGateway', faultCount: 1 });
    const gateway = await get('/webmasters/v3/sites');
    expect(gateway.status).toBe(502);
    expect(gateway.headers.get('content-type')).toContain('text/html');
    expect(await gateway.text()).toContain('502.');
    sandbox.setSwitches({ fault: 'notJson', faultCount: 1 });
    const html = await get('/webmasters/v3/sites');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect((await html.text()).startsWith('<!DOCTYPE html>')).toBe(true);
    expect((await get('/webmasters/v3/sites')).status).toBe(200);
  });

  it('hourly data with dataState hourly_all: Pacific hour keys with offset, newest 10 days, sum to days', async () => {
    const week = { startDate: '2025-06-03', endDate: '2025-06-09' };
    expect((await query(DOMAIN, { ...week, dimensions: ['hour'] })).status).toBe(400);
    const hourly = await ok(DOMAIN, { ...week, dimensions: ['hour'], dataState: 'HOURLY_ALL', rowLimit: 25_000 });
    const rows = hourly.rows ?? [];
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) expect(row.keys![0]).toMatch(/^2025-06-0[3-9]T([01]\d|2[0-3]):00:00-07:00$/);
    expect(hourly.metadata).toEqual({ first_incomplete_hour: '2025-06-08T00:00:00-07:00' });
    const byDay = await ok(DOMAIN, { ...week, dimensions: ['date'], dataState: 'all' });
    for (const day of byDay.rows ?? []) {
      const hours = rows.filter((r) => r.keys![0]!.startsWith(day.keys![0]!));
      expect(sum(hours), day.keys![0]).toEqual({ clicks: day.clicks, impressions: day.impressions });
    }
    // Older than 10 days: no hourly rows (`rows` absent); hourly_all without hour is `all`.
    expect(
      (
        await ok(DOMAIN, {
          startDate: '2025-05-01',
          endDate: '2025-05-30',
          dimensions: ['hour'],
          dataState: 'hourly_all',
        })
      ).rows,
    ).toBeUndefined();
    expect(
      (await ok(DOMAIN, { ...may, dimensions: ['hour'], dataState: 'hourly_all' })).rows?.every((r) =>
        r.keys![0]!.startsWith('2025-05-31'),
      ),
    ).toBe(true);
    expect(sum((await ok(DOMAIN, { ...week, dataState: 'hourly_all' })).rows)).toEqual(
      sum((await ok(DOMAIN, { ...week, dataState: 'all' })).rows),
    );
    // Winter days carry -08:00; the spring-forward day switches at 02:00.
    expect(hourKey(dayNumber('2025-01-15')!, 0)).toBe('2025-01-15T00:00:00-08:00');
    expect(hourKey(dayNumber('2025-03-09')!, 1)).toBe('2025-03-09T01:00:00-08:00');
    expect(hourKey(dayNumber('2025-03-09')!, 3)).toBe('2025-03-09T03:00:00-07:00');
    expect(hourKey(dayNumber('2025-11-02')!, 23)).toBe('2025-11-02T23:00:00-08:00');
  });

  it('insists on the documented wire form: {siteUrl} fully percent-encoded, a JSON query body', async () => {
    const before = sandbox.stats.notFullyEncoded;
    // sc-domain: with its colon left raw, and lower-case hex (still fully encoded).
    const raw = await fetch(`${sandbox.url}/webmasters/v3/sites/sc-domain:example.dk/searchAnalytics/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(may),
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error.message).toContain('sc-domain%3Aexample.dk');
    expect(sandbox.stats.notFullyEncoded).toBe(before + 1);
    expect((await get('/webmasters/v3/sites/https%3a%2f%2fwww.example.dk%2f')).status).toBe(200);
    sandbox.setSwitches({ siteEncoding: 'lenient' });
    try {
      expect((await get('/webmasters/v3/sites/sc-domain:example.dk')).status).toBe(200);
    } finally {
      sandbox.setSwitches({ siteEncoding: 'strict' });
    }
    const text = await fetch(`${sandbox.url}/webmasters/v3/sites/${encodeURIComponent(DOMAIN)}/searchAnalytics/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: JSON.stringify(may),
    });
    expect(text.status).toBe(400);
    expect(((await text.json()) as any).error.status).toBe('INVALID_ARGUMENT');
    expect(sandbox.stats.notJsonContentType).toBeGreaterThan(0);
  });

  it("the demo examples' dates are Pacific calendar days inside the final data", async () => {
    const { daysAgo } = await import('../sandbox/search/index.ts');
    const pacific = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/Los_Angeles',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date());
    const expected = new Date(Date.parse(`${pacific}T00:00:00Z`) - 4 * 86_400_000).toISOString().slice(0, 10);
    expect(daysAgo(4)).toBe(expected);
  });
});

// The search-analytics connector end to end: an MCP client (the SDK Client) → the gateway → the
// Search Console sandbox over HTTP, connected through the sandbox Google identity provider as the
// demo tenant is. What a user asks: the sites, last month's top queries and pages, one query and
// one page, last month against the month before with numbers that add up, a raw query paged past
// 25,000 rows. What must hold: hostile raw bodies are refused before any upstream request and not
// metered; the access token is refreshed silently; a revoked grant and an upstream 401 both answer
// AccessTokenExpiredError.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  type IdentityProvider,
  sandboxOAuth,
  startIdentityProvider,
  verifyAccessToken,
} from '../sandbox/identity/index.ts';
import { SEARCH_SCOPES, type SearchSandbox, startSearchSandbox } from '../sandbox/search/server.ts';
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

const DOMAIN = 'sc-domain:example.dk';
const WWW = 'https://www.example.dk/';
const TODAY = '2025-06-10';
const LAST_MONTH = { startDate: '2025-05-01', endDate: '2025-05-31' };
const MONTH_BEFORE = { startDate: '2025-04-01', endDate: '2025-04-30' };
/** compare_periods of the month before (A, the baseline) against last month (B). */
const MONTHS = {
  siteUrl: DOMAIN,
  periodAStart: MONTH_BEFORE.startDate,
  periodAEnd: MONTH_BEFORE.endDate,
  periodBStart: LAST_MONTH.startDate,
  periodBEnd: LAST_MONTH.endDate,
};

type Metrics = { clicks: number; impressions: number; ctr: number; position: number };

describe('search analytics end to end against its sandbox', () => {
  let store: PlatformStore;
  let idp: IdentityProvider;
  let sandbox: SearchSandbox;
  let gw: StartedGateway;
  let oauth: ReturnType<typeof sandboxOAuth>;
  let tenant: Tenant;
  let client: Client;
  let clockOffsetMs = 0;
  const call = (name: string, args: Record<string, unknown> = {}, c = client) =>
    c.callTool({ name: `search__${name}`, arguments: args });
  const metered = async (t = tenant) => (await usageOf(gw.url, t.token)).usage.byConnector.search?.calls ?? 0;

  async function connected(): Promise<{ tenant: Tenant; client: Client }> {
    const t = await createTenant(store, { subscribe: ['search'] });
    await connectTenant(gw, t, 'search', oauth.demoGrant());
    return { tenant: t, client: await mcpClient(gw.url, 'search', t.token) };
  }

  beforeAll(async () => {
    store = await openStore({});
    idp = await startIdentityProvider({});
    sandbox = await startSearchSandbox({ verifyToken: verifyAccessToken, switches: { today: TODAY } });
    oauth = sandboxOAuth(
      idp,
      { style: 'google', clientId: 'search-e2e.apps.googleusercontent.com', clientSecret: 'search-e2e-Secret-7q' },
      { apiPath: '', scope: [SEARCH_SCOPES[0]!] },
    );
    gw = await startGateway(store, {
      now: () => new Date(Date.now() + clockOffsetMs),
      env: {
        CONNECTOR_SEARCH_BASE_URL: sandbox.url,
        CONNECTOR_SEARCH_OAUTH_BASE_URL: oauth.baseUrl,
        CONNECTOR_SEARCH_OAUTH_CLIENT_ID: oauth.clientId,
        CONNECTOR_SEARCH_OAUTH_CLIENT_SECRET: oauth.clientSecret,
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_SECOND: '10000',
      },
    });
    oauth.register(`${gw.url}/portal/oauth/callback`);
    ({ tenant, client } = await connected());
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await idp?.close();
    await store?.close();
  });

  it('list_sites: the verified properties of both kinds, the unverified one left out', async () => {
    const { sites } = resultJson(await call('list_sites')) as {
      sites: Array<{ siteUrl: string; permissionLevel: string }>;
    };
    expect(sites.map((s) => s.siteUrl).sort()).toEqual([WWW, 'http://www.example.dk/', DOMAIN].sort());
    expect(sites.find((s) => s.siteUrl === DOMAIN)!.permissionLevel).toBe('siteOwner');
  });

  it('top queries of last month, and last month against the month before, with numbers that add up', async () => {
    const top = resultJson(await call('top_queries', { siteUrl: DOMAIN, ...LAST_MONTH, limit: 20 })) as {
      queries: Array<Metrics & { query: string }>;
    };
    expect(top.queries).toHaveLength(20);
    for (let i = 1; i < top.queries.length; i++)
      expect(top.queries[i - 1]!.clicks).toBeGreaterThanOrEqual(top.queries[i]!.clicks);
    const cmp = resultJson(await call('compare_periods', MONTHS));
    const a = cmp.periodA.totals as Metrics;
    const b = cmp.periodB.totals as Metrics;
    expect(cmp.dimension).toBeNull();
    expect(a.clicks).toBeGreaterThan(0);
    // The property totals hold every query row (and the anonymised ones): the top 20 are a part.
    expect(top.queries.reduce((n, q) => n + q.clicks, 0)).toBeLessThan(b.clicks);
    expect(cmp.delta.clicks).toEqual({
      absolute: b.clicks - a.clicks,
      percent: ((b.clicks - a.clicks) / a.clicks) * 100,
    });
    expect(cmp.delta.impressions).toEqual({
      absolute: b.impressions - a.impressions,
      percent: ((b.impressions - a.impressions) / a.impressions) * 100,
    });
    expect(cmp.delta.ctr.absolute).toBeCloseTo(b.ctr - a.ctr, 12);
    expect(cmp.delta.position.absolute).toBeCloseTo(b.position - a.position, 12);
    expect(b.ctr).toBeCloseTo(b.clicks / b.impressions, 12);
    // The same month by day, summed by hand, is the same total; and so is compare_periods by date.
    const days = resultJson(
      await call('search_analytics_query', { siteUrl: DOMAIN, requestBody: { ...LAST_MONTH, dimensions: ['date'] } }),
    ).rows as Array<Metrics & { keys: string[] }>;
    expect(days).toHaveLength(31);
    const clicks = days.reduce((n, r) => n + r.clicks, 0);
    const impressions = days.reduce((n, r) => n + r.impressions, 0);
    expect({ clicks, impressions }).toEqual({ clicks: b.clicks, impressions: b.impressions });
    expect(days.reduce((n, r) => n + r.position * r.impressions, 0) / impressions).toBeCloseTo(b.position, 6);
    const byDate = resultJson(await call('compare_periods', { ...MONTHS, dimension: 'date' }));
    expect(byDate.periodB.totals.clicks).toBe(b.clicks);
    expect(byDate.periodA.totals.impressions).toBe(a.impressions);
  });

  it('compare_periods by query pages past 25,000 rows and sums them all', async () => {
    const before = sandbox.requests.length;
    const cmp = resultJson(await call('compare_periods', { ...MONTHS, dimension: 'query' }));
    const bodies = sandbox.requests.slice(before).map((r) => r.body as { startRow: number; rowLimit: number });
    // Paged as upstreams/search.md §2 documents: startRow += rowLimit until a page has no rows.
    expect(bodies.map((b) => b.startRow).sort((x, y) => x - y)).toEqual([0, 0, 25_000, 25_000, 50_000, 50_000]);
    const first = resultJson(
      await call('search_analytics_query', {
        siteUrl: DOMAIN,
        requestBody: { ...LAST_MONTH, dimensions: ['query'], rowLimit: 25_000 },
      }),
    ).rows as Metrics[];
    const second = resultJson(
      await call('search_analytics_query', {
        siteUrl: DOMAIN,
        requestBody: { ...LAST_MONTH, dimensions: ['query'], rowLimit: 25_000, startRow: 25_000 },
      }),
    ).rows as Metrics[];
    expect(first).toHaveLength(25_000);
    expect(first.length + second.length).toBeGreaterThan(30_000);
    expect(cmp.periodB.totals.clicks).toBe([...first, ...second].reduce((n, r) => n + r.clicks, 0));
    // Anonymised queries are not query rows: the query sum is below the property total.
    const whole = resultJson(await call('compare_periods', MONTHS));
    expect(cmp.periodB.totals.impressions).toBeLessThan(whole.periodB.totals.impressions);
  });

  it('top_pages, query_performance and page_performance agree with each other; zeros without data', async () => {
    const pages = resultJson(await call('top_pages', { siteUrl: WWW, ...LAST_MONTH, limit: 5 })).pages as Array<
      Metrics & { page: string }
    >;
    expect(pages).toHaveLength(5);
    expect(pages.every((p) => p.page.startsWith(WWW))).toBe(true);
    const page = resultJson(await call('page_performance', { siteUrl: WWW, page: pages[0]!.page, ...LAST_MONTH }));
    expect(page.metrics).toEqual({
      clicks: pages[0]!.clicks,
      impressions: pages[0]!.impressions,
      ctr: pages[0]!.ctr,
      position: pages[0]!.position,
    });
    const [top] = resultJson(await call('top_queries', { siteUrl: DOMAIN, ...LAST_MONTH, limit: 1 })).queries as Array<
      Metrics & { query: string }
    >;
    const one = resultJson(await call('query_performance', { siteUrl: DOMAIN, query: top!.query, ...LAST_MONTH }));
    expect(one.metrics.clicks).toBe(top!.clicks);
    expect(one.metrics.impressions).toBe(top!.impressions);
    const none = resultJson(
      await call('query_performance', { siteUrl: DOMAIN, query: top!.query.toUpperCase(), ...LAST_MONTH }),
    );
    expect(none.metrics).toEqual({ clicks: 0, impressions: 0, ctr: 0, position: 0 });
    const gone = resultJson(
      await call('page_performance', { siteUrl: WWW, page: `${WWW}no-such-page/`, ...LAST_MONTH }),
    );
    expect(gone.metrics).toEqual({ clicks: 0, impressions: 0, ctr: 0, position: 0 });
    expect(
      resultJson(await call('search_analytics_query', { siteUrl: 'http://www.example.dk/', requestBody: LAST_MONTH })),
    ).toEqual({
      siteUrl: 'http://www.example.dk/',
      responseAggregationType: 'byProperty',
      rows: [],
    });
  });

  it('a property the account cannot see, and Google rejecting a body, each have their own text (metered)', async () => {
    const before = await metered();
    const denied = await call('top_queries', { siteUrl: 'https://shop.example.dk/', ...LAST_MONTH });
    expect(denied.isError).toBe(true);
    expect(resultText(denied)).toContain('denied access to the property https://shop.example.dk/');
    const rejected = await call('search_analytics_query', {
      siteUrl: DOMAIN,
      requestBody: { ...LAST_MONTH, dimensions: ['page'], aggregationType: 'byProperty' },
    });
    expect(resultText(rejected)).toMatch(
      /^Google Search Console rejected the request \(400\): Cannot aggregate by property/,
    );
    expect(await metered()).toBe(before + 2);
  });

  it('hostile raw bodies are refused with the generic text before any upstream request, and not metered', async () => {
    const hostile = [
      { ...LAST_MONTH, searchType: 'web' },
      JSON.parse('{"startDate":"2025-05-01","endDate":"2025-05-31","__proto__":{"rowLimit":1}}'),
      {
        ...LAST_MONTH,
        dimensionFilterGroups: [{ filters: [{ dimension: 'query', expression: 'x', nested: { a: 1 } }] }],
      },
      { ...LAST_MONTH, dimensions: [{ query: 1 }] },
      { ...LAST_MONTH, rowLimit: 1_000_000 },
      { ...LAST_MONTH, startDate: { $gte: '2025-05-01' } },
    ];
    const before = await metered();
    const requests = sandbox.stats.requests;
    for (const requestBody of hostile) {
      const result = await call('search_analytics_query', { siteUrl: DOMAIN, requestBody });
      expect(result.isError, JSON.stringify(requestBody)).toBe(true);
      expect(resultText(result)).toBe('Tool invocation failed.');
    }
    const reversed = await call('search_analytics_query', {
      siteUrl: DOMAIN,
      requestBody: { startDate: '2025-05-31', endDate: '2025-05-01' },
    });
    expect(resultText(reversed)).toMatch(/^The period 2025-05-31 to 2025-05-01 ends before it starts/);
    expect(sandbox.stats.requests).toBe(requests);
    expect(await metered()).toBe(before);
  });

  it('every sandbox fault: quota (429, legacy 403) → quota text, 5xx and HTML → generic; JSON requests', async () => {
    const q = { siteUrl: WWW, ...LAST_MONTH, limit: 1 };
    // The sandbox counts its quota per wall-clock minute: calls that straddle a minute's end would
    // each be the first of their minute, so start with at least 15 s of the minute left.
    const leftMs = 60_000 - (Date.now() % 60_000);
    if (leftMs < 15_000) await new Promise((resolve) => setTimeout(resolve, leftMs + 50));
    sandbox.setSwitches({ quotaPerMinute: 1 });
    try {
      await call('top_queries', q);
      const limited = await call('top_queries', q);
      expect(resultText(limited)).toMatch(/^Google Search Console quota reached/);
      sandbox.setSwitches({ quotaForm: 'legacy403' });
      expect(resultText(await call('top_queries', q))).toMatch(/^Google Search Console quota reached/);
    } finally {
      sandbox.setSwitches({ quotaPerMinute: 0, quotaForm: 'status429' });
    }
    for (const fault of ['serverError', 'unavailable', 'badGateway', 'notJson'] as const) {
      sandbox.setSwitches({ fault, faultCount: 1 });
      const result = await call('top_queries', q);
      expect(result.isError, fault).toBe(true);
      expect(resultText(result), fault).toBe('Tool invocation failed.');
    }
    expect((await call('top_queries', q)).isError).toBeFalsy();
    // Nothing the gateway sent in this whole file left the property unencoded or the body untyped.
    expect(sandbox.stats.notFullyEncoded).toBe(0);
    expect(sandbox.stats.notJsonContentType).toBe(0);
  });

  it('search_analytics_query: hourly data of the newest days, Pacific hour keys', async () => {
    const result = resultJson(
      await call('search_analytics_query', {
        siteUrl: DOMAIN,
        requestBody: {
          startDate: '2025-06-08',
          endDate: '2025-06-09',
          dimensions: ['hour'],
          dataState: 'hourly_all',
          rowLimit: 48,
        },
      }),
    );
    expect(result.rows).toHaveLength(48);
    for (const r of result.rows as Array<{ keys: string[] }>)
      expect(r.keys[0]).toMatch(/^2025-06-0[89]T\d\d:00:00-07:00$/);
    expect(result).not.toHaveProperty('metadata');
  });

  it('refreshes an expiring access token silently', async () => {
    const refreshes = () =>
      idp.stats.tokenLog.filter((r) => r.grantType === 'refresh_token' && r.status === 200).length;
    const before = refreshes();
    clockOffsetMs = 3_570_000;
    try {
      const result = await call('list_sites');
      expect(result.isError).toBeFalsy();
      expect(refreshes()).toBe(before + 1);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('a grant revoked at Google: invalid_grant → AccessTokenExpiredError, unmetered; a 401 the same', async () => {
    const revoked = await connected();
    try {
      idp.revoke({ clientId: oauth.clientId, accessTokens: true });
      // The stored access token is still unexpired: the API itself answers 401.
      const before = await metered(revoked.tenant);
      const rejected = await call('list_sites', {}, revoked.client);
      expect(rejected.isError).toBe(true);
      expect(resultText(rejected)).toMatch(/^AccessTokenExpiredError: /);
      expect(await metered(revoked.tenant)).toBe(before + 1);
      // Near expiry the refresh is refused (invalid_grant): the same text, before any upstream request.
      clockOffsetMs = 3_570_000;
      const requests = sandbox.stats.requests;
      const refused = await call('top_queries', { siteUrl: DOMAIN, ...LAST_MONTH }, revoked.client);
      expect(resultText(refused)).toMatch(/^AccessTokenExpiredError: /);
      expect(sandbox.stats.requests).toBe(requests);
      expect(await metered(revoked.tenant)).toBe(before + 1);
    } finally {
      clockOffsetMs = 0;
      await revoked.client.close();
    }
  });
});

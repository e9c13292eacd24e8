// Sandbox fake of the search-analytics upstream, the Google Search Console API, reached over HTTP
// exactly like the real one. Built from ../shared/upstreams/search.md (§2 wire contract, §4
// checklist); the Google token endpoint it relies on is sandbox/identity/'s `google` style.
//
//   GET  {url}/webmasters/v3/sites                                   sites.list ({} without properties)
//   GET  {url}/webmasters/v3/sites/{siteUrl}                         sites.get
//   POST {url}/webmasters/v3/sites/{siteUrl}/searchAnalytics/query   searchanalytics.query
//
// `{siteUrl}` is percent-decoded once: a double-encoded property is unknown (403 forbidden), which
// catches a client that encodes twice; a segment that is not exactly `encodeURIComponent` of the
// property (`sc-domain:` left raw) is a 400 (switch `siteEncoding`), which catches one that does
// not encode. A query POST must be `application/json`. Bearer tokens are checked with `verifyToken` (the identity
// provider's verifyAccessToken): no header → 401 `required`, an unknown, expired or revoked token
// → 401 `authError`, a token without a Search Console scope → 403 `insufficientPermissions`. The
// demo account (the Google style's demo subject) sees the sites of data.ts; any other account has
// none. An unknown, unshared or unverified property → 403 `forbidden` naming it. Errors are
// Google's standard body `{ error: { code, message, status, errors: [{ message, domain, reason }] } }`.
//
// The query body is validated as Google documents it (400 INVALID_ARGUMENT): dates, start ≤ end,
// dimensions, type (`searchType` alias), filters (operators; equals/notEquals case-sensitive on
// query and page, contains/notContains not; regexes as JS RegExp), aggregationType (byProperty is
// invalid with page grouping or filtering), rowLimit 1–25000, startRow ≥ 0, dataState; enums in
// any case (`QUERY`, `BY_PAGE`); an unknown field is refused. Rows are sorted by clicks; `rows` is
// absent when empty; without dimensions one row without `keys`. Final data ends three days before
// "today" (Pacific time); `dataState: all` adds the two fresh days and `metadata`. The `hour`
// dimension needs `dataState: hourly_all` (else 400) and covers the newest 10 days, keyed
// `2025-04-07T00:00:00-07:00` (Pacific, with its offset); `hourly_all` without `hour` is `all`.
// A request whose grouping would exceed 500,000 rows answers 429 RESOURCE_EXHAUSTED, like
// Google's load quota.
//
// Sandbox-only controls (no auth; not recorded as upstream requests):
//   GET  /__sandbox/switches   POST /__sandbox/switches (a partial SearchSwitches)
//   GET  /__sandbox/stats      GET  /__sandbox/requests   POST /__sandbox/reset
//
// Run as a script: `node sandbox/search/server.ts` listens on 127.0.0.1:4107 (SEARCH_SANDBOX_PORT
// overrides) with its own identity provider and prints a token to try it with.
//
// Routes and checks are here; the query body is query-body.ts, the aggregation and its cache
// analytics.ts, Google's error body google-error.ts.

import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  closeOnce,
  findRoute,
  type JsonStyle,
  listen,
  PendingDelays,
  parseJsonLoose,
  type Route,
  readBody,
  sendJson as sendKitJson,
  sendText,
  switchError,
} from '../http-kit.ts';
import { AggregationCache, analytics, pacificToday } from './analytics.ts';
import { dateOfDay, GroupLimitError, SEARCH_SITES, type SearchSite } from './data.ts';
import { GoogleError, invalid } from './google-error.ts';
import {
  DEFAULT_SWITCHES,
  resetStats,
  SEARCH_DEMO_SUBJECT,
  SEARCH_REQUEST_LOG_MAX,
  SEARCH_SCOPES,
  type SearchFault,
  type SearchSandbox,
  type SearchSandboxOptions,
  type SearchState,
  type SearchSwitches,
  SWITCH_CHECKS,
  setSwitches,
} from './switches.ts';

export { pacificToday, SEARCH_MAX_GROUPS } from './analytics.ts';
export { SEARCH_MAX_ROW_LIMIT } from './query-body.ts';
export {
  SEARCH_DEFAULT_SLOW_DELAY_MS,
  SEARCH_DEMO_SUBJECT,
  SEARCH_FAULTS,
  SEARCH_REQUEST_LOG_MAX,
  SEARCH_SCOPES,
  type SearchFault,
  type SearchRecordedRequest,
  type SearchSandbox,
  type SearchSandboxOptions,
  type SearchSandboxStats,
  type SearchSwitches,
  type SearchTokenCheck,
} from './switches.ts';

// ---- Responses ---------------------------------------------------------------------------------

function sendHtml(res: ServerResponse, status: number, html: string): void {
  sendText(res, status, html, { 'content-type': 'text/html; charset=UTF-8' });
}

/** Google writes `charset=UTF-8`. */
const GOOGLE_JSON: JsonStyle = { contentType: 'application/json; charset=UTF-8' };

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendKitJson(res, status, body, {}, GOOGLE_JSON);
}

/** `encodeURIComponent` of the decoded segment, hex digits compared in either case. */
function fullyEncoded(segment: string, decoded: string): boolean {
  return encodeURIComponent(decoded) === segment.replace(/%[0-9a-f]{2}/gi, (hex) => hex.toUpperCase());
}

// ---- Checks ------------------------------------------------------------------------------------

function authenticate(state: SearchState, req: IncomingMessage): string {
  const header = req.headers.authorization;
  if (header === undefined)
    throw new GoogleError(
      401,
      'UNAUTHENTICATED',
      'required',
      'Request is missing required authentication credential. Expected OAuth 2 ' +
        'access token, login cookie or other valid authentication credential.',
    );
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  const check =
    token === undefined || state.options.verifyToken === undefined ? undefined : state.options.verifyToken(token);
  if (check === undefined || !check.valid || check.subject === null)
    throw new GoogleError(
      401,
      'UNAUTHENTICATED',
      'authError',
      'Request had invalid authentication credentials. Expected OAuth 2 access ' +
        'token, login cookie or other valid authentication credential.',
    );
  if (!check.scope.some((s) => SEARCH_SCOPES.includes(s)))
    throw new GoogleError(
      403,
      'PERMISSION_DENIED',
      'insufficientPermissions',
      'Request had insufficient authentication scopes.',
    );
  return check.subject;
}

function site(state: SearchState, subject: string, siteUrl: string): SearchSite {
  const found = state.sitesOf(subject).find((s) => s.siteUrl === siteUrl);
  if (found === undefined || found.permissionLevel === 'siteUnverifiedUser')
    throw new GoogleError(
      403,
      'PERMISSION_DENIED',
      'forbidden',
      `User does not have sufficient permission for site '${siteUrl}'. See ` +
        'also: https://support.google.com/webmasters/answer/2451999.',
    );
  return found;
}

function countQuota(state: SearchState, subject: string, siteUrl: string): void {
  const { switches, minute } = state;
  if (switches.quotaPerMinute === 0) return;
  const now = Math.floor(Date.now() / 60_000);
  if (minute.at !== now) {
    minute.at = now;
    minute.counts.clear();
  }
  for (const key of [`user:${subject}`, `site:${siteUrl}`]) {
    const n = (minute.counts.get(key) ?? 0) + 1;
    minute.counts.set(key, n);
    if (n > switches.quotaPerMinute) {
      if (switches.quotaForm === 'legacy403')
        throw new GoogleError(
          403,
          'PERMISSION_DENIED',
          'quotaExceeded',
          'Quota exceeded for quota metric.',
          'usageLimits',
        );
      throw new GoogleError(
        429,
        'RESOURCE_EXHAUSTED',
        'rateLimitExceeded',
        'Quota exceeded for quota metric: Search Analytics queries per minute per user and per site.',
      );
    }
  }
}

/** The `{siteUrl}` segment decoded once; not fully encoded is counted, and refused when strict. */
function siteUrlOf(state: SearchState, encodedSite: string): string {
  let siteUrl: string;
  try {
    siteUrl = decodeURIComponent(encodedSite);
  } catch {
    throw invalid('The siteUrl path segment is not valid percent-encoding.');
  }
  if (!fullyEncoded(encodedSite, siteUrl)) {
    state.stats.notFullyEncoded++;
    if (state.switches.siteEncoding === 'strict')
      throw invalid(
        `The siteUrl path segment '${encodedSite}' is not fully percent-encoded: send ` +
          `encodeURIComponent('${siteUrl}') = '${encodeURIComponent(siteUrl)}'.`,
      );
  }
  return siteUrl;
}

function allow(method: string, expected: string): void {
  if (method !== expected)
    throw new GoogleError(405, 'INVALID_ARGUMENT', 'badRequest', `Method ${method} is not allowed here.`);
}

// ---- Routes ------------------------------------------------------------------------------------

interface ApiRequest {
  readonly state: SearchState;
  readonly req: IncomingMessage;
  readonly method: string;
  readonly subject: string;
  readonly body: unknown;
  readonly tooLarge: boolean;
}

type ApiHandler = (request: ApiRequest, params: string[]) => [number, unknown];

/** The three methods of the API; the path is matched before authentication, the method after it. */
const API_ROUTES: readonly Route<ApiHandler>[] = [
  {
    path: /^\/webmasters\/v3\/sites\/?$/,
    handle: ({ state, method, subject }) => {
      allow(method, 'GET');
      const entries = state.sitesOf(subject).map(({ siteUrl, permissionLevel }) => ({ siteUrl, permissionLevel }));
      return [200, entries.length > 0 ? { siteEntry: entries } : {}];
    },
  },
  {
    path: /^\/webmasters\/v3\/sites\/([^/]+)\/?$/,
    handle: ({ state, method, subject }, [encodedSite]) => {
      const siteUrl = siteUrlOf(state, encodedSite!);
      allow(method, 'GET');
      const found = state.sitesOf(subject).find((s) => s.siteUrl === siteUrl) ?? site(state, subject, siteUrl);
      return [200, { siteUrl, permissionLevel: found.permissionLevel }];
    },
  },
  {
    path: /^\/webmasters\/v3\/sites\/([^/]+)\/searchAnalytics\/query\/?$/,
    handle: ({ state, req, method, subject, body, tooLarge }, [encodedSite]) => {
      const siteUrl = siteUrlOf(state, encodedSite!);
      allow(method, 'POST');
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        state.stats.notJsonContentType++;
        throw invalid(
          'Invalid JSON payload received: the request body must be sent as ' +
            `application/json (got ${JSON.stringify(req.headers['content-type'] ?? null)}).`,
        );
      }
      countQuota(state, subject, siteUrl);
      const found = site(state, subject, siteUrl);
      if (tooLarge || typeof body === 'string') throw invalid('Invalid JSON payload received.');
      const answered = analytics(found, body ?? {}, state.switches.today, state.cache);
      state.stats.analyticsAnswered++;
      return [200, answered];
    },
  },
];

/** Status and body of one upstream request. */
function answer(
  state: SearchState,
  req: IncomingMessage,
  method: string,
  url: URL,
  body: unknown,
  tooLarge: boolean,
  fault: SearchFault,
): [number, unknown] {
  if (fault === 'serverError')
    return [500, new GoogleError(500, 'INTERNAL', 'backendError', 'Internal error encountered.').body()];
  if (fault === 'unavailable')
    return [503, new GoogleError(503, 'UNAVAILABLE', 'backendError', 'The service is currently unavailable.').body()];
  try {
    const route = findRoute(API_ROUTES, method, url.pathname);
    if (route === undefined)
      throw new GoogleError(
        404,
        'NOT_FOUND',
        'notFound',
        `The requested URL ${url.pathname} was not found on this server.`,
      );
    const subject = authenticate(state, req);
    return route.handle({ state, req, method, subject, body, tooLarge }, route.params);
  } catch (error) {
    if (error instanceof GroupLimitError)
      return [
        429,
        new GoogleError(
          429,
          'RESOURCE_EXHAUSTED',
          'rateLimitExceeded',
          'Search Analytics load quota exceeded: ask for a shorter date range or fewer dimensions.',
        ).body(),
      ];
    if (!(error instanceof GoogleError)) throw error;
    return [error.code, error.body()];
  }
}

const BAD_GATEWAY_PAGE =
  '<!DOCTYPE html><html lang=en><title>Error 502 (Server Error)!!1</title><p><b>502.</b> ' +
  '<ins>That’s an error.</ins><p>The server encountered a temporary error and could not complete ' +
  'your request.<p>Please try again in 30 seconds. <ins>That’s all we know.</ins></html>';

async function handleUpstream(state: SearchState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  const { text, tooLarge } = await readBody(req);
  const { stats, requestLog } = state;
  stats.requests++;
  const body = parseJsonLoose(text);
  res.once('finish', () => {
    stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
    requestLog.push({ method, path: url.pathname, body, status: res.statusCode });
    if (requestLog.length > SEARCH_REQUEST_LOG_MAX) requestLog.splice(0, requestLog.length - SEARCH_REQUEST_LOG_MAX);
  });
  const fault = state.switches.fault;
  if (fault !== 'none') {
    const switches = state.switches;
    if (switches.faultCount > 0)
      state.switches = {
        ...switches,
        faultCount: switches.faultCount - 1,
        ...(switches.faultCount === 1 ? { fault: 'none' as const } : {}),
      };
    if (fault === 'slow' && !(await state.pending.delay(state.switches.slowDelayMs, res))) return;
    if (fault === 'badGateway') return sendHtml(res, 502, BAD_GATEWAY_PAGE);
    if (fault === 'notJson')
      return sendHtml(
        res,
        200,
        '<!DOCTYPE html><html><head><title>Google Search Console</title></head><body>Sign in to continue</body></html>',
      );
  }
  sendJson(res, ...answer(state, req, method, url, body, tooLarge, fault));
}

type ControlHandler = (state: SearchState, text: string) => [number, unknown];

/** The sandbox controls (their own answers: a reset shows switches and stats, a 404 no list). */
const CONTROL_ROUTES: readonly Route<ControlHandler>[] = [
  { method: 'GET', path: '/__sandbox/switches', handle: (state) => [200, state.switches] },
  {
    method: 'POST',
    path: '/__sandbox/switches',
    handle: (state, text) => {
      const partial = parseJsonLoose(text);
      const error = switchError(partial, SWITCH_CHECKS);
      if (error !== undefined) return [400, { error, switches: Object.keys(SWITCH_CHECKS) }];
      setSwitches(state, partial as Partial<SearchSwitches>);
      return [200, state.switches];
    },
  },
  { method: 'GET', path: '/__sandbox/stats', handle: (state) => [200, state.stats] },
  { method: 'GET', path: '/__sandbox/requests', handle: (state) => [200, state.requestLog] },
  {
    method: 'POST',
    path: '/__sandbox/reset',
    handle: (state) => {
      resetStats(state);
      state.switches = { ...state.initial };
      return [200, { switches: state.switches, stats: state.stats }];
    },
  },
];

/** Status and body of a sandbox control request. */
function control(state: SearchState, method: string, path: string, text: string): [number, unknown] {
  const route = findRoute(CONTROL_ROUTES, method, path);
  return route === undefined ? [404, { error: `no sandbox control at ${method} ${path}` }] : route.handle(state, text);
}

// ---- The server --------------------------------------------------------------------------------

/** Starts the Search Console sandbox; resolves once it listens. */
export async function startSearchSandbox(options: SearchSandboxOptions = {}): Promise<SearchSandbox> {
  const initialError = switchError(options.switches ?? {}, SWITCH_CHECKS);
  if (initialError !== undefined) throw new TypeError(`search sandbox: ${initialError}`);
  const initial: SearchSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  const state: SearchState = {
    options,
    initial,
    switches: { ...initial },
    sitesOf: options.sitesOf ?? ((subject: string) => (subject === SEARCH_DEMO_SUBJECT ? SEARCH_SITES : [])),
    stats: { requests: 0, analyticsAnswered: 0, byStatus: {}, notFullyEncoded: 0, notJsonContentType: 0 },
    requestLog: [],
    minute: { at: 0, counts: new Map<string, number>() },
    cache: new AggregationCache(),
    pending: new PendingDelays(),
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const work = url.pathname.startsWith('/__sandbox/')
      ? readBody(req).then(({ text }) => sendJson(res, ...control(state, req.method ?? 'GET', url.pathname, text)))
      : handleUpstream(state, req, res, url);
    work.catch(() => {
      if (!res.headersSent) sendText(res, 500, 'sandbox error');
      else res.destroy();
    });
  });
  const { origin, port } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const close = closeOnce(server, state.pending);
  return {
    url: origin,
    port,
    get switches() {
      return { ...state.switches };
    },
    stats: state.stats,
    requests: state.requestLog,
    setSwitches: (partial) => setSwitches(state, partial),
    resetStats: () => resetStats(state),
    close() {
      state.cache.clear();
      return close();
    },
  };
}

if (import.meta.main) {
  const { startIdentityProvider, verifyAccessToken } = await import('../identity/index.ts');
  const idp = await startIdentityProvider({
    clients: [
      {
        style: 'google',
        clientId: 'search-sandbox-cli',
        clientSecret: 'search-sandbox-cli-secret',
        redirectUris: ['http://127.0.0.1/unused'],
      },
    ],
  });
  const sandbox = await startSearchSandbox({
    port: Number(process.env.SEARCH_SANDBOX_PORT ?? 4107),
    verifyToken: verifyAccessToken,
  });
  const token = idp.issueGrant({ clientId: 'search-sandbox-cli', scope: [SEARCH_SCOPES[0]!] }).access_token;
  const auth = `-H 'authorization: Bearer ${token}'`;
  process.stdout.write(
    `${sandbox.url}\nSearch Console sandbox listening (token valid one hour: ${token}). Try:\n` +
      `  curl -s ${auth} ${sandbox.url}/webmasters/v3/sites\n` +
      `  curl -s ${auth} -H 'content-type: application/json' -d ` +
      `'{"startDate":"${dateOfDay(pacificToday() - 33)}","endDate":"${dateOfDay(pacificToday() - 4)}",` +
      `"dimensions":["query"],"rowLimit":5}' ` +
      `${sandbox.url}/webmasters/v3/sites/sc-domain%3Aexample.dk/searchAnalytics/query\n`,
  );
  const stop = (): void => {
    Promise.all([sandbox.close(), idp.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

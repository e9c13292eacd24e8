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

import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeOnce, PendingDelays, listen, parseJsonLoose, readBody, sendText, switchError } from '../http-kit.ts';
import {
  aggregate,
  type Aggregation,
  type CellFilter,
  dateOfDay,
  dayNumber,
  GroupLimitError,
  hourKey,
  SEARCH_APPEARANCES,
  SEARCH_COUNTRIES,
  SEARCH_DEVICES,
  SEARCH_DIMENSIONS,
  SEARCH_FRESH_DAYS,
  SEARCH_HOURLY_DAYS,
  SEARCH_HISTORY_DAYS,
  SEARCH_SITES,
  SEARCH_TYPES,
  type SearchDimension,
  type SearchSite,
  type SearchType,
  searchPageUrl,
  searchQueryText,
} from './data.ts';

export const SEARCH_SCOPES = ['https://www.googleapis.com/auth/webmasters.readonly', 'https://www.googleapis.com/auth/webmasters'];
/** The account that sees the demo properties (the identity provider's Google demo user). */
export const SEARCH_DEMO_SUBJECT = 'demo.sandbox@gmail.com';
export const SEARCH_MAX_ROW_LIMIT = 25_000;
export const SEARCH_MAX_GROUPS = 500_000;
export const SEARCH_REQUEST_LOG_MAX = 1_000;
/** Default delay of the `slow` fault: over the connector's 15 s timeout. */
export const SEARCH_DEFAULT_SLOW_DELAY_MS = 20_000;

export interface SearchTokenCheck {
  readonly valid: boolean;
  readonly subject: string | null;
  readonly scope: readonly string[];
}

export const SEARCH_FAULTS = ['none', 'serverError', 'unavailable', 'badGateway', 'notJson', 'slow'] as const;
export type SearchFault = (typeof SEARCH_FAULTS)[number];

export interface SearchSwitches {
  /** "Today" in Pacific time (YYYY-MM-DD); null = the real date. The newest final day is three days before it. */
  today: string | null;
  /** Search-analytics queries allowed per minute per user and per property; 0 = no quota (default). */
  quotaPerMinute: number;
  /** How an exceeded quota answers: 429 RESOURCE_EXHAUSTED (default) or the legacy 403 quotaExceeded. */
  quotaForm: 'status429' | 'legacy403';
  /**
   * `serverError` 500 and `unavailable` 503 (Google's JSON bodies), `badGateway` a 502 HTML page as
   * Google's front end serves it, `notJson` a 200 whose body is an HTML page, `slow` a normal
   * answer after `slowDelayMs`.
   */
  fault: SearchFault;
  /** 0: every request; N: the next N requests, then `fault` returns to `none`. */
  faultCount: number;
  slowDelayMs: number;
  /**
   * `strict` (default): `{siteUrl}` must be exactly `encodeURIComponent` of the property (hex in
   * either case), as upstreams/search.md §2 documents; a segment left partly unencoded
   * (`sc-domain:example.dk`) answers 400 and is counted in `stats.notFullyEncoded`. `lenient`
   * decodes whatever arrives.
   */
  siteEncoding: 'strict' | 'lenient';
}

export interface SearchSandboxOptions {
  port?: number;
  host?: string;
  /** Decides every bearer token (absent: every token is refused). */
  verifyToken?: (token: string) => SearchTokenCheck;
  /** The properties of an account (default: the demo subject has data.ts's sites, others none). */
  sitesOf?: (subject: string) => readonly SearchSite[];
  switches?: Partial<SearchSwitches>;
}

export interface SearchRecordedRequest {
  readonly method: string;
  /** As received (percent-encoded). */
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
}

export interface SearchSandboxStats {
  /** Upstream requests received (control requests excluded). */
  requests: number;
  /** searchanalytics.query requests that were answered 200. */
  analyticsAnswered: number;
  byStatus: Record<string, number>;
  /** Requests whose `{siteUrl}` segment was not fully percent-encoded (a client defect). */
  notFullyEncoded: number;
  /** searchanalytics.query POSTs whose content-type was not JSON (a client defect). */
  notJsonContentType: number;
}

export interface SearchSandbox {
  readonly url: string;
  readonly port: number;
  readonly switches: Readonly<SearchSwitches>;
  readonly stats: SearchSandboxStats;
  /** Oldest first, at most SEARCH_REQUEST_LOG_MAX. */
  readonly requests: readonly SearchRecordedRequest[];
  setSwitches(partial: Partial<SearchSwitches>): void;
  resetStats(): void;
  close(): Promise<void>;
}

const DEFAULT_SWITCHES: SearchSwitches = {
  today: null,
  quotaPerMinute: 0,
  quotaForm: 'status429',
  fault: 'none',
  faultCount: 0,
  slowDelayMs: SEARCH_DEFAULT_SLOW_DELAY_MS,
  siteEncoding: 'strict',
};
const isCount = (v: unknown, max: number) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;
const SWITCH_CHECKS: { readonly [K in keyof SearchSwitches]: (v: unknown) => boolean } = {
  today: (v) => v === null || (typeof v === 'string' && dayNumber(v) !== undefined),
  quotaPerMinute: (v) => isCount(v, 1_000_000),
  quotaForm: (v) => v === 'status429' || v === 'legacy403',
  fault: (v) => (SEARCH_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  slowDelayMs: (v) => isCount(v, 600_000),
  siteEncoding: (v) => v === 'strict' || v === 'lenient',
};

// ---- Google errors -----------------------------------------------------------------------------

class GoogleError extends Error {
  readonly code: number;
  readonly status: string;
  readonly reason: string;
  readonly domain: string;
  constructor(code: number, status: string, reason: string, message: string, domain = 'global') {
    super(message);
    this.code = code;
    this.status = status;
    this.reason = reason;
    this.domain = domain;
  }
  body(): unknown {
    const error: Record<string, unknown> = { code: this.code, message: this.message, errors: [{ message: this.message, domain: this.domain, reason: this.reason }], status: this.status };
    if (this.reason === 'insufficientPermissions')
      error.details = [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', domain: 'googleapis.com', metadata: { service: 'searchconsole.googleapis.com' } },
      ];
    return { error };
  }
}

const invalid = (message: string) => new GoogleError(400, 'INVALID_ARGUMENT', 'badRequest', message);

function sendHtml(res: ServerResponse, status: number, html: string): void {
  sendText(res, status, html, { 'content-type': 'text/html; charset=UTF-8' });
}

/** `encodeURIComponent` of the decoded segment, hex digits compared in either case. */
function fullyEncoded(segment: string, decoded: string): boolean {
  return encodeURIComponent(decoded) === segment.replace(/%[0-9a-f]{2}/gi, (hex) => hex.toUpperCase());
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

// ---- The query body ----------------------------------------------------------------------------

/** Lower case without underscores: `BY_PAGE` and `byPage` compare equal. */
const fold = (value: string) => value.replace(/_/g, '').toLowerCase();

function enumValue<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  const found = typeof value === 'string' ? allowed.find((a) => fold(a) === fold(value)) : undefined;
  if (found === undefined) throw invalid(`Invalid value at '${field}' (${JSON.stringify(value)}): expected one of ${allowed.join(', ')}.`);
  return found;
}

const BODY_FIELDS = ['startDate', 'endDate', 'dimensions', 'type', 'searchType', 'dimensionFilterGroups', 'aggregationType', 'rowLimit', 'startRow', 'dataState'];
const OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'includingRegex', 'excludingRegex'] as const;
const AGGREGATIONS = ['auto', 'byProperty', 'byPage', 'byNewsShowcasePanel'] as const;
const DATA_STATES = ['final', 'all', 'hourlyAll'] as const;
const FILTER_DIMENSIONS = ['query', 'page', 'country', 'device', 'searchAppearance'] as const;

interface ParsedQuery {
  readonly firstDay: number;
  readonly lastDay: number;
  readonly dimensions: SearchDimension[];
  readonly type: SearchType;
  readonly filters: CellFilter[];
  /** The filters as sent, for the result cache key. */
  readonly filterKey: string;
  readonly byPage: boolean;
  readonly aggregation: (typeof AGGREGATIONS)[number];
  readonly rowLimit: number;
  readonly startRow: number;
  readonly dataState: (typeof DATA_STATES)[number];
}

function integerField(body: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const value = body[name];
  if (value === undefined) return fallback;
  // Google's JSON mapping also takes an int32 as a digit string.
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (!Number.isSafeInteger(n) || (n as number) < min || (n as number) > max) throw invalid(`Invalid value at '${name}' (${JSON.stringify(value)}): must be an integer from ${min} to ${max}.`);
  return n as number;
}

function dateField(body: Record<string, unknown>, name: string): number {
  const value = body[name];
  if (value === undefined) throw invalid(`${name} field is required.`);
  const day = typeof value === 'string' ? dayNumber(value) : undefined;
  if (day === undefined) throw invalid(`Invalid value at '${name}' (${JSON.stringify(value)}): must be a date in the format YYYY-MM-DD.`);
  return day;
}

function compileFilter(raw: unknown, at: string): { filter: CellFilter; dimension: (typeof FILTER_DIMENSIONS)[number] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(`Invalid value at '${at}': expected an object.`);
  const f = raw as Record<string, unknown>;
  for (const key of Object.keys(f)) if (!['dimension', 'operator', 'expression'].includes(key)) throw invalid(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`);
  const dimension = enumValue(f.dimension, FILTER_DIMENSIONS, `${at}.dimension`);
  const operator = f.operator === undefined ? 'equals' : enumValue(f.operator, OPERATORS, `${at}.operator`);
  const expression = f.expression;
  if (typeof expression !== 'string') throw invalid(`Invalid value at '${at}.expression': a string is required.`);
  if (expression.length > 4096) throw invalid(`Invalid value at '${at}.expression': at most 4096 characters.`);
  // equals/notEquals are case-sensitive for query and page only (search.md §2).
  const exact = dimension === 'query' || dimension === 'page';
  let test: (value: string) => boolean;
  if (operator === 'equals' || operator === 'notEquals') {
    const wanted = exact ? expression : expression.toLowerCase();
    const same = (v: string) => (exact ? v : v.toLowerCase()) === wanted;
    test = operator === 'equals' ? same : (v) => !same(v);
  } else if (operator === 'contains' || operator === 'notContains') {
    const wanted = expression.toLowerCase();
    test = operator === 'contains' ? (v) => v.toLowerCase().includes(wanted) : (v) => !v.toLowerCase().includes(wanted);
  } else {
    let re: RegExp;
    try {
      re = new RegExp(expression, 'u');
    } catch {
      throw invalid(`Invalid value at '${at}.expression': invalid regular expression.`);
    }
    test = operator === 'includingRegex' ? (v) => re.test(v) : (v) => !re.test(v);
  }
  const filter: CellFilter =
    dimension === 'query'
      ? { query: (rank) => test(searchQueryText(rank)) }
      : dimension === 'page'
        ? { page: (index) => test(searchPageUrl(index)) }
        : dimension === 'country'
          ? { country: (index) => test(SEARCH_COUNTRIES[index]!) }
          : dimension === 'device'
            ? { device: (index) => test(SEARCH_DEVICES[index]!) }
            : { searchAppearance: (index) => test(index < 0 ? '' : SEARCH_APPEARANCES[index]!) };
  return { filter, dimension };
}

function parseQuery(body: unknown): ParsedQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('Invalid JSON payload received. Expected an object.');
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!BODY_FIELDS.includes(key)) throw invalid(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
  const firstDay = dateField(b, 'startDate');
  const lastDay = dateField(b, 'endDate');
  if (firstDay > lastDay) throw invalid('startDate must be earlier than or equal to endDate.');
  const rawDimensions = b.dimensions ?? [];
  if (!Array.isArray(rawDimensions)) throw invalid("Invalid value at 'dimensions': expected a list.");
  const dimensions: SearchDimension[] = [];
  for (const [i, d] of rawDimensions.entries()) {
    const dimension = enumValue(d, SEARCH_DIMENSIONS, `dimensions[${i}]`);
    if (dimensions.includes(dimension)) throw invalid(`Invalid value at 'dimensions[${i}]': the dimension ${dimension} is requested twice.`);
    dimensions.push(dimension);
  }
  const type = enumValue(b.type ?? b.searchType ?? 'web', SEARCH_TYPES, b.type !== undefined ? 'type' : 'searchType');
  const filters: CellFilter[] = [];
  let pageFilter = false;
  const groups = b.dimensionFilterGroups ?? [];
  if (!Array.isArray(groups)) throw invalid("Invalid value at 'dimensionFilterGroups': expected a list.");
  for (const [g, group] of groups.entries()) {
    const at = `dimensionFilterGroups[${g}]`;
    if (typeof group !== 'object' || group === null || Array.isArray(group)) throw invalid(`Invalid value at '${at}': expected an object.`);
    const gr = group as Record<string, unknown>;
    for (const key of Object.keys(gr)) if (key !== 'groupType' && key !== 'filters') throw invalid(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`);
    if (gr.groupType !== undefined) enumValue(gr.groupType, ['and'], `${at}.groupType`);
    const list = gr.filters ?? [];
    if (!Array.isArray(list)) throw invalid(`Invalid value at '${at}.filters': expected a list.`);
    for (const [i, raw] of list.entries()) {
      const { filter, dimension } = compileFilter(raw, `${at}.filters[${i}]`);
      filters.push(filter);
      if (dimension === 'page') pageFilter = true;
    }
  }
  const byPage = pageFilter || dimensions.includes('page');
  const aggregation = enumValue(b.aggregationType ?? 'auto', AGGREGATIONS, 'aggregationType');
  if (aggregation === 'byProperty' && byPage) throw invalid('Cannot aggregate by property when grouping or filtering by page.');
  if (aggregation === 'byNewsShowcasePanel' && ((type !== 'news' && type !== 'googleNews') || byPage))
    throw invalid('byNewsShowcasePanel aggregation needs search type news or googleNews and no page grouping or filtering.');
  const dataState = enumValue(b.dataState ?? 'final', DATA_STATES, 'dataState');
  if (dimensions.includes('hour') && dataState !== 'hourlyAll') throw invalid('The hour dimension needs dataState HOURLY_ALL.');
  return {
    firstDay,
    lastDay,
    dimensions,
    type,
    filters,
    filterKey: JSON.stringify(groups),
    byPage,
    aggregation,
    rowLimit: integerField(b, 'rowLimit', 1000, 1, SEARCH_MAX_ROW_LIMIT),
    startRow: integerField(b, 'startRow', 0, 0, 2_147_483_647),
    dataState,
  };
}

// ---- The server --------------------------------------------------------------------------------

/** Today in Pacific time (Search Console's calendar), as a day number of data.ts. */
export function pacificToday(): number {
  return dayNumber(new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date()))!;
}

/** Starts the Search Console sandbox; resolves once it listens. */
export async function startSearchSandbox(options: SearchSandboxOptions = {}): Promise<SearchSandbox> {
  const initialError = switchError(options.switches ?? {}, SWITCH_CHECKS);
  if (initialError !== undefined) throw new TypeError(`search sandbox: ${initialError}`);
  const initial: SearchSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  let switches: SearchSwitches = { ...initial };
  const sitesOf = options.sitesOf ?? ((subject: string) => (subject === SEARCH_DEMO_SUBJECT ? SEARCH_SITES : []));
  const stats: SearchSandboxStats = { requests: 0, analyticsAnswered: 0, byStatus: {}, notFullyEncoded: 0, notJsonContentType: 0 };
  const requestLog: SearchRecordedRequest[] = [];
  /** Per-minute query counts by user and by property. */
  const minute = { at: 0, counts: new Map<string, number>() };
  /** The two newest aggregations with further pages, so paging with startRow does not sum everything again (60 s). */
  const cache: Array<{ key: string; result: Aggregation; timer: NodeJS.Timeout }> = [];

  function forget(entry: (typeof cache)[number]): void {
    clearTimeout(entry.timer);
    const at = cache.indexOf(entry);
    if (at >= 0) cache.splice(at, 1);
  }

  function remember(key: string, result: Aggregation): void {
    const entry = { key, result, timer: setTimeout(() => forget(entry), 60_000).unref() };
    cache.unshift(entry);
    for (const old of cache.slice(2)) forget(old);
  }
  const pending = new PendingDelays();

  function setSwitches(partial: Partial<SearchSwitches>): void {
    const error = switchError(partial, SWITCH_CHECKS);
    if (error !== undefined) throw new TypeError(`search sandbox: ${error}`);
    switches = { ...switches, ...partial };
  }

  function resetStats(): void {
    stats.requests = 0;
    stats.analyticsAnswered = 0;
    stats.byStatus = {};
    stats.notFullyEncoded = 0;
    stats.notJsonContentType = 0;
    requestLog.length = 0;
    minute.counts.clear();
    for (const entry of [...cache]) forget(entry);
  }

  function authenticate(req: IncomingMessage): string {
    const header = req.headers.authorization;
    if (header === undefined)
      throw new GoogleError(
        401,
        'UNAUTHENTICATED',
        'required',
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const check = token === undefined || options.verifyToken === undefined ? undefined : options.verifyToken(token);
    if (check === undefined || !check.valid || check.subject === null)
      throw new GoogleError(
        401,
        'UNAUTHENTICATED',
        'authError',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    if (!check.scope.some((s) => SEARCH_SCOPES.includes(s))) throw new GoogleError(403, 'PERMISSION_DENIED', 'insufficientPermissions', 'Request had insufficient authentication scopes.');
    return check.subject;
  }

  function site(subject: string, siteUrl: string): SearchSite {
    const found = sitesOf(subject).find((s) => s.siteUrl === siteUrl);
    if (found === undefined || found.permissionLevel === 'siteUnverifiedUser')
      throw new GoogleError(403, 'PERMISSION_DENIED', 'forbidden', `User does not have sufficient permission for site '${siteUrl}'. See also: https://support.google.com/webmasters/answer/2451999.`);
    return found;
  }

  function countQuota(subject: string, siteUrl: string): void {
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
        if (switches.quotaForm === 'legacy403') throw new GoogleError(403, 'PERMISSION_DENIED', 'quotaExceeded', 'Quota exceeded for quota metric.', 'usageLimits');
        throw new GoogleError(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded', 'Quota exceeded for quota metric: Search Analytics queries per minute per user and per site.');
      }
    }
  }

  function analytics(found: SearchSite, body: unknown): [number, unknown] {
    const q = parseQuery(body);
    const today = switches.today === null ? pacificToday() : dayNumber(switches.today)!;
    const byHour = q.dimensions.includes('hour');
    // Hourly data exists for the newest SEARCH_HOURLY_DAYS only.
    const firstAvailable = byHour ? today - SEARCH_HOURLY_DAYS : today - SEARCH_HISTORY_DAYS;
    const lastAvailable = q.dataState === 'final' ? today - 1 - SEARCH_FRESH_DAYS : today - 1;
    const firstDay = Math.max(q.firstDay, firstAvailable);
    const lastDay = Math.min(q.lastDay, lastAvailable);
    const aggregationType = q.aggregation === 'auto' ? (q.byPage ? 'byPage' : 'byProperty') : q.aggregation;
    const answer: Record<string, unknown> = {};
    if (firstDay <= lastDay) {
      const key = JSON.stringify([found.prefix, q.type, firstDay, lastDay, q.dimensions, q.filterKey]);
      let result = cache.find((c) => c.key === key)?.result;
      if (result === undefined) {
        result = aggregate({ prefix: found.prefix, type: q.type, firstDay, lastDay, dimensions: q.dimensions, filters: q.filters, maxGroups: SEARCH_MAX_GROUPS });
        // Kept only while a next page is likely asked for, and never longer than a minute (idle memory).
        if (result.length > q.startRow + q.rowLimit) remember(key, result);
      }
      const hit = { result };
      const rows = [];
      for (let i = q.startRow; i < Math.min(hit.result.length, q.startRow + q.rowLimit); i++) {
        const { keys, ...metrics } = hit.result.row(i);
        rows.push(q.dimensions.length === 0 ? metrics : { keys, ...metrics });
      }
      if (rows.length > 0) answer.rows = rows;
    }
    answer.responseAggregationType = aggregationType;
    const fresh = q.dataState !== 'final' && q.lastDay >= today - SEARCH_FRESH_DAYS;
    if (fresh && byHour) answer.metadata = { first_incomplete_hour: hourKey(today - SEARCH_FRESH_DAYS, 0) };
    else if (fresh && q.dimensions.includes('date')) answer.metadata = { first_incomplete_date: dateOfDay(today - SEARCH_FRESH_DAYS) };
    stats.analyticsAnswered++;
    return [200, answer];
  }

  async function handleUpstream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const { text, tooLarge } = await readBody(req);
    stats.requests++;
    const body = parseJsonLoose(text);
    res.once('finish', () => {
      stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
      requestLog.push({ method, path: url.pathname, body, status: res.statusCode });
      if (requestLog.length > SEARCH_REQUEST_LOG_MAX) requestLog.splice(0, requestLog.length - SEARCH_REQUEST_LOG_MAX);
    });
    const fault = switches.fault;
    if (fault !== 'none') {
      if (switches.faultCount > 0) switches = { ...switches, faultCount: switches.faultCount - 1, ...(switches.faultCount === 1 ? { fault: 'none' as const } : {}) };
      if (fault === 'slow' && !(await pending.delay(switches.slowDelayMs, res))) return;
      if (fault === 'badGateway')
        return sendHtml(
          res,
          502,
          '<!DOCTYPE html><html lang=en><title>Error 502 (Server Error)!!1</title><p><b>502.</b> <ins>That’s an error.</ins><p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds. <ins>That’s all we know.</ins></html>',
        );
      if (fault === 'notJson') return sendHtml(res, 200, '<!DOCTYPE html><html><head><title>Google Search Console</title></head><body>Sign in to continue</body></html>');
    }
    sendJson(res, ...answer(req, method, url, body, tooLarge, fault));
  }

  /** Status and body of one upstream request. */
  function answer(req: IncomingMessage, method: string, url: URL, body: unknown, tooLarge: boolean, fault: SearchFault): [number, unknown] {
    if (fault === 'serverError') return [500, new GoogleError(500, 'INTERNAL', 'backendError', 'Internal error encountered.').body()];
    if (fault === 'unavailable') return [503, new GoogleError(503, 'UNAVAILABLE', 'backendError', 'The service is currently unavailable.').body()];
    try {
      const m = /^\/webmasters\/v3\/sites(?:\/([^/]+)(\/searchAnalytics\/query)?)?\/?$/.exec(url.pathname);
      if (m === null) throw new GoogleError(404, 'NOT_FOUND', 'notFound', `The requested URL ${url.pathname} was not found on this server.`);
      const subject = authenticate(req);
      const [, encodedSite, query] = m;
      const allow = (expected: string) => {
        if (method !== expected) throw new GoogleError(405, 'INVALID_ARGUMENT', 'badRequest', `Method ${method} is not allowed here.`);
      };
      if (encodedSite === undefined) {
        allow('GET');
        const entries = sitesOf(subject).map(({ siteUrl, permissionLevel }) => ({ siteUrl, permissionLevel }));
        return [200, entries.length > 0 ? { siteEntry: entries } : {}];
      }
      let siteUrl: string;
      try {
        siteUrl = decodeURIComponent(encodedSite);
      } catch {
        throw invalid('The siteUrl path segment is not valid percent-encoding.');
      }
      if (!fullyEncoded(encodedSite, siteUrl)) {
        stats.notFullyEncoded++;
        if (switches.siteEncoding === 'strict')
          throw invalid(`The siteUrl path segment '${encodedSite}' is not fully percent-encoded: send encodeURIComponent('${siteUrl}') = '${encodeURIComponent(siteUrl)}'.`);
      }
      if (query === undefined) {
        allow('GET');
        const found = sitesOf(subject).find((s) => s.siteUrl === siteUrl) ?? site(subject, siteUrl);
        return [200, { siteUrl, permissionLevel: found.permissionLevel }];
      }
      allow('POST');
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        stats.notJsonContentType++;
        throw invalid(`Invalid JSON payload received: the request body must be sent as application/json (got ${JSON.stringify(req.headers['content-type'] ?? null)}).`);
      }
      countQuota(subject, siteUrl);
      const found = site(subject, siteUrl);
      if (tooLarge || typeof body === 'string') throw invalid('Invalid JSON payload received.');
      return analytics(found, body ?? {});
    } catch (error) {
      if (error instanceof GroupLimitError)
        return [429, new GoogleError(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded', 'Search Analytics load quota exceeded: ask for a shorter date range or fewer dimensions.').body()];
      if (!(error instanceof GoogleError)) throw error;
      return [error.code, error.body()];
    }
  }

  /** Status and body of a sandbox control request. */
  function control(method: string, path: string, text: string): [number, unknown] {
    if (path === '/__sandbox/switches' && method === 'GET') return [200, switches];
    if (path === '/__sandbox/switches' && method === 'POST') {
      const partial = parseJsonLoose(text);
      const error = switchError(partial, SWITCH_CHECKS);
      if (error !== undefined) return [400, { error, switches: Object.keys(SWITCH_CHECKS) }];
      setSwitches(partial as Partial<SearchSwitches>);
      return [200, switches];
    }
    if (path === '/__sandbox/stats' && method === 'GET') return [200, stats];
    if (path === '/__sandbox/requests' && method === 'GET') return [200, requestLog];
    if (path === '/__sandbox/reset' && method === 'POST') {
      resetStats();
      switches = { ...initial };
      return [200, { switches, stats }];
    }
    return [404, { error: `no sandbox control at ${method} ${path}` }];
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const work = url.pathname.startsWith('/__sandbox/') ? readBody(req).then(({ text }) => sendJson(res, ...control(req.method ?? 'GET', url.pathname, text))) : handleUpstream(req, res, url);
    work.catch(() => {
      if (!res.headersSent) sendText(res, 500, 'sandbox error');
      else res.destroy();
    });
  });
  const { origin, port } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const close = closeOnce(server, pending);
  return {
    url: origin,
    port,
    get switches() {
      return { ...switches };
    },
    stats,
    requests: requestLog,
    setSwitches,
    resetStats,
    close() {
      for (const entry of [...cache]) forget(entry);
      return close();
    },
  };
}

if (import.meta.main) {
  const { startIdentityProvider, verifyAccessToken } = await import('../identity/index.ts');
  const idp = await startIdentityProvider({ clients: [{ style: 'google', clientId: 'search-sandbox-cli', clientSecret: 'search-sandbox-cli-secret', redirectUris: ['http://127.0.0.1/unused'] }] });
  const sandbox = await startSearchSandbox({ port: Number(process.env.SEARCH_SANDBOX_PORT ?? 4107), verifyToken: verifyAccessToken });
  const token = idp.issueGrant({ clientId: 'search-sandbox-cli', scope: [SEARCH_SCOPES[0]!] }).access_token;
  const auth = `-H 'authorization: Bearer ${token}'`;
  process.stdout.write(
    `${sandbox.url}\nSearch Console sandbox listening (token valid one hour: ${token}). Try:\n` +
      `  curl -s ${auth} ${sandbox.url}/webmasters/v3/sites\n` +
      `  curl -s ${auth} -H 'content-type: application/json' -d '{"startDate":"${dateOfDay(pacificToday() - 33)}","endDate":"${dateOfDay(pacificToday() - 4)}","dimensions":["query"],"rowLimit":5}' ${sandbox.url}/webmasters/v3/sites/sc-domain%3Aexample.dk/searchAnalytics/query\n`,
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

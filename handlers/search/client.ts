// The search-analytics wire side (upstreams/search.md §2–3): Google Search Console API v3
// (`/webmasters/v3`) with the connection's OAuth access token. `sites.list` is a GET; every report
// is a `searchanalytics.query` POST whose body the tools build (or, for search_analytics_query,
// rebuild from the allow-list of DECISIONS §18). Failures map to the connector's texts: 401 →
// reconnect (AccessTokenExpiredError); 403 `insufficientPermissions` → the scope text; 403
// `quotaExceeded`/`rateLimitExceeded`, 429 and any `RESOURCE_EXHAUSTED` → the quota text (no
// retry); any other 403 (and a 404) on a property → the property text; 400 → Google's message.
// Anything else (5xx, timeout, a body that is not what the API documents) is rethrown for the
// generic text.
import type { SearchContextWith } from '#generated/search/contract.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';

type Row = Record<string, unknown>;

/** The codes every Search Console request can end with. */
type WireCodes = 'generic' | 'access_token_expired' | 'insufficient_scope' | 'quota_exceeded';
export type SearchWireContext = SearchContextWith<WireCodes>;
/** A request about one property: also the property, 400 and date-range texts. */
export type SearchSiteContext = SearchContextWith<
  WireCodes | 'property_access_denied' | 'bad_request' | 'invalid_date_range',
  { readonly upstreamMessageMaxChars: number }
>;

/** The four metrics of the upstream analytics API. */
export type Metrics = {
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr: number;
  readonly position: number;
};

/** One row of a `searchanalytics.query` answer: `keys` in the order of `dimensions`, absent without dimensions. */
export type AnalyticsRow = Metrics & { readonly keys?: string[] };

/** A `searchanalytics.query` request body as the connector sends it (upstreams/search.md §2). */
export interface AnalyticsBody {
  readonly startDate: string;
  readonly endDate: string;
  readonly dimensions?: readonly string[];
  readonly type?: string;
  readonly dimensionFilterGroups?: ReadonlyArray<{
    readonly groupType?: string;
    readonly filters?: ReadonlyArray<{
      readonly dimension?: string;
      readonly operator?: string;
      readonly expression?: string;
    }>;
  }>;
  readonly aggregationType?: string;
  readonly rowLimit?: number;
  readonly startRow?: number;
  readonly dataState?: string;
}

export function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `/webmasters/v3/sites/{siteUrl}`: the property as one fully percent-encoded path segment (`https%3A%2F%2F…%2F`,
 * `sc-domain%3A…`).
 */
export function sitePath(siteUrl: string): string {
  return `/webmasters/v3/sites/${encodeURIComponent(siteUrl)}`;
}

/** Refuses a period that ends before it starts (YYYY-MM-DD compares as text), before any upstream request. */
export function checkPeriod(ctx: SearchSiteContext, start: string, end: string): void {
  if (start > end) ctx.refuseArguments('invalid_date_range', { start, end });
}

/** The connection's access token; without one the stored access is unusable (reconnect). */
function bearer(ctx: SearchWireContext): string {
  const credential = ctx.credential;
  if (credential?.kind !== 'oauth2' || typeof credential.accessToken !== 'string' || credential.accessToken === '')
    return ctx.fail('access_token_expired');
  return credential.accessToken;
}

/**
 * `error.message`, `error.status` and every reason of a Google error body (`errors[].reason`,
 * `details[].reason`), tolerating anything else. A body that is not JSON (Google's front end
 * answers some errors with an HTML page) gives no message when it looks like markup, so no HTML
 * reaches a caller's text; a short plain-text body is its own message.
 */
function googleError(body: unknown): { message: string | undefined; status: string | undefined; reasons: Set<string> } {
  const error = isRow(body) && isRow(body['error']) ? body['error'] : undefined;
  const reasons = new Set<string>();
  for (const list of [error?.['errors'], error?.['details']]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) if (isRow(item) && typeof item['reason'] === 'string') reasons.add(item['reason']);
  }
  const text = typeof body === 'string' ? body.trim() : '';
  const message =
    typeof error?.['message'] === 'string' ? error['message'] : text !== '' && !text.startsWith('<') ? text : undefined;
  const status = typeof error?.['status'] === 'string' ? error['status'] : undefined;
  return { message, status, reasons };
}

const SCOPE_REASONS = ['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT'];
const QUOTA_REASONS = [
  'quotaExceeded',
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'dailyLimitExceeded',
  'RATE_LIMIT_EXCEEDED',
  'RESOURCE_EXHAUSTED',
];

/**
 * 403 reasons about the deployment's Google project, not the user or the property (the API not
 * enabled, a bad key): the generic text, never "no access to this property".
 */
const PLATFORM_REASONS = [
  'accessNotConfigured',
  'SERVICE_DISABLED',
  'keyInvalid',
  'API_KEY_INVALID',
  'dailyLimitExceededUnreg',
];

/**
 * A quota answer in any form Google documents (upstreams/search.md §2, §5): HTTP 429; a legacy 403
 * with reason `quotaExceeded`/`rateLimitExceeded` (domain `usageLimits`); or any answer whose
 * `error.status` is `RESOURCE_EXHAUSTED`. The domain alone is not enough: `usageLimits` also
 * carries `accessNotConfigured` (the API not enabled for the project), a platform fault.
 */
function isQuota(status: number | undefined, error: ReturnType<typeof googleError>): boolean {
  if (status === 429 || error.status === 'RESOURCE_EXHAUSTED') return true;
  return status === 403 && QUOTA_REASONS.some((reason) => error.reasons.has(reason));
}

/**
 * A token without a Search Console scope: reason `insufficientPermissions` (or the ErrorInfo
 * `ACCESS_TOKEN_SCOPE_INSUFFICIENT`), else Google's fixed message "Request had insufficient
 * authentication scopes." or a `WWW-Authenticate: Bearer error="insufficient_scope"` header.
 */
function isScope(upstream: UpstreamError, error: ReturnType<typeof googleError>): boolean {
  if (upstream.status !== 403) return false;
  if (SCOPE_REASONS.some((reason) => error.reasons.has(reason))) return true;
  if (/insufficient authentication scopes/i.test(error.message ?? '')) return true;
  return /insufficient_scope/i.test(upstream.headers['www-authenticate'] ?? '');
}

/**
 * Sends one request with the bearer token and maps the failures every request shares. `property`
 * handles what only a request about one property can mean (a 403 without a scope or quota
 * reason, a 404, a 400); without it those stay the generic text.
 */
async function send(
  ctx: SearchWireContext,
  request: { method: 'GET' | 'POST'; path: string; json?: unknown },
  property?: (error: UpstreamError, message: string | undefined) => never,
): Promise<unknown> {
  const token = bearer(ctx);
  try {
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    return (await ctx.upstream.request<unknown>({ ...request, headers })).body;
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    if (error.status === 401) return ctx.fail('access_token_expired');
    const parsed = googleError(error.body);
    if (isQuota(error.status, parsed)) return ctx.fail('quota_exceeded');
    if (isScope(error, parsed)) return ctx.fail('insufficient_scope');
    if (PLATFORM_REASONS.some((reason) => parsed.reasons.has(reason))) throw error;
    if (property && (error.status === 403 || error.status === 404 || error.status === 400))
      return property(error, parsed.message);
    throw error;
  }
}

/** `sites.list`: the entries (an answer without `siteEntry` is an account without properties). */
export async function listSiteEntries(ctx: SearchWireContext): Promise<Row[]> {
  const body = await send(ctx, { method: 'GET', path: '/webmasters/v3/sites' });
  if (!isRow(body)) throw new Error('Search Console answered sites.list with something other than a JSON object');
  const entries = body['siteEntry'];
  if (entries === undefined) return [];
  if (!Array.isArray(entries))
    throw new Error('Search Console answered sites.list with a siteEntry that is not an array');
  return entries.filter(isRow);
}

const METRICS = ['clicks', 'impressions', 'ctr', 'position'] as const;

function analyticsRow(value: unknown): AnalyticsRow {
  if (!isRow(value)) throw new Error('Search Console answered a row that is not an object');
  for (const name of METRICS) {
    const metric = value[name];
    if (typeof metric !== 'number' || !Number.isFinite(metric))
      throw new Error(`Search Console answered a row whose ${name} is not a number`);
  }
  const keys = value['keys'];
  if (keys !== undefined && !(Array.isArray(keys) && keys.every((k) => typeof k === 'string')))
    throw new Error('Search Console answered a row whose keys are not strings');
  const row = {
    clicks: value['clicks'] as number,
    impressions: value['impressions'] as number,
    ctr: value['ctr'] as number,
    position: value['position'] as number,
  };
  return keys === undefined ? row : { keys: keys as string[], ...row };
}

/**
 * One `searchanalytics.query` call: the rows (`[]` when `rows` is absent) and `responseAggregationType` (null when
 * absent).
 */
export async function queryAnalytics(
  ctx: SearchSiteContext,
  siteUrl: string,
  body: AnalyticsBody,
): Promise<{ rows: AnalyticsRow[]; responseAggregationType: string | null }> {
  const answer = await send(
    ctx,
    { method: 'POST', path: `${sitePath(siteUrl)}/searchAnalytics/query`, json: body },
    (error, message) => {
      if (error.status === 400)
        return ctx.fail('bad_request', {
          message: (message ?? 'no message given').slice(0, ctx.limits.upstreamMessageMaxChars),
        });
      return ctx.fail('property_access_denied', { site_url: siteUrl });
    },
  );
  if (!isRow(answer))
    throw new Error('Search Console answered searchanalytics.query with something other than a JSON object');
  const rows = answer['rows'];
  if (rows !== undefined && !Array.isArray(rows))
    throw new Error('Search Console answered searchanalytics.query with rows that are not an array');
  const aggregation = answer['responseAggregationType'];
  return {
    rows: (rows ?? []).map(analyticsRow),
    responseAggregationType: typeof aggregation === 'string' ? aggregation : null,
  };
}

/** Running sums of rows: clicks, impressions, and position × impressions for the impression-weighted average. */
export class MetricSums {
  clicks = 0;
  impressions = 0;
  #weightedPosition = 0;

  add(row: Metrics): void {
    this.clicks += row.clicks;
    this.impressions += row.impressions;
    this.#weightedPosition += row.position * row.impressions;
  }

  /** ctr = clicks / impressions and the impression-weighted position; both 0 without impressions. */
  totals(): Metrics {
    if (this.impressions <= 0) return { clicks: this.clicks, impressions: this.impressions, ctr: 0, position: 0 };
    return {
      clicks: this.clicks,
      impressions: this.impressions,
      ctr: Math.min(1, this.clicks / this.impressions),
      position: this.#weightedPosition / this.impressions,
    };
  }
}

/** The metrics of one answer: a single row as the upstream reported it, several summed, zeros without rows. */
export function metricsOf(rows: readonly AnalyticsRow[]): Metrics {
  if (rows.length === 1) {
    const { clicks, impressions, ctr, position } = rows[0]!;
    return { clicks, impressions, ctr, position };
  }
  const sums = new MetricSums();
  for (const row of rows) sums.add(row);
  return sums.totals();
}

/**
 * Rows of one dimension as `{ [name]: key, …metrics }`, sorted by clicks descending (ties keep the upstream's order).
 */
export function keyedRows<K extends string>(
  rows: readonly AnalyticsRow[],
  name: K,
): Array<Record<K, string> & Metrics> {
  return rows
    .filter((row) => typeof row.keys?.[0] === 'string')
    .map(
      (row) =>
        ({
          [name]: row.keys![0]!,
          clicks: row.clicks,
          impressions: row.impressions,
          ctr: row.ctr,
          position: row.position,
        }) as Record<K, string> & Metrics,
    )
    .sort((a, b) => b.clicks - a.clicks);
}

/**
 * The rows of one dimension with the most clicks in a period (`top_queries`, `top_pages`): `rowLimit` = `limit`, the
 * upstream's default being 1000.
 */
export async function topRows<K extends 'query' | 'page'>(
  ctx: SearchSiteContext,
  args: { readonly siteUrl: string; readonly startDate: string; readonly endDate: string; readonly limit: number },
  dimension: K,
): Promise<Array<Record<K, string> & Metrics>> {
  checkPeriod(ctx, args.startDate, args.endDate);
  const { rows } = await queryAnalytics(ctx, args.siteUrl, {
    startDate: args.startDate,
    endDate: args.endDate,
    dimensions: [dimension],
    rowLimit: args.limit,
  });
  return keyedRows(rows, dimension).slice(0, args.limit);
}

/**
 * The metrics of exactly one query or page in a period (`query_performance`, `page_performance`):
 * filtered with `equals` (case-sensitive, the string unchanged) and not grouped, so the answer is
 * the keyless row, or no row at all (zeros).
 */
export async function exactMetrics(
  ctx: SearchSiteContext,
  args: { readonly siteUrl: string; readonly startDate: string; readonly endDate: string },
  dimension: 'query' | 'page',
  expression: string,
): Promise<Metrics> {
  checkPeriod(ctx, args.startDate, args.endDate);
  const { rows } = await queryAnalytics(ctx, args.siteUrl, {
    startDate: args.startDate,
    endDate: args.endDate,
    dimensionFilterGroups: [{ groupType: 'and', filters: [{ dimension, operator: 'equals', expression }] }],
  });
  return metricsOf(rows);
}

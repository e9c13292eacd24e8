// The Dinero API's wire side (upstreams/books.md §2–3): `https://api.dinero.dk` with the connection's
// Visma Connect bearer token, PascalCase JSON, `organizationId` as an integer path segment on every
// organisation call. Failures map to the spec's error table (doc 001 "Errors"): 401 →
// AccessTokenExpiredError, 403 → ProPlanRequiredError (except on /v1/organizations, where the
// tools do not list it and the 403 is passed through), 429 after the runtime's one retry →
// UpstreamRateLimitError, 480 → the deprecated-endpoint text, every other 4xx → the upstream's
// own message (never retried). 5xx, timeouts, non-JSON bodies and size caps stay the generic text.
import type { BooksContextWith } from '#generated/books/contract.ts';
import { UpstreamError, type UpstreamResponse } from '#runtime/handler-api/upstream-types.ts';

export type Row = Record<string, unknown>;

/** The codes every Dinero request can end with. */
type WireCodes =
  | 'generic'
  | 'access_token_expired'
  | 'upstream_rate_limit'
  | 'deprecated_endpoint'
  | 'upstream_rejected';
type WireLimits = {
  readonly errorMessageMaxChars: number;
  readonly upstreamRequestsPerMinute: number;
  readonly quotaMaxWaitMs: number;
};
/** The two organisation-list tools: a 403 there is not ProPlanRequiredError (doc 001). */
export type BooksWireContext = BooksContextWith<WireCodes, WireLimits>;
/** Every other tool: a 403 is ProPlanRequiredError. */
export type BooksContext = BooksContextWith<WireCodes | 'pro_plan_required', WireLimits>;

export interface DineroRequest {
  readonly method?: 'GET' | 'POST';
  /** Path below the base (`/v1/{o}/…`), segments already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** JSON body of the two read-only calculators (POST …/fetch). */
  readonly json?: unknown;
  /** `bytes`: `Accept: application/octet-stream` and the raw body (PDFs, files). */
  readonly accept?: 'json' | 'bytes';
  /** A cap below the connector's response cap (download_file's 6 MB). */
  readonly maxBytes?: number;
}

export function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The connection's access token; without one the access is unusable (reconnect). */
function bearer(ctx: BooksWireContext): string {
  const credential = ctx.credential;
  if (credential?.kind !== 'oauth2' || typeof credential.accessToken !== 'string' || credential.accessToken === '')
    return ctx.fail('access_token_expired');
  return credential.accessToken;
}

/**
 * The upstream's words from an error body, tolerating both casings (books.md §5): `message`, the
 * `validationErrors` map as `Field: message`, else the plain-text body (a 429's or a proxy's).
 */
export function errorMessage(body: unknown, max: number): string {
  let text = '';
  if (isRow(body)) {
    const message = body['message'] ?? body['Message'];
    const details = body['validationErrors'] ?? body['ValidationErrors'];
    const parts: string[] = [];
    if (typeof message === 'string' && message.trim() !== '') parts.push(message.trim());
    if (isRow(details))
      for (const [field, value] of Object.entries(details))
        parts.push(`${field}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    text = parts.join('; ');
  } else if (typeof body === 'string') text = body.trim();
  if (text === '') text = 'no details given';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One request; failures mapped to the spec's texts. `on403` answers a 403 (absent: passed through as a 4xx). */
export async function dineroCall(
  ctx: BooksWireContext,
  request: DineroRequest,
  on403?: () => never,
): Promise<UpstreamResponse<unknown>> {
  const token = bearer(ctx);
  const bytes = request.accept === 'bytes';
  try {
    return await ctx.upstream.request<unknown>({
      method: request.method ?? 'GET',
      path: request.path,
      ...(request.query ? { query: request.query } : {}),
      ...(request.json !== undefined ? { json: request.json } : {}),
      headers: { authorization: `Bearer ${token}`, accept: bytes ? 'application/octet-stream' : 'application/json' },
      ...(bytes ? { expect: 'bytes' as const } : {}),
      ...(request.maxBytes !== undefined ? { maxBytes: request.maxBytes } : {}),
    });
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    const status = error.status;
    if (status === 401) return ctx.fail('access_token_expired');
    if (status === 403 && on403) return on403();
    if (error.kind === 'throttled') return ctx.fail('upstream_rate_limit');
    if (status === 480) return ctx.fail('deprecated_endpoint');
    if (status !== undefined && status >= 400 && status < 500 && status !== 408)
      return ctx.fail('upstream_rejected', {
        status: String(status),
        message: errorMessage(error.body, ctx.limits.errorMessageMaxChars),
      });
    throw error;
  }
}

/**
 * The organisation of an organisation path (`/v1/{o}/…`, `/v2/{o}/…`); undefined for `/v1/organizations`,
 * `/v1/countries`.
 */
const ORGANIZATION_PATH = /^\/v[\d.]+\/(\d+)(?:\/|$)/;

/**
 * A request of an organisation tool: 403 is ProPlanRequiredError. The upstream allows about 100
 * requests a minute per organisation and client id, shared by every account and replica of this
 * deployment (one client id): a request is first taken from that organisation's budget
 * (`upstreamRequestsPerMinute`, counted across replicas); when it is spent the request waits for
 * it to refill, at most `quotaMaxWaitMs`, and then ends in UpstreamRateLimitError without being sent.
 */
export async function dinero(ctx: BooksContext, request: DineroRequest): Promise<UpstreamResponse<unknown>> {
  const organization = ORGANIZATION_PATH.exec(request.path)?.[1];
  if (
    organization !== undefined &&
    !(await ctx.upstreamQuota.take(
      `org:${organization}`,
      ctx.limits.upstreamRequestsPerMinute,
      ctx.limits.quotaMaxWaitMs,
    ))
  )
    return ctx.fail('upstream_rate_limit');
  return dineroCall(ctx, request, () => ctx.fail('pro_plan_required'));
}

/** The JSON body of an organisation request. */
export async function dineroJson(ctx: BooksContext, request: DineroRequest): Promise<unknown> {
  return (await dinero(ctx, request)).body;
}

/** `/v1/{organizationId}{rest}` (an integer in the URL, books.md §3 #21). */
export function orgPath(organizationId: number, rest: string, version = 'v1'): string {
  return `/${version}/${Math.trunc(organizationId)}${rest}`;
}

/** One path segment (a guid, a year name). */
export const segment = (value: string | number): string => encodeURIComponent(String(value));

/** A 2xx body that must be a JSON object (anything else is the generic text). */
export function objectBody(body: unknown, what: string): Row {
  if (!isRow(body)) throw new Error(`Dinero answered ${what} with something other than a JSON object`);
  return body;
}

/** A 2xx body that must be a bare array (objects only). */
export function arrayBody(body: unknown, what: string): Row[] {
  if (!Array.isArray(body)) throw new Error(`Dinero answered ${what} with something other than a JSON array`);
  return body.filter(isRow);
}

// ---- Casing (books.md §3 #3) ----

/**
 * A PascalCase (or any-case) property name in camelCase with the usual acronym rule: a leading
 * run of capitals is lower-cased except its last letter when a lower-case letter follows
 * (`SENumber` → `seNumber`, `CCToSender` → `ccToSender`, `Id` → `id`, `VAT` → `vat`).
 */
export function camelKey(key: string): string {
  const m = /^[A-Z]+/.exec(key);
  if (m === null) return key;
  const run = m[0];
  if (run.length === key.length) return key.toLowerCase();
  if (run.length === 1 || !/[a-z]/.test(key[run.length]!))
    return run.length === 1 ? run.toLowerCase() + key.slice(1) : run.toLowerCase() + key.slice(run.length);
  return run.slice(0, -1).toLowerCase() + key.slice(run.length - 1);
}

/** Every key at every depth camel-cased; values unchanged. */
export function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize);
  if (!isRow(value)) return value;
  const out: Row = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = camelKey(key);
    if (name === '__proto__' || name === 'constructor' || name === 'prototype') continue;
    out[name] = camelize(inner);
  }
  return out;
}

export const camelRow = (row: Row): Row => camelize(row) as Row;

/** A property read case-insensitively (`fields` echo the request's casing; some defaults are lower-case). */
export function prop(row: Row, name: string): unknown {
  if (name in row) return row[name];
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(row)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

export const numberOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;
export const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

// ---- Arguments → query ----

/** A UTC timestamp as the upstream's `changesSince` wants it: `YYYY-MM-DDTHH:mm:ssZ`. */
export function utcTimestamp(value: string): string {
  return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `changesSince` (and the like) in the upstream's form, or nothing. */
export const since = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : utcTimestamp(value);

/** Paging sent explicitly (the upstream's defaults differ from the spec's, books.md §3 #1). */
export function pagingQuery(args: { readonly page: number; readonly pageSize: number }): {
  page: number;
  pageSize: number;
} {
  return { page: args.page, pageSize: args.pageSize };
}

type QuoteContext = BooksContextWith<'quote_in_filter', object>;

/**
 * `queryFilter` from `[argument name, Field, op, value]` clauses joined with `;`. A value holding a
 * single quote cannot be written (no escape is documented): refused before any request, naming
 * the argument (doc 001: "rejected with a friendly error").
 */
export function queryFilter(
  ctx: QuoteContext,
  clauses: readonly (readonly [
    argument: string,
    field: string,
    op: 'eq' | 'contains',
    value: string | number | boolean | undefined,
  ])[],
): string | undefined {
  const parts: string[] = [];
  for (const [argument, field, op, value] of clauses) {
    if (value === undefined) continue;
    const text = String(value);
    if (text.includes("'")) return ctx.refuseArguments('quote_in_filter', { argument });
    parts.push(`${field} ${op} '${text}'`);
  }
  return parts.length ? parts.join(';') : undefined;
}

// ---- Envelopes and pages ----

export type Envelope = {
  readonly items: Row[];
  readonly pagination: { page: number; pageSize: number; result: number; totalWithoutFilter: number; hasMore: boolean };
};

/**
 * The `{Collection, Pagination}` envelope (books.md §2): `totalWithoutFilter` copied from
 * `ResultWithoutFilter` verbatim; `hasMore` only from the page coming back full, never from that
 * total (§3 #2). Items camel-cased.
 */
export function envelopeOf(
  body: unknown,
  requested: { readonly page: number; readonly pageSize: number },
  what: string,
): Envelope {
  const root = objectBody(body, what);
  const collection = prop(root, 'Collection');
  if (collection !== null && collection !== undefined && !Array.isArray(collection))
    throw new Error(`Dinero answered ${what} without a Collection array`);
  const rows = (collection ?? []).filter(isRow);
  const pagination = isRow(prop(root, 'Pagination')) ? (prop(root, 'Pagination') as Row) : {};
  const pageSize = numberOr(prop(pagination, 'PageSize'), requested.pageSize);
  return {
    items: rows.map(camelRow),
    pagination: {
      page: numberOr(prop(pagination, 'Page'), requested.page),
      pageSize,
      result: numberOr(prop(pagination, 'Result'), rows.length),
      totalWithoutFilter: numberOr(prop(pagination, 'ResultWithoutFilter'), rows.length),
      hasMore: rows.length >= requested.pageSize && rows.length > 0,
    },
  };
}

/** One envelope page: `page` and `pageSize` always sent with the other query options. */
export async function readEnvelope(
  ctx: BooksContext,
  path: string,
  args: { readonly page: number; readonly pageSize: number },
  query: Readonly<Record<string, string | number | boolean | undefined>>,
  what: string,
): Promise<Envelope> {
  const paging = pagingQuery(args);
  return envelopeOf(await dineroJson(ctx, { path, query: { ...query, ...paging } }), paging, what);
}

/** One page of a list the connector filtered itself (`{items, totalCount, page, pageSize, hasMore}`). */
export function slicePage<T>(
  rows: readonly T[],
  page: number,
  pageSize: number,
): { items: T[]; totalCount: number; page: number; pageSize: number; hasMore: boolean } {
  const start = page * pageSize;
  return {
    items: rows.slice(start, start + pageSize),
    totalCount: rows.length,
    page,
    pageSize,
    hasMore: start + pageSize < rows.length,
  };
}

// ---- Documents ----

/** `attachment; filename="x.pdf"` (and RFC 6266 `filename*=UTF-8''…`), else undefined. */
export function fileNameOf(disposition: string | undefined): string | undefined {
  if (disposition === undefined) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      /* fall through to the plain form */
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/.exec(disposition);
  const name = (plain?.[1] ?? plain?.[2])?.trim();
  return name === undefined || name === '' ? undefined : name.replace(/[/\\]/g, '_');
}

/**
 * A PDF read (`Accept: application/octet-stream`, books.md §3 #13): the bytes base64-encoded, the
 * name from `Content-Disposition` or `fallbackName`. A body that is not a PDF is the generic text.
 */
export async function readPdf(
  ctx: BooksContext,
  request: DineroRequest,
  fallbackName: string,
): Promise<{ fileName: string; mimeType: string; base64: string }> {
  const response = await dinero(ctx, { ...request, accept: 'bytes' });
  const bytes = response.body;
  if (!Buffer.isBuffer(bytes) || bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
    throw new Error('Dinero answered a PDF request with something other than a PDF');
  return {
    fileName: fileNameOf(response.headers['content-disposition']) ?? fallbackName,
    mimeType: 'application/pdf',
    base64: bytes.toString('base64'),
  };
}

/** `{ count, <key>: rows }` of a bare-array endpoint, camel-cased. */
export async function countedList(
  ctx: BooksContext,
  request: DineroRequest,
  what: string,
): Promise<{ count: number; rows: Row[] }> {
  const rows = arrayBody(await dineroJson(ctx, request), what).map(camelRow);
  return { count: rows.length, rows };
}

/** A single object read, camel-cased. */
export async function objectRead(ctx: BooksContext, request: DineroRequest, what: string): Promise<Row> {
  return camelRow(objectBody(await dineroJson(ctx, request), what));
}

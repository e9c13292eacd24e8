// The ERP's wire side (upstreams/erp.md §2–3): Business Central API v2.0 over OData v4 with the
// connection's delegated bearer token. Every request is a GET with `Data-Access-Intent: ReadOnly`;
// a 400 is retried once without that header (doc 000 "Authentication"). Failures map to the ERP
// error table: 401, 403, 404 (and a 400 carrying a not-found code), 400, 429; anything else
// (timeout, 5xx, 408, a body that is not JSON, a size cap) is rethrown for the generic text.
import type { ErpContextWith } from '#generated/erp/contract.ts';
import type { ListEnvironmentsResult } from '#generated/erp/types.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';

/** A JSON object as the ERP returns it. */
export type Row = Record<string, unknown>;

/** The codes every ERP request can end with. */
type WireCodes =
  | 'generic'
  | 'access_expired'
  | 'access_rejected_401'
  | 'forbidden_403'
  | 'bad_request_400'
  | 'throttled';
export type ErpWireContext = ErpContextWith<WireCodes, { readonly errorMessageMaxChars: number }>;
/** A tool that reads inside an environment: also an unknown environment and a not-found answer. */
export type ErpEnvironmentContext = ErpContextWith<
  WireCodes | 'unknown_environment' | 'not_found_404',
  { readonly errorMessageMaxChars: number }
>;

/** 400 codes that mean "no such company or record" (upstreams/erp.md §3, "Wrong companyId"). */
const NOT_FOUND_CODES = new Set([
  'internal_companynotfound',
  'internal_recordnotfound',
  'badrequest_notfound',
  'badrequest_resourcenotfound',
]);

export function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The connection's access token; without one the stored access is unusable (reconnect). */
function bearer(ctx: ErpWireContext): string {
  const credential = ctx.credential;
  if (credential?.kind !== 'oauth2' || typeof credential.accessToken !== 'string' || credential.accessToken === '')
    return ctx.fail('access_expired');
  return credential.accessToken;
}

/** `{ error: { code, message } }` of an OData error body, tolerating anything else. */
function errorOf(body: unknown): { code: string | undefined; message: string | undefined } {
  const error = isRow(body) && isRow(body['error']) ? body['error'] : undefined;
  const code = typeof error?.['code'] === 'string' ? error['code'] : undefined;
  const message =
    typeof error?.['message'] === 'string' ? error['message'] : typeof body === 'string' ? body : undefined;
  return { code, message };
}

export interface ErpRequest {
  /**
   * Path relative to the configured base, with its query string already encoded; or an absolute URL on the base's
   * origin (a checked cursor).
   */
  readonly path: string;
  /** `Prefer: odata.maxpagesize=N` (server-driven paging). */
  readonly pageSize?: number;
  /** The spec's 404 text for this request; without it a 404 is the generic text. */
  readonly notFound?: () => never;
}

/** One GET: with the read-only intent, then once without it on a 400; failures mapped to the spec's texts. */
export async function erpGet(ctx: ErpWireContext, request: ErpRequest): Promise<unknown> {
  const token = bearer(ctx);
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (request.pageSize !== undefined) headers['prefer'] = `odata.maxpagesize=${request.pageSize}`;
  try {
    try {
      return (
        await ctx.upstream.request<unknown>({
          method: 'GET',
          path: request.path,
          headers: { ...headers, 'data-access-intent': 'ReadOnly' },
        })
      ).body;
    } catch (error) {
      if (!(error instanceof UpstreamError) || error.status !== 400) throw error;
      // An API page may refuse the read-only intent: the one retry without it (doc 000 "Authentication").
      return (await ctx.upstream.request<unknown>({ method: 'GET', path: request.path, headers })).body;
    }
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    if (error.status === 401) return ctx.fail('access_rejected_401');
    if (error.status === 403) return ctx.fail('forbidden_403');
    if (error.kind === 'throttled') return ctx.fail('throttled');
    const { code, message } = errorOf(error.body);
    if (error.status === 404 && request.notFound) return request.notFound();
    if (error.status === 400) {
      if (request.notFound && code !== undefined && NOT_FOUND_CODES.has(code.toLowerCase())) return request.notFound();
      return ctx.fail('bad_request_400', {
        code: code ?? 'BadRequest',
        message: (message ?? '').slice(0, ctx.limits.errorMessageMaxChars),
      });
    }
    throw error;
  }
}

/** A 2xx body that must be a JSON object (anything else is the generic text). */
export function objectBody(body: unknown, what: string): Row {
  if (!isRow(body)) throw new Error(`the ERP answered ${what} with something other than a JSON object`);
  return body;
}

/** The `value` array of a collection answer (rows that are not objects are dropped). */
export function collection(body: unknown, what: string): Row[] {
  const value = objectBody(body, what)['value'];
  if (!Array.isArray(value)) throw new Error(`the ERP answered ${what} without a \`value\` array`);
  return value.filter(isRow);
}

const segment = (value: string) => encodeURIComponent(value);

/** `{B}/api/v2.0{rest}` for an environment, without the tenant segment (the user token fixes the tenant). */
export function apiPath(environment: string, rest = ''): string {
  return `/v2.0/${segment(environment)}/api/v2.0${rest}`;
}

/** A query string of OData options (`$filter` …), encoded as OData URLs expect (`%20`, not `+`). */
export function odataQuery(options: Readonly<Record<string, string | undefined>>): string {
  const parts = Object.entries(options)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    // `,` and `:` stay as they are (legal in a query, and common in $select and datetimes).
    .map(([key, value]) => `${key}=${encodeURIComponent(value).replace(/%2C/g, ',').replace(/%3A/g, ':')}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

// ---- Environments (`/environments/v1.2`) ----

export type Environment = ListEnvironmentsResult['items'][number];

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Business Central family only (case- and space-insensitive); entries without a family are kept. */
function isBusinessCentral(row: Row): boolean {
  const family = row['applicationFamily'];
  if (family === undefined || family === null) return true;
  return typeof family === 'string' && family.replace(/\s+/g, '').toLowerCase() === 'businesscentral';
}

function typeOf(value: unknown): Environment['type'] | undefined {
  const type = typeof value === 'string' ? value.replace(/\s+/g, '').toLowerCase() : '';
  return type === 'production' ? 'Production' : type === 'sandbox' ? 'Sandbox' : undefined;
}

/** The names of the tenant's ERP environments and the items `list_environments` shows. */
export async function readEnvironments(ctx: ErpWireContext): Promise<{ names: string[]; items: Environment[] }> {
  const body = await erpGet(ctx, { path: '/environments/v1.2' });
  const rows = Array.isArray(body) ? body.filter(isRow) : collection(body, 'the environments list');
  const names: string[] = [];
  const items: Environment[] = [];
  for (const row of rows) {
    const name = row['name'];
    if (typeof name !== 'string' || name === '' || !isBusinessCentral(row)) continue;
    names.push(name);
    const type = typeOf(row['type']);
    if (type === undefined) {
      ctx.log.warn(
        { type: typeof row['type'] === 'string' ? row['type'].slice(0, 40) : typeof row['type'] },
        'ERP environment with a type that is neither production nor sandbox left out of the list',
      );
      continue;
    }
    items.push({
      name,
      type,
      countryCode: stringOrNull(row['countryCode']),
      aadTenantId: stringOrNull(row['aadTenantId']),
    });
  }
  return { names, items };
}

/** The canonical spelling of `environment` from the environments list, or the spec's unknown-environment text. */
export async function resolveEnvironment(ctx: ErpEnvironmentContext, environment: string): Promise<string> {
  const { names } = await readEnvironments(ctx);
  const wanted = environment.toLowerCase();
  const found = names.find((name) => name.toLowerCase() === wanted);
  if (found === undefined) return ctx.fail('unknown_environment', { name: environment, names: names.join(', ') });
  return found;
}

/** The spec's 404 text for an environment. */
export function notFoundIn(ctx: ErpEnvironmentContext, environment: string): () => never {
  return () => ctx.fail('not_found_404', { environment });
}

// ---- Rows ----

/**
 * Removes OData annotations at every depth: keys beginning with `@odata.` (doc 000), and also
 * property annotations `prop@odata.*` (`picture@odata.mediaReadLink`, `lines@odata.nextLink`),
 * which are wire metadata whose links only work with the connection's token (docs/decisions/connector-erp.md,
 * 'ERP handlers: one wire helper, the environment first, sealed cursors',
 * item 4).
 */
export function stripOData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripOData);
  if (!isRow(value)) return value;
  const out: Row = {};
  for (const [key, inner] of Object.entries(value)) if (!key.includes('@odata.')) out[key] = stripOData(inner);
  return out;
}

/** The result, or the generic text when its JSON is over the tool's character cap. */
export function capResult<T>(ctx: ErpContextWith<'generic', { readonly resultMaxChars: number }>, result: T): T {
  if (JSON.stringify(result).length > ctx.limits.resultMaxChars) return ctx.fail('generic');
  return result;
}

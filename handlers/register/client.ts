// The company register's wire side (upstreams/register.md §2): the shared HTTP Basic credential,
// one bounded Elasticsearch `_search` per call, the ES 6 response envelope, and the mapping of
// upstream failures to the connector's errors (§3 "Auth failures"). The credential never appears
// in an error, a result or a log line.
import type { RegisterContextWith, RegisterLimits } from '#generated/register/contract.ts';
import { UpstreamError, type UpstreamResponse } from '#runtime/handler-api/upstream-types.ts';

/** Every register tool can end with these texts; the helpers below ask for no more. */
type RegisterCallContext = RegisterContextWith<
  'register_auth' | 'register_api' | 'register_config' | 'credential_missing',
  Pick<RegisterLimits, 'maxSize'>
>;

/** The three alias paths of the distribution API, relative to the configured base URL. */
export type RegisterIndex = 'virksomhed' | 'produktionsenhed' | 'deltager';

/** One `_search` hit, `_source` still untyped (the mapping reads it defensively). */
export interface SearchHit {
  readonly id: string | undefined;
  readonly source: Record<string, unknown>;
}

export interface SearchResult {
  /** Match count before the `size` cap. */
  readonly total: number;
  readonly hits: readonly SearchHit[];
}

/** Status reported when a failure carries none (the gateway stood in for the register). */
const NO_STATUS = 502;

/**
 * `Basic base64(username:password)` from the deployment's managed credential. A present but
 * malformed or incomplete credential (missing or empty part, ':' in the username, wrong kind)
 * is `register_config`; no credential at all is the platform's CredentialMissingError, which the
 * runtime normally raises before the handler runs.
 */
export function basicAuthHeader(ctx: RegisterCallContext): string {
  const credential = ctx.credential;
  if (credential === null) return ctx.fail('credential_missing', { connector_id: ctx.connectorId });
  if (credential.kind !== 'managed_basic') return ctx.fail('register_config');
  const { username, password } = credential;
  if (
    typeof username !== 'string' ||
    typeof password !== 'string' ||
    username === '' ||
    password === '' ||
    username.includes(':')
  ) {
    return ctx.fail('register_config');
  }
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** `size` as the runtime validated it; anything else never reaches the register unbounded. */
export function boundedSize(size: number, ctx: RegisterCallContext): number {
  const max = ctx.limits.maxSize;
  if (!Number.isInteger(size) || size < 1 || size > max) throw new Error(`size ${String(size)} outside 1..${max}`);
  return size;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `hits.total` is an integer on ES 6 and `{ value }` on ES 7+. */
function readTotal(total: unknown): number | undefined {
  if (typeof total === 'number' && Number.isInteger(total) && total >= 0) return total;
  if (isRecord(total)) return readTotal(total['value']);
  return undefined;
}

/** The ES envelope, or undefined when the 2xx body is not one. */
export function parseSearchBody(body: unknown): SearchResult | undefined {
  if (!isRecord(body) || !isRecord(body['hits'])) return undefined;
  const hitsObject = body['hits'];
  const rawHits = hitsObject['hits'];
  if (!Array.isArray(rawHits)) return undefined;
  const hits: SearchHit[] = [];
  for (const hit of rawHits) {
    if (!isRecord(hit)) return undefined;
    const id = hit['_id'];
    hits.push({
      id: typeof id === 'string' || typeof id === 'number' ? String(id) : undefined,
      source: isRecord(hit['_source']) ? hit['_source'] : {},
    });
  }
  const total = readTotal(hitsObject['total']) ?? hits.length;
  return { total: Math.max(total, hits.length), hits };
}

/** The ES error type of a failed search (`parsing_exception`, …), for the log only. */
function esErrorType(body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body['error'])) return undefined;
  const type = body['error']['type'];
  return typeof type === 'string' ? type.slice(0, 100) : undefined;
}

/**
 * Maps a failed upstream call: 401/403 → `register_auth`; any other HTTP failure or an invalid 2xx
 * body → `register_api` with the HTTP status; timeouts and network faults are rethrown so the
 * runtime answers with the generic text.
 */
export function failFromUpstream(ctx: RegisterCallContext, error: unknown): never {
  if (!(error instanceof UpstreamError)) throw error;
  if (error.kind === 'timeout' || error.kind === 'network') throw error;
  const status = error.status ?? NO_STATUS;
  ctx.log.warn(
    { upstream: 'register', kind: error.kind, status, esError: esErrorType(error.body) },
    'company register call failed',
  );
  if (error.kind === 'auth') return ctx.fail('register_auth');
  return ctx.fail('register_api', { status });
}

/** One bounded `POST /<index>/_search`; the body must carry its own `size`. */
export async function search(
  ctx: RegisterCallContext,
  index: RegisterIndex,
  body: Readonly<Record<string, unknown>>,
): Promise<SearchResult> {
  const authorization = basicAuthHeader(ctx);
  let response: UpstreamResponse;
  try {
    response = await ctx.upstream.request({
      method: 'POST',
      path: `/${index}/_search`,
      headers: { authorization },
      json: body,
    });
  } catch (error) {
    return failFromUpstream(ctx, error);
  }
  const parsed = parseSearchBody(response.body);
  if (!parsed) {
    ctx.log.warn(
      { upstream: 'register', kind: 'bad_body', status: response.status, esError: esErrorType(response.body) },
      'company register answered an unexpected body',
    );
    return ctx.fail('register_api', { status: response.status });
  }
  return parsed;
}

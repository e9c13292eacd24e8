// The HTTP checks of an MCP endpoint as small functions of what they judge, each returning a
// verdict: pass, or a refusal with its HTTP status, JSON-RPC error and headers. The server
// (transport/server.ts) makes them in this order and sends a refusal as it is:
//   HTTP method → Origin → caller token → body size → request rate → JSON → MCP-Protocol-Version
// The words come from specs/platform.yaml (`protocolErrors`); the statuses and codes are here.
import { ErrorCode, RATE_LIMITED, SERVED_PROTOCOL_VERSIONS, UNAUTHORIZED } from '../mcp/protocol.ts';
import { protocolText } from '../protocol-text.ts';
import type { RateDecision } from '../metering/rate-limit.ts';
import type { Identity } from '../store/state.ts';
import { tokenHash } from '../auth/caller-tokens.ts';
import { narrow, scopeSelection, type ToolSelection } from '../tool-selection.ts';

/** A request refused before any JSON-RPC method runs. */
export interface Refusal {
  readonly ok: false;
  readonly status: number;
  /** The JSON-RPC error. */
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Verdict<Pass extends object = object> = ({ readonly ok: true } & Pass) | Refusal;

const PASS: Verdict = Object.freeze({ ok: true });

function refusal(
  status: number,
  code: number,
  message: string,
  extra: Pick<Refusal, 'data' | 'headers'> = {},
): Refusal {
  return Object.freeze({ ok: false, status, code, message, ...extra });
}

const METHOD_NOT_ALLOWED = refusal(405, ErrorCode.InvalidRequest, protocolText('method_not_allowed'), {
  headers: { allow: 'POST' },
});

/** An MCP endpoint takes POST only (stateless, JSON responses). */
export function checkHttpMethod(method: string | undefined): Verdict {
  return method === 'POST' ? PASS : METHOD_NOT_ALLOWED;
}

const ORIGIN_NOT_ALLOWED = refusal(403, ErrorCode.InvalidRequest, protocolText('origin_not_allowed'));

/** A browser's Origin must be allowed; a request without one (not a browser) passes. */
export function checkOrigin(origin: string | undefined, allowed: ReadonlySet<string>): Verdict {
  return !origin || allowed.has(origin) ? PASS : ORIGIN_NOT_ALLOWED;
}

const BEARER = /^bearer[ \t]+/i;

/**
 * The bearer token of an Authorization header, or undefined when there is none of a plausible
 * length. The scheme name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const scheme = header === undefined ? null : BEARER.exec(header);
  if (!scheme) return undefined;
  const token = header!.slice(scheme[0].length).trim();
  return token.length < 16 || token.length > 512 ? undefined : token;
}

/** Hashes of recently presented tokens (bounded), so a busy client costs no SHA-256 per request. */
const recentHashes = new Map<string, string>();
function cachedTokenHash(token: string): string {
  let hash = recentHashes.get(token);
  if (hash === undefined) {
    hash = tokenHash(token);
    if (recentHashes.size >= 10_000) recentHashes.clear();
    recentHashes.set(token, hash);
  }
  return hash;
}

/** Finds the caller of a token hash: `known` in memory only; `identify` may read the store. */
export interface IdentityLookup {
  known(tokenHash: string): Identity | undefined;
  identify(tokenHash: string): Identity | undefined | Promise<Identity | undefined>;
}

/**
 * Failed authentication of one client address (a token bucket): while it is spent, a token that is
 * not in memory is refused at once, without any store work. Tokens the gateway knows always pass.
 */
export interface AuthFailures {
  exhausted(): boolean;
  failed(): void;
}

const CALLER_UNKNOWN = refusal(401, UNAUTHORIZED, protocolText('unauthorized'), {
  headers: { 'www-authenticate': 'Bearer realm="connector-gateway"' },
});

const AUTH_FAILURES_LIMITED = refusal(429, RATE_LIMITED, protocolText('auth_rate_limited'), {
  data: { retryAfterSeconds: 1 },
  headers: { 'retry-after': '1' },
});

/**
 * The 401 of an MCP endpoint (MCP authorization, RFC 9728 §5.1): where its protected-resource
 * metadata is, and `error="invalid_token"` when a token was sent. The same for every reason (no
 * token, unknown, expired, revoked, issued for another endpoint): nothing tells them apart.
 */
export function unauthorizedAt(resourceMetadataUrl: string, tokenSent: boolean): Refusal {
  const challenge = `Bearer ${tokenSent ? 'error="invalid_token", ' : ''}resource_metadata="${resourceMetadataUrl}"`;
  return refusal(401, UNAUTHORIZED, protocolText('unauthorized'), { headers: { 'www-authenticate': challenge } });
}

/**
 * Authentication: the caller of the Authorization header's bearer token, looked up by its hash.
 * A token with the `oauthPrefix` (an OAuth access token) is looked up in `oauth` instead, when given.
 * A token in memory is answered at once (no promise: the hot path costs no microtask for it); only
 * a token the snapshot does not hold waits for the store.
 */
export function checkCaller(
  authorization: string | undefined,
  lookup: IdentityLookup,
  failures?: AuthFailures,
  oauth?: { readonly prefix: string; readonly lookup: IdentityLookup },
): Verdict<{ readonly identity: Identity }> | Promise<Verdict<{ readonly identity: Identity }>> {
  const token = bearerToken(authorization);
  if (token === undefined) {
    failures?.failed();
    return CALLER_UNKNOWN;
  }
  if (oauth && token.startsWith(oauth.prefix)) lookup = oauth.lookup;
  const hash = cachedTokenHash(token);
  const known = lookup.known(hash);
  if (known) return { ok: true, identity: known };
  if (failures?.exhausted()) return AUTH_FAILURES_LIMITED;
  return identifyUnknown(hash, lookup, failures);
}

async function identifyUnknown(
  hash: string,
  lookup: IdentityLookup,
  failures: AuthFailures | undefined,
): Promise<Verdict<{ readonly identity: Identity }>> {
  let identity: Identity | undefined;
  try {
    identity = await lookup.identify(hash);
  } catch {
    // A token this replica has not seen, while the database is away: neither known nor refused.
    return CALLER_UNVERIFIABLE;
  }
  if (identity) return { ok: true, identity };
  failures?.failed();
  return CALLER_UNKNOWN;
}

const CALLER_UNVERIFIABLE = refusal(503, ErrorCode.InternalError, protocolText('caller_unverifiable'), {
  headers: { 'retry-after': '5' },
});

/** The body, declared (Content-Length) or received, may not pass the limit; the connection closes after the refusal. */
export function checkBodySize(bytes: number, limit: number): Verdict {
  return bytes > limit
    ? refusal(413, ErrorCode.InvalidRequest, protocolText('body_too_large', { max_bytes: limit }), {
        headers: { connection: 'close' },
      })
    : PASS;
}

const RATE_LIMITED_REFUSAL = refusal(429, RATE_LIMITED, protocolText('rate_limited'), {
  data: { retryAfterSeconds: 1 },
  headers: { 'retry-after': '1' },
});

/** The request-rate limiter's decision for the caller's account and connector (a fail-open decision allows). */
export function checkRate(decision: RateDecision): Verdict {
  return decision.allowed ? PASS : RATE_LIMITED_REFUSAL;
}

const PARSE_ERROR = refusal(400, ErrorCode.ParseError, protocolText('parse_error'));

/** The body must be JSON. */
export function parseBody(raw: Buffer): Verdict<{ readonly body: unknown }> {
  try {
    return { ok: true, body: JSON.parse(raw.toString('utf8')) };
  } catch {
    return PARSE_ERROR;
  }
}

/** An MCP-Protocol-Version header, when sent, must name a version this gateway serves. */
export function checkProtocolVersion(header: string | readonly string[] | undefined): Verdict {
  if (typeof header !== 'string' || SERVED_PROTOCOL_VERSIONS.includes(header)) return PASS;
  return refusal(
    400,
    ErrorCode.InvalidRequest,
    protocolText('unsupported_protocol_version', { version: header, served: SERVED_PROTOCOL_VERSIONS.join(', ') }),
  );
}

/**
 * The client's selection narrowed by the caller's token scope (docs/decisions/mcp-authorization.md,
 * 'Scopes on API tokens'): a token whose scope does not list the connector is refused with 403 and
 * `WWW-Authenticate: Bearer error="insufficient_scope"`, before the body is read.
 */
export function checkTokenScope(
  identity: Identity,
  connectorKey: string,
  selection: ToolSelection,
): Verdict<{ readonly selection: ToolSelection }> {
  const scoped = scopeSelection(identity.scope, connectorKey);
  if (scoped === null) {
    const allowed = identity.scope!.connectors.join(', ') || 'no connector';
    return refusal(
      403,
      ErrorCode.InvalidRequest,
      protocolText('token_scope_connector', { connector_id: connectorKey, allowed }),
      {
        headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' },
      },
    );
  }
  return { ok: true, selection: narrow(selection, scoped) };
}

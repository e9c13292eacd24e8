// CORS of the MCP endpoints (docs/decisions/mcp-surface.md, 'CORS for browser-based MCP clients on
// allowed origins'): a browser-based MCP client (the MCP Inspector's
// web UI, an assistant in a web page) on an origin the operator allows (the public origin and
// ALLOWED_ORIGINS) may call an endpoint; any other origin gets no allow header and is refused 403
// by the origin check (checks.ts), as before. A small function of what it judges, like the checks:
//
// - no Origin: not a browser, CORS does not apply (nothing is added: the hot path stays as it was);
// - an allowed origin's preflight (OPTIONS with Access-Control-Request-Method) is answered 204 with
//   the methods and request headers MCP clients send, a max age and `Vary`;
// - an allowed origin's other requests get `Access-Control-Allow-Origin: <origin>` and the response
//   headers clients read exposed, on whatever the answer is (200, 202, 401, 405, 413, 429, 503 …);
// - a foreign origin gets `Vary: Origin` only (its preflight is refused 403 like its POST).
//
// No `Access-Control-Allow-Credentials`: a client authenticates with a bearer token it puts in the
// Authorization header itself (allowed below), never with cookies or HTTP authentication the
// browser would attach. Without the header a browser refuses a `credentials: 'include'` call, so a
// page can never make the user's browser send ambient credentials (the portal's session cookie,
// which this endpoint does not read anyway) to an MCP endpoint.
//
// A small function here rather than the `cors` package: the transport is node:http, the rules are
// four, and the answers are frozen per allowed origin so a browser's call costs no allocation.

/**
 * Methods a browser may send after the preflight. POST carries every JSON-RPC message; GET (the SSE
 * stream a Streamable HTTP client opens after initialize) and DELETE (session termination) are
 * answered 405 by this stateless endpoint, and the client must be able to read that 405 rather
 * than see a network error.
 */
export const CORS_ALLOW_METHODS = 'POST, GET, DELETE';

/**
 * Request headers MCP clients send: the SDK 1.x StreamableHTTPClientTransport and the 2.x
 * `@modelcontextprotocol/client` (authorization, content-type, accept, mcp-protocol-version,
 * mcp-session-id, mcp-method and mcp-name of the 2026 revision, last-event-id on a resumed
 * stream), W3C trace context (traceparent and tracestate, read by the gateway; baggage, which
 * browser tracing sends beside them), x-request-id (the gateway's request id, when given) and the
 * client's selection of tools (x-mcp-toolsets, x-mcp-readonly; mcp/client-selection.ts).
 */
export const CORS_ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  'traceparent',
  'tracestate',
  'baggage',
  'x-request-id',
  'x-mcp-toolsets',
  'x-mcp-readonly',
].join(', ');

/** Response headers a client reads beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'retry-after'].join(
  ', ',
);

/** How long a browser may keep a preflight's answer (Chromium caps it at 7200 s, Firefox at 86400 s). */
export const CORS_MAX_AGE_SECONDS = 7200;

export type CorsVerdict =
  /** No Origin header: not a browser; nothing to add. */
  | { readonly kind: 'none' }
  /** An allowed origin's preflight: answer 204 with these headers and nothing else. */
  | { readonly kind: 'preflight'; readonly headers: Readonly<Record<string, string>> }
  /** An allowed origin's request: these headers go on whatever the answer is. */
  | { readonly kind: 'allowed'; readonly headers: Readonly<Record<string, string>> }
  /** An origin not allowed: no allow header (`Vary` only); the origin check refuses it, a preflight too. */
  | { readonly kind: 'foreign'; readonly preflight: boolean; readonly headers: Readonly<Record<string, string>> };

const NONE: CorsVerdict = Object.freeze({ kind: 'none' });
const FOREIGN_HEADERS = Object.freeze({ vary: 'Origin' });
const FOREIGN: CorsVerdict = Object.freeze({ kind: 'foreign', preflight: false, headers: FOREIGN_HEADERS });
const FOREIGN_PREFLIGHT: CorsVerdict = Object.freeze({ kind: 'foreign', preflight: true, headers: FOREIGN_HEADERS });

/** The CORS rules of the MCP endpoints for one set of allowed origins (compared exactly, as the origin check does). */
export function corsPolicy(
  allowed: ReadonlySet<string>,
): (method: string | undefined, origin: string | undefined, requestMethod: string | undefined) => CorsVerdict {
  const preflights = new Map<string, CorsVerdict>();
  const answers = new Map<string, CorsVerdict>();
  for (const origin of allowed) {
    preflights.set(
      origin,
      Object.freeze({
        kind: 'preflight',
        headers: Object.freeze({
          'access-control-allow-origin': origin,
          'access-control-allow-methods': CORS_ALLOW_METHODS,
          'access-control-allow-headers': CORS_ALLOW_HEADERS,
          'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
          vary: 'Origin',
        }),
      }),
    );
    answers.set(
      origin,
      Object.freeze({
        kind: 'allowed',
        headers: Object.freeze({
          'access-control-allow-origin': origin,
          'access-control-expose-headers': CORS_EXPOSE_HEADERS,
          vary: 'Origin',
        }),
      }),
    );
  }
  return (method, origin, requestMethod) => {
    if (!origin) return NONE;
    // A preflight is an OPTIONS that names the method to come (Fetch standard, CORS-preflight request).
    const preflight = method === 'OPTIONS' && requestMethod !== undefined;
    return (preflight ? preflights : answers).get(origin) ?? (preflight ? FOREIGN_PREFLIGHT : FOREIGN);
  };
}

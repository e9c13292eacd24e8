// The gateway as an OAuth 2.1 authorization server for assistants (docs/decisions/mcp-authorization.md; MCP
// authorization of
// 2025-06-18, 2025-11-25 and 2026-07-28). The protocol endpoints are the MCP SDK's server-side
// handlers (authorize, token, register, revoke: parameter checks, PKCE S256 verification, error
// responses) on an express app that sees only the `/oauth/` paths, over our provider
// (oauth-provider.ts: the `OAuthServerProvider` interface over the platform store); this file mounts
// them, rate limits every path, and serves the two metadata documents:
//
// - `/.well-known/oauth-authorization-server` (RFC 8414), with `client_id_metadata_document_supported`
//   and `authorization_response_iss_parameter_supported` (RFC 9207: every answer sent back to a
//   client's redirect URI carries `iss` — the consent page's, and the SDK authorize handler's error
//   redirects, through `withIssuer` below);
// - `/.well-known/oauth-protected-resource/<instance>/mcp` (RFC 9728), one per endpoint.
//
// Clients are public (PKCE, no secret): dynamic registration (RFC 7591) stores the metadata only,
// and an https client_id is a client ID metadata document (client-metadata.ts). Every authorization
// names one endpoint (`resource`, RFC 8707); its tokens work there only. The user signs in and
// consents on the portal's page (/portal/authorize). Codes, access and refresh tokens are opaque
// 256-bit secrets stored as SHA-256 hashes; codes and refresh tokens are single-use, and a replayed
// one revokes its whole grant. The endpoints are rate limited per client address.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request as ExpressRequest, Response as ExpressResponse, NextFunction } from 'express';
import type { GatewayContext } from '../gateway-context.ts';
import { sendJson } from '../io/http-io.ts';
import { MemoryRateLimiter } from '../metering/rate-limit.ts';
import { recordAudit } from '../operations/audit.ts';
import { protocolText } from '../protocol-text.ts';
import { ClientMetadataDocuments, type MetadataFetch } from './client-metadata.ts';
import { issuerOf, RESOURCE_PATH, resourceUrlOf } from './mcp-authorization.ts';
import { oauthScopesOf } from './token-scope.ts';
import { createProvider, requestAddress, requestContext, type ServerContext } from './oauth-provider.ts';

/** The paths this module answers (the HTTP server routes them here). */
export const OAUTH_PATH_PREFIX = '/oauth/';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const PROTECTED_RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

export interface AuthorizationServerOptions {
  /**
   * How client ID metadata documents are fetched (tests give a fake; the default connects to public addresses only).
   */
  readonly fetchClientMetadata?: MetadataFetch;
  /**
   * The page a browser gets for an authorization request that cannot go back to its client (an
   * unknown client, a redirect URI it did not register): the portal's (app.ts). Without it, JSON.
   */
  readonly authorizeErrorPage?: (res: ServerResponse, status: number, error: string) => void;
}

export interface AuthorizationServer {
  /** Whether this module answers the path. */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
}

export function createAuthorizationServer(
  g: GatewayContext,
  options: AuthorizationServerOptions = {},
): AuthorizationServer {
  const {
    mcpAccessTokenSeconds: accessSeconds,
    mcpRefreshTokenSeconds: refreshSeconds,
    mcpConsentSeconds: consentSeconds,
    mcpAuthRequestsPerMinute: perMinute,
  } = g.platform.limits;
  const limiter = new MemoryRateLimiter({ perSecond: perMinute / 60, burst: perMinute });
  const documents = new ClientMetadataDocuments(options.fetchClientMetadata);
  const issuer = () => issuerOf(g.config.publicBaseUrl);
  const audit = (accountId: string | null, actor: string, action: string, target: string, detail: string) =>
    recordAudit(g.store, { accountId, actor, action, target, detail, source: requestAddress() }, g.log);
  const context: ServerContext = { g, documents, issuer, audit, accessSeconds, refreshSeconds, consentSeconds };

  // The SDK's handlers load zod and express (~150 ms): only when the first OAuth request arrives.
  let appPromise: Promise<(req: IncomingMessage, res: ServerResponse) => void> | undefined;
  const app = () => (appPromise ??= buildApp());

  async function buildApp(): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
    const [
      { default: express },
      errors,
      { authorizationHandler },
      { tokenHandler },
      { clientRegistrationHandler },
      { revocationHandler },
    ] = await Promise.all([
      import('express'),
      import('@modelcontextprotocol/sdk/server/auth/errors.js'),
      import('@modelcontextprotocol/sdk/server/auth/handlers/authorize.js'),
      import('@modelcontextprotocol/sdk/server/auth/handlers/token.js'),
      import('@modelcontextprotocol/sdk/server/auth/handlers/register.js'),
      import('@modelcontextprotocol/sdk/server/auth/handlers/revoke.js'),
    ]);
    const provider = createProvider(context, errors);
    const server = express();
    server.disable('x-powered-by');
    server.set('trust proxy', false);
    // Rate limits are ours (per client address, in front of every path); the SDK's are off.
    // RFC 9207: the SDK's error redirects back to the client get `iss` too (and the request's
    // `state`, which the SDK drops when its own parameter check fails).
    server.use('/oauth/authorize', (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
      const redirect = res.redirect.bind(res);
      res.redirect = (status: number, url: string) => {
        const { redirectUris, state } = authorizeRequestOf(req);
        redirect(status, withIssuer(url, redirectUris, issuer(), state));
      };
      // A browser (Accept: text/html) gets a page, not the SDK's JSON (docs/decisions/portal.md,
      // 'OAuth errors are portal pages'); other clients keep the JSON error.
      const page = options.authorizeErrorPage;
      if (page && /\btext\/html\b/.test(req.headers.accept ?? '')) {
        const json = res.json.bind(res);
        res.json = (body: unknown) => {
          if (res.statusCode < 400) return json(body);
          page(res, res.statusCode, String((body as { error?: unknown } | null)?.error ?? 'server_error'));
          return res;
        };
      }
      next();
    });
    server.use('/oauth/authorize', authorizationHandler({ provider, rateLimit: false }));
    server.use('/oauth/token', tokenHandler({ provider, rateLimit: false }));
    server.use(
      '/oauth/register',
      clientRegistrationHandler({
        clientsStore: provider.clientsStore,
        rateLimit: false,
        clientSecretExpirySeconds: 0,
      }),
    );
    server.use('/oauth/revoke', revocationHandler({ provider, rateLimit: false }));
    server.use((_req: ExpressRequest, res: ExpressResponse) => {
      sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }));
    });
    server.use(answerFailure(g));
    return server;
  }

  return {
    owns(path) {
      return (
        path.startsWith(OAUTH_PATH_PREFIX) ||
        path === AUTHORIZATION_SERVER_METADATA_PATH ||
        path.startsWith(PROTECTED_RESOURCE_METADATA_PREFIX)
      );
    },

    async handle(req, res, path) {
      const address = req.socket.remoteAddress ?? 'unknown';
      if (!limiter.take(address).allowed) {
        req.resume();
        // Readable by a browser client too (the SDK's handlers answer CORS with `*`, the metadata as well).
        sendJson(
          res,
          429,
          JSON.stringify({ error: 'too_many_requests', error_description: protocolText('oauth_rate_limited') }),
          {
            'retry-after': '60',
            'access-control-allow-origin': '*',
            'access-control-expose-headers': 'retry-after',
          },
        );
        return 429;
      }
      if (!path.startsWith(OAUTH_PATH_PREFIX)) return metadata(context, req, res, path);
      const handler = await app();
      return requestContext.run({ address }, () => {
        const done = new Promise<number>((resolve) => {
          res.once('finish', () => resolve(res.statusCode));
          res.once('close', () => resolve(res.statusCode));
        });
        handler(req, res);
        return done;
      });
    },
  };
}

function authorizationServerMetadata(issuer: () => string): Record<string, unknown> {
  const base = issuer();
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** The metadata of an endpoint, or of one of its selection paths (`inner`): its own URL is the resource. */
function protectedResourceMetadata(
  { g, issuer }: ServerContext,
  instanceId: string,
  inner: string,
): Record<string, unknown> | undefined {
  const endpoint = g.endpoints.get(instanceId);
  if (!endpoint) return undefined;
  return {
    resource: resourceUrlOf(g.config.publicBaseUrl, inner),
    authorization_servers: [issuer()],
    bearer_methods_supported: ['header'],
    // Asking for every value is asking for everything; fewer narrow the grant (token-scope.ts).
    scopes_supported: oauthScopesOf(endpoint.connector.descriptor.toolsets.map((t) => t.id)),
    resource_name: endpoint.connector.descriptor.title,
  };
}

function metadata(context: ServerContext, req: IncomingMessage, res: ServerResponse, path: string): number {
  req.resume();
  // Public documents: any web client may read them (CORS), nothing in them is per caller.
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, OPTIONS',
    'access-control-allow-headers': 'mcp-protocol-version',
  };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...cors, 'access-control-max-age': '7200' }).end();
    return 204;
  }
  if (req.method !== 'GET') {
    sendJson(res, 405, JSON.stringify({ error: protocolText('not_found') }), { ...cors, allow: 'GET, OPTIONS' });
    return 405;
  }
  let doc: Record<string, unknown> | undefined;
  if (path === AUTHORIZATION_SERVER_METADATA_PATH) doc = authorizationServerMetadata(context.issuer);
  else {
    const inner = /^\/\.well-known\/oauth-protected-resource\/(.+)\/mcp$/.exec(path)?.[1];
    const id = inner === undefined ? undefined : RESOURCE_PATH.exec(inner)?.[1];
    doc = id ? protectedResourceMetadata(context, id, inner!) : undefined;
  }
  if (!doc) {
    sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }), cors);
    return 404;
  }
  sendJson(res, 200, JSON.stringify(doc), { ...cors, 'cache-control': 'public, max-age=300' });
  return 200;
}

/**
 * Of an authorize request (its query, or its form when POSTed, as the SDK reads it): the redirect
 * URIs it may be answered at — the one it names (the SDK checked it against the client's), or the
 * client's own — and its `state`.
 */
function authorizeRequestOf(req: ExpressRequest): { redirectUris: readonly string[]; state?: string } {
  const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
  const named = params?.redirect_uri;
  const redirectUris = typeof named === 'string' ? [named] : (requestContext.getStore()?.redirectUris ?? []);
  return typeof params?.state === 'string' ? { redirectUris, state: params.state } : { redirectUris };
}

function withoutQuery(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/**
 * RFC 9207: `location` with `iss` (the issuer of the metadata, exactly) when it is an authorization
 * response — `code` or `error` — to one of `redirectUris` (compared without their query); any other
 * location (the consent page) unchanged. An error response without `state` gets the request's
 * (RFC 6749 §4.1.2.1: the exact value, whenever the request had one).
 */
export function withIssuer(location: string, redirectUris: readonly string[], issuer: string, state?: string): string {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return location;
  }
  if (!url.searchParams.has('code') && !url.searchParams.has('error')) return location;
  const target = withoutQuery(url.href);
  if (!redirectUris.some((uri) => withoutQuery(uri) === target)) return location;
  if (state !== undefined && url.searchParams.has('error') && !url.searchParams.has('state'))
    url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/** The express app's last handler: a body that is not JSON or form data, or a failure; no stack trace to the client. */
function answerFailure(g: GatewayContext) {
  return (error: unknown, _req: ExpressRequest, res: ExpressResponse, _next: NextFunction): void => {
    const status =
      typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : 500;
    if (status >= 500)
      g.log.error({ err: { message: (error as Error)?.message } }, 'authorization server request failed');
    if (!res.headersSent)
      sendJson(
        res,
        status >= 500 ? 500 : 400,
        JSON.stringify({ error: status >= 500 ? 'server_error' : 'invalid_request' }),
      );
  };
}

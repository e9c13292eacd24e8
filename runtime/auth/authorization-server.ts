// The gateway as an OAuth 2.1 authorization server for assistants (docs/decisions/mcp-authorization.md; MCP
// authorization of
// 2025-06-18, 2025-11-25 and 2026-07-28). The protocol endpoints are the MCP SDK's server-side
// handlers (authorize, token, register, revoke: parameter checks, PKCE S256 verification, error
// responses) on an express app that sees only the `/oauth/` paths; this file is their provider
// (the `OAuthServerProvider` interface) over the platform store, plus the two metadata documents:
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
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Request as ExpressRequest, Response as ExpressResponse, NextFunction } from 'express';
import type { GatewayContext } from '../gateway-context.ts';
import { protocolText } from '../protocol-text.ts';
import { recordAudit } from '../operations/audit.ts';
import {
  endpointOfResource,
  issueTokens,
  issuerOf,
  REFRESH_TOKEN_PREFIX,
  redirectUriAllowed,
  resourceUrlOf,
  secretHash,
  signConsentRequest,
} from './mcp-authorization.ts';
import { MemoryRateLimiter } from '../metering/rate-limit.ts';
import type { McpGrant } from '../store/store.ts';
import { sendJson } from '../io/http-io.ts';
import { ClientMetadataDocuments, isMetadataDocumentId, type MetadataFetch } from './client-metadata.ts';

/** The paths this module answers (the HTTP server routes them here). */
export const OAUTH_PATH_PREFIX = '/oauth/';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const PROTECTED_RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

export interface AuthorizationServerOptions {
  /**
   * How client ID metadata documents are fetched (tests give a fake; the default connects to public addresses only).
   */
  readonly fetchClientMetadata?: MetadataFetch;
}

export interface AuthorizationServer {
  /** Whether this module answers the path. */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
}

/**
 * The request being handled: its client address (for the audit entries of the SDK's callbacks), and the redirect URIs
 * of the client it names.
 */
interface RequestContext {
  readonly address: string;
  redirectUris?: readonly string[];
}
const requestContext = new AsyncLocalStorage<RequestContext>();
const requestAddress = () => requestContext.getStore()?.address ?? '';

const MAX_STATE_CHARS = 1024;

type SdkErrors = typeof import('@modelcontextprotocol/sdk/server/auth/errors.js');

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
    server.use((error: unknown, _req: ExpressRequest, res: ExpressResponse, _next: NextFunction) => {
      // A body that is not JSON or form data, or a failure: no stack trace to the client.
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
    });
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

/** What the provider and the metadata documents read of the authorization server they serve. */
interface ServerContext {
  readonly g: GatewayContext;
  readonly documents: ClientMetadataDocuments;
  readonly issuer: () => string;
  readonly audit: (
    accountId: string | null,
    actor: string,
    action: string,
    target: string,
    detail: string,
  ) => Promise<void>;
  readonly accessSeconds: number;
  readonly refreshSeconds: number;
  readonly consentSeconds: number;
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

function protectedResourceMetadata(
  { g, issuer }: ServerContext,
  instanceId: string,
): Record<string, unknown> | undefined {
  const endpoint = g.endpoints.get(instanceId);
  if (!endpoint) return undefined;
  return {
    resource: resourceUrlOf(g.config.publicBaseUrl, instanceId),
    authorization_servers: [issuer()],
    bearer_methods_supported: ['header'],
    resource_name: endpoint.connector.descriptor.title,
  };
}

/** The registered clients: stored ones, and client ID metadata documents fetched by their https client_id. */
function createClientsStore(
  { g, documents, audit }: ServerContext,
  { CustomOAuthError }: SdkErrors,
): OAuthRegisteredClientsStore {
  async function findClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (isMetadataDocumentId(clientId)) {
      const doc = await documents.get(clientId);
      if (!doc) throw new CustomOAuthError('invalid_client', protocolText('oauth_client_metadata_invalid'));
      return publicClient(clientId, doc.clientName, doc.redirectUris);
    }
    if (clientId.length > 200) return undefined;
    const found = await g.store.mcp.getMcpClient(clientId);
    if (!found) return undefined;
    return {
      ...(JSON.parse(found.metadata) as Record<string, unknown>),
      ...publicClient(found.clientId, found.clientName, found.redirectUris),
    };
  }

  return {
    async getClient(clientId) {
      const client = await findClient(clientId);
      // Where this request may send the browser back (withIssuer adds `iss` there only).
      const context = requestContext.getStore();
      if (context && client) context.redirectUris = client.redirect_uris;
      return client;
    },
    async registerClient(info) {
      const uris = info.redirect_uris;
      if (uris.length === 0 || uris.length > 10 || !uris.every(redirectUriAllowed))
        throw new CustomOAuthError('invalid_redirect_uri', protocolText('oauth_redirect_uri_invalid'));
      const clientId = (info as { client_id?: string }).client_id!;
      const name = (info.client_name ?? '').trim().slice(0, 200);
      // A public client whatever it asked for: no secret is issued or kept.
      const {
        client_secret: _secret,
        client_secret_expires_at: _expires,
        ...metadata
      } = info as OAuthClientInformationFull;
      const answered: OAuthClientInformationFull = {
        ...metadata,
        ...publicClient(clientId, name, uris),
        client_id_issued_at: Math.floor(g.now().getTime() / 1000),
      };
      const json = JSON.stringify(answered);
      if (json.length > 16_384)
        throw new CustomOAuthError('invalid_client_metadata', protocolText('oauth_client_metadata_invalid'));
      await g.store.mcp.registerMcpClient({
        clientId,
        clientName: name,
        redirectUris: uris,
        metadata: json,
        source: requestAddress().slice(0, 64),
      });
      await audit(
        null,
        `client:${clientId}`,
        'oauth.client.register',
        clientId,
        `name=${name.slice(0, 100)} redirect_hosts=${uris.map(hostOf).join(',')}`,
      );
      return answered;
    },
  };
}

function createProvider(context: ServerContext, errors: SdkErrors): OAuthServerProvider {
  const { g, issuer, audit, accessSeconds, refreshSeconds, consentSeconds } = context;
  const { InvalidGrantError, InvalidTargetError, InvalidRequestError } = errors;
  const clientsStore = createClientsStore(context, errors);

  /** A grant seen replayed (code or refresh token): revoked with every token of it. */
  async function revokeReplayed(grant: McpGrant, what: 'code' | 'refresh_token'): Promise<void> {
    if (await g.store.mcp.revokeMcpGrant(grant.id, g.now())) {
      await g.state.refresh();
      await audit(
        grant.accountId,
        `client:${grant.clientId}`,
        'oauth.grant.revoke',
        grant.id,
        `reason=${what}_replayed client=${grant.clientName}`,
      );
      g.log.warn(
        { grant: grant.id, accountId: grant.accountId, what },
        'OAuth grant revoked: a used code or refresh token was presented again',
      );
    }
  }

  function boundEndpoint(resource: URL | undefined, grant: McpGrant): void {
    if (resource === undefined) return;
    const id = endpointOfResource(resource.href, g.config.publicBaseUrl, (x) => g.endpoints.has(x));
    if (!id || !grant.endpoints.includes(id)) throw new InvalidTargetError(protocolText('oauth_resource_not_granted'));
  }

  return {
    clientsStore,

    async authorize(
      client: OAuthClientInformationFull,
      params: AuthorizationParams,
      res: ExpressResponse,
    ): Promise<void> {
      if (!params.resource) throw new InvalidTargetError(protocolText('oauth_resource_required'));
      const id = endpointOfResource(params.resource.href, g.config.publicBaseUrl, (x) => g.endpoints.has(x));
      if (!id) throw new InvalidTargetError(protocolText('oauth_resource_unknown'));
      if (params.state !== undefined && params.state.length > MAX_STATE_CHARS) throw new InvalidRequestError('state');
      const request = signConsentRequest(g.vault, {
        clientId: client.client_id,
        clientName: client.client_name || client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        ...(params.state !== undefined ? { state: params.state } : {}),
        endpoints: [id],
        exp: Math.floor(g.now().getTime() / 1000) + consentSeconds,
      });
      res.setHeader('referrer-policy', 'no-referrer');
      res.redirect(302, `${issuer()}/portal/authorize?request=${request}`);
    },

    async challengeForAuthorizationCode(client, code) {
      const found = await g.store.mcp.findMcpCode(secretHash(code));
      if (!found || found.grant.clientId !== client.client_id)
        throw new InvalidGrantError(protocolText('oauth_code_invalid'));
      if (found.usedAt) {
        await revokeReplayed(found.grant, 'code');
        throw new InvalidGrantError(protocolText('oauth_code_invalid'));
      }
      if (found.expiresAt <= g.now() || found.grant.revokedAt)
        throw new InvalidGrantError(protocolText('oauth_code_invalid'));
      return found.codeChallenge;
    },

    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource): Promise<OAuthTokens> {
      const hash = secretHash(code);
      const found = await g.store.mcp.findMcpCode(hash);
      if (!found || found.grant.clientId !== client.client_id)
        throw new InvalidGrantError(protocolText('oauth_code_invalid'));
      if (redirectUri !== undefined && redirectUri !== found.redirectUri)
        throw new InvalidGrantError(protocolText('oauth_redirect_mismatch'));
      boundEndpoint(resource, found.grant);
      const used = await g.store.mcp.consumeMcpCode(hash, g.now());
      if (used.outcome === 'used') await revokeReplayed(used.grant, 'code');
      if (used.outcome !== 'ok') throw new InvalidGrantError(protocolText('oauth_code_invalid'));
      return issueTokens(g.store, used.grant, g.now(), accessSeconds, refreshSeconds);
    },

    async exchangeRefreshToken(client, refreshToken, _scopes, resource): Promise<OAuthTokens> {
      if (!refreshToken.startsWith(REFRESH_TOKEN_PREFIX) || refreshToken.length > 200)
        throw new InvalidGrantError(protocolText('oauth_refresh_invalid'));
      const hash = secretHash(refreshToken);
      const owner = await g.store.mcp.findMcpTokenGrant(hash);
      if (!owner || owner.clientId !== client.client_id)
        throw new InvalidGrantError(protocolText('oauth_refresh_invalid'));
      boundEndpoint(resource, owner);
      const used = await g.store.mcp.consumeMcpRefreshToken(hash, g.now());
      if (used.outcome === 'used') await revokeReplayed(used.grant, 'refresh_token');
      if (used.outcome !== 'ok') throw new InvalidGrantError(protocolText('oauth_refresh_invalid'));
      return issueTokens(g.store, used.grant, g.now(), accessSeconds, refreshSeconds);
    },

    async verifyAccessToken(token): Promise<AuthInfo> {
      const found = await g.store.mcp.findMcpAccessToken(secretHash(token));
      if (!found || found.expiresAt <= g.now()) throw new errors.InvalidTokenError(protocolText('unauthorized'));
      return {
        token,
        clientId: found.grant.clientId,
        scopes: [],
        expiresAt: Math.floor(found.expiresAt.getTime() / 1000),
        resource: new URL(resourceUrlOf(g.config.publicBaseUrl, found.grant.endpoints[0]!)),
      };
    },

    async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
      // RFC 7009: an unknown token, or one of another client, is answered 200 all the same.
      if (request.token.length > 200) return;
      const grant = await g.store.mcp.findMcpTokenGrant(secretHash(request.token));
      if (!grant || grant.clientId !== client.client_id) return;
      if (await g.store.mcp.revokeMcpGrant(grant.id, g.now())) {
        await g.state.refresh();
        await audit(
          grant.accountId,
          `client:${grant.clientId}`,
          'oauth.grant.revoke',
          grant.id,
          `reason=client_revoked client=${grant.clientName}`,
        );
      }
    },
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
    const m = /^\/\.well-known\/oauth-protected-resource\/([A-Za-z0-9_-]{1,100})\/mcp$/.exec(path);
    doc = m ? protectedResourceMetadata(context, m[1]!) : undefined;
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

function publicClient(clientId: string, name: string, redirectUris: readonly string[]): OAuthClientInformationFull {
  return {
    client_id: clientId,
    ...(name ? { client_name: name } : {}),
    redirect_uris: [...redirectUris],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

function hostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || url.protocol;
  } catch {
    return '?';
  }
}

// The provider behind the MCP SDK's OAuth handlers (the `OAuthServerProvider` interface) over the
// platform store: registered clients (stored ones and client ID metadata documents), the redirect to
// the portal's consent page, codes, access and refresh tokens (docs/decisions/mcp-authorization.md).
// authorization-server.ts mounts it on the SDK's express handlers and serves the metadata documents.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Response as ExpressResponse } from 'express';
import type { GatewayContext } from '../gateway-context.ts';
import { protocolText } from '../protocol-text.ts';
import type { McpGrant } from '../store/store.ts';
import { type ClientMetadataDocuments, isMetadataDocumentId } from './client-metadata.ts';
import {
  endpointOfResource,
  issueTokens,
  REFRESH_TOKEN_PREFIX,
  redirectUriAllowed,
  resourceUrlOf,
  secretHash,
  signConsentRequest,
} from './mcp-authorization.ts';
import { parseOAuthScope } from './token-scope.ts';

/**
 * The request being handled: its client address (for the audit entries of the SDK's callbacks), and the redirect URIs
 * of the client it names.
 */
interface RequestContext {
  readonly address: string;
  redirectUris?: readonly string[];
}
export const requestContext = new AsyncLocalStorage<RequestContext>();
export const requestAddress = () => requestContext.getStore()?.address ?? '';

const MAX_STATE_CHARS = 1024;

export type SdkErrors = typeof import('@modelcontextprotocol/sdk/server/auth/errors.js');

/** What the provider and the metadata documents read of the authorization server they serve. */
export interface ServerContext {
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

/** A grant seen replayed (code or refresh token): revoked with every token of it. */
async function revokeReplayed(
  { g, audit }: ServerContext,
  grant: McpGrant,
  what: 'code' | 'refresh_token',
): Promise<void> {
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

/** A token request naming a `resource` (RFC 8707) gets tokens only for an endpoint of its grant. */
function boundEndpoint(g: GatewayContext, errors: SdkErrors, resource: URL | undefined, grant: McpGrant): void {
  if (resource === undefined) return;
  const id = endpointOfResource(resource.href, g.config.publicBaseUrl, (x) => g.endpoints.has(x));
  if (!id || !grant.endpoints.includes(id))
    throw new errors.InvalidTargetError(protocolText('oauth_resource_not_granted'));
}

export function createProvider(context: ServerContext, errors: SdkErrors): OAuthServerProvider {
  const { g, issuer, audit, accessSeconds, refreshSeconds, consentSeconds } = context;
  const { InvalidGrantError, InvalidTargetError, InvalidRequestError } = errors;
  const clientsStore = createClientsStore(context, errors);

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
      const { connector } = g.endpoints.get(id)!;
      const toolsetIds = connector.descriptor.toolsets.map((t) => t.id);
      const scope = parseOAuthScope(params.scopes ?? [], connector.config.key, toolsetIds);
      if (scope !== null && 'error' in scope) {
        const unknown = (params.scopes ?? []).find((v) => v !== 'tools:read' && v !== 'tools:write') ?? '';
        throw new errors.InvalidScopeError(protocolText('oauth_scope_unknown', { scope: unknown.slice(0, 100) }));
      }
      const request = signConsentRequest(g.vault, {
        ...(scope ? { scope } : {}),
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
        await revokeReplayed(context, found.grant, 'code');
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
      boundEndpoint(g, errors, resource, found.grant);
      const used = await g.store.mcp.consumeMcpCode(hash, g.now());
      if (used.outcome === 'used') await revokeReplayed(context, used.grant, 'code');
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
      boundEndpoint(g, errors, resource, owner);
      const used = await g.store.mcp.consumeMcpRefreshToken(hash, g.now());
      if (used.outcome === 'used') await revokeReplayed(context, used.grant, 'refresh_token');
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

// OAuth connections, generic over every `oauth2` connector: the spec's `oauth` block (generated
// descriptor) says where the identity provider is, what to ask for and which granted scopes to
// accept; the deployment gives the client (config `oauth`). Every protocol step goes through
// oauth4webapi: PKCE, the authorize response check, the code exchange, the refresh grant and the
// token response checks. This module never logs a token, a code, a verifier or the client secret.
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { Logger } from 'pino';
import type { OAuthClientConfig } from '../config/config.ts';
import type { OAuthProvider } from '../handler-api/descriptor-types.ts';
import type { Connection, LockedConnectionWrite, Repositories } from '../store/store.ts';
import type { Vault } from '../secrets/vault.ts';
import { sha256Hex } from '../secrets/hash.ts';

/** What the vault holds for an `oauth2` connection (the handler sees it with `kind: 'oauth2'`). */
export interface OAuthGrant {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch milliseconds; absent when the provider said nothing about the lifetime. */
  readonly expiresAt?: number;
  /** The granted scopes, space-separated. */
  readonly scope?: string;
}

/** The grant refused at the identity provider: the user must connect again (DECISIONS §19). */
export const RECONNECT_ERRORS: ReadonlySet<string> = new Set([
  'invalid_grant',
  'interaction_required',
  'consent_required',
]);

/** The provider's endpoints, or the deployment's identity-provider base with the spec's paths. */
export function endpointsOf(
  provider: OAuthProvider,
  client: OAuthClientConfig | undefined,
): { authorizeUrl: string; tokenUrl: string } {
  if (client?.baseUrl)
    return { authorizeUrl: client.baseUrl + provider.authorizePath, tokenUrl: client.baseUrl + provider.tokenPath };
  return { authorizeUrl: provider.authorizeUrl, tokenUrl: provider.tokenUrl };
}

/** One OAuth client (provider + deployment registration) in oauth4webapi's terms. */
export class OAuthClient {
  readonly provider: OAuthProvider;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly #as: oauth.AuthorizationServer;
  readonly #client: oauth.Client;
  readonly #auth: oauth.ClientAuth;
  readonly #insecure: boolean;

  constructor(provider: OAuthProvider, config: OAuthClientConfig & { readonly clientId: string }) {
    this.provider = provider;
    const { authorizeUrl, tokenUrl } = endpointsOf(provider, config);
    this.authorizeUrl = authorizeUrl;
    this.tokenUrl = tokenUrl;
    this.#as = { issuer: new URL(authorizeUrl).origin, authorization_endpoint: authorizeUrl, token_endpoint: tokenUrl };
    this.#client = { client_id: config.clientId };
    const secret = config.clientSecret ?? '';
    this.#auth =
      provider.clientAuth === 'none' || !secret
        ? oauth.None()
        : provider.clientAuth === 'client_secret_basic'
          ? oauth.ClientSecretBasic(secret)
          : oauth.ClientSecretPost(secret);
    // Plain http only where the deployment points the identity provider at one (a sandbox).
    this.#insecure = tokenUrl.startsWith('http:');
  }

  /** The authorize redirect for a new flow: PKCE S256 and the state, plus the spec's extra parameters. */
  async authorizeRedirect(redirectUri: string): Promise<{ url: string; state: string; verifier: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(this.authorizeUrl);
    for (const [k, v] of Object.entries(this.provider.authorizeParams)) url.searchParams.set(k, v);
    url.searchParams.set('client_id', this.#client.client_id);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', this.provider.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { url: url.href, state, verifier };
  }

  #options(): oauth.TokenEndpointRequestOptions {
    return {
      signal: AbortSignal.timeout(this.provider.tokenTimeoutMs),
      [oauth.allowInsecureRequests]: this.#insecure,
      // No identity is asked for (no `openid`), so an id_token some providers add anyway is
      // dropped unread rather than validated against an issuer this client does not know.
      [oauth.customFetch]: withoutIdToken,
    };
  }

  /** The callback's code → tokens (oauth4webapi checks the state, the response and token type). */
  async exchange(
    callback: URLSearchParams,
    expectedState: string,
    redirectUri: string,
    verifier: string,
    now: Date,
  ): Promise<OAuthGrant> {
    const params = new URLSearchParams(callback);
    // RFC 9207 `iss`: one provider per connector, and its issuer is not configured here.
    params.delete('iss');
    const checked = oauth.validateAuthResponse(this.#as, this.#client, params, expectedState);
    const response = await oauth.authorizationCodeGrantRequest(
      this.#as,
      this.#client,
      this.#auth,
      checked,
      redirectUri,
      verifier,
      this.#options(),
    );
    return grantOf(await oauth.processAuthorizationCodeResponse(this.#as, this.#client, response), undefined, now);
  }

  /** A refresh grant; a response without a refresh token keeps the old one (Google), a new one rotates it. */
  async refresh(refreshToken: string, now: Date): Promise<OAuthGrant> {
    const response = await oauth.refreshTokenGrantRequest(
      this.#as,
      this.#client,
      this.#auth,
      refreshToken,
      this.#options(),
    );
    return grantOf(await oauth.processRefreshTokenResponse(this.#as, this.#client, response), refreshToken, now);
  }

  /** The granted scope set against the spec's rule; the reason when it fails (no scope value is secret). */
  checkScopes(
    grant: OAuthGrant,
  ): { ok: true } | { ok: false; reason: 'missing_required' | 'unexpected'; scopes: string[] } {
    const rule = this.provider.grantedScopes;
    // RFC 6749 §5.1: without `scope` the granted scopes are the requested ones.
    const granted = (grant.scope ?? this.provider.scopes.join(' ')).split(/\s+/).filter(Boolean);
    if (!granted.some((s) => rule.requireOneOf.includes(s)))
      return { ok: false, reason: 'missing_required', scopes: granted };
    if (rule.closed) {
      const extra = granted.filter((s) => !rule.requireOneOf.includes(s) && !rule.tolerated.includes(s));
      if (extra.length > 0) return { ok: false, reason: 'unexpected', scopes: extra };
    }
    return { ok: true };
  }
}

function grantOf(result: oauth.TokenEndpointResponse, previousRefreshToken: string | undefined, now: Date): OAuthGrant {
  const refreshToken = result.refresh_token ?? previousRefreshToken;
  return {
    accessToken: result.access_token,
    ...(refreshToken ? { refreshToken } : {}),
    ...(typeof result.expires_in === 'number' ? { expiresAt: now.getTime() + result.expires_in * 1000 } : {}),
    ...(typeof result.scope === 'string' ? { scope: result.scope } : {}),
  };
}

async function withoutIdToken(url: string, init: oauth.CustomFetchOptions<'POST', URLSearchParams>): Promise<Response> {
  const response = await fetch(url, init as RequestInit);
  if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  if (body && typeof body === 'object' && 'id_token' in body) delete (body as Record<string, unknown>).id_token;
  return new Response(JSON.stringify(body), {
    status: response.status,
    headers: { 'content-type': 'application/json' },
  });
}

/** Why a token endpoint call failed, for the log: an OAuth error code or a class, never a value. */
export function describeTokenFailure(error: unknown): { kind: string; status?: number } {
  if (error instanceof oauth.ResponseBodyError) return { kind: error.error, status: error.status };
  if (error instanceof oauth.AuthorizationResponseError) return { kind: error.error };
  if (error instanceof oauth.OperationProcessingError) {
    const cause = (error as { cause?: unknown }).cause;
    return { kind: error.code ?? 'processing', ...(cause instanceof Response ? { status: cause.status } : {}) };
  }
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout' };
  return { kind: name === 'TypeError' ? 'network' : (name ?? 'unknown') };
}

/** The outcome of making sure a call's OAuth credential is fresh. */
export type FreshGrant =
  | { readonly ok: true; readonly grant: OAuthGrant }
  /** The provider refused the grant (or it was refused before): answer the connector's reconnect text. */
  | { readonly ok: false; readonly reason: 'reconnect' }
  /** The token endpoint failed (client, network, 5xx, timeout) or the connection vanished: the generic text. */
  | { readonly ok: false; readonly reason: 'platform' };

export interface OAuthRefresherOptions {
  readonly store: Pick<Repositories, 'connections'>;
  readonly vault: Vault;
  readonly log: Logger;
  readonly now: () => Date;
  /** After a write: refresh the in-memory snapshot (and tell other replicas). */
  readonly onWrite: () => Promise<void>;
}

/**
 * Refreshes expiring access tokens ahead of the call: one refresh in flight per connection in this
 * process (coalesced) and across replicas (the connection row's lock; the second replica re-reads
 * the row under the lock and finds the token fresh). Rotated refresh tokens are stored atomically
 * with the access token. A refused grant marks the connection; no further refresh is tried.
 */
export class OAuthRefresher {
  readonly #o: OAuthRefresherOptions;
  readonly #inFlight = new Map<string, Promise<FreshGrant>>();

  constructor(options: OAuthRefresherOptions) {
    this.#o = options;
  }

  /** Whether a grant must be refreshed before a call (expiring within the spec's window). */
  static expiring(grant: OAuthGrant, provider: OAuthProvider, now: Date): boolean {
    return grant.expiresAt !== undefined && grant.expiresAt - now.getTime() <= provider.refreshAheadSeconds * 1000;
  }

  /** The grant to call with: `grant` itself unless it expires soon, else a refreshed one. */
  fresh(
    client: OAuthClient | undefined,
    connection: Connection,
    grant: OAuthGrant,
    logFields: Record<string, unknown>,
  ): Promise<FreshGrant> | FreshGrant {
    const now = this.#o.now();
    if (!client || !OAuthRefresher.expiring(grant, client.provider, now)) return { ok: true, grant };
    // Refused before: no further refresh until the user reconnects (DECISIONS §19).
    if (connection.reconnectRequiredAt) return { ok: false, reason: 'reconnect' };
    const key = `${connection.accountId}|${connection.instanceId}`;
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#refreshLocked(client, connection, logFields).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  async #refreshLocked(
    client: OAuthClient,
    connection: Connection,
    logFields: Record<string, unknown>,
  ): Promise<FreshGrant> {
    const { store, log } = this.#o;
    const { accountId, instanceId } = connection;
    let wrote = false;
    try {
      return await store.connections.withConnectionLock<FreshGrant>(accountId, instanceId, async (current) => {
        const decided = await this.#decide(client, connection, current, logFields);
        wrote = decided.write !== null;
        return decided;
      });
    } catch (error) {
      log.error(
        { ...logFields, err: { name: (error as Error)?.name, message: (error as Error)?.message } },
        'oauth refresh could not run',
      );
      return { ok: false, reason: 'platform' };
    } finally {
      if (wrote) await this.#o.onWrite().catch(() => {});
    }
  }

  /** Under the row lock: re-read, refresh only if still expiring, and say what to write. */
  async #decide(
    client: OAuthClient,
    connection: Connection,
    current: Connection | null,
    logFields: Record<string, unknown>,
  ): Promise<{ write: LockedConnectionWrite; value: FreshGrant }> {
    const { vault, log } = this.#o;
    const { accountId, instanceId } = connection;
    if (!current) return { write: null, value: { ok: false, reason: 'platform' } };
    if (current.reconnectRequiredAt) return { write: null, value: { ok: false, reason: 'reconnect' } };
    const stored = JSON.parse(vault.open(current.ciphertext, accountId, instanceId)) as OAuthGrant;
    const now = this.#o.now();
    // Refreshed meanwhile by another replica (or process): use what it stored.
    if (!OAuthRefresher.expiring(stored, client.provider, now))
      return { write: null, value: { ok: true, grant: stored } };
    if (!stored.refreshToken) {
      // Nothing to refresh with: usable until it expires, then the user must reconnect.
      if (stored.expiresAt !== undefined && stored.expiresAt > now.getTime())
        return { write: null, value: { ok: true, grant: stored } };
      return { write: { reconnectRequired: true }, value: { ok: false, reason: 'reconnect' } };
    }
    try {
      const refreshed = await client.refresh(stored.refreshToken, now);
      const grant: OAuthGrant =
        refreshed.scope === undefined && stored.scope ? { ...refreshed, scope: stored.scope } : refreshed;
      const sealed = vault.seal(JSON.stringify(grant), accountId, instanceId);
      log.info({ ...logFields, rotated: grant.refreshToken !== stored.refreshToken }, 'oauth access token refreshed');
      return { write: sealed, value: { ok: true, grant } };
    } catch (error) {
      const failure = describeTokenFailure(error);
      if (error instanceof oauth.ResponseBodyError && RECONNECT_ERRORS.has(error.error)) {
        log.info(
          { ...logFields, tokenEndpoint: failure },
          'oauth grant refused at refresh; the connection needs a reconnect',
        );
        return { write: { reconnectRequired: true }, value: { ok: false, reason: 'reconnect' } };
      }
      log.warn(
        { ...logFields, tokenEndpoint: failure },
        'oauth token endpoint failed at refresh (platform fault; the grant is kept)',
      );
      return { write: null, value: { ok: false, reason: 'platform' } };
    }
  }
}

/** A random browser binding for the state cookie, and its stored hash. */
export function newBrowserBinding(): { value: string; hash: string } {
  const value = randomBytes(24).toString('base64url');
  return { value, hash: sha256Hex(value) };
}

/**
 * Stores an `oauth2` grant for one endpoint instance, sealed by the vault like every credential,
 * replacing (and un-marking) any earlier one. The portal's callback and the demo tenant use it.
 */
export async function storeOAuthGrant(
  deps: { readonly store: Pick<Repositories, 'connections'>; readonly vault: Vault },
  target: { readonly accountId: string; readonly instanceId: string; readonly connectorKey: string },
  grant: OAuthGrant,
): Promise<void> {
  const sealed = deps.vault.seal(JSON.stringify(grant), target.accountId, target.instanceId);
  await deps.store.connections.putConnection({
    ...target,
    ciphertext: sealed.ciphertext,
    keyVersion: sealed.keyVersion,
  });
}

/** The end of a connect: what was stored, or why nothing was. */
export type ConnectOutcome =
  | { readonly ok: true; readonly grant: OAuthGrant }
  | { readonly ok: false; readonly reason: 'exchange_failed'; readonly failure: { kind: string; status?: number } }
  | { readonly ok: false; readonly reason: 'missing_required' | 'unexpected'; readonly scopes: readonly string[] }
  | { readonly ok: false; readonly reason: 'no_refresh_token' };

/**
 * Completes a connect from the authorize callback's parameters: exchanges the code (PKCE), checks
 * the granted scopes by the spec's rule and the refresh token, and stores the grant (replacing an
 * earlier one). The portal's callback calls it after checking the state; the demo tenant can call
 * it with a code it obtained from a sandbox identity provider (`client.authorizeRedirect` first).
 */
export async function completeOAuthConnect(
  deps: { readonly store: Pick<Repositories, 'connections'>; readonly vault: Vault },
  client: OAuthClient,
  target: { readonly accountId: string; readonly instanceId: string; readonly connectorKey: string },
  flow: {
    readonly callback: URLSearchParams;
    readonly state: string;
    readonly verifier: string;
    readonly redirectUri: string;
  },
  now: Date,
): Promise<ConnectOutcome> {
  let grant: OAuthGrant;
  try {
    grant = await client.exchange(flow.callback, flow.state, flow.redirectUri, flow.verifier, now);
  } catch (error) {
    return { ok: false, reason: 'exchange_failed', failure: describeTokenFailure(error) };
  }
  const scopes = client.checkScopes(grant);
  if (!scopes.ok) return { ok: false, reason: scopes.reason, scopes: scopes.scopes };
  if (client.provider.requireRefreshToken && !grant.refreshToken) return { ok: false, reason: 'no_refresh_token' };
  await storeOAuthGrant(deps, target, grant);
  return { ok: true, grant };
}

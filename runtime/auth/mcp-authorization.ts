// MCP authorization (docs/decisions/mcp-authorization.md): what the authorization server (runtime/auth/) and the
// consent page
// (runtime/portal/authorize-page.ts) share. Opaque random secrets (256 bits, prefixed by kind) of
// which the store keeps only SHA-256 hashes, like the pasted caller tokens (caller-tokens.ts); the signed
// consent request that carries a validated authorization request to the portal; the resource
// (RFC 8707) ↔ endpoint mapping; and the issue of a grant, its code and its tokens.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { McpGrant, Repositories, TokenScope } from '../store/store.ts';
import { tokenHash } from './caller-tokens.ts';
import type { Vault } from '../secrets/vault.ts';

export const ACCESS_TOKEN_PREFIX = 'cgwa_';
export const REFRESH_TOKEN_PREFIX = 'cgwr_';
export const CODE_PREFIX = 'cgwc_';

/** The store key of a code or token: its SHA-256 (the secret itself is never stored). */
export const secretHash = tokenHash;

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** The issuer identifier (RFC 8414): the public base URL without a trailing slash. */
export const issuerOf = (publicBaseUrl: string): string => publicBaseUrl.replace(/\/+$/, '');

/** The canonical URI of an endpoint instance: the resource its tokens are bound to. */
export const resourceUrlOf = (publicBaseUrl: string, instanceId: string): string =>
  `${issuerOf(publicBaseUrl)}/${instanceId}/mcp`;

/**
 * Where the protected-resource metadata (RFC 9728 §3.1) of an endpoint is: the well-known path before the endpoint's
 * path.
 */
export function resourceMetadataUrlOf(publicBaseUrl: string, instanceId: string): string {
  const base = new URL(issuerOf(publicBaseUrl));
  const path = base.pathname === '/' ? '' : base.pathname;
  return `${base.origin}/.well-known/oauth-protected-resource${path}/${instanceId}/mcp`;
}

/** The path of an endpoint between `/` and `/mcp`: its instance id, then selection segments. */
export const RESOURCE_PATH = /^([A-Za-z0-9_-]{1,100})(?:\/x\/[^/?#]{1,500})?(?:\/readonly)?$/;

/** The endpoint instance a `resource` parameter names, if it names one of `known` exactly. */
export function endpointOfResource(
  resource: string,
  publicBaseUrl: string,
  known: (instanceId: string) => boolean,
): string | undefined {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  if (url.hash || url.search) return undefined;
  const prefix = new URL(`${issuerOf(publicBaseUrl)}/`).href;
  const href = url.href.replace(/\/$/, '');
  if (!href.startsWith(prefix) || !href.endsWith('/mcp')) return undefined;
  // The endpoint itself, or one of its selection paths (`/<id>/x/<toolsets>`, `/readonly`): a
  // grant is for the instance, whichever selection the client connected with.
  const id = RESOURCE_PATH.exec(href.slice(prefix.length, -4))?.[1];
  return id !== undefined && known(id) ? id : undefined;
}

/**
 * Whether a redirect URI may be registered: https; http only on a loopback address (RFC 8252
 * §7.3); or an application's own scheme (RFC 8252 §7.1, e.g. `cursor://…`), never a scheme a
 * browser runs (javascript, data, …). No fragment, no credentials.
 */
export function redirectUriAllowed(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2000) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash || url.username || url.password) return false;
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https') return true;
  if (scheme === 'http')
    return url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  return (
    ![
      'javascript',
      'data',
      'file',
      'vbscript',
      'about',
      'blob',
      'filesystem',
      'ftp',
      'ws',
      'wss',
      'mailto',
      'tel',
    ].includes(scheme) && /^[a-z][a-z0-9+.-]*$/.test(scheme)
  );
}

/** The host a user is sent back to (shown on the consent page), or the scheme of an app's own URI. */
export function redirectHostOf(redirectUri: string): { host: string; local: boolean } {
  const url = new URL(redirectUri);
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    return { host: url.host, local };
  }
  return { host: `${url.protocol}//${url.host}`, local: true };
}

/** A validated authorization request on its way to the consent page (signed, short-lived). */
export interface ConsentRequest {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state?: string;
  /** Endpoint instance ids (the resources). */
  readonly endpoints: readonly string[];
  /** The narrowing the client asked for with its OAuth `scope` (token-scope.ts parseOAuthScope). */
  readonly scope?: TokenScope;
  /** Expiry, epoch seconds. */
  readonly exp: number;
}

const CONSENT_LABEL = 'mcp-consent:';

export function signConsentRequest(vault: Vault, request: ConsentRequest): string {
  const body = Buffer.from(JSON.stringify(request), 'utf8').toString('base64url');
  return `${body}.${vault.sign(`${CONSENT_LABEL}${body}`)}`;
}

export function verifyConsentRequest(vault: Vault, token: string | null, now: Date): ConsentRequest | undefined {
  if (!token || token.length > 8192) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(vault.sign(`${CONSENT_LABEL}${body}`));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let request: ConsentRequest;
  try {
    request = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ConsentRequest;
  } catch {
    return undefined;
  }
  return typeof request.exp === 'number' && request.exp * 1000 > now.getTime() ? request : undefined;
}

/** The user consented: a grant and its authorization code (answered in clear, stored as a hash). */
export async function approveConsent(
  store: Pick<Repositories, 'mcp'>,
  request: ConsentRequest,
  user: { readonly id: string; readonly accountId: string },
  now: Date,
  codeSeconds: number,
): Promise<{ code: string; grantId: string }> {
  const code = newSecret(CODE_PREFIX);
  const grantId = randomUUID();
  await store.mcp.createMcpGrant(
    {
      id: grantId,
      clientId: request.clientId,
      clientName: request.clientName,
      userId: user.id,
      accountId: user.accountId,
      endpoints: request.endpoints,
      scope: request.scope ?? null,
    },
    {
      codeHash: secretHash(code),
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      expiresAt: new Date(now.getTime() + codeSeconds * 1000),
    },
  );
  return { code, grantId };
}

export interface IssuedTokens {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
}

/** A new access token and refresh token for a grant (the refresh token replaces the one used, if any). */
export async function issueTokens(
  store: Pick<Repositories, 'mcp'>,
  grant: McpGrant,
  now: Date,
  accessSeconds: number,
  refreshSeconds: number,
): Promise<IssuedTokens> {
  const access = newSecret(ACCESS_TOKEN_PREFIX);
  const refresh = newSecret(REFRESH_TOKEN_PREFIX);
  await store.mcp.storeMcpTokens(grant.id, [
    { tokenHash: secretHash(access), kind: 'access', expiresAt: new Date(now.getTime() + accessSeconds * 1000) },
    { tokenHash: secretHash(refresh), kind: 'refresh', expiresAt: new Date(now.getTime() + refreshSeconds * 1000) },
  ]);
  return { access_token: access, token_type: 'Bearer', expires_in: accessSeconds, refresh_token: refresh };
}

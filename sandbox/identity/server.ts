// Sandbox identity provider: one HTTP server serving three OAuth 2.0 provider styles, each under
// its own path prefix (the real host's root maps to the prefix), built from the upstream docs:
//
//   entra   {url}/entra/organizations/oauth2/v2.0/authorize | …/token     (../shared/upstreams/erp.md)
//   google  {url}/google/o/oauth2/v2/auth | {url}/google/token             (../shared/upstreams/search.md)
//   visma   {url}/visma/connect/authorize | {url}/visma/connect/token      (../shared/upstreams/books.md)
//
// Authorize (GET) checks client_id and the exact redirect_uri (failures there are an HTML error
// page: nothing is redirected to an unregistered address), then response_type=code, known scopes,
// a non-empty state and PKCE (code_challenge with code_challenge_method=S256); those failures are
// redirected as `error`/`error_description`/`state`. A valid request shows an accessible consent
// page (label, input, buttons) or, with `autoApprove`, redirects at once with `code` and `state`.
//
// Token (POST, form-encoded): client authentication by client_secret_post or client_secret_basic
// (one at a time), `authorization_code` (single-use codes that expire, redirect_uri and the PKCE
// verifier checked) and `refresh_token` (Entra and Visma rotate: the used refresh token dies;
// Google keeps its refresh token and returns none on refresh; unused for 90 days (Entra) or 6
// months (Google) a refresh token expires). Error bodies are each style's. Entra's sign-in page
// refuses personal Microsoft accounts (outlook/hotmail/live/msn addresses).
//
// Access tokens are opaque, short-lived (configurable) and live in this process's memory:
// `verifyAccessToken(token)` lets another sandbox (the ERP's) check a bearer token.
//
// Time is the sandbox's own clock (`now` option, or `advanceClock`), so tests expire codes and
// tokens without waiting.
//
// Sandbox-only controls (no auth):
//   GET  /__sandbox/switches[?client=ID]   switches (global, or the overrides of one client)
//   POST /__sandbox/switches[?client=ID]   partial switches → the switches after the change
//   POST /__sandbox/clients                { style, clientId, clientSecret?, redirectUris, authMethods? }
//   POST /__sandbox/revoke                 { clientId?, subject?, accessTokens? } → { revoked }
//   POST /__sandbox/clock                  { advanceSeconds } → { now }
//   GET  /__sandbox/stats                  counters and the token-request log (no secrets)
//   POST /__sandbox/reset                  default switches, empty stats (clients and grants stay)
//
// Run as a script: `node sandbox/identity/server.ts` listens on 127.0.0.1:4110
// (IDENTITY_SANDBOX_PORT overrides) with a demo client per style and prints the endpoints.

import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeOnce, closeOnSignals, listen, PendingDelays, parseJsonLoose, readBody, sendText, switchError } from '../http-kit.ts';
import { ENTRA_TENANT_ID, IDENTITY_STYLES, STYLES } from './styles.ts';
import type { IdentityFailure, IdentityStyle, StyleDefinition } from './styles.ts';

export type ClientAuthMethod = 'client_secret_post' | 'client_secret_basic';

export interface ClientRegistration {
  readonly style: IdentityStyle;
  readonly clientId: string;
  /** null or absent: a public client (PKCE only, no secret). */
  readonly clientSecret?: string | null;
  /** Exact redirect URIs (compared as strings). */
  readonly redirectUris: readonly string[];
  /** Accepted client authentication methods; default both. */
  readonly authMethods?: readonly ClientAuthMethod[];
}

export type RefreshFailure = 'invalid_grant' | 'interaction_required' | 'consent_required';

export interface IdentitySwitches {
  /** Authorize redirects with a code at once instead of showing the consent page. */
  autoApprove: boolean;
  /** The account that approves when no login is typed (and with autoApprove); null = the style's demo user, or `login_hint`. */
  subject: string | null;
  /** Access-token lifetime (`expires_in`); null = the style's default (Entra 3600, Google 3599, Visma 3600). */
  accessTokenLifetimeSeconds: number | null;
  /** Token responses carry no `refresh_token` (the connect must fail). */
  omitRefreshToken: boolean;
  /** Scopes added to the granted `scope` (and to the token). */
  extraScopes: string[];
  /** Scopes removed from the granted `scope` (exact, or the part after the last `/`). */
  dropScopes: string[];
  /** Delay before every token-endpoint answer, in ms. */
  tokenDelayMs: number;
  /** The token endpoint answers this status (5xx) with the style's server-error body; null = off. */
  tokenServerError: number | null;
  /** The token endpoint answers `invalid_client` whatever the credentials. */
  invalidClient: boolean;
  /** Every refresh is refused with this error (Entra's codes; Google and Visma answer invalid_grant). */
  refreshError: RefreshFailure | null;
}

export interface TokenRequestRecord {
  readonly style: IdentityStyle;
  readonly grantType: string;
  readonly clientId: string | null;
  readonly clientAuth: 'basic' | 'post' | 'none';
  /** HTTP status answered. */
  readonly status: number;
  /** The `error` answered, if any. */
  readonly error: string | null;
}

export interface IdentityStats {
  authorizeRequests: number;
  consentPagesShown: number;
  approvals: number;
  denials: number;
  /** Token-endpoint requests (every grant type, every outcome). */
  tokenRequests: number;
  /** The last 200 token requests, oldest first; never a secret, code or token. */
  tokenLog: TokenRequestRecord[];
}

export interface IdentityProviderOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  clients?: readonly ClientRegistration[];
  /** Initial switches. */
  switches?: Partial<IdentitySwitches>;
  /** Clock in ms since the epoch; default Date.now. `advanceClock` adds to it. */
  now?: () => number;
}

export interface StyleEndpoints {
  /** What replaces the real host root (e.g. `https://login.microsoftonline.com`). */
  readonly base: string;
  readonly authorize: string;
  readonly token: string;
}

export interface IssuedTokens {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly expires_in: number;
  readonly scope: string;
  readonly token_type: 'Bearer';
}

export interface IdentityProvider {
  /** Origin, e.g. http://127.0.0.1:4110 */
  readonly url: string;
  readonly port: number;
  readonly endpoints: Readonly<Record<IdentityStyle, StyleEndpoints>>;
  readonly stats: IdentityStats;
  readonly switches: Readonly<IdentitySwitches>;
  registerClient(client: ClientRegistration): void;
  /** Sets global switches, or one client's overrides when `clientId` is given. */
  setSwitches(partial: Partial<IdentitySwitches>, clientId?: string): Readonly<IdentitySwitches>;
  /** Revokes the grants of a client and/or subject (refresh → invalid_grant); with accessTokens also their access tokens. Returns how many grants. */
  revoke(filter: { clientId?: string; subject?: string; accessTokens?: boolean }): number;
  advanceClock(seconds: number): void;
  now(): number;
  /**
   * A grant without the browser (for seeding a demo connection): what a code exchange for
   * `scope` by `subject` would return, switches included.
   */
  issueGrant(input: { clientId: string; scope: readonly string[]; subject?: string }): IssuedTokens;
  resetStats(): void;
  /** Default switches, no per-client overrides, empty stats. */
  reset(): void;
  close(): Promise<void>;
}

export interface AccessTokenCheck {
  /** Known, not expired, not revoked. */
  readonly valid: boolean;
  /** The granted scopes (as the token response listed them). */
  readonly scope: readonly string[];
  readonly subject: string | null;
  /** Known but past its lifetime. */
  readonly expired: boolean;
  readonly style: IdentityStyle | null;
  readonly clientId: string | null;
  /** Entra: the directory of the user; null otherwise. */
  readonly tenantId: string | null;
}

// --- process-wide access-token lookup (for other sandboxes) ---------------------------------------

interface AccessRecord {
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly subject: string;
  readonly scope: readonly string[];
  readonly expiresAt: number;
  readonly grantId: string;
  revoked: boolean;
}

interface Instance {
  readonly accessTokens: Map<string, AccessRecord>;
  now(): number;
}

const live = new Set<Instance>();

const UNKNOWN: AccessTokenCheck = { valid: false, scope: [], subject: null, expired: false, style: null, clientId: null, tenantId: null };

/** Checks a bearer token issued by any identity provider running in this process. */
export function verifyAccessToken(token: string): AccessTokenCheck {
  for (const instance of live) {
    const record = instance.accessTokens.get(token);
    if (record === undefined) continue;
    const expired = instance.now() >= record.expiresAt;
    return {
      valid: !expired && !record.revoked,
      scope: [...record.scope],
      subject: record.subject,
      expired,
      style: record.style,
      clientId: record.clientId,
      tenantId: record.style === 'entra' ? ENTRA_TENANT_ID : null,
    };
  }
  return UNKNOWN;
}

// --- switches ------------------------------------------------------------------------------------

function defaultSwitches(): IdentitySwitches {
  return {
    autoApprove: false,
    subject: null,
    accessTokenLifetimeSeconds: null,
    omitRefreshToken: false,
    extraScopes: [],
    dropScopes: [],
    tokenDelayMs: 0,
    tokenServerError: null,
    invalidClient: false,
    refreshError: null,
  };
}

const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0);
const isInt = (min: number, max: number) => (v: unknown) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

const SWITCH_CHECKS: { [K in keyof IdentitySwitches]: (value: unknown) => boolean } = {
  autoApprove: (v) => typeof v === 'boolean',
  subject: (v) => v === null || (typeof v === 'string' && v.trim() !== ''),
  accessTokenLifetimeSeconds: (v) => v === null || isInt(1, 86_400)(v),
  omitRefreshToken: (v) => typeof v === 'boolean',
  extraScopes: isStringList,
  dropScopes: isStringList,
  tokenDelayMs: isInt(0, 600_000),
  tokenServerError: (v) => v === null || isInt(500, 599)(v),
  invalidClient: (v) => typeof v === 'boolean',
  refreshError: (v) => v === null || v === 'invalid_grant' || v === 'interaction_required' || v === 'consent_required',
};

function registrationProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'expected an object';
  if (!IDENTITY_STYLES.includes(value.style as IdentityStyle)) return `style must be one of ${IDENTITY_STYLES.join(', ')}`;
  if (typeof value.clientId !== 'string' || value.clientId === '') return 'clientId must be a non-empty string';
  if (value.clientSecret !== undefined && value.clientSecret !== null && (typeof value.clientSecret !== 'string' || value.clientSecret === ''))
    return 'clientSecret must be a non-empty string or null';
  if (!isStringList(value.redirectUris) || (value.redirectUris as string[]).length === 0) return 'redirectUris must be a non-empty list of strings';
  if (value.authMethods !== undefined && !(Array.isArray(value.authMethods) && value.authMethods.every((m) => m === 'client_secret_post' || m === 'client_secret_basic'))) {
    return 'authMethods must list client_secret_post and/or client_secret_basic';
  }
  return null;
}

// --- helpers -------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function redirect(res: ServerResponse, status: 302 | 303, target: string): void {
  res.writeHead(status, { location: target, 'cache-control': 'no-store', 'content-length': 0 });
  res.end();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const token = (prefix: string): string => prefix + randomBytes(32).toString('base64url');
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const TOKEN_LOG_SIZE = 200;

/** Splits a client_secret_basic header (RFC 6749 §2.3.1: both parts form-urlencoded). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null | 'malformed' {
  if (header === undefined) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) return 'malformed';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

// --- state ---------------------------------------------------------------------------------------

interface ClientRecord {
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly secret: string | null;
  readonly redirectUris: readonly string[];
  readonly authMethods: readonly ClientAuthMethod[];
}

interface AuthorizeRequest {
  readonly client: ClientRecord;
  readonly redirectUri: string;
  readonly state: string;
  readonly scope: readonly string[];
  readonly challenge: string;
  readonly accessType: string | null;
  readonly promptConsent: boolean;
  readonly loginHint: string | null;
  readonly expiresAt: number;
}

interface CodeRecord {
  readonly request: AuthorizeRequest;
  readonly subject: string;
  readonly firstConsent: boolean;
  readonly expiresAt: number;
  used: boolean;
}

interface Grant {
  readonly id: string;
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly subject: string;
  readonly scope: readonly string[];
  revoked: boolean;
}

interface RefreshRecord {
  readonly grantId: string;
  used: boolean;
  /** Issued or last used (ms): the idle lifetime counts from here. */
  lastUsedAt: number;
}

/** Starts the identity provider on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startIdentityProvider(options: IdentityProviderOptions = {}): Promise<IdentityProvider> {
  const host = options.host ?? '127.0.0.1';
  const baseClock = options.now ?? Date.now;
  let offsetMs = 0;
  const now = (): number => baseClock() + offsetMs;

  const initial = options.switches ?? {};
  const problem = switchError(initial, SWITCH_CHECKS);
  if (problem !== undefined) throw new TypeError(`startIdentityProvider: ${problem}`);
  let switches: IdentitySwitches = { ...defaultSwitches(), ...initial };
  let clientSwitches = new Map<string, Partial<IdentitySwitches>>();
  const effective = (clientId: string | null): IdentitySwitches => ({ ...switches, ...(clientId === null ? {} : clientSwitches.get(clientId)) });

  const clients = new Map<string, ClientRecord>();
  const pending = new Map<string, AuthorizeRequest>();
  const codes = new Map<string, CodeRecord>();
  const grants = new Map<string, Grant>();
  const refreshTokens = new Map<string, RefreshRecord>();
  const accessTokens = new Map<string, AccessRecord>();
  const consents = new Set<string>();
  const stats: IdentityStats = { authorizeRequests: 0, consentPagesShown: 0, approvals: 0, denials: 0, tokenRequests: 0, tokenLog: [] };
  const delays = new PendingDelays();
  const instance: Instance = { accessTokens, now };

  function registerClient(client: ClientRegistration): void {
    const issue = registrationProblem(client);
    if (issue !== null) throw new TypeError(`registerClient: ${issue}`);
    clients.set(client.clientId, {
      style: client.style,
      clientId: client.clientId,
      secret: client.clientSecret ?? null,
      redirectUris: [...client.redirectUris],
      authMethods: [...(client.authMethods ?? ['client_secret_post', 'client_secret_basic'])],
    });
  }
  for (const client of options.clients ?? []) registerClient(client);

  function setSwitches(partial: Partial<IdentitySwitches>, clientId?: string): Readonly<IdentitySwitches> {
    const issue = switchError(partial, SWITCH_CHECKS);
    if (issue !== undefined) throw new TypeError(issue);
    if (clientId === undefined) {
      switches = { ...switches, ...partial };
      return { ...switches };
    }
    clientSwitches.set(clientId, { ...clientSwitches.get(clientId), ...partial });
    return effective(clientId);
  }

  function revoke(filter: { clientId?: string; subject?: string; accessTokens?: boolean }): number {
    let count = 0;
    for (const grant of grants.values()) {
      if (grant.revoked) continue;
      if (filter.clientId !== undefined && grant.clientId !== filter.clientId) continue;
      if (filter.subject !== undefined && grant.subject !== filter.subject) continue;
      grant.revoked = true;
      count++;
      consents.delete(`${grant.clientId}|${grant.subject}`);
      if (filter.accessTokens === true) for (const record of accessTokens.values()) if (record.grantId === grant.id) record.revoked = true;
    }
    return count;
  }

  function resetStats(): void {
    stats.authorizeRequests = 0;
    stats.consentPagesShown = 0;
    stats.approvals = 0;
    stats.denials = 0;
    stats.tokenRequests = 0;
    stats.tokenLog.length = 0;
  }

  /** Applies the scope switches to what the style grants. */
  function granted(style: StyleDefinition, requested: readonly string[], sw: IdentitySwitches): string[] {
    const dropped = style.grantedScope(requested).filter((s) => !sw.dropScopes.some((d) => s === d || s.slice(s.lastIndexOf('/') + 1) === d));
    return [...new Set([...dropped, ...sw.extraScopes])];
  }

  /** Issues an access token (and a refresh token when asked) for a grant; the success body. */
  function issue(style: StyleDefinition, grant: Grant, withRefresh: boolean, sw: IdentitySwitches): IssuedTokens & Record<string, unknown> {
    const expiresIn = sw.accessTokenLifetimeSeconds ?? style.accessTokenLifetimeSeconds;
    const accessToken = token(style.accessTokenPrefix);
    accessTokens.set(accessToken, { style: style.style, clientId: grant.clientId, subject: grant.subject, scope: grant.scope, expiresAt: now() + expiresIn * 1000, grantId: grant.id, revoked: false });
    const body: IssuedTokens & Record<string, unknown> = {
      token_type: 'Bearer',
      scope: grant.scope.join(' '),
      expires_in: expiresIn,
      ...style.extraSuccessFields(expiresIn),
      access_token: accessToken,
    };
    if (withRefresh && !sw.omitRefreshToken) {
      const refreshToken = token(style.refreshTokenPrefix);
      refreshTokens.set(refreshToken, { grantId: grant.id, used: false, lastUsedAt: now() });
      return { ...body, refresh_token: refreshToken };
    }
    return body;
  }

  function newGrant(style: StyleDefinition, clientId: string, subject: string, requested: readonly string[], sw: IdentitySwitches): Grant {
    const grant: Grant = { id: randomUUID(), style: style.style, clientId, subject, scope: granted(style, requested, sw), revoked: false };
    grants.set(grant.id, grant);
    return grant;
  }

  function issueGrant(input: { clientId: string; scope: readonly string[]; subject?: string }): IssuedTokens {
    const client = clients.get(input.clientId);
    if (client === undefined) throw new TypeError(`issueGrant: unknown client ${input.clientId}`);
    const style = STYLES[client.style];
    const sw = effective(client.clientId);
    const subject = input.subject ?? sw.subject ?? style.defaultSubject;
    const firstConsent = !consents.has(`${client.clientId}|${subject}`);
    consents.add(`${client.clientId}|${subject}`);
    const grant = newGrant(style, client.clientId, subject, input.scope, sw);
    return issue(style, grant, style.issuesRefreshToken(input.scope, { accessType: 'offline', firstConsent, promptConsent: true }), sw);
  }

  // --- authorize -----------------------------------------------------------------------------

  function errorPage(res: ServerResponse, style: StyleDefinition, error: string, detail: string): void {
    sendHtml(res, 400, page(`${style.title}: error`, `<h1>Sorry, there is a problem with this request</h1>\n<p role="alert"><strong>${escapeHtml(error)}</strong>: ${escapeHtml(detail)}</p>`));
  }

  function redirectTo(redirectUri: string, params: Record<string, string>): string {
    const target = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    return target.href;
  }

  function consentPage(res: ServerResponse, style: StyleDefinition, id: string, request: AuthorizeRequest, problem: string | null = null): void {
    stats.consentPagesShown++;
    const subject = request.loginHint ?? effective(request.client.clientId).subject ?? style.defaultSubject;
    const scopes = request.scope.map((s) => `<li>${escapeHtml(s)}</li>`).join('');
    sendHtml(
      res,
      200,
      page(
        style.title,
        `<h1>${escapeHtml(style.title)}</h1>
${problem === null ? '' : `<p role="alert">${escapeHtml(problem)}</p>\n`}<p>The application <strong>${escapeHtml(request.client.clientId)}</strong> asks for access to your account:</p>
<ul>${scopes}</ul>
<form method="post" action="${escapeHtml(style.prefix + style.consentPath)}">
<input type="hidden" name="request" value="${escapeHtml(id)}">
<p><label for="login">Account</label> <input id="login" name="login" type="text" autocomplete="username" value="${escapeHtml(subject)}" required></p>
<p><button type="submit" name="decision" value="approve">Accept</button> <button type="submit" name="decision" value="deny">Cancel</button></p>
</form>`,
      ),
    );
  }

  /** Approves a request: a single-use code, redirected with the state. */
  function approve(res: ServerResponse, status: 302 | 303, request: AuthorizeRequest, subject: string): void {
    stats.approvals++;
    const key = `${request.client.clientId}|${subject}`;
    const firstConsent = !consents.has(key);
    consents.add(key);
    const code = token('');
    codes.set(code, { request, subject, firstConsent, expiresAt: now() + STYLES[request.client.style].codeLifetimeSeconds * 1000, used: false });
    redirect(res, status, redirectTo(request.redirectUri, { code, state: request.state }));
  }

  function handleAuthorize(req: IncomingMessage, res: ServerResponse, style: StyleDefinition, query: URLSearchParams) {
    stats.authorizeRequests++;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      errorPage(res, style, 'invalid_request', 'The authorize endpoint takes GET.');
      return;
    }
    const single = (name: string): string | null => {
      const all = query.getAll(name);
      return all.length === 1 ? all[0]! : null;
    };
    const clientId = single('client_id');
    const client = clientId === null ? undefined : clients.get(clientId);
    if (client === undefined || client.style !== style.style) {
      errorPage(res, style, style.style === 'google' ? 'invalid_client' : 'unauthorized_client', `The OAuth client ${clientId === null ? '(missing)' : `'${clientId}'`} was not found.`);
      return;
    }
    const redirectUri = single('redirect_uri');
    if (redirectUri === null || !client.redirectUris.includes(redirectUri)) {
      errorPage(res, style, 'redirect_uri_mismatch', `The redirect URI ${redirectUri === null ? '(missing)' : `'${redirectUri}'`} does not match the redirect URIs configured for the application.`);
      return;
    }
    const state = single('state');
    const fail = (error: string, detail: string): void => redirect(res, 302, redirectTo(redirectUri, { ...style.authorizeError(error, detail), ...(state === null ? {} : { state }) }));

    const responseType = single('response_type');
    if (responseType === null) return fail('invalid_request', "The request must contain the parameter 'response_type'.");
    if (responseType !== 'code') return fail('unsupported_response_type', `response_type '${responseType}' is not supported; use 'code'.`);
    if (state === null || state === '') return fail('invalid_request', "The request must contain a non-empty parameter 'state'.");
    const responseMode = single('response_mode');
    if (responseMode !== null && responseMode !== 'query') return fail('invalid_request', `response_mode '${responseMode}' is not supported here; use 'query'.`);
    const scopeText = single('scope');
    if (scopeText === null || scopeText.trim() === '') return fail('invalid_scope', "The request must contain the parameter 'scope'.");
    const scope = scopeText.trim().split(/\s+/);
    const unknown = scope.filter((s) => !style.knownScope(s));
    if (unknown.length > 0) return fail('invalid_scope', `The scope '${unknown.join(' ')}' is not valid.`);
    if (style.style === 'entra' && !scope.some((s) => style.grantedScope([s]).length > 0)) return fail('invalid_scope', 'The request must contain a resource scope.');
    const challenge = single('code_challenge');
    if (challenge === null) return fail('invalid_request', "The request must contain the parameter 'code_challenge' (PKCE is required).");
    const method = single('code_challenge_method');
    if (method !== 'S256') return fail('invalid_request', `code_challenge_method must be 'S256', not '${method ?? 'plain (absent)'}'.`);
    if (!PKCE_CHALLENGE.test(challenge)) return fail('invalid_request', 'The code_challenge is not a base64url SHA-256 value.');
    const accessType = single('access_type');
    if (style.style === 'google' && accessType !== null && accessType !== 'online' && accessType !== 'offline') return fail('invalid_request', `Invalid access_type: ${accessType}`);
    const prompt = (single('prompt') ?? '').split(/\s+/).filter((p) => p !== '');
    const loginHint = single('login_hint');

    const request: AuthorizeRequest = {
      client,
      redirectUri,
      state,
      scope,
      challenge,
      accessType,
      promptConsent: prompt.includes('consent'),
      loginHint: loginHint === null || loginHint.trim() === '' ? null : loginHint.trim(),
      expiresAt: now() + style.codeLifetimeSeconds * 1000,
    };
    const sw = effective(client.clientId);
    const subject = request.loginHint ?? sw.subject ?? style.defaultSubject;
    if (prompt.includes('none')) {
      if (consents.has(`${client.clientId}|${subject}`)) return approve(res, 302, request, subject);
      return fail(style.style === 'google' ? 'consent_required' : style.style === 'entra' ? 'interaction_required' : 'login_required', 'The user must sign in and consent interactively.');
    }
    if (sw.autoApprove) return approve(res, 302, request, subject);
    const id = randomBytes(16).toString('base64url');
    pending.set(id, request);
    consentPage(res, style, id, request);
  }

  async function handleConsent(req: IncomingMessage, res: ServerResponse, style: StyleDefinition): Promise<void> {
    const { text } = await readBody(req);
    if (req.method !== 'POST') {
      errorPage(res, style, 'invalid_request', 'The consent form is posted.');
      return;
    }
    const form = new URLSearchParams(text);
    const id = form.get('request') ?? '';
    const request = pending.get(id);
    pending.delete(id);
    if (request === undefined || request.expiresAt <= now() || request.client.style !== style.style) {
      errorPage(res, style, 'invalid_request', 'This sign-in request is unknown, already answered or expired. Start again from the application.');
      return;
    }
    if (form.get('decision') !== 'approve') {
      stats.denials++;
      redirect(res, 303, redirectTo(request.redirectUri, { ...style.authorizeError('access_denied', 'The user declined to consent to access the app.'), state: request.state }));
      return;
    }
    const login = (form.get('login') ?? '').trim();
    const refusal = style.refusesAccount(login);
    if (refusal !== null) {
      // The sign-in page says why and stays on the same request.
      pending.set(id, request);
      consentPage(res, style, id, request, refusal);
      return;
    }
    approve(res, 303, request, login !== '' ? login : (request.loginHint ?? effective(request.client.clientId).subject ?? style.defaultSubject));
  }

  // --- token ---------------------------------------------------------------------------------

  async function handleToken(req: IncomingMessage, res: ServerResponse, style: StyleDefinition): Promise<void> {
    stats.tokenRequests++;
    const { text } = await readBody(req);
    const form = new URLSearchParams(text);
    const basic = basicCredentials(req.headers.authorization);
    const clientAuth: TokenRequestRecord['clientAuth'] = basic !== null && basic !== 'malformed' ? 'basic' : form.has('client_secret') ? 'post' : 'none';
    const claimedId = basic !== null && basic !== 'malformed' ? basic.id : form.get('client_id');
    const grantType = form.get('grant_type') ?? '';
    const log = (status: number, error: string | null): void => {
      stats.tokenLog.push({ style: style.style, grantType, clientId: claimedId, clientAuth, status, error });
      if (stats.tokenLog.length > TOKEN_LOG_SIZE) stats.tokenLog.splice(0, stats.tokenLog.length - TOKEN_LOG_SIZE);
    };
    const fail = (failure: IdentityFailure, detail = ''): void => {
      const { status, body } = style.tokenError(failure, detail);
      log(status, String(body.error));
      sendJson(res, status, body);
    };
    const ok = (body: unknown): void => {
      log(200, null);
      sendJson(res, 200, body);
    };

    let sw = effective(claimedId);
    if (sw.tokenDelayMs > 0 && !(await delays.delay(sw.tokenDelayMs, res))) return;
    if (sw.tokenServerError !== null) {
      const { body } = style.tokenError('server_error', '');
      log(sw.tokenServerError, String(body.error));
      sendJson(res, sw.tokenServerError, body);
      return;
    }
    if (req.method !== 'POST') return fail('bad_request', 'The token endpoint takes POST.');
    if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) return fail('bad_request', 'The request body must be application/x-www-form-urlencoded.');
    for (const name of new Set(form.keys())) if (form.getAll(name).length > 1) return fail('bad_request', `The parameter '${name}' is repeated.`);

    // Client authentication: exactly one method.
    if (basic === 'malformed') return fail('client_secret_wrong');
    if (basic !== null && form.has('client_secret')) return fail('client_auth_method', 'client_secret_basic and client_secret_post');
    if (basic !== null && form.has('client_id') && form.get('client_id') !== basic.id) return fail('client_auth_method', 'client_id differs from the Basic user');
    if (claimedId === null || claimedId === '') return fail('missing_parameter', 'client_id');
    const client = clients.get(claimedId);
    if (client === undefined || client.style !== style.style) return fail('client_unknown', claimedId);
    sw = effective(client.clientId);
    if (sw.invalidClient) return fail('client_secret_wrong');
    if (client.secret !== null) {
      const presented = basic !== null ? basic.secret : form.get('client_secret');
      const method: ClientAuthMethod = basic !== null ? 'client_secret_basic' : 'client_secret_post';
      if (presented === null) return fail('client_secret_missing');
      if (!client.authMethods.includes(method)) return fail('client_auth_method', `${method} is not allowed for this client`);
      if (!safeEqual(presented, client.secret)) return fail('client_secret_wrong');
    } else if (basic !== null || form.has('client_secret')) {
      return fail('client_secret_wrong');
    }

    if (grantType === '') return fail('missing_parameter', 'grant_type');
    if (grantType === 'authorization_code') {
      const code = form.get('code');
      if (code === null || code === '') return fail('missing_parameter', 'code');
      const record = codes.get(code);
      if (record === undefined || record.request.client.clientId !== client.clientId) return fail('code_unknown');
      if (record.used) return fail('code_reused');
      if (record.expiresAt <= now()) return fail('code_expired');
      const redirectUri = form.get('redirect_uri');
      if (redirectUri === null) return fail('missing_parameter', 'redirect_uri');
      if (redirectUri !== record.request.redirectUri) return fail('redirect_mismatch');
      const verifier = form.get('code_verifier');
      if (verifier === null || verifier === '') return fail('verifier_missing');
      const computed = createHash('sha256').update(verifier).digest('base64url');
      if (!PKCE_VERIFIER.test(verifier) || !safeEqual(computed, record.request.challenge)) return fail('verifier_mismatch');
      record.used = true;
      const grant = newGrant(style, client.clientId, record.subject, record.request.scope, sw);
      const withRefresh = style.issuesRefreshToken(record.request.scope, { accessType: record.request.accessType, firstConsent: record.firstConsent, promptConsent: record.request.promptConsent });
      return ok(issue(style, grant, withRefresh, sw));
    }
    if (grantType === 'refresh_token') {
      const presented = form.get('refresh_token');
      if (presented === null || presented === '') return fail('missing_parameter', 'refresh_token');
      const record = refreshTokens.get(presented);
      const grant = record === undefined ? undefined : grants.get(record.grantId);
      if (record === undefined || grant === undefined || grant.clientId !== client.clientId) return fail('refresh_unknown');
      if (grant.revoked) return fail('refresh_revoked');
      if (record.used) return fail('refresh_reused');
      if (style.refreshIdleDays !== null && now() - record.lastUsedAt >= style.refreshIdleDays * 86_400_000) return fail('refresh_expired');
      record.lastUsedAt = now();
      if (sw.refreshError !== null) return fail(sw.refreshError === 'invalid_grant' ? 'refresh_revoked' : sw.refreshError);
      const scopeText = form.get('scope');
      let scope = grant.scope;
      if (scopeText !== null && scopeText.trim() !== '') {
        const asked = scopeText.trim().split(/\s+/);
        const grantedAsked = style.grantedScope(asked);
        const outside = grantedAsked.filter((s) => !grant.scope.includes(s));
        if (outside.length > 0) return fail('invalid_scope', outside.join(' '));
        scope = grantedAsked.length > 0 ? grantedAsked : grant.scope;
      }
      const narrowed: Grant = scope === grant.scope ? grant : { ...grant, scope };
      if (style.refreshTokens === 'rotate') {
        record.used = true;
        return ok(issue(style, narrowed, true, sw));
      }
      return ok(issue(style, narrowed, false, sw));
    }
    return fail('unsupported_grant_type', grantType);
  }

  // --- controls ------------------------------------------------------------------------------

  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const { text } = await readBody(req);
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const body = parseJsonLoose(text);
    const clientId = url.searchParams.get('client') ?? undefined;
    if (path === '/__sandbox/switches' && method === 'GET') return sendJson(res, 200, effective(clientId ?? null));
    if (path === '/__sandbox/switches' && method === 'POST') {
      const issue = switchError(body, SWITCH_CHECKS);
      if (issue !== undefined) return sendJson(res, 400, { error: issue, switches: Object.keys(SWITCH_CHECKS) });
      return sendJson(res, 200, setSwitches(body as Partial<IdentitySwitches>, clientId));
    }
    if (path === '/__sandbox/clients' && method === 'POST') {
      const issue = registrationProblem(body);
      if (issue !== null) return sendJson(res, 400, { error: issue });
      registerClient(body as unknown as ClientRegistration);
      return sendJson(res, 200, { registered: (body as { clientId: string }).clientId });
    }
    if (path === '/__sandbox/revoke' && method === 'POST') {
      if (!isPlainObject(body)) return sendJson(res, 400, { error: 'expected { clientId?, subject?, accessTokens? }' });
      const filter = {
        clientId: typeof body.clientId === 'string' ? body.clientId : undefined,
        subject: typeof body.subject === 'string' ? body.subject : undefined,
        accessTokens: body.accessTokens === true,
      };
      return sendJson(res, 200, { revoked: revoke(filter) });
    }
    if (path === '/__sandbox/clock' && method === 'POST') {
      if (!isPlainObject(body) || !isInt(0, 10 * 365 * 86_400)(body.advanceSeconds)) return sendJson(res, 400, { error: 'expected { advanceSeconds: non-negative integer }' });
      offsetMs += (body.advanceSeconds as number) * 1000;
      return sendJson(res, 200, { now: new Date(now()).toISOString() });
    }
    if (path === '/__sandbox/stats' && method === 'GET') return sendJson(res, 200, stats);
    if (path === '/__sandbox/reset' && method === 'POST') {
      switches = defaultSwitches();
      clientSwitches = new Map();
      resetStats();
      return sendJson(res, 200, switches);
    }
    sendJson(res, 404, {
      error: `no sandbox control at ${method} ${path}`,
      controls: ['GET|POST /__sandbox/switches[?client=ID]', 'POST /__sandbox/clients', 'POST /__sandbox/revoke', 'POST /__sandbox/clock', 'GET /__sandbox/stats', 'POST /__sandbox/reset'],
    });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const fail = (): void => {
      if (!res.headersSent) sendJson(res, 500, { error: 'sandbox error' });
      else res.destroy();
    };
    if (url.pathname.startsWith('/__sandbox/')) {
      handleControl(req, res, url).catch(fail);
      return;
    }
    for (const style of Object.values(STYLES)) {
      if (url.pathname === style.prefix + style.authorizePath) {
        try {
          handleAuthorize(req, res, style, url.searchParams);
        } catch {
          fail();
        }
        return;
      }
      if (url.pathname === style.prefix + style.consentPath) {
        handleConsent(req, res, style).catch(fail);
        return;
      }
      if (url.pathname === style.prefix + style.tokenPath) {
        handleToken(req, res, style).catch(fail);
        return;
      }
    }
    sendText(res, 404, 'Not Found');
  });

  const listening = await listen(server, options.port ?? 0, host);
  const { origin } = listening;
  const endpoints = Object.fromEntries(
    IDENTITY_STYLES.map((s) => {
      const style = STYLES[s];
      return [s, { base: origin + style.prefix, authorize: origin + style.prefix + style.authorizePath, token: origin + style.prefix + style.tokenPath }];
    }),
  ) as Record<IdentityStyle, StyleEndpoints>;
  live.add(instance);
  const closeServer = closeOnce(server, delays);

  return {
    url: origin,
    port: listening.port,
    endpoints,
    stats,
    get switches() {
      return { ...switches };
    },
    registerClient,
    setSwitches,
    revoke,
    advanceClock(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0) throw new TypeError('advanceClock: seconds must be a non-negative number');
      offsetMs += seconds * 1000;
    },
    now,
    issueGrant,
    resetStats,
    reset() {
      switches = defaultSwitches();
      clientSwitches = new Map();
      resetStats();
    },
    close() {
      live.delete(instance);
      return closeServer();
    },
  };
}

/** Demo clients, one per style, for `node sandbox/identity/server.ts` and the start banner. */
export function demoClients(redirectUri: string): ClientRegistration[] {
  return [
    { style: 'entra', clientId: 'demo-entra-client', clientSecret: 'demo-entra-secret', redirectUris: [redirectUri] },
    { style: 'google', clientId: 'demo-google-client.apps.googleusercontent.com', clientSecret: 'demo-google-secret', redirectUris: [redirectUri] },
    { style: 'visma', clientId: 'isv_demo', clientSecret: 'demo-visma-secret', redirectUris: [redirectUri] },
  ];
}

if (import.meta.main) {
  const port = Number(process.env.IDENTITY_SANDBOX_PORT ?? 4110);
  const redirectUri = process.env.IDENTITY_SANDBOX_REDIRECT_URI ?? 'http://127.0.0.1:3000/oauth/callback';
  const idp = await startIdentityProvider({ port, clients: demoClients(redirectUri) });
  process.stdout.write(`${idp.url}\n`);
  for (const style of IDENTITY_STYLES) process.stdout.write(`  ${style.padEnd(6)} authorize ${idp.endpoints[style].authorize}\n         token     ${idp.endpoints[style].token}\n`);
  process.stdout.write(`Demo clients redirect to ${redirectUri} (IDENTITY_SANDBOX_REDIRECT_URI overrides).\n`);
  closeOnSignals(() => idp.close());
}

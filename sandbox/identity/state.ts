// The identity provider's state (clients, pending sign-ins, codes, grants, tokens, switches,
// stats) and the grant operations on it; the process-wide access-token lookup other sandboxes use.
import { randomBytes, randomUUID } from 'node:crypto';
import type { PendingDelays } from '../http-kit.ts';
import { switchError } from '../http-kit.ts';
import { ENTRA_TENANT_ID, STYLES } from './styles.ts';
import type { IdentityStyle, StyleDefinition } from './styles.ts';
import { registrationProblem, SWITCH_CHECKS } from './switches.ts';
import type {
  AccessTokenCheck,
  ClientAuthMethod,
  ClientRegistration,
  IdentityStats,
  IdentitySwitches,
  IssuedTokens,
} from './types.ts';

export interface AccessRecord {
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly subject: string;
  readonly scope: readonly string[];
  readonly expiresAt: number;
  readonly grantId: string;
  revoked: boolean;
}

export interface Instance {
  readonly accessTokens: Map<string, AccessRecord>;
  now(): number;
}

export const live = new Set<Instance>();

const UNKNOWN: AccessTokenCheck = {
  valid: false,
  scope: [],
  subject: null,
  expired: false,
  style: null,
  clientId: null,
  tenantId: null,
};

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

export const token = (prefix: string): string => prefix + randomBytes(32).toString('base64url');
export const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
export const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
export const TOKEN_LOG_SIZE = 200;

export interface ClientRecord {
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly secret: string | null;
  readonly redirectUris: readonly string[];
  readonly authMethods: readonly ClientAuthMethod[];
}

export interface AuthorizeRequest {
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

export interface CodeRecord {
  readonly request: AuthorizeRequest;
  readonly subject: string;
  readonly firstConsent: boolean;
  readonly expiresAt: number;
  used: boolean;
}

export interface Grant {
  readonly id: string;
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly subject: string;
  readonly scope: readonly string[];
  revoked: boolean;
}

export interface RefreshRecord {
  readonly grantId: string;
  used: boolean;
  /** Issued or last used (ms): the idle lifetime counts from here. */
  lastUsedAt: number;
}

/** What one running identity provider keeps; the handlers read and change it. */
export interface IdentityState {
  now(): number;
  /** Added to the base clock (`advanceClock`, `POST /__sandbox/clock`). */
  offsetMs: number;
  switches: IdentitySwitches;
  clientSwitches: Map<string, Partial<IdentitySwitches>>;
  readonly clients: Map<string, ClientRecord>;
  readonly pending: Map<string, AuthorizeRequest>;
  readonly codes: Map<string, CodeRecord>;
  readonly grants: Map<string, Grant>;
  readonly refreshTokens: Map<string, RefreshRecord>;
  readonly accessTokens: Map<string, AccessRecord>;
  readonly consents: Set<string>;
  readonly stats: IdentityStats;
  readonly delays: PendingDelays;
}

/** The global switches with one client's overrides. */
export function effective(s: IdentityState, clientId: string | null): IdentitySwitches {
  return { ...s.switches, ...(clientId === null ? {} : s.clientSwitches.get(clientId)) };
}

export function registerClient(s: IdentityState, client: ClientRegistration): void {
  const issue = registrationProblem(client);
  if (issue !== null) throw new TypeError(`registerClient: ${issue}`);
  s.clients.set(client.clientId, {
    style: client.style,
    clientId: client.clientId,
    secret: client.clientSecret ?? null,
    redirectUris: [...client.redirectUris],
    authMethods: [...(client.authMethods ?? ['client_secret_post', 'client_secret_basic'])],
  });
}

export function setSwitches(
  s: IdentityState,
  partial: Partial<IdentitySwitches>,
  clientId?: string,
): Readonly<IdentitySwitches> {
  const issue = switchError(partial, SWITCH_CHECKS);
  if (issue !== undefined) throw new TypeError(issue);
  if (clientId === undefined) {
    s.switches = { ...s.switches, ...partial };
    return { ...s.switches };
  }
  s.clientSwitches.set(clientId, { ...s.clientSwitches.get(clientId), ...partial });
  return effective(s, clientId);
}

export function revoke(
  s: IdentityState,
  filter: { clientId?: string; subject?: string; accessTokens?: boolean },
): number {
  let count = 0;
  for (const grant of s.grants.values()) {
    if (grant.revoked) continue;
    if (filter.clientId !== undefined && grant.clientId !== filter.clientId) continue;
    if (filter.subject !== undefined && grant.subject !== filter.subject) continue;
    grant.revoked = true;
    count++;
    s.consents.delete(`${grant.clientId}|${grant.subject}`);
    if (filter.accessTokens === true)
      for (const record of s.accessTokens.values()) if (record.grantId === grant.id) record.revoked = true;
  }
  return count;
}

export function resetStats(s: IdentityState): void {
  s.stats.authorizeRequests = 0;
  s.stats.consentPagesShown = 0;
  s.stats.approvals = 0;
  s.stats.denials = 0;
  s.stats.tokenRequests = 0;
  s.stats.tokenLog.length = 0;
}

/** Applies the scope switches to what the style grants. */
export function granted(style: StyleDefinition, requested: readonly string[], sw: IdentitySwitches): string[] {
  const dropped = style
    .grantedScope(requested)
    .filter((s) => !sw.dropScopes.some((d) => s === d || s.slice(s.lastIndexOf('/') + 1) === d));
  return [...new Set([...dropped, ...sw.extraScopes])];
}

/** Issues an access token (and a refresh token when asked) for a grant; the success body. */
export function issue(
  s: IdentityState,
  style: StyleDefinition,
  grant: Grant,
  withRefresh: boolean,
  sw: IdentitySwitches,
): IssuedTokens & Record<string, unknown> {
  const expiresIn = sw.accessTokenLifetimeSeconds ?? style.accessTokenLifetimeSeconds;
  const accessToken = token(style.accessTokenPrefix);
  s.accessTokens.set(accessToken, {
    style: style.style,
    clientId: grant.clientId,
    subject: grant.subject,
    scope: grant.scope,
    expiresAt: s.now() + expiresIn * 1000,
    grantId: grant.id,
    revoked: false,
  });
  const body: IssuedTokens & Record<string, unknown> = {
    token_type: 'Bearer',
    scope: grant.scope.join(' '),
    expires_in: expiresIn,
    ...style.extraSuccessFields(expiresIn),
    access_token: accessToken,
  };
  if (withRefresh && !sw.omitRefreshToken) {
    const refreshToken = token(style.refreshTokenPrefix);
    s.refreshTokens.set(refreshToken, { grantId: grant.id, used: false, lastUsedAt: s.now() });
    return { ...body, refresh_token: refreshToken };
  }
  return body;
}

export function newGrant(
  s: IdentityState,
  style: StyleDefinition,
  clientId: string,
  subject: string,
  requested: readonly string[],
  sw: IdentitySwitches,
): Grant {
  const grant: Grant = {
    id: randomUUID(),
    style: style.style,
    clientId,
    subject,
    scope: granted(style, requested, sw),
    revoked: false,
  };
  s.grants.set(grant.id, grant);
  return grant;
}

export function issueGrant(
  s: IdentityState,
  input: { clientId: string; scope: readonly string[]; subject?: string },
): IssuedTokens {
  const client = s.clients.get(input.clientId);
  if (client === undefined) throw new TypeError(`issueGrant: unknown client ${input.clientId}`);
  const style = STYLES[client.style];
  const sw = effective(s, client.clientId);
  const subject = input.subject ?? sw.subject ?? style.defaultSubject;
  const firstConsent = !s.consents.has(`${client.clientId}|${subject}`);
  s.consents.add(`${client.clientId}|${subject}`);
  const grant = newGrant(s, style, client.clientId, subject, input.scope, sw);
  return issue(
    s,
    style,
    grant,
    style.issuesRefreshToken(input.scope, { accessType: 'offline', firstConsent, promptConsent: true }),
    sw,
  );
}

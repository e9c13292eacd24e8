// The identity provider's public types: what a caller configures, reads and gets back.
import type { IdentityStyle } from './styles.ts';

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
  /**
   * The account that approves when no login is typed (and with autoApprove); null = the style's demo user, or
   * `login_hint`.
   */
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
  /**
   * Revokes the grants of a client and/or subject (refresh → invalid_grant); with accessTokens also their access
   * tokens. Returns how many grants.
   */
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

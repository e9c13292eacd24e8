// The three provider styles the sandbox identity provider serves, each from its upstream doc:
//   entra  ../shared/upstreams/erp.md    "OAuth (Entra v2)"
//   google ../shared/upstreams/search.md "OAuth"
//   visma  ../shared/upstreams/books.md  "Tokens: Visma Connect authorization code + PKCE"
// A style is its paths, its known scopes, how it grants scopes and refresh tokens, and the exact
// shape of its error bodies. Everything else (codes, PKCE, rotation, switches) is shared.

import { randomUUID } from 'node:crypto';

export const IDENTITY_STYLES = ['entra', 'google', 'visma'] as const;
export type IdentityStyle = (typeof IDENTITY_STYLES)[number];

/** Entra's resource for Business Central: bare scopes are granted qualified with it. */
export const ENTRA_BC_RESOURCE = 'https://api.businesscentral.dynamics.com/';
/** The one directory (tenant) the sandbox's organisations endpoint signs users into. */
export const ENTRA_TENANT_ID = '6f1c2a5e-3b7d-4e0a-9c41-2d8f5b7a9e13';
const OIDC_SCOPES = ['openid', 'profile', 'email'];

/** Why a token or authorize request fails, independent of the style's wording. */
export type IdentityFailure =
  | 'code_unknown'
  | 'code_reused'
  | 'code_expired'
  | 'verifier_missing'
  | 'verifier_mismatch'
  | 'redirect_mismatch'
  | 'refresh_unknown'
  | 'refresh_reused'
  | 'refresh_revoked'
  | 'refresh_expired'
  | 'client_unknown'
  | 'client_secret_wrong'
  | 'client_secret_missing'
  | 'client_auth_method'
  | 'missing_parameter'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'interaction_required'
  | 'consent_required'
  | 'server_error'
  | 'bad_request';

export interface StyleError {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface StyleDefinition {
  readonly style: IdentityStyle;
  readonly title: string;
  /** Where the style is mounted on the sandbox server; the real host's root maps to it. */
  readonly prefix: string;
  readonly authorizePath: string;
  readonly tokenPath: string;
  readonly consentPath: string;
  readonly accessTokenLifetimeSeconds: number;
  readonly codeLifetimeSeconds: number;
  /** rotate: every refresh returns a new refresh token and the used one dies; keep: no new one, the old one stays. */
  readonly refreshTokens: 'rotate' | 'keep';
  /** A refresh token dies after this long unused (Entra 90 days, Google 6 months); null: the doc names none. */
  readonly refreshIdleDays: number | null;
  /** Accounts this style refuses to sign in (Entra's organisations endpoint: personal Microsoft accounts). */
  refusesAccount(login: string): string | null;
  readonly defaultSubject: string;
  /** Whether the scope may be requested (the sandbox knows the real API's scope names). */
  knownScope(scope: string): boolean;
  /** The `scope` the token response reports for the requested scopes (before switches). */
  grantedScope(requested: readonly string[]): string[];
  /** Whether a refresh token comes with a code exchange (Google also needs the first consent or prompt=consent). */
  issuesRefreshToken(
    requested: readonly string[],
    authorize: { accessType: string | null; firstConsent: boolean; promptConsent: boolean },
  ): boolean;
  tokenError(failure: IdentityFailure, detail: string): StyleError;
  /** error + error_description appended to redirect_uri for an authorize failure. */
  authorizeError(error: string, detail: string): Record<string, string>;
  readonly accessTokenPrefix: string;
  readonly refreshTokenPrefix: string;
  /** Extra fields of a success body (Entra's ext_expires_in). */
  extraSuccessFields(expiresIn: number): Record<string, unknown>;
}

// --- Entra v2 ------------------------------------------------------------------------------------

const ENTRA_API_SCOPES = ['Financials.ReadWrite.All', 'user_impersonation'];

const ENTRA: Record<IdentityFailure, readonly [error: string, code: number, text: string, status?: number]> = {
  code_unknown: ['invalid_grant', 9002313, 'Invalid request. Request is malformed or invalid.'],
  code_reused: [
    'invalid_grant',
    54005,
    'OAuth2 Authorization code was already redeemed, please retry with ' +
      'a new valid code or use an existing refresh token.',
  ],
  code_expired: [
    'invalid_grant',
    70008,
    'The provided authorization code or refresh token has expired due to inactivity. ' +
      'Send a new interactive authorization request for this user and resource.',
  ],
  verifier_missing: [
    'invalid_request',
    900144,
    "The request body must contain the following parameter: 'code_verifier'.",
  ],
  verifier_mismatch: [
    'invalid_grant',
    501481,
    'The Code_Verifier does not match the code_challenge supplied in the authorization request.',
  ],
  redirect_mismatch: [
    'invalid_grant',
    500112,
    'The reply address does not match the reply address provided when requesting Authorization code.',
  ],
  refresh_unknown: ['invalid_grant', 9002313, 'Invalid request. Request is malformed or invalid.'],
  refresh_reused: ['invalid_grant', 70000, 'Provided grant is invalid or malformed.'],
  refresh_revoked: [
    'invalid_grant',
    50173,
    'The provided grant has expired due to it being revoked, a fresh auth token ' +
      'is needed. The user might have changed or reset their password.',
  ],
  refresh_expired: ['invalid_grant', 700082, 'The refresh token has expired due to inactivity.'],
  client_unknown: [
    'unauthorized_client',
    700016,
    "Application with identifier '{detail}' was not found in the directory.",
  ],
  client_secret_wrong: [
    'invalid_client',
    7000215,
    'Invalid client secret provided. Ensure the secret being sent in the ' +
      'request is the client secret value, not the client secret ID.',
    401,
  ],
  client_secret_missing: [
    'invalid_client',
    7000218,
    "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
    401,
  ],
  client_auth_method: ['invalid_request', 90023, 'Only one client authentication method may be used: {detail}.'],
  missing_parameter: ['invalid_request', 900144, "The request body must contain the following parameter: '{detail}'."],
  unsupported_grant_type: ['unsupported_grant_type', 70003, "The app requested an unsupported grant type '{detail}'."],
  invalid_scope: [
    'invalid_scope',
    70011,
    "The provided value for the input parameter 'scope' is not valid. The scope {detail} is not valid.",
  ],
  interaction_required: [
    'interaction_required',
    50076,
    'Due to a configuration change made by your administrator, or because you moved to a new ' +
      'location, you must use multi-factor authentication to access the resource.',
  ],
  consent_required: [
    'consent_required',
    65001,
    'The user or administrator has not consented to use the application. Send an ' +
      'interactive authorization request for this user and resource.',
  ],
  server_error: ['temporarily_unavailable', 90033, 'A transient error has occurred. Please try again.'],
  bad_request: ['invalid_request', 90014, '{detail}'],
};

function entraQualified(scope: string): string {
  return ENTRA_API_SCOPES.includes(scope) ? ENTRA_BC_RESOURCE + scope : scope;
}

const entra: StyleDefinition = {
  style: 'entra',
  title: 'Sign in to your account',
  prefix: '/entra',
  authorizePath: '/organizations/oauth2/v2.0/authorize',
  tokenPath: '/organizations/oauth2/v2.0/token',
  consentPath: '/organizations/oauth2/v2.0/consent',
  accessTokenLifetimeSeconds: 3600,
  codeLifetimeSeconds: 600,
  refreshTokens: 'rotate',
  refreshIdleDays: 90,
  // "work or school accounts only" (erp.md): the organisations endpoint refuses personal accounts.
  refusesAccount: (login) =>
    /@(outlook|hotmail|live|msn)\.[a-z.]+$/i.test(login)
      ? "You can't sign in here with a personal account. Use your work or school account instead."
      : null,
  defaultSubject: 'demo@contoso.onmicrosoft.com',
  knownScope: (scope) =>
    ['offline_access', ...OIDC_SCOPES].includes(scope) ||
    ENTRA_API_SCOPES.includes(scope.startsWith(ENTRA_BC_RESOURCE) ? scope.slice(ENTRA_BC_RESOURCE.length) : scope),
  // As the v2 auth-code doc's sample: the token's scope lists the resource's permissions, qualified;
  // `offline_access` and the OpenID scopes are not echoed.
  grantedScope: (requested) => [
    ...new Set(requested.filter((s) => s !== 'offline_access' && !OIDC_SCOPES.includes(s)).map(entraQualified)),
  ],
  issuesRefreshToken: (requested) => requested.includes('offline_access'),
  tokenError(failure, detail) {
    const [error, code, text, status = 400] = ENTRA[failure];
    const traceId = randomUUID();
    const correlationId = randomUUID();
    const timestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      status,
      body: {
        error,
        error_description:
          `AADSTS${code}: ${text.replace('{detail}', detail)} Trace ID: ${traceId} ` +
          `Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
        error_codes: [code],
        timestamp: timestamp.replace('T', ' '),
        trace_id: traceId,
        correlation_id: correlationId,
        error_uri: `https://login.microsoftonline.com/error?code=${code}`,
      },
    };
  },
  authorizeError: (error, detail) => ({
    error,
    error_description: `AADSTS${ENTRA_AUTHORIZE_CODES[error] ?? 90014}: ${detail}`,
  }),
  accessTokenPrefix: 'eyJ0eXAiOiJKV1Qi.',
  refreshTokenPrefix: '1.AQ',
  extraSuccessFields: (expiresIn) => ({ ext_expires_in: expiresIn }),
};

const ENTRA_AUTHORIZE_CODES: Record<string, number> = {
  invalid_request: 900144,
  invalid_scope: 70011,
  unsupported_response_type: 70005,
  access_denied: 65004,
  interaction_required: 50058,
};

// --- Google --------------------------------------------------------------------------------------

const GOOGLE_API_SCOPES = [
  'https://www.googleapis.com/auth/webmasters.readonly',
  'https://www.googleapis.com/auth/webmasters',
];
const GOOGLE_OIDC_SCOPES = [
  ...OIDC_SCOPES,
  'https://www.googleapis.com/auth/userinfo.email',
  'https://www.googleapis.com/auth/userinfo.profile',
];

const GOOGLE: Record<IdentityFailure, readonly [error: string, description: string, status?: number]> = {
  code_unknown: ['invalid_grant', 'Malformed auth code.'],
  code_reused: ['invalid_grant', 'Bad Request'],
  code_expired: ['invalid_grant', 'Bad Request'],
  verifier_missing: ['invalid_grant', 'Missing code verifier.'],
  verifier_mismatch: ['invalid_grant', 'Invalid code verifier.'],
  redirect_mismatch: ['redirect_uri_mismatch', 'Bad Request'],
  refresh_unknown: ['invalid_grant', 'Bad Request'],
  refresh_reused: ['invalid_grant', 'Token has been expired or revoked.'],
  refresh_revoked: ['invalid_grant', 'Token has been expired or revoked.'],
  refresh_expired: ['invalid_grant', 'Token has been expired or revoked.'],
  client_unknown: ['invalid_client', 'The OAuth client was not found.', 401],
  client_secret_wrong: ['invalid_client', 'Unauthorized', 401],
  client_secret_missing: ['invalid_request', 'client_secret is missing.'],
  client_auth_method: ['invalid_request', 'Only one client authentication method may be used: {detail}.'],
  missing_parameter: ['invalid_request', 'Missing required parameter: {detail}'],
  unsupported_grant_type: ['unsupported_grant_type', 'Invalid grant_type: {detail}'],
  invalid_scope: ['invalid_scope', 'Some requested scopes were invalid. {invalid=[{detail}]}'],
  interaction_required: ['invalid_grant', 'Token has been expired or revoked.'],
  consent_required: ['invalid_grant', 'Token has been expired or revoked.'],
  server_error: ['internal_failure', 'Backend Error'],
  bad_request: ['invalid_request', '{detail}'],
};

const google: StyleDefinition = {
  style: 'google',
  title: 'Sign in with Google',
  prefix: '/google',
  authorizePath: '/o/oauth2/v2/auth',
  tokenPath: '/token',
  consentPath: '/o/oauth2/v2/consent',
  accessTokenLifetimeSeconds: 3599,
  codeLifetimeSeconds: 600,
  refreshTokens: 'keep',
  refreshIdleDays: 183,
  refusesAccount: () => null,
  defaultSubject: 'demo.sandbox@gmail.com',
  knownScope: (scope) => GOOGLE_API_SCOPES.includes(scope) || GOOGLE_OIDC_SCOPES.includes(scope),
  grantedScope: (requested) => [...new Set(requested)],
  // A refresh token only with access_type=offline, and then only on the user's first consent to the
  // client unless prompt=consent asked for consent again (search.md "OAuth").
  issuesRefreshToken: (_requested, { accessType, firstConsent, promptConsent }) =>
    accessType === 'offline' && (firstConsent || promptConsent),
  tokenError(failure, detail) {
    const [error, description, status = 400] = GOOGLE[failure];
    return { status, body: { error, error_description: description.replace('{detail}', detail) } };
  },
  authorizeError: (error, detail) => ({ error, error_description: detail }),
  accessTokenPrefix: 'ya29.',
  refreshTokenPrefix: '1//',
  extraSuccessFields: () => ({}),
};

// --- Visma Connect (an IdentityServer: bodies carry `error` only) --------------------------------

const VISMA_SCOPES = ['dineropublicapi:read', 'dineropublicapi:write', 'offline_access', ...OIDC_SCOPES];

const VISMA: Record<IdentityFailure, readonly [error: string, status?: number]> = {
  code_unknown: ['invalid_grant'],
  code_reused: ['invalid_grant'],
  code_expired: ['invalid_grant'],
  verifier_missing: ['invalid_grant'],
  verifier_mismatch: ['invalid_grant'],
  redirect_mismatch: ['invalid_grant'],
  refresh_unknown: ['invalid_grant'],
  refresh_reused: ['invalid_grant'],
  refresh_revoked: ['invalid_grant'],
  refresh_expired: ['invalid_grant'],
  client_unknown: ['invalid_client'],
  client_secret_wrong: ['invalid_client'],
  client_secret_missing: ['invalid_client'],
  client_auth_method: ['invalid_client'],
  missing_parameter: ['invalid_request'],
  unsupported_grant_type: ['unsupported_grant_type'],
  invalid_scope: ['invalid_scope'],
  interaction_required: ['invalid_grant'],
  consent_required: ['invalid_grant'],
  server_error: ['server_error', 500],
  bad_request: ['invalid_request'],
};

const visma: StyleDefinition = {
  style: 'visma',
  title: 'Visma Connect',
  prefix: '/visma',
  authorizePath: '/connect/authorize',
  tokenPath: '/connect/token',
  consentPath: '/connect/consent',
  accessTokenLifetimeSeconds: 3600,
  codeLifetimeSeconds: 300,
  refreshTokens: 'rotate',
  refreshIdleDays: null,
  refusesAccount: () => null,
  defaultSubject: 'demo@dinero.example',
  knownScope: (scope) => VISMA_SCOPES.includes(scope),
  grantedScope: (requested) => [...new Set(requested)],
  issuesRefreshToken: (requested) => requested.includes('offline_access'),
  tokenError(failure) {
    const [error, status = 400] = VISMA[failure];
    return { status, body: { error } };
  },
  authorizeError: (error, detail) => ({ error, error_description: detail }),
  accessTokenPrefix: 'eyJhbGciOiJSUzI1NiJ9.',
  refreshTokenPrefix: '',
  extraSuccessFields: () => ({}),
};

export const STYLES: Readonly<Record<IdentityStyle, StyleDefinition>> = { entra, google, visma };

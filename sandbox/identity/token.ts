// The token endpoint: client authentication (one method at a time), the authorization_code and
// refresh_token grants, each style's error bodies, and a log of every request without secrets.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http-kit.ts';
import { basicCredentials, safeEqual, sendJson } from './pages.ts';
import {
  type ClientRecord,
  effective,
  type Grant,
  type IdentityState,
  issue,
  newGrant,
  PKCE_VERIFIER,
  TOKEN_LOG_SIZE,
} from './state.ts';
import type { IdentityFailure, StyleDefinition } from './styles.ts';
import type { ClientAuthMethod, IdentitySwitches, IssuedTokens, TokenRequestRecord } from './types.ts';

/** A refusal in the style's token-error body, or the tokens of a successful grant. */
type Outcome =
  | { readonly failure: IdentityFailure; readonly detail?: string }
  | { readonly tokens: IssuedTokens & Record<string, unknown> };

const refuse = (failure: IdentityFailure, detail = ''): Outcome => ({ failure, detail });

/** Client authentication, exactly one method: the client, or why it is refused. */
function authenticateClient(
  s: IdentityState,
  style: StyleDefinition,
  form: URLSearchParams,
  basic: ReturnType<typeof basicCredentials>,
  claimedId: string | null,
): ClientRecord | Outcome {
  if (basic === 'malformed') return refuse('client_secret_wrong');
  if (basic !== null && form.has('client_secret'))
    return refuse('client_auth_method', 'client_secret_basic and client_secret_post');
  if (basic !== null && form.has('client_id') && form.get('client_id') !== basic.id)
    return refuse('client_auth_method', 'client_id differs from the Basic user');
  if (claimedId === null || claimedId === '') return refuse('missing_parameter', 'client_id');
  const client = s.clients.get(claimedId);
  if (client === undefined || client.style !== style.style) return refuse('client_unknown', claimedId);
  if (effective(s, client.clientId).invalidClient) return refuse('client_secret_wrong');
  if (client.secret !== null) {
    const presented = basic !== null ? basic.secret : form.get('client_secret');
    const method: ClientAuthMethod = basic !== null ? 'client_secret_basic' : 'client_secret_post';
    if (presented === null) return refuse('client_secret_missing');
    if (!client.authMethods.includes(method))
      return refuse('client_auth_method', `${method} is not allowed for this client`);
    if (!safeEqual(presented, client.secret)) return refuse('client_secret_wrong');
  } else if (basic !== null || form.has('client_secret')) {
    return refuse('client_secret_wrong');
  }
  return client;
}

type GrantHandler = (
  s: IdentityState,
  style: StyleDefinition,
  client: ClientRecord,
  form: URLSearchParams,
  sw: IdentitySwitches,
) => Outcome;

/** `authorization_code`: a single-use, unexpired code of this client, its redirect URI and PKCE verifier. */
const codeGrant: GrantHandler = (s, style, client, form, sw) => {
  const code = form.get('code');
  if (code === null || code === '') return refuse('missing_parameter', 'code');
  const record = s.codes.get(code);
  if (record === undefined || record.request.client.clientId !== client.clientId) return refuse('code_unknown');
  if (record.used) return refuse('code_reused');
  if (record.expiresAt <= s.now()) return refuse('code_expired');
  const redirectUri = form.get('redirect_uri');
  if (redirectUri === null) return refuse('missing_parameter', 'redirect_uri');
  if (redirectUri !== record.request.redirectUri) return refuse('redirect_mismatch');
  const verifier = form.get('code_verifier');
  if (verifier === null || verifier === '') return refuse('verifier_missing');
  const computed = createHash('sha256').update(verifier).digest('base64url');
  if (!PKCE_VERIFIER.test(verifier) || !safeEqual(computed, record.request.challenge))
    return refuse('verifier_mismatch');
  record.used = true;
  const grant = newGrant(s, style, client.clientId, record.subject, record.request.scope, sw);
  const withRefresh = style.issuesRefreshToken(record.request.scope, {
    accessType: record.request.accessType,
    firstConsent: record.firstConsent,
    promptConsent: record.request.promptConsent,
  });
  return { tokens: issue(s, style, grant, withRefresh, sw) };
};

/**
 * `refresh_token`: a live refresh token of this client (rotated where the style rotates), optionally a narrower scope.
 */
const refreshGrant: GrantHandler = (s, style, client, form, sw) => {
  const presented = form.get('refresh_token');
  if (presented === null || presented === '') return refuse('missing_parameter', 'refresh_token');
  const record = s.refreshTokens.get(presented);
  const grant = record === undefined ? undefined : s.grants.get(record.grantId);
  if (record === undefined || grant === undefined || grant.clientId !== client.clientId)
    return refuse('refresh_unknown');
  if (grant.revoked) return refuse('refresh_revoked');
  if (record.used) return refuse('refresh_reused');
  if (style.refreshIdleDays !== null && s.now() - record.lastUsedAt >= style.refreshIdleDays * 86_400_000)
    return refuse('refresh_expired');
  record.lastUsedAt = s.now();
  if (sw.refreshError !== null)
    return refuse(sw.refreshError === 'invalid_grant' ? 'refresh_revoked' : sw.refreshError);
  const scopeText = form.get('scope');
  let scope = grant.scope;
  if (scopeText !== null && scopeText.trim() !== '') {
    const asked = scopeText.trim().split(/\s+/);
    const grantedAsked = style.grantedScope(asked);
    const outside = grantedAsked.filter((x) => !grant.scope.includes(x));
    if (outside.length > 0) return refuse('invalid_scope', outside.join(' '));
    scope = grantedAsked.length > 0 ? grantedAsked : grant.scope;
  }
  const narrowed: Grant = scope === grant.scope ? grant : { ...grant, scope };
  if (style.refreshTokens === 'rotate') {
    record.used = true;
    return { tokens: issue(s, style, narrowed, true, sw) };
  }
  return { tokens: issue(s, style, narrowed, false, sw) };
};

/** The grant types of the token endpoint (a Map: a grant_type such as `constructor` is just unknown). */
const GRANT_TYPES: ReadonlyMap<string, GrantHandler> = new Map([
  ['authorization_code', codeGrant],
  ['refresh_token', refreshGrant],
]);

/** The request as a whole: switches' faults, method, body type, repeated parameters, client, grant. */
async function tokenOutcome(
  s: IdentityState,
  req: IncomingMessage,
  res: ServerResponse,
  style: StyleDefinition,
  form: URLSearchParams,
  log: (status: number, error: string | null) => void,
): Promise<Outcome | 'answered'> {
  const basic = basicCredentials(req.headers.authorization);
  const claimedId = basic !== null && basic !== 'malformed' ? basic.id : form.get('client_id');
  const sw = effective(s, claimedId);
  if (sw.tokenDelayMs > 0 && !(await s.delays.delay(sw.tokenDelayMs, res))) return 'answered';
  if (sw.tokenServerError !== null) {
    const { body } = style.tokenError('server_error', '');
    log(sw.tokenServerError, String(body.error));
    sendJson(res, sw.tokenServerError, body);
    return 'answered';
  }
  if (req.method !== 'POST') return refuse('bad_request', 'The token endpoint takes POST.');
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? ''))
    return refuse('bad_request', 'The request body must be application/x-www-form-urlencoded.');
  for (const name of new Set(form.keys()))
    if (form.getAll(name).length > 1) return refuse('bad_request', `The parameter '${name}' is repeated.`);
  const client = authenticateClient(s, style, form, basic, claimedId);
  if ('failure' in client || 'tokens' in client) return client;
  const grantType = form.get('grant_type') ?? '';
  if (grantType === '') return refuse('missing_parameter', 'grant_type');
  const grant = GRANT_TYPES.get(grantType);
  if (grant === undefined) return refuse('unsupported_grant_type', grantType);
  return grant(s, style, client, form, effective(s, client.clientId));
}

export async function handleToken(
  s: IdentityState,
  req: IncomingMessage,
  res: ServerResponse,
  style: StyleDefinition,
): Promise<void> {
  s.stats.tokenRequests++;
  const { text } = await readBody(req);
  const form = new URLSearchParams(text);
  const basic = basicCredentials(req.headers.authorization);
  const clientAuth: TokenRequestRecord['clientAuth'] =
    basic !== null && basic !== 'malformed' ? 'basic' : form.has('client_secret') ? 'post' : 'none';
  const claimedId = basic !== null && basic !== 'malformed' ? basic.id : form.get('client_id');
  const grantType = form.get('grant_type') ?? '';
  const log = (status: number, error: string | null): void => {
    s.stats.tokenLog.push({ style: style.style, grantType, clientId: claimedId, clientAuth, status, error });
    if (s.stats.tokenLog.length > TOKEN_LOG_SIZE) s.stats.tokenLog.splice(0, s.stats.tokenLog.length - TOKEN_LOG_SIZE);
  };
  const outcome = await tokenOutcome(s, req, res, style, form, log);
  if (outcome === 'answered') return;
  if ('tokens' in outcome) {
    log(200, null);
    sendJson(res, 200, outcome.tokens);
    return;
  }
  const { status, body } = style.tokenError(outcome.failure, outcome.detail ?? '');
  log(status, String(body.error));
  sendJson(res, status, body);
}

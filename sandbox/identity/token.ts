// The token endpoint: client authentication (one method at a time), the authorization_code and
// refresh_token grants, each style's error bodies, and a log of every request without secrets.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http-kit.ts';
import { basicCredentials, safeEqual, sendJson } from './pages.ts';
import { effective, type Grant, type IdentityState, issue, newGrant, PKCE_VERIFIER, TOKEN_LOG_SIZE } from './state.ts';
import type { IdentityFailure, StyleDefinition } from './styles.ts';
import type { ClientAuthMethod, TokenRequestRecord } from './types.ts';

export async function handleToken(s: IdentityState, req: IncomingMessage, res: ServerResponse, style: StyleDefinition): Promise<void> {
  s.stats.tokenRequests++;
  const { text } = await readBody(req);
  const form = new URLSearchParams(text);
  const basic = basicCredentials(req.headers.authorization);
  const clientAuth: TokenRequestRecord['clientAuth'] = basic !== null && basic !== 'malformed' ? 'basic' : form.has('client_secret') ? 'post' : 'none';
  const claimedId = basic !== null && basic !== 'malformed' ? basic.id : form.get('client_id');
  const grantType = form.get('grant_type') ?? '';
  const log = (status: number, error: string | null): void => {
    s.stats.tokenLog.push({ style: style.style, grantType, clientId: claimedId, clientAuth, status, error });
    if (s.stats.tokenLog.length > TOKEN_LOG_SIZE) s.stats.tokenLog.splice(0, s.stats.tokenLog.length - TOKEN_LOG_SIZE);
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

  let sw = effective(s, claimedId);
  if (sw.tokenDelayMs > 0 && !(await s.delays.delay(sw.tokenDelayMs, res))) return;
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
  const client = s.clients.get(claimedId);
  if (client === undefined || client.style !== style.style) return fail('client_unknown', claimedId);
  sw = effective(s, client.clientId);
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
    const record = s.codes.get(code);
    if (record === undefined || record.request.client.clientId !== client.clientId) return fail('code_unknown');
    if (record.used) return fail('code_reused');
    if (record.expiresAt <= s.now()) return fail('code_expired');
    const redirectUri = form.get('redirect_uri');
    if (redirectUri === null) return fail('missing_parameter', 'redirect_uri');
    if (redirectUri !== record.request.redirectUri) return fail('redirect_mismatch');
    const verifier = form.get('code_verifier');
    if (verifier === null || verifier === '') return fail('verifier_missing');
    const computed = createHash('sha256').update(verifier).digest('base64url');
    if (!PKCE_VERIFIER.test(verifier) || !safeEqual(computed, record.request.challenge)) return fail('verifier_mismatch');
    record.used = true;
    const grant = newGrant(s, style, client.clientId, record.subject, record.request.scope, sw);
    const withRefresh = style.issuesRefreshToken(record.request.scope, { accessType: record.request.accessType, firstConsent: record.firstConsent, promptConsent: record.request.promptConsent });
    return ok(issue(s, style, grant, withRefresh, sw));
  }
  if (grantType === 'refresh_token') {
    const presented = form.get('refresh_token');
    if (presented === null || presented === '') return fail('missing_parameter', 'refresh_token');
    const record = s.refreshTokens.get(presented);
    const grant = record === undefined ? undefined : s.grants.get(record.grantId);
    if (record === undefined || grant === undefined || grant.clientId !== client.clientId) return fail('refresh_unknown');
    if (grant.revoked) return fail('refresh_revoked');
    if (record.used) return fail('refresh_reused');
    if (style.refreshIdleDays !== null && s.now() - record.lastUsedAt >= style.refreshIdleDays * 86_400_000) return fail('refresh_expired');
    record.lastUsedAt = s.now();
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
      return ok(issue(s, style, narrowed, true, sw));
    }
    return ok(issue(s, style, narrowed, false, sw));
  }
  return fail('unsupported_grant_type', grantType);
}

// The authorize endpoint and the consent page: client and redirect URI checked first (an HTML
// error page, nothing redirected), then the request (errors redirected with the state), PKCE S256.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http-kit.ts';
import { escapeHtml, page, redirect, sendHtml } from './pages.ts';
import { type AuthorizeRequest, effective, type IdentityState, PKCE_CHALLENGE, token } from './state.ts';
import { STYLES } from './styles.ts';
import type { StyleDefinition } from './styles.ts';

function errorPage(res: ServerResponse, style: StyleDefinition, error: string, detail: string): void {
  sendHtml(
    res,
    400,
    page(
      `${style.title}: error`,
      '<h1>Sorry, there is a problem with this request</h1>\n<p ' +
        `role="alert"><strong>${escapeHtml(error)}</strong>: ${escapeHtml(detail)}</p>`,
    ),
  );
}

function redirectTo(redirectUri: string, params: Record<string, string>): string {
  const target = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
  return target.href;
}

export function consentPage(
  s: IdentityState,
  res: ServerResponse,
  style: StyleDefinition,
  id: string,
  request: AuthorizeRequest,
  problem: string | null = null,
): void {
  s.stats.consentPagesShown++;
  const subject = request.loginHint ?? effective(s, request.client.clientId).subject ?? style.defaultSubject;
  const scopes = request.scope.map((s) => `<li>${escapeHtml(s)}</li>`).join('');
  sendHtml(
    res,
    200,
    page(
      style.title,
      `<h1>${escapeHtml(style.title)}</h1>
${problem === null ? '' : `<p role="alert">${escapeHtml(problem)}</p>\n`}\
<p>The application <strong>${escapeHtml(request.client.clientId)}</strong> asks for access to your account:</p>
<ul>${scopes}</ul>
<form method="post" action="${escapeHtml(style.prefix + style.consentPath)}">
<input type="hidden" name="request" value="${escapeHtml(id)}">
<p><label for="login">Account</label> \
<input id="login" name="login" type="text" autocomplete="username" value="${escapeHtml(subject)}" required></p>
<p><button type="submit" name="decision" value="approve">Accept</button> \
<button type="submit" name="decision" value="deny">Cancel</button></p>
</form>`,
    ),
  );
}

/** Approves a request: a single-use code, redirected with the state. */
export function approve(
  s: IdentityState,
  res: ServerResponse,
  status: 302 | 303,
  request: AuthorizeRequest,
  subject: string,
): void {
  s.stats.approvals++;
  const key = `${request.client.clientId}|${subject}`;
  const firstConsent = !s.consents.has(key);
  s.consents.add(key);
  const code = token('');
  s.codes.set(code, {
    request,
    subject,
    firstConsent,
    expiresAt: s.now() + STYLES[request.client.style].codeLifetimeSeconds * 1000,
    used: false,
  });
  redirect(res, status, redirectTo(request.redirectUri, { code, state: request.state }));
}

export function handleAuthorize(
  s: IdentityState,
  req: IncomingMessage,
  res: ServerResponse,
  style: StyleDefinition,
  query: URLSearchParams,
) {
  s.stats.authorizeRequests++;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    errorPage(res, style, 'invalid_request', 'The authorize endpoint takes GET.');
    return;
  }
  const single = (name: string): string | null => {
    const all = query.getAll(name);
    return all.length === 1 ? all[0]! : null;
  };
  const clientId = single('client_id');
  const client = clientId === null ? undefined : s.clients.get(clientId);
  if (client === undefined || client.style !== style.style) {
    errorPage(
      res,
      style,
      style.style === 'google' ? 'invalid_client' : 'unauthorized_client',
      `The OAuth client ${clientId === null ? '(missing)' : `'${clientId}'`} was not found.`,
    );
    return;
  }
  const redirectUri = single('redirect_uri');
  if (redirectUri === null || !client.redirectUris.includes(redirectUri)) {
    errorPage(
      res,
      style,
      'redirect_uri_mismatch',
      `The redirect URI ${redirectUri === null ? '(missing)' : `'${redirectUri}'`} ` +
        'does not match the redirect URIs configured for the application.',
    );
    return;
  }
  const state = single('state');
  const fail = (error: string, detail: string): void =>
    redirect(
      res,
      302,
      redirectTo(redirectUri, { ...style.authorizeError(error, detail), ...(state === null ? {} : { state }) }),
    );

  const responseType = single('response_type');
  if (responseType === null) return fail('invalid_request', "The request must contain the parameter 'response_type'.");
  if (responseType !== 'code')
    return fail('unsupported_response_type', `response_type '${responseType}' is not supported; use 'code'.`);
  if (state === null || state === '')
    return fail('invalid_request', "The request must contain a non-empty parameter 'state'.");
  const responseMode = single('response_mode');
  if (responseMode !== null && responseMode !== 'query')
    return fail('invalid_request', `response_mode '${responseMode}' is not supported here; use 'query'.`);
  const scopeText = single('scope');
  if (scopeText === null || scopeText.trim() === '')
    return fail('invalid_scope', "The request must contain the parameter 'scope'.");
  const scope = scopeText.trim().split(/\s+/);
  const unknown = scope.filter((s) => !style.knownScope(s));
  if (unknown.length > 0) return fail('invalid_scope', `The scope '${unknown.join(' ')}' is not valid.`);
  if (style.style === 'entra' && !scope.some((s) => style.grantedScope([s]).length > 0))
    return fail('invalid_scope', 'The request must contain a resource scope.');
  const challenge = single('code_challenge');
  if (challenge === null)
    return fail('invalid_request', "The request must contain the parameter 'code_challenge' (PKCE is required).");
  const method = single('code_challenge_method');
  if (method !== 'S256')
    return fail('invalid_request', `code_challenge_method must be 'S256', not '${method ?? 'plain (absent)'}'.`);
  if (!PKCE_CHALLENGE.test(challenge))
    return fail('invalid_request', 'The code_challenge is not a base64url SHA-256 value.');
  const accessType = single('access_type');
  if (style.style === 'google' && accessType !== null && accessType !== 'online' && accessType !== 'offline')
    return fail('invalid_request', `Invalid access_type: ${accessType}`);
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
    expiresAt: s.now() + style.codeLifetimeSeconds * 1000,
  };
  const sw = effective(s, client.clientId);
  const subject = request.loginHint ?? sw.subject ?? style.defaultSubject;
  if (prompt.includes('none')) {
    if (s.consents.has(`${client.clientId}|${subject}`)) return approve(s, res, 302, request, subject);
    return fail(
      style.style === 'google'
        ? 'consent_required'
        : style.style === 'entra'
          ? 'interaction_required'
          : 'login_required',
      'The user must sign in and consent interactively.',
    );
  }
  if (sw.autoApprove) return approve(s, res, 302, request, subject);
  const id = randomBytes(16).toString('base64url');
  s.pending.set(id, request);
  consentPage(s, res, style, id, request);
}

export async function handleConsent(
  s: IdentityState,
  req: IncomingMessage,
  res: ServerResponse,
  style: StyleDefinition,
): Promise<void> {
  const { text } = await readBody(req);
  if (req.method !== 'POST') {
    errorPage(res, style, 'invalid_request', 'The consent form is posted.');
    return;
  }
  const form = new URLSearchParams(text);
  const id = form.get('request') ?? '';
  const request = s.pending.get(id);
  s.pending.delete(id);
  if (request === undefined || request.expiresAt <= s.now() || request.client.style !== style.style) {
    errorPage(
      res,
      style,
      'invalid_request',
      'This sign-in request is unknown, already answered or expired. Start again from the application.',
    );
    return;
  }
  if (form.get('decision') !== 'approve') {
    s.stats.denials++;
    redirect(
      res,
      303,
      redirectTo(request.redirectUri, {
        ...style.authorizeError('access_denied', 'The user declined to consent to access the app.'),
        state: request.state,
      }),
    );
    return;
  }
  const login = (form.get('login') ?? '').trim();
  const refusal = style.refusesAccount(login);
  if (refusal !== null) {
    // The sign-in page says why and stays on the same request.
    s.pending.set(id, request);
    consentPage(s, res, style, id, request, refusal);
    return;
  }
  approve(
    s,
    res,
    303,
    request,
    login !== '' ? login : (request.loginHint ?? effective(s, request.client.clientId).subject ?? style.defaultSubject),
  );
}

// The consent page of MCP authorization (docs/decisions/mcp-authorization.md): `/portal/authorize?request=…`, where the
// authorization server (runtime/auth/) sends the browser with a signed, short-lived copy of the
// validated authorization request. The user signs in (the portal's sign-in, which comes back here),
// sees which client asks for which endpoints and where the browser will return, and allows or
// denies. Allow stores a grant and a single-use code (as a hash) and returns to the client's
// redirect URI with `code`, `state` and `iss` (RFC 9207); deny returns `error=access_denied`. Both
// are audit entries of the account.
import type { ServerResponse } from 'node:http';
import {
  approveConsent,
  issuerOf,
  redirectHostOf,
  resourceUrlOf,
  verifyConsentRequest,
  type ConsentRequest,
} from '../auth/mcp-authorization.ts';
import { protocolText } from '../protocol-text.ts';
import { describeTokenScope } from '../auth/token-scope.ts';
import { escapeHtml, redirect } from './html.ts';
import { fmtDate, type PortalKit, type PortalRequest, type SignedInRequest } from './kit.ts';

export const AUTHORIZE_PATH = '/portal/authorize';

/** Back to the client: its redirect URI with the answer's parameters (never a page of ours). */
function returnToClient(
  res: ServerResponse,
  request: ConsentRequest,
  params: Record<string, string>,
  issuer: string,
): number {
  const url = new URL(request.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  res.writeHead(302, { location: url.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end();
  return 302;
}

/**
 * The form's CSP: it may post here and the answer may redirect to the client (Chrome checks form-action on redirects).
 */
function consentCsp(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return (
    `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self' ${target}; frame-ancestors ` +
    "'none'; base-uri 'none'"
  );
}

/**
 * The client's registration in the account's audit log, at the account's first consent to it: a
 * registration itself belongs to no account (docs/decisions/portal.md, 'Registrations in the
 * account's audit log').
 */
async function recordRegistration(
  kit: PortalKit,
  r: PortalRequest,
  user: SignedInRequest['signedIn']['user'],
  request: { readonly clientId: string; readonly clientName: string },
): Promise<void> {
  const g = kit.g;
  const grants = await g.store.mcp.listMcpGrants(user.accountId);
  if (grants.some((x) => x.clientId === request.clientId)) return;
  const client = await g.store.mcp.getMcpClient(request.clientId);
  await kit.audit(r, { ...user }, 'oauth.client.register', request.clientId, {
    client: request.clientName,
    registered: client ? fmtDate(client.createdAt) : 'client metadata document',
    redirect_hosts: client ? client.redirectUris.map((u) => redirectHostOf(u).host).join(',') : undefined,
  });
}

export async function authorizePage(kit: PortalKit, r: PortalRequest): Promise<number> {
  const g = kit.g;
  const token = r.query.get('request');
  const request = verifyConsentRequest(g.vault, token, g.now());
  if (!request?.endpoints.every((id) => g.endpoints.has(id))) {
    r.req.resume();
    return kit.notice(r, 400, 'authorize_invalid_title', 'authorize_invalid');
  }
  const self = `${AUTHORIZE_PATH}?request=${token!}`;
  if (!r.signedIn) {
    r.req.resume();
    return redirect(r.res, `/portal/sign-in?next=${encodeURIComponent(self)}`);
  }
  const s = (r as SignedInRequest).signedIn;
  const issuer = issuerOf(g.config.publicBaseUrl);
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const decision = form.get('decision');
    const detail = {
      client: request.clientName,
      client_id: request.clientId,
      endpoints: request.endpoints.join(','),
      redirect_host: redirectHostOf(request.redirectUri).host,
    };
    if (decision === 'allow') {
      await recordRegistration(kit, r, s.user, request);
      const { code, grantId } = await approveConsent(
        g.store,
        request,
        s.user,
        g.now(),
        g.platform.limits.mcpCodeSeconds,
      );
      await kit.audit(r, { ...s.user }, 'oauth.grant', grantId, detail);
      return returnToClient(r.res, request, { code }, issuer);
    }
    if (decision === 'deny') {
      await kit.audit(r, { ...s.user }, 'oauth.deny', request.clientId, detail);
      return returnToClient(
        r.res,
        request,
        { error: 'access_denied', error_description: protocolText('oauth_access_denied') },
        issuer,
      );
    }
    return kit.notice(r, 400, 'bad_request_title', 'unknown_action');
  }
  r.req.resume();
  const { host, local } = redirectHostOf(request.redirectUri);
  const endpoints = request.endpoints
    .map(
      (id) =>
        `<li><code>${escapeHtml(resourceUrlOf(g.config.publicBaseUrl, id))}</code> — ` +
        `${escapeHtml(g.endpoints.get(id)!.connector.descriptor.title)}` +
        '</li>',
    )
    .join('');
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(s.csrf)}">`;
  const body =
    `<p>${kit.t('authorize_intro', { client: request.clientName, email: s.user.email, account: s.account.name })}` +
    `</p><ul>${endpoints}</ul>` +
    (request.scope
      ? `<p>${kit.t('authorize_scope', { client: request.clientName, scope: describeTokenScope(request.scope) })}</p>`
      : '') +
    `<p class="note">${kit.t('authorize_client_id', { client_id: request.clientId })}</p>` +
    `<p>${kit.t('authorize_redirect', { host })}</p>` +
    (local ? `<p class="warning">${kit.t('authorize_localhost', { host })}</p>` : '') +
    `<form method="post" action="${escapeHtml(self)}">${hidden}<button type="submit" name="decision" ` +
    `value="allow">${kit.t('authorize_allow')}</button> <button type="submit" name="decision" value="deny" ` +
    `class="secondary">${kit.t('authorize_deny')}</button></form>`;
  return kit.view(r, 200, kit.text.plain('authorize_title', { client: request.clientName }), body, {
    'content-security-policy': consentCsp(request.redirectUri),
    'cache-control': 'no-store',
  });
}

// The portal: sign-in, the signed-in account pages (account-pages.ts), and the signed links the
// platform texts hand out (connect, purchase, team, terms), server-rendered without JavaScript.
//
// Signed links keep working and land on the same pages: a signed-in user of the link is sent to
// the portal page; without a session, purchase, team and terms links act as the short-lived
// capability they are. A connect link is bound to the user who asked for it: its form (and an OAuth
// start) needs that user signed in, so nobody else can store a credential in the asking account,
// and the terms must be accepted first (the gate connect_account applies, on every connect path).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectorRuntime, GatewayContext } from '../gateway-context.ts';
import { verifyLink, type LinkPayload, type LinkPurpose } from '../platform/links.ts';
import { completeOAuthConnect, newBrowserBinding, sha256 } from '../platform/oauth.ts';
import type { Account, User } from '../platform/store.ts';
import { CREDENTIAL_FORM_FIELDS, createAccountPages } from './account-pages.ts';
import { AUTHORIZE_PATH, authorizePage } from './authorize-page.ts';
import { escapeHtml, postButton, redirect, sendPage } from './html.ts';
import { PortalKit, type PortalOptions, type PortalRequest, safeNext, type SignedInRequest } from './kit.ts';
import { clientAddress, hashPassword, MIN_PASSWORD_LENGTH, type PortalSessions, sha256 as sha256Hex } from './session.ts';

export type { PasswordLinkDelivery, PortalOptions } from './kit.ts';

export interface PortalRoutes {
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
  /** Sign-in and sessions, for other routes that need the signed-in user (a consent page). */
  readonly sessions: PortalSessions;
}

/** The OAuth redirect URI's path: `<publicBaseUrl>/portal/oauth/callback`. */
export const OAUTH_CALLBACK_PATH = '/portal/oauth/callback';

/** The browser-binding cookie of one flow (named by a digest of its state, so flows run side by side). */
const stateCookie = (state: string) => `cg_oauth_${sha256(state).slice(0, 16)}`;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function createPortal(gateway: GatewayContext, options: PortalOptions): PortalRoutes {
  const kit = new PortalKit(gateway, {
    ...options,
    deliverPasswordLink:
      options.deliverPasswordLink ??
      // The demo's delivery: the log (an operator passes the link on). A mailer plugs in here.
      ((to, link) => gateway.log.info({ to: to.email, link }, 'portal set-password link (deliver it to the user)')),
  });
  const t = kit.t.bind(kit);
  const plain = kit.text.plain;
  const sessions = kit.sessions;

  const invalid = (r: PortalRequest, reason: string) =>
    kit.view(
      r,
      reason === 'expired' ? 410 : 400,
      plain('link_invalid_title'),
      `<p class="error">${t(`link_${reason === 'expired' || reason === 'used' ? reason : 'invalid'}`)}</p><p class="note">${t('link_ask_again')}</p>`,
    );

  const connectorOf = (key: string) => [...gateway.endpoints.values()].find((e) => e.connector.config.key === key)?.connector;

  /** The account and user the link was issued to (the snapshot, else the store: a link from another replica). */
  async function requesterOf(payload: LinkPayload): Promise<{ account: Account; user: User } | undefined> {
    const account = gateway.state.account(payload.accountId) ?? (await gateway.store.getAccount(payload.accountId));
    const user = (await gateway.store.getUser(payload.userId)) ?? gateway.state.user(payload.userId);
    if (!account || !user || user.accountId !== account.id) return undefined;
    return { account, user };
  }

  /** Where the identity provider sends the browser back (register it with the provider). */
  const redirectUri = () => `${gateway.config.publicBaseUrl}${OAUTH_CALLBACK_PATH}`;

  /**
   * The OAuth connect start (from a connect link or the connections page): a single-use state (10
   * minutes, bound to the account, instance and user, and to this browser by a cookie) and a
   * redirect to the provider's authorize endpoint with PKCE S256. The link record `jti` is consumed
   * when the callback stores the grant.
   */
  async function startOAuth(r: PortalRequest, target: { accountId: string; userId: string; instanceId: string; jti: string }, connector: ConnectorRuntime): Promise<number> {
    const client = gateway.oauth.clients.get(connector.config.key);
    if (!client) {
      gateway.log.warn({ connector: connector.config.id }, 'oauth connect refused: no OAuth client id is configured for this connector');
      return kit.notice(r, 503, 'connect_title', 'oauth_not_set_up', { connector: connector.descriptor.title });
    }
    const flow = await client.authorizeRedirect(redirectUri());
    const browser = newBrowserBinding();
    const validMs = gateway.platform.limits.connectLinkValidSeconds! * 1000;
    await gateway.store.createOAuthState({
      stateHash: sha256(flow.state),
      accountId: target.accountId,
      userId: target.userId,
      instanceId: target.instanceId,
      connectorKey: connector.config.key,
      linkJti: target.jti,
      verifierSealed: gateway.vault.seal(flow.verifier, target.accountId, target.instanceId).ciphertext,
      browserHash: browser.hash,
      expiresAt: new Date(gateway.now().getTime() + validMs),
    });
    const secure = gateway.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
    r.res.writeHead(302, {
      location: flow.url,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      // SameSite=Lax: sent on the provider's top-level redirect back to the callback.
      'set-cookie': `${stateCookie(flow.state)}=${browser.value}; Path=${OAUTH_CALLBACK_PATH}; Max-Age=${Math.floor(validMs / 1000)}; HttpOnly; SameSite=Lax${secure}`,
    });
    r.res.end();
    return 302;
  }

  const accountPages = createAccountPages(kit, startOAuth);

  // --- sign-in, sign-out, set password ------------------------------------------------------------

  async function signIn(r: PortalRequest): Promise<number> {
    const next = safeNext(r.query.get('next'));
    const show = (status: number, message: string, email = '') => {
      const form = sessions.formToken(r.req);
      const body = `${message}<form method="post" action="/portal/sign-in?next=${encodeURIComponent(next)}"><input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}"><label for="email">${t('field_email')}</label><input type="email" id="email" name="email" autocomplete="username" required value="${escapeHtml(email)}"><label for="password">${t('field_password')}</label><input type="password" id="password" name="password" autocomplete="current-password" required><button type="submit">${t('sign_in_button')}</button></form><p class="note">${t('sign_in_note')}</p>`;
      return kit.view(r, status, plain('sign_in_title'), body, form.setCookie ? { 'set-cookie': form.setCookie } : undefined);
    };
    if (r.req.method === 'GET') {
      if (r.signedIn) return redirect(r.res, next);
      const done = r.query.get('done');
      const message = done === 'signed_out' || done === 'signed_out_everywhere' || done === 'password_set' ? `<p class="ok" role="status">${t(`done_${done}`)}</p>` : '';
      return show(200, message);
    }
    if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const email = (form.get('email') ?? '').trim();
    const outcome = await sessions.signIn(r.req, email, form.get('password') ?? '');
    if (!outcome.ok) {
      gateway.log.info({ address: clientAddress(r.req), reason: outcome.reason }, 'portal sign-in refused');
      return outcome.reason === 'rate_limited'
        ? show(429, `<p class="error" role="alert">${t('sign_in_rate_limited', { minutes: Math.ceil(gateway.platform.limits.signInWindowSeconds! / 60) })}</p>`, email)
        : show(401, `<p class="error" role="alert">${t('sign_in_failed')}</p>`, email);
    }
    await kit.audit(r, outcome.user, 'session.sign_in', outcome.user.id);
    return redirect(r.res, next, { 'set-cookie': outcome.cookie });
  }

  async function signOut(r: PortalRequest): Promise<number> {
    if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const cookie = await sessions.signOut(r.signedIn);
    return redirect(r.res, '/portal/sign-in?done=signed_out', { 'set-cookie': cookie });
  }

  /** `/portal/set-password/<token>`: an invitation (or a reset) sets a password, then signs in. */
  async function setPassword(r: PortalRequest, token: string): Promise<number> {
    const show = (status: number, message: string) => {
      const form = sessions.formToken(r.req);
      const body = `${message}<p>${t('set_password_intro', { min: MIN_PASSWORD_LENGTH })}</p><form method="post" action="/portal/set-password/${escapeHtml(token)}"><input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}"><label for="password">${t('field_new_password')}</label><input type="password" id="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required><label for="confirm">${t('field_confirm_password')}</label><input type="password" id="confirm" name="confirm" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required><button type="submit">${t('set_password_button')}</button></form>`;
      return kit.view(r, status, plain('set_password_title'), body, form.setCookie ? { 'set-cookie': form.setCookie } : undefined);
    };
    if (r.req.method === 'GET') return show(200, '');
    if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const password = form.get('password') ?? '';
    if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) return show(400, `<p class="error" role="alert">${t('password_too_short', { min: MIN_PASSWORD_LENGTH })}</p>`);
    if (password !== form.get('confirm')) return show(400, `<p class="error" role="alert">${t('password_mismatch')}</p>`);
    const outcome = await gateway.store.consumePasswordLink(sha256Hex(token), gateway.now());
    if (outcome.outcome !== 'ok') return invalid(r, outcome.outcome);
    const user = await gateway.store.getUser(outcome.userId);
    if (!user) return invalid(r, 'invalid');
    await gateway.store.setPasswordHash(user.id, await hashPassword(password));
    // A new password ends every other session of the user.
    await gateway.store.deleteUserSessions(user.id);
    await kit.audit(r, user, 'user.password_set', user.id);
    const cookie = await sessions.startSession(user, clientAddress(r.req));
    return redirect(r.res, '/portal', { 'set-cookie': cookie });
  }

  // --- signed links ------------------------------------------------------------------------------

  /** A connect link: bound to its user, who must be signed in and have accepted the terms. */
  async function connectLink(r: PortalRequest, payload: LinkPayload, token: string): Promise<number> {
    const connector = connectorOf(payload.connectorKey);
    const instanceId = payload.instanceId;
    if (!connector || !instanceId || !payload.jti || !gateway.endpoints.has(instanceId)) return invalid(r, 'invalid');
    const kind = connector.descriptor.credential;
    if (kind === 'managed_basic') return invalid(r, 'invalid');
    const requester = await requesterOf(payload);
    if (!requester) return invalid(r, 'invalid');
    // A used or expired link says so at once, not after the user signed in or typed a credential.
    const state = await gateway.store.connectLinkState(payload.jti, gateway.now());
    if (state !== 'ok') {
      r.req.resume();
      return invalid(r, state);
    }
    const title = plain('connect_title', { connector: connector.descriptor.title });
    const { account, user } = requester;
    const context = `<p>${t('connect_context_link', { name: user.name, email: user.email, account: account.name, connector: connector.descriptor.title, endpoint: kit.endpointUrl(instanceId), path: `/${instanceId}/mcp` })}</p><p class="warning">${t('connect_warning', { account: account.name })}</p>`;
    const signedIn = r.signedIn;
    if (!signedIn) {
      r.req.resume();
      return kit.view(
        r,
        r.req.method === 'POST' ? 401 : 200,
        title,
        `${context}<p>${t('connect_sign_in_first', { email: user.email })}</p><p><a href="/portal/sign-in?next=${encodeURIComponent(`/portal/connect/${token}`)}">${t('sign_in_to_continue')}</a></p>`,
      );
    }
    if (signedIn.user.id !== user.id) {
      r.req.resume();
      gateway.log.warn({ linkUser: user.id, signedInUser: signedIn.user.id, instance: instanceId }, 'connect link refused: signed in as another user');
      return kit.view(r, 403, title, `${context}<p class="error" role="alert">${t('connect_other_user', { email: user.email, signed_in: signedIn.user.email })}</p>`);
    }
    if (!signedIn.user.termsAcceptedAt) {
      r.req.resume();
      return kit.view(
        r,
        403,
        plain('terms_first_title'),
        `<p class="warning">${t('terms_first')}</p><p><a href="/portal/terms?next=${encodeURIComponent(`/portal/connect/${token}`)}">${t('terms_open')}</a></p>`,
      );
    }
    if (kind === 'oauth2') {
      if (r.req.method === 'POST') {
        const form = await kit.form(r);
        if (!form) return r.res.statusCode;
        await kit.audit(r, { ...signedIn.user }, 'connection.oauth_start', instanceId, { connector: connector.config.key, via: 'link' });
        return startOAuth(r, { accountId: account.id, userId: user.id, instanceId, jti: payload.jti }, connector);
      }
      return kit.view(
        r,
        200,
        title,
        `${context}<p class="note">${t('connect_oauth_note')}</p>${postButton(`/portal/connect/${token}`, signedIn.csrf, plain('connect_oauth_button', { connector: connector.descriptor.title }))}`,
      );
    }
    const fields = CREDENTIAL_FORM_FIELDS[kind];
    let error = '';
    let status = 400;
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      const values: Record<string, string> = Object.fromEntries(fields.map((f) => [f.name, (form.get(f.name) ?? '').trim()]));
      const missing = fields.filter((f) => !values[f.name]);
      let refused: { readonly html: string; readonly status: number } | undefined;
      if (missing.length === 0) {
        refused = await kit.verifyCredential(r, { accountId: account.id, userId: user.id, instanceId, connector: connector.config.id }, values);
      }
      if (missing.length === 0 && !refused) {
        const outcome = await gateway.store.consumeConnectLink(payload.jti, gateway.now());
        if (outcome !== 'ok') return invalid(r, outcome);
        const sealed = gateway.vault.seal(JSON.stringify(values), account.id, instanceId);
        await gateway.store.putConnection({ accountId: account.id, instanceId, connectorKey: connector.config.key, ciphertext: sealed.ciphertext, keyVersion: sealed.keyVersion });
        await gateway.state.refresh();
        gateway.log.info({ accountId: account.id, userId: user.id, connector: connector.config.id, instance: instanceId }, 'connection stored');
        await kit.audit(r, { ...user }, 'connection.set', instanceId, { connector: connector.config.key, via: 'link' });
        return kit.view(
          r,
          200,
          plain('connected_title', { connector: connector.descriptor.title }),
          `<p role="status">${t('connected_text', { endpoint: kit.endpointUrl(instanceId), account: account.name })}</p>`,
        );
      }
      error = refused?.html ?? `<p class="error" role="alert">${t('fill_in', { fields: missing.map((f) => plain(f.label)).join(', ') })}</p>`;
      status = refused?.status ?? 400;
    }
    const inputs = fields
      .map((f) => `<label for="${f.name}">${t(f.label)}</label><input id="${f.name}" name="${f.name}" type="${f.secret ? 'password' : 'text'}" autocomplete="off" required>`)
      .join('');
    return kit.view(
      r,
      error ? status : 200,
      title,
      `${context}<p class="note">${t('connect_stored_note')}</p>${error}<form method="post" action="/portal/connect/${escapeHtml(token)}"><input type="hidden" name="csrf" value="${escapeHtml(signedIn.csrf)}">${inputs}<button type="submit">${t('connect_button')}</button></form>`,
    );
  }

  /**
   * Purchase, team and terms links. The link's user signed in: the portal page. Otherwise the
   * link is the capability it always was, on the same page content (with its own CSRF token).
   */
  async function capabilityLink(r: PortalRequest, purpose: 'purchase' | 'team' | 'terms', payload: LinkPayload, token: string): Promise<number> {
    const requester = await requesterOf(payload);
    const connector = connectorOf(payload.connectorKey);
    if (!requester || (!connector && purpose !== 'terms')) {
      r.req.resume();
      return invalid(r, 'invalid');
    }
    const { user, account } = requester;
    if (r.signedIn?.user.id === user.id) {
      r.req.resume();
      return redirect(r.res, purpose === 'purchase' ? '/portal/connectors' : `/portal/${purpose}`);
    }
    // Without a session (or signed in as someone else): the link acts for its own user only.
    const form = sessions.formToken(r.req);
    const cookie = form.setCookie ? { 'set-cookie': form.setCookie } : undefined;
    const action = `/portal/${purpose}/${token}`;
    const view = (status: number, title: string, body: string) => kit.view({ ...r, signedIn: undefined }, status, title, body, cookie);
    const signInHint = `<p class="note">${t('link_sign_in_hint')} <a href="/portal/sign-in?next=${encodeURIComponent(action)}">${t('sign_in_button')}</a></p>`;
    let posted: URLSearchParams | undefined;
    if (r.req.method === 'POST') {
      posted = await kit.form({ ...r, signedIn: undefined });
      if (!posted) return r.res.statusCode;
    }
    if (purpose === 'terms') {
      if (posted) {
        await gateway.store.acceptTerms(user.id, gateway.now());
        await gateway.state.refresh();
        await kit.audit(r, { ...user }, 'terms.accept', user.id, { via: 'link' });
        return view(200, plain('terms_title'), `<p class="ok" role="status">${t('done_terms_accepted')}</p><p>${t('terms_accepted_next')}</p>`);
      }
      return view(200, plain('terms_title'), `<p>${t('terms_text')}</p>${postButton(action, form.csrf, plain('terms_accept'))}${signInHint}`);
    }
    const c = connector!;
    if (purpose === 'purchase') {
      const title = plain('purchase_title', { connector: c.descriptor.title });
      if (gateway.state.isSubscribed(account.id, c.config.key)) return view(200, title, `<p>${t('purchase_subscribed')}</p>${signInHint}`);
      if (!kit.options.selfServicePurchase) return view(200, title, `<p>${t('purchase_by_operator')}</p>`);
      if (user.role !== 'admin') return view(403, title, `<p>${t('purchase_admin_only')}</p>`);
      if (posted) {
        await gateway.store.setSubscription(account.id, c.config.key, true);
        await gateway.store.setSeat(user.id, c.config.key, true);
        await gateway.state.refresh();
        await kit.audit(r, { ...user }, 'subscription.set', c.config.key, { subscribed: 'on', seat_for: user.email, via: 'link' });
        return view(200, title, `<p class="ok" role="status">${t('purchase_done')}</p>${signInHint}`);
      }
      return view(
        200,
        title,
        `<p>${t('purchase_intro', { connector: c.descriptor.title, id: c.config.id, account: account.name })}</p>${postButton(action, form.csrf, plain('subscribe_button', { connector: c.descriptor.title }))}${signInHint}`,
      );
    }
    // team: seats of this link's connector.
    const users = await gateway.store.listUsers(account.id);
    const key = c.config.key;
    const admin = user.role === 'admin';
    let top = '';
    if (posted) {
      if (!admin) return view(403, plain('team_title'), `<p class="error">${t('admin_only')}</p>`);
      const seated = new Set(posted.getAll('seat'));
      const changes: string[] = [];
      for (const u of users) {
        const on = seated.has(`${u.id}|${key}`);
        if (on !== gateway.state.hasSeat(u.id, key)) {
          await gateway.store.setSeat(u.id, key, on);
          changes.push(`${u.email}:${key}:${on ? 'on' : 'off'}`);
        }
      }
      await gateway.state.refresh();
      if (changes.length) await kit.audit(r, { ...user }, 'seats.set', account.id, { changes: changes.join(','), via: 'link' });
      top = `<p class="ok" role="status">${t('done_seats_saved')}</p>`;
    }
    const used = users.filter((u) => gateway.state.hasSeat(u.id, key)).length;
    const rows = users
      .map((u) => {
        const has = gateway.state.hasSeat(u.id, key);
        const id = `seat-${escapeHtml(u.id)}`;
        const cell = admin
          ? `<input type="checkbox" id="${id}" name="seat" value="${escapeHtml(`${u.id}|${key}`)}"${has ? ' checked' : ''}> <label class="inline" for="${id}">${t('seat_label', { name: u.name, connector: c.descriptor.title })}</label>`
          : t(has ? 'answer_yes' : 'answer_no');
        return `<tr><th scope="row">${escapeHtml(u.name)}</th><td>${escapeHtml(u.email)}</td><td>${t(`role_${u.role}`)}</td><td>${cell}</td></tr>`;
      })
      .join('');
    const table = `<table><caption>${t('seats_in_use_of', { connector: c.descriptor.title, used, users: users.length })}</caption><thead><tr><th scope="col">${t('col_name')}</th><th scope="col">${t('col_email')}</th><th scope="col">${t('col_role')}</th><th scope="col">${t('col_seat_on', { connector: c.config.id })}</th></tr></thead><tbody>${rows}</tbody></table>`;
    const body = admin
      ? `${top}<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}">${table}<button type="submit">${t('save_seats')}</button></form>${signInHint}`
      : `${table}<p class="note">${t('team_member_note', {
          admins:
            users
              .filter((u) => u.role === 'admin')
              .map((u) => u.email)
              .join(', ') || '—',
        })}</p>`;
    return view(200, plain('team_title'), body);
  }

  // --- OAuth callback ----------------------------------------------------------------------------

  /** `GET /portal/oauth/callback?code&state`: refuses a missing, reused, expired or foreign state; stores the grant. */
  async function oauthCallback(r: PortalRequest): Promise<number> {
    r.req.resume();
    const refused = (status: number, why: string) => kit.view(r, status, plain('oauth_refused_title'), `<p class="error">${t(why)}</p><p class="note">${t('oauth_ask_again')}</p>`);
    if (r.req.method !== 'GET') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
    const state = r.query.get('state');
    if (!state || state.length > 512) return refused(400, 'oauth_no_state');
    const stateHash = sha256(state);
    // The browser that started the flow holds the binding cookie; another browser (a link passed on) does not.
    const binding = cookieValue(r.req.headers.cookie, stateCookie(state));
    const outcome = await gateway.store.consumeOAuthState(stateHash, gateway.now());
    if (outcome.outcome !== 'ok') {
      gateway.log.info({ outcome: outcome.outcome }, 'oauth callback refused');
      return refused(outcome.outcome === 'expired' ? 410 : 400, outcome.outcome === 'expired' ? 'oauth_expired' : outcome.outcome === 'used' ? 'oauth_used' : 'oauth_unknown');
    }
    const flow = outcome.state;
    const fields = { accountId: flow.accountId, userId: flow.userId, instance: flow.instanceId };
    if (!binding || sha256(binding) !== flow.browserHash) {
      gateway.log.warn(fields, 'oauth callback refused: the state belongs to another browser');
      return refused(400, 'oauth_other_browser');
    }
    const endpoint = gateway.endpoints.get(flow.instanceId);
    const connector = endpoint?.connector;
    const client = connector ? gateway.oauth.clients.get(connector.config.key) : undefined;
    if (!endpoint || !connector || !client || connector.config.key !== flow.connectorKey) return refused(400, 'oauth_unknown');
    const title = connector.descriptor.title;
    const notConnected = (status: number, html: string) => kit.view(r, status, plain('not_connected_title', { connector: title }), `${html}<p class="note">${t('oauth_try_again')}</p>`);
    if (r.query.has('error')) {
      gateway.log.info({ ...fields, providerError: (r.query.get('error') ?? '').slice(0, 64) }, 'oauth authorize answered an error');
      return notConnected(400, `<p class="error">${t('oauth_cancelled')}</p>`);
    }
    let verifier: string;
    try {
      verifier = gateway.vault.open(flow.verifierSealed, flow.accountId, flow.instanceId);
    } catch {
      return refused(400, 'oauth_unknown');
    }
    const target = { accountId: flow.accountId, instanceId: flow.instanceId, connectorKey: connector.config.key };
    const done = await completeOAuthConnect(gateway, client, target, { callback: r.query, state, verifier, redirectUri: redirectUri() }, gateway.now());
    if (!done.ok) {
      switch (done.reason) {
        case 'exchange_failed':
          gateway.log.warn({ ...fields, tokenEndpoint: done.failure }, 'oauth code exchange failed');
          return notConnected(502, `<p class="error">${t('oauth_exchange_failed')}</p>`);
        case 'no_refresh_token':
          gateway.log.info(fields, 'oauth connect refused: no refresh token in the token response');
          return notConnected(400, `<p class="error">${t('oauth_no_refresh_token')}</p>`);
        default: {
          gateway.log.info({ ...fields, reason: done.reason, scopes: done.scopes.slice(0, 20) }, 'oauth connect refused: granted scopes');
          const list = (scopes: readonly string[]) => scopes.join(', ');
          return notConnected(
            400,
            `<p class="error">${done.reason === 'missing_required' ? t('oauth_scope_missing', { scopes: list(client.provider.grantedScopes.requireOneOf) }) : t('oauth_scope_refused', { scopes: list(done.scopes) })}</p>`,
          );
        }
      }
    }
    await gateway.state.refresh();
    gateway.log.info({ ...fields, connector: connector.config.id }, 'connection stored');
    const user = await gateway.store.getUser(flow.userId);
    if (user) await kit.audit(r, user, 'connection.set', flow.instanceId, { connector: connector.config.key, via: 'oauth' });
    const account = gateway.state.account(flow.accountId);
    return kit.view(
      r,
      200,
      plain('connected_title', { connector: title }),
      `<p role="status">${t('connected_text', { endpoint: kit.endpointUrl(flow.instanceId), account: account?.name ?? flow.accountId })}</p>`,
    );
  }

  // --- the public landing page -------------------------------------------------------------------

  function landing(r: PortalRequest, status: number): number {
    r.req.resume();
    const list = [...gateway.endpoints.values()]
      .filter((e) => e.instance === 1)
      .map((e) => `<li><code>${escapeHtml(kit.endpointUrl(e.instanceId))}</code> — ${escapeHtml(e.connector.descriptor.title)}</li>`)
      .join('');
    return kit.view(
      r,
      status,
      plain(status === 404 ? 'not_found_title' : 'landing_title'),
      `<p>${t('landing_endpoints')}</p><ul>${list}</ul><p><a href="/portal/sign-in">${t('landing_sign_in')}</a></p>`,
    );
  }

  const LINK = /^\/portal\/(connect|purchase|team|terms)\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

  return {
    sessions,
    async handle(req, res, path) {
      const query = new URL(req.url ?? '/', 'http://portal.invalid').searchParams;
      const base: PortalRequest = { req, res, path, query, signedIn: undefined };
      if (path === OAUTH_CALLBACK_PATH) return oauthCallback(base);
      if (req.method !== 'GET' && req.method !== 'POST') {
        req.resume();
        return sendPage(res, 405, { title: plain('method_title'), body: `<p>${t('method_not_allowed')}</p>` });
      }
      const r: PortalRequest = { ...base, signedIn: await sessions.lookup(req) };
      if (path === '/') return landing(r, 200);
      if (path === '/portal/sign-in') return signIn(r);
      if (path === '/portal/sign-out') return signOut(r);
      const setPw = /^\/portal\/set-password\/([A-Za-z0-9_-]{20,100})$/.exec(path);
      if (setPw) return setPassword(r, setPw[1]!);
      const link = LINK.exec(path);
      if (link) {
        const purpose = link[1] as LinkPurpose;
        const token = link[2]!;
        const check = verifyLink(gateway.vault, token, purpose, gateway.now());
        if (!check.ok) {
          req.resume();
          return invalid(r, check.reason);
        }
        return purpose === 'connect' ? connectLink(r, check.payload, token) : capabilityLink(r, purpose, check.payload, token);
      }
      if (path === AUTHORIZE_PATH) return authorizePage(kit, r);
      if (!path.startsWith('/portal')) return landing(r, 404);
      if (!r.signedIn) {
        req.resume();
        const known = path === '/portal' || /^\/portal\/[a-z-]+(\/|$)/.test(path);
        if (!known) return landing(r, 404);
        return redirect(res, `/portal/sign-in?next=${encodeURIComponent(safeNext(path))}`);
      }
      const answered = await accountPages(r as SignedInRequest);
      if (answered !== undefined) return answered;
      req.resume();
      return kit.notice(r, 404, 'not_found_title', 'page_not_found');
    },
  };
}

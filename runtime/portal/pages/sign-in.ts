// Sign-in, sign-out (here and everywhere), and the set-password page of an invitation or reset link.
import { escapeHtml, redirect } from '../html.ts';
import { type PortalKit, type PortalRequest, safeNext, type SignedInRequest } from '../kit.ts';
import { clientAddress, hashPassword, MIN_PASSWORD_LENGTH } from '../session.ts';
import { sha256Hex } from '../../secrets/hash.ts';

export async function signIn(kit: PortalKit, r: PortalRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const next = safeNext(r.query.get('next'));
  const show = (status: number, message: string, email = '') => {
    const form = kit.sessions.formToken(r.req);
    const body =
      `${message}<form method="post" action="/portal/sign-in?next=${encodeURIComponent(next)}"><input type="hidden" ` +
      `name="csrf" value="${escapeHtml(form.csrf)}"><label for="email">${t('field_email')}</label><input ` +
      `type="email" id="email" name="email" autocomplete="username" required value="${escapeHtml(email)}"><label ` +
      `for="password">${t('field_password')}</label><input type="password" id="password" name="password" ` +
      `autocomplete="current-password" required><button type="submit">${t('sign_in_button')}</button></form><p ` +
      `class="note">${t('sign_in_note')} <a href="/portal/forgot-password">${t('sign_in_forgot')}</a></p>`;
    return kit.view(
      r,
      status,
      plain('sign_in_title'),
      body,
      form.setCookie ? { 'set-cookie': form.setCookie } : undefined,
    );
  };
  if (r.req.method === 'GET') {
    if (r.signedIn) return redirect(r.res, next);
    const done = r.query.get('done');
    const message =
      done === 'signed_out' || done === 'signed_out_everywhere' || done === 'password_set'
        ? `<p class="ok" role="status">${t(`done_${done}`)}</p>`
        : '';
    return show(200, message);
  }
  if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const email = (form.get('email') ?? '').trim();
  const outcome = await kit.sessions.signIn(r.req, email, form.get('password') ?? '');
  if (!outcome.ok) {
    g.log.info({ address: clientAddress(r.req), reason: outcome.reason }, 'portal sign-in refused');
    return outcome.reason === 'rate_limited'
      ? show(
          429,
          '<p class="error" role="alert">' +
            `${t('sign_in_rate_limited', { minutes: Math.ceil(g.platform.limits.signInWindowSeconds / 60) })}` +
            '</p>',
          email,
        )
      : show(401, `<p class="error" role="alert">${t('sign_in_failed')}</p>`, email);
  }
  await kit.audit(r, outcome.user, 'session.sign_in', outcome.user.id);
  return redirect(r.res, next, { 'set-cookie': outcome.cookie });
}

export async function signOut(kit: PortalKit, r: PortalRequest): Promise<number> {
  if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const cookie = await kit.sessions.signOut(r.signedIn);
  return redirect(r.res, '/portal/sign-in?done=signed_out', { 'set-cookie': cookie });
}

/** `/portal/set-password/<token>`: an invitation (or a reset) sets a password, then signs in. */
export async function setPassword(kit: PortalKit, r: PortalRequest, token: string): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const show = (status: number, message: string) => {
    const form = kit.sessions.formToken(r.req);
    const body =
      `${message}<p>${t('set_password_intro', { min: MIN_PASSWORD_LENGTH })}</p><form method="post" ` +
      `action="/portal/set-password/${escapeHtml(token)}"><input type="hidden" name="csrf" value="` +
      `${escapeHtml(form.csrf)}` +
      `"><label for="password">${t('field_new_password')}</label><input type="password" id="password" ` +
      `name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required><label for="confirm">` +
      `${t('field_confirm_password')}</label><input type="password" id="confirm" name="confirm" ` +
      `autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required><button type="submit">` +
      `${t('set_password_button')}` +
      '</button></form>';
    return kit.view(
      r,
      status,
      plain('set_password_title'),
      body,
      form.setCookie ? { 'set-cookie': form.setCookie } : undefined,
    );
  };
  if (r.req.method === 'GET') return show(200, '');
  if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const password = form.get('password') ?? '';
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024)
    return show(400, `<p class="error" role="alert">${t('password_too_short', { min: MIN_PASSWORD_LENGTH })}</p>`);
  if (password !== form.get('confirm')) return show(400, `<p class="error" role="alert">${t('password_mismatch')}</p>`);
  const outcome = await g.store.portal.consumePasswordLink(sha256Hex(token), g.now());
  if (outcome.outcome !== 'ok') return kit.linkInvalid(r, outcome.outcome);
  const user = await g.store.users.getUser(outcome.userId);
  if (!user) return kit.linkInvalid(r, 'invalid');
  await g.store.portal.setPasswordHash(user.id, await hashPassword(password));
  // A new password ends every other session of the user.
  await g.store.portal.deleteUserSessions(user.id);
  await kit.audit(r, user, 'user.password_set', user.id);
  const cookie = await kit.sessions.startSession(user, clientAddress(r.req));
  return redirect(r.res, '/portal', { 'set-cookie': cookie });
}

export async function signOutEverywhere(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const { ended, cookie } = await kit.sessions.signOutEverywhere(r.signedIn.user);
  await kit.audit(r, { ...r.signedIn.user }, 'session.sign_out_everywhere', r.signedIn.user.id, { sessions: ended });
  return redirect(r.res, '/portal/sign-in?done=signed_out_everywhere', { 'set-cookie': cookie });
}

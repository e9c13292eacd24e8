// Set-password links and their mail: an invitation (new user, or sent again from the team page)
// and a password reset asked for on the sign-in page (`/portal/forgot-password`). A link is a
// random token stored as its hash, single use, expiring; using one makes the user's other links
// void (runtime/store/repositories/portal.ts). The link goes into the mail only, never to a log
// (docs/decisions/portal.md, 'Users are removed at once; a forgotten password is reset by mail').
import { randomBytes } from 'node:crypto';
import { invitationMail, passwordResetMail } from '../../mail/messages.ts';
import { sha256Hex } from '../../secrets/hash.ts';
import type { User } from '../../store/store.ts';
import { escapeHtml } from '../html.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';
import { clientAddress } from '../session.ts';

/** A new set-password link of the user, valid for `validSeconds`. */
export async function newPasswordLink(kit: PortalKit, userId: string, validSeconds: number): Promise<string> {
  const g = kit.g;
  const token = randomBytes(32).toString('base64url');
  await g.store.portal.createPasswordLink({
    tokenHash: sha256Hex(token),
    userId,
    expiresAt: new Date(g.now().getTime() + validSeconds * 1000),
  });
  return `${g.config.publicBaseUrl}/portal/set-password/${token}`;
}

/** Mails an invitation (a test's own delivery instead, when it gave one). False when the mail failed. */
export async function mailInvitation(
  kit: PortalKit,
  to: User,
  link: string,
  about: { readonly account: string; readonly inviter: string },
): Promise<boolean> {
  if (kit.options.deliverPasswordLink) {
    kit.options.deliverPasswordLink({ email: to.email, name: to.name }, link);
    return true;
  }
  return kit.g.mail.send(invitationMail(kit.g.platform, to, { ...about, link }));
}

/**
 * `/portal/forgot-password`: asks for an address and mails a reset link when it belongs to a user.
 * The answer is the same whether it does or not, and comes before the mail is handed on, so that
 * neither its words nor its time tell who has an account here. An address may ask
 * `passwordResetsPerAddress` times per sign-in window, and as many mails go to one user at most.
 */
export async function forgotPassword(kit: PortalKit, r: PortalRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const limits = g.platform.limits;
  const minutes = Math.round(limits.passwordResetValidSeconds / 60);
  const show = (status: number, message: string) => {
    const form = kit.sessions.formToken(r.req);
    const body =
      `${message}<p>${t('forgot_intro', { minutes })}</p><form method="post" action="/portal/forgot-password">` +
      `<input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}"><label for="email">${t('field_email')}` +
      '</label><input type="email" id="email" name="email" autocomplete="username" required><button type="submit">' +
      `${t('forgot_button')}</button></form>`;
    return kit.view(r, status, plain('forgot_title'), body, form.setCookie ? { 'set-cookie': form.setCookie } : {});
  };
  if (r.req.method === 'GET') return show(200, '');
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const key = `reset-ip:${clientAddress(r.req)}`;
  const since = new Date(g.now().getTime() - limits.signInWindowSeconds * 1000);
  const asked = (await g.store.portal.countSignInFailures([key], since)).get(key) ?? 0;
  const limit = limits.passwordResetsPerAddress;
  if (asked >= limit) {
    const wait = Math.ceil(limits.signInWindowSeconds / 60);
    return show(429, `<p class="error" role="alert">${t('sign_in_rate_limited', { minutes: wait })}</p>`);
  }
  await g.store.portal.recordSignInFailure([key], g.now());
  const user = await g.store.users.findUserByEmail((form.get('email') ?? '').trim().slice(0, 254));
  // One user's mailbox is not flooded from many addresses either: past the limit, no mail (same answer).
  const userKey = `reset-user:${user?.id}`;
  const flooded = user && ((await g.store.portal.countSignInFailures([userKey], since)).get(userKey) ?? 0) >= limit;
  if (user && !flooded) {
    await g.store.portal.recordSignInFailure([userKey], g.now());
    const link = await newPasswordLink(kit, user.id, limits.passwordResetValidSeconds);
    await kit.audit(r, user, 'user.password_reset', user.id, { email: user.email, via: 'sign-in page' });
    if (kit.options.deliverPasswordLink) kit.options.deliverPasswordLink({ email: user.email, name: user.name }, link);
    else void g.mail.send(passwordResetMail(g.platform, user, link));
  }
  return show(200, `<p class="ok" role="status">${t('forgot_sent')}</p>`);
}

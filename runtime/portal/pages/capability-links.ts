// Purchase, team and terms links: the signed-in user of the link goes to the portal page; without a
// session the link acts for its own user only, as the short-lived capability it is.
import type { ConnectorRuntime } from '../../gateway-context.ts';
import type { LinkPayload } from '../../secrets/signed-links.ts';
import type { Account, User } from '../../store/store.ts';
import { escapeHtml, postButton, redirect } from '../html.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';

/** A capability link's page in hand: its user, where its form posts, and how it answers. */
interface LinkPage {
  readonly user: User;
  readonly account: Account;
  /** The link's own path: its forms post back to it. */
  readonly action: string;
  /** The CSRF token of the link's forms (no session: the form-token cookie's). */
  readonly csrf: string;
  /** The posted form (its CSRF token checked), undefined on GET. */
  readonly posted: URLSearchParams | undefined;
  /** A page without the navigation (the link acts for its user, not a session). */
  view(status: number, title: string, body: string): number;
  /** "Sign in for the whole portal", pointing back at the link. */
  readonly signInHint: string;
}

/**
 * Purchase, team and terms links. The link's user signed in: the portal page. Otherwise the
 * link is the capability it always was, on the same page content (with its own CSRF token).
 */
export async function capabilityLink(
  kit: PortalKit,
  r: PortalRequest,
  purpose: 'purchase' | 'team' | 'terms',
  payload: LinkPayload,
  token: string,
): Promise<number> {
  const { t } = kit.text;
  const requester = await kit.requesterOf(payload);
  const connector = kit.connectorOf(payload.connectorKey);
  if (!requester || (!connector && purpose !== 'terms')) {
    r.req.resume();
    return kit.linkInvalid(r, 'invalid');
  }
  const { user, account } = requester;
  if (r.signedIn?.user.id === user.id) {
    r.req.resume();
    return redirect(r.res, purpose === 'purchase' ? '/portal/connectors' : `/portal/${purpose}`);
  }
  // Without a session (or signed in as someone else): the link acts for its own user only.
  const form = kit.sessions.formToken(r.req);
  const cookie = form.setCookie ? { 'set-cookie': form.setCookie } : undefined;
  const action = `/portal/${purpose}/${token}`;
  let posted: URLSearchParams | undefined;
  if (r.req.method === 'POST') {
    posted = await kit.form({ ...r, signedIn: undefined });
    if (!posted) return r.res.statusCode;
  }
  const page: LinkPage = {
    user,
    account,
    action,
    csrf: form.csrf,
    posted,
    view: (status, title, body) => kit.view({ ...r, signedIn: undefined }, status, title, body, cookie),
    signInHint:
      `<p class="note">${t('link_sign_in_hint')} <a href="/portal/sign-in?next=${encodeURIComponent(action)}">` +
      `${t('sign_in_button')}` +
      '</a></p>',
  };
  if (purpose === 'terms') return termsLink(kit, r, page);
  return purpose === 'purchase' ? purchaseLink(kit, r, page, connector!) : teamLink(kit, r, page, connector!);
}

/** A terms link: the terms, and accepting them for the link's user. */
async function termsLink(
  kit: PortalKit,
  r: PortalRequest,
  { user, action, csrf, posted, view, signInHint }: LinkPage,
): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  if (posted) {
    await g.store.users.acceptTerms(user.id, g.now());
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'terms.accept', user.id, { via: 'link' });
    return view(
      200,
      plain('terms_title'),
      `<p class="ok" role="status">${t('done_terms_accepted')}</p><p>${t('terms_accepted_next')}</p>`,
    );
  }
  return view(
    200,
    plain('terms_title'),
    `<p>${t('terms_text')}</p>${postButton(action, csrf, plain('terms_accept'))}${signInHint}`,
  );
}

/** A purchase link: subscribing the account to the link's connector (an administrator, where self-service is on). */
async function purchaseLink(
  kit: PortalKit,
  r: PortalRequest,
  { user, account, action, csrf, posted, view, signInHint }: LinkPage,
  c: ConnectorRuntime,
): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const title = plain('purchase_title', { connector: c.descriptor.title });
  if (g.state.isSubscribed(account.id, c.config.key))
    return view(200, title, `<p>${t('purchase_subscribed')}</p>${signInHint}`);
  if (!kit.options.selfServicePurchase) return view(200, title, `<p>${t('purchase_by_operator')}</p>`);
  if (user.role !== 'admin') return view(403, title, `<p>${t('purchase_admin_only')}</p>`);
  if (posted) {
    await g.store.accounts.setSubscription(account.id, c.config.key, true);
    await g.store.users.setSeat(user.id, c.config.key, true);
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'subscription.set', c.config.key, {
      subscribed: 'on',
      seat_for: user.email,
      via: 'link',
    });
    return view(200, title, `<p class="ok" role="status">${t('purchase_done')}</p>${signInHint}`);
  }
  return view(
    200,
    title,
    `<p>${t('purchase_intro', { connector: c.descriptor.title, id: c.config.id, account: account.name })}</p>` +
      `${postButton(action, csrf, plain('subscribe_button', { connector: c.descriptor.title }))}` +
      `${signInHint}`,
  );
}

/** A team link: the seats of the link's connector (an administrator changes them). */
async function teamLink(
  kit: PortalKit,
  r: PortalRequest,
  { user, account, action, csrf, posted, view, signInHint }: LinkPage,
  c: ConnectorRuntime,
): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const users = await g.store.users.listUsers(account.id);
  const key = c.config.key;
  const admin = user.role === 'admin';
  let top = '';
  if (posted) {
    if (!admin) return view(403, plain('team_title'), `<p class="error">${t('admin_only')}</p>`);
    const seated = new Set(posted.getAll('seat'));
    const changes: string[] = [];
    for (const u of users) {
      const on = seated.has(`${u.id}|${key}`);
      if (on !== g.state.hasSeat(u.id, key)) {
        await g.store.users.setSeat(u.id, key, on);
        changes.push(`${u.email}:${key}:${on ? 'on' : 'off'}`);
      }
    }
    await g.state.refresh();
    if (changes.length)
      await kit.audit(r, { ...user }, 'seats.set', account.id, { changes: changes.join(','), via: 'link' });
    top = `<p class="ok" role="status">${t('done_seats_saved')}</p>`;
  }
  const used = users.filter((u) => g.state.hasSeat(u.id, key)).length;
  const rows = users
    .map((u) => {
      const has = g.state.hasSeat(u.id, key);
      const id = `seat-${escapeHtml(u.id)}`;
      const cell = admin
        ? `<input type="checkbox" id="${id}" name="seat" value="${escapeHtml(`${u.id}|${key}`)}"` +
          `${has ? ' checked' : ''}` +
          `> <label class="inline" for="${id}">${t('seat_label', { name: u.name, connector: c.descriptor.title })}` +
          '</label>'
        : t(has ? 'answer_yes' : 'answer_no');
      return (
        `<tr><th scope="row">${escapeHtml(u.name)}</th><td>${escapeHtml(u.email)}</td><td>${t(`role_${u.role}`)}` +
        `</td><td>${cell}</td></tr>`
      );
    })
    .join('');
  const table =
    `<table><caption>${t('seats_in_use_of', { connector: c.descriptor.title, used, users: users.length })}</caption>` +
    `<thead><tr><th scope="col">${t('col_name')}</th><th scope="col">${t('col_email')}</th><th scope="col">` +
    `${t('col_role')}` +
    `</th><th scope="col">${t('col_seat_on', { connector: c.config.id })}</th></tr></thead><tbody>${rows}</tbody>` +
    '</table>';
  const body = admin
    ? `${top}<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="` +
      `${escapeHtml(csrf)}` +
      `">${table}<button type="submit">${t('save_seats')}</button></form>${signInHint}`
    : `${table}<p class="note">${t('team_member_note', {
        admins:
          users
            .filter((u) => u.role === 'admin')
            .map((u) => u.email)
            .join(', ') || '—',
      })}</p>`;
  return view(200, plain('team_title'), body);
}

// The team page: seats per subscribed connector, roles, and invitations (administrators change them).
import type { ConnectorRuntime } from '../../gateway-context.ts';
import { StoreError } from '../../store/sql-store.ts';
import type { User, UserRole } from '../../store/store.ts';
import { demotesLastAdmin } from '../account-rules.ts';
import { escapeHtml, redirect } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';
import { mailInvitation, newPasswordLink } from './password-links.ts';

const MAX_EMAIL = 254;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The team page (also reached through a team link, `via`: then only the link's connector). */
export async function team(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t } = kit.text;
  const { account, user } = r.signedIn;
  const users = await kit.accountUsers(r);
  const subscribed = kit.connectors().filter((c) => g.state.isSubscribed(account.id, c.config.key));
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    if (!kit.isAdmin(r)) return kit.adminOnly(r);
    const action = form.get('action');
    if (action === 'seats') {
      const wanted = new Set(form.getAll('seat'));
      const changes: string[] = [];
      for (const c of subscribed) {
        for (const u of users) {
          const on = wanted.has(`${u.id}|${c.config.key}`);
          if (on !== g.state.hasSeat(u.id, c.config.key)) {
            await g.store.users.setSeat(u.id, c.config.key, on);
            changes.push(`${u.email}:${c.config.key}:${on ? 'on' : 'off'}`);
          }
        }
      }
      await g.state.refresh();
      if (changes.length) await kit.audit(r, { ...user }, 'seats.set', account.id, { changes: changes.join(',') });
      return redirect(r.res, '/portal/team?done=seats_saved');
    }
    if (action === 'role') {
      const target = users.find((u) => u.id === form.get('user'));
      const role = form.get('role');
      if (!target || (role !== 'admin' && role !== 'member'))
        return kit.notice(r, 400, 'bad_request_title', 'unknown_user');
      // The last administrator cannot step down: someone must be able to manage the account.
      // A refused form answers on the page itself, above the form (docs/decisions/portal.md, 'Form errors in place').
      if (demotesLastAdmin(users, target, role))
        return teamPage(kit, r, users, subscribed, 400, `<p class="error" role="alert">${t('last_admin')}</p>`);
      await g.store.users.setUserRole(target.id, role as UserRole);
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'user.role', target.id, { email: target.email, role });
      return redirect(r.res, '/portal/team?done=role_saved');
    }
    if (action === 'invite') {
      const email = (form.get('email') ?? '').trim();
      const name = (form.get('name') ?? '').trim().slice(0, 200);
      const role = form.get('role') === 'admin' ? 'admin' : 'member';
      if (!EMAIL.test(email) || email.length > MAX_EMAIL || !name)
        return teamPage(kit, r, users, subscribed, 400, `<p class="error" role="alert">${t('invite_invalid')}</p>`);
      let invited: User;
      try {
        invited = await g.store.users.createUser({ accountId: account.id, email, name, role });
      } catch (error) {
        if (error instanceof StoreError && error.code === 'conflict')
          return teamPage(kit, r, users, subscribed, 409, `<p class="error" role="alert">${t('invite_exists')}</p>`);
        throw error;
      }
      await g.state.refresh();
      const link = await newPasswordLink(kit, invited.id, g.platform.limits.passwordLinkValidSeconds);
      const mailed = await mailInvitation(kit, invited, link, { account: account.name, inviter: user.name });
      await kit.audit(r, { ...user }, 'user.invite', invited.id, { email: invited.email, role, mailed });
      const shown =
        `<div class="ok" role="status"><p>${t('invite_done', { email: invited.email })}</p>` +
        `${mailed ? '' : `<p class="error" role="alert">${t('mail_failed')}</p>`}<p>${t('invite_link_note')}` +
        `</p><p class="secret">${escapeHtml(link)}</p></div>`;
      return teamPage(kit, r, await kit.accountUsers(r), subscribed, 200, shown);
    }
    if (action === 'remove' || action === 'resend') return removeOrResend(kit, r, users, subscribed, action, form);
    return kit.notice(r, 400, 'bad_request_title', 'unknown_action');
  }
  return teamPage(kit, r, users, subscribed, 200, kit.done(r));
}

/**
 * Removing a user ends their sessions, API tokens, OAuth grants and seats at once (one delete;
 * this replica reloads and the others follow by the change log); sending an invitation again mails
 * a new set-password link.
 */
async function removeOrResend(
  kit: PortalKit,
  r: SignedInRequest,
  users: readonly User[],
  subscribed: readonly ConnectorRuntime[],
  action: 'remove' | 'resend',
  form: URLSearchParams,
): Promise<number> {
  const g = kit.g;
  const { t } = kit.text;
  const { account, user } = r.signedIn;
  const target = users.find((u) => u.id === form.get('user'));
  if (!target) return kit.notice(r, 400, 'bad_request_title', 'unknown_user');
  if (action === 'resend') {
    const link = await newPasswordLink(kit, target.id, g.platform.limits.passwordLinkValidSeconds);
    const mailed = await mailInvitation(kit, target, link, { account: account.name, inviter: user.name });
    await kit.audit(r, { ...user }, 'user.invite_resend', target.id, { email: target.email, mailed });
    if (!mailed)
      return teamPage(kit, r, users, subscribed, 502, `<p class="error" role="alert">${t('mail_failed')}</p>`);
    return redirect(r.res, '/portal/team?done=invite_sent');
  }
  // Someone must be able to manage the account: an administrator removes others, never themself
  // (so the last administrator stays).
  if (target.id === user.id) return kit.notice(r, 400, 'bad_request_title', 'remove_self');
  if (form.get('confirm') !== 'yes')
    return teamPage(kit, r, users, subscribed, 400, `<p class="error" role="alert">${t('remove_not_confirmed')}</p>`);
  const removed = await g.store.users.deleteUser(target.id);
  if (!removed) return kit.notice(r, 400, 'bad_request_title', 'unknown_user');
  await g.state.refresh();
  await kit.audit(r, { ...user }, 'user.remove', target.id, { email: target.email, ...removed });
  return redirect(r.res, '/portal/team?done=user_removed');
}

function teamPage(
  kit: PortalKit,
  r: SignedInRequest,
  users: readonly User[],
  subscribed: readonly ConnectorRuntime[],
  status: number,
  top: string,
): number {
  const g = kit.g;
  const { t, plain } = kit.text;
  const admin = kit.isAdmin(r);
  const { csrf } = r.signedIn;
  const counts = subscribed.length
    ? '<ul>' +
      subscribed
        .map(
          (c) =>
            `<li>${t('seats_in_use_of', {
              connector: c.descriptor.title,
              used: kit.seatCount(users, c.config.key),
              users: users.length,
            })}</li>`,
        )
        .join('') +
      '</ul>'
    : `<p>${t('team_no_subscriptions')}</p>`;
  const head =
    `<tr><th scope="col">${t('col_name')}</th><th scope="col">${t('col_email')}</th><th scope="col">${t('col_role')}` +
    `</th>${subscribed.map((c) => `<th scope="col">${t('col_seat_on', { connector: c.config.id })}</th>`).join('')}` +
    '</tr>';
  const rows = users
    .map((u) => {
      const seats = subscribed
        .map((c) => {
          const has = g.state.hasSeat(u.id, c.config.key);
          if (!admin) return `<td>${t(has ? 'answer_yes' : 'answer_no')}</td>`;
          const id = `seat-${escapeHtml(u.id)}-${escapeHtml(c.config.key)}`;
          return (
            `<td><input type="checkbox" id="${id}" name="seat" value="${escapeHtml(`${u.id}|${c.config.key}`)}"` +
            `${has ? ' checked' : ''}` +
            `> <label class="inline" for="${id}">${t('seat_label', { name: u.name, connector: c.descriptor.title })}` +
            '</label></td>'
          );
        })
        .join('');
      return (
        `<tr><th scope="row">${escapeHtml(u.name)}</th><td>${escapeHtml(u.email)}</td><td>${t(`role_${u.role}`)}` +
        `</td>${seats}</tr>`
      );
    })
    .join('');
  const table = `<table><caption>${t('team_caption')}</caption><thead>${head}</thead><tbody>${rows}</tbody></table>`;
  let body = `${top}<h2>${t('team_seats_heading')}</h2>${counts}`;
  if (!admin) {
    const admins = users.filter((u) => u.role === 'admin').map((u) => u.email);
    body += `${table}<p class="note">${t('team_member_note', { admins: admins.join(', ') || '—' })}</p>`;
    return kit.view(r, status, plain('team_title'), body);
  }
  body +=
    `<form method="post" action="/portal/team"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input ` +
    `type="hidden" name="action" value="seats">${table}` +
    `${subscribed.length ? `<button type="submit">${t('save_seats')}</button>` : ''}` +
    '</form>';
  const userOptions = users.map(userOption).join('');
  const roleOptions = (['member', 'admin'] as const)
    .map((role) => `<option value="${role}">${t(`role_${role}`)}</option>`)
    .join('');
  body +=
    `<h2>${t('team_role_heading')}</h2><form method="post" action="/portal/team"><input type="hidden" name="csrf" ` +
    `value="${escapeHtml(csrf)}"><input type="hidden" name="action" value="role"><label for="role-user">` +
    `${t('field_user')}` +
    `</label><select id="role-user" name="user">${userOptions}</select><label for="role-role">${t('field_role')}` +
    `</label><select id="role-role" name="role">${roleOptions}</select><button type="submit">${t('save_role')}` +
    '</button></form>';
  body +=
    `<h2>${t('team_invite_heading')}</h2><p class="note">${t('team_invite_note')}</p><form method="post" ` +
    `action="/portal/team"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" ` +
    `name="action" value="invite"><label for="invite-name">${t('field_name')}</label><input type="text" ` +
    `id="invite-name" name="name" required autocomplete="off"><label for="invite-email">${t('field_email')}</label>` +
    '<input type="email" id="invite-email" name="email" required autocomplete="off"><label for="invite-role">' +
    `${t('field_role')}` +
    `</label><select id="invite-role" name="role">${roleOptions}</select><button type="submit">${t('invite_button')}` +
    '</button></form>';
  body += userForm(kit, r, 'resend', userOptions);
  body += userForm(
    kit,
    r,
    'remove',
    users
      .filter((u) => u.id !== r.signedIn.user.id)
      .map(userOption)
      .join(''),
  );
  return kit.view(r, status, plain('team_title'), body);
}

const userOption = (u: User) => `<option value="${escapeHtml(u.id)}">${escapeHtml(`${u.name} (${u.email})`)}</option>`;

/** The form that sends an invitation again, or removes a user (with a confirmation box). */
function userForm(kit: PortalKit, r: SignedInRequest, action: 'remove' | 'resend', options: string): string {
  const { t } = kit.text;
  const confirm =
    action === 'remove'
      ? '<p><input type="checkbox" id="remove-confirm" name="confirm" value="yes" required> <label class="inline" ' +
        `for="remove-confirm">${t('remove_confirm')}</label></p>`
      : '';
  return (
    `<h2>${t(action === 'remove' ? 'team_remove_heading' : 'team_resend_heading')}</h2><p class="note">` +
    `${t(action === 'remove' ? 'team_remove_note' : 'team_resend_note')}</p><form method="post" ` +
    `action="/portal/team"><input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}"><input ` +
    `type="hidden" name="action" value="${action}"><label for="${action}-user">${t('field_user')}</label><select ` +
    `id="${action}-user" name="user">${options}</select>${confirm}<button type="submit">` +
    `${t(action === 'remove' ? 'remove_button' : 'resend_button')}</button></form>`
  );
}

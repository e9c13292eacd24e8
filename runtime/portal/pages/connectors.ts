// The connectors page: every connector, its seats in use, and (where allowed) subscribing.
import { escapeHtml, postButton, redirect } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';

export async function connectorsPage(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { account } = r.signedIn;
  const users = await kit.accountUsers(r);
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    if (!kit.isAdmin(r)) return kit.adminOnly(r);
    if (!kit.options.selfServicePurchase) return kit.notice(r, 403, 'forbidden_title', 'purchase_by_operator');
    const connector = kit.connectors().find((c) => c.config.key === form.get('connector'));
    if (!connector) return kit.notice(r, 400, 'bad_request_title', 'unknown_connector');
    await g.store.accounts.setSubscription(account.id, connector.config.key, true);
    await g.store.users.setSeat(r.signedIn.user.id, connector.config.key, true);
    await g.state.refresh();
    await kit.audit(r, { ...r.signedIn.user }, 'subscription.set', connector.config.key, {
      subscribed: 'on',
      seat_for: r.signedIn.user.email,
    });
    return redirect(r.res, '/portal/connectors?done=subscribed');
  }
  const rows = kit
    .connectors()
    .map((c) => {
      const key = c.config.key;
      const subscribed = g.state.isSubscribed(account.id, key);
      let action: string;
      if (subscribed) action = t('connectors_subscribed');
      else if (!kit.options.selfServicePurchase) action = t('purchase_by_operator');
      else if (!kit.isAdmin(r)) action = t('purchase_admin_only');
      else
        action = postButton(
          '/portal/connectors',
          r.signedIn.csrf,
          plain('subscribe_button', { connector: c.descriptor.title }),
          { connector: key },
        );
      const seats = subscribed ? t('seats_in_use', { used: kit.seatCount(users, key), users: users.length }) : '—';
      return (
        `<tr><th scope="row">${escapeHtml(c.descriptor.title)}</th><td><code>${escapeHtml(c.config.id)}</code></td>` +
        `<td>${seats}</td><td>${action}</td></tr>`
      );
    })
    .join('');
  const body =
    `${kit.done(r)}<p>${t('connectors_intro')}</p><table><caption>${t('connectors_caption')}</caption><thead><tr>` +
    `<th scope="col">${t('col_connector')}</th><th scope="col">${t('col_id')}</th><th scope="col">${t('col_seats')}` +
    `</th><th scope="col">${t('col_subscription')}</th></tr></thead><tbody>${rows}</tbody></table>`;
  return kit.view(r, 200, plain('connectors_title'), body);
}

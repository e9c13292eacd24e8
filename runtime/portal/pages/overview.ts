// The overview: the account, the terms, subscriptions, usage this month, connections, sessions.
import { escapeHtml, postButton } from '../html.ts';
import { fmtDate, type PortalKit, type SignedInRequest } from '../kit.ts';

export async function overview(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { user, account } = r.signedIn;
  const subscribed = kit.connectors().filter((c) => g.state.isSubscribed(account.id, c.config.key));
  const record = await g.meter.usageRecord(g.state.account(account.id) ?? account, g.now());
  const connections = await g.store.connections.listConnections(account.id);
  const termsLine = user.termsAcceptedAt
    ? `<p>${t('overview_terms_accepted', { date: fmtDate(user.termsAcceptedAt) })}</p>`
    : `<p class="warning">${t('overview_terms_pending')} <a href="/portal/terms">${t('terms_open')}</a></p>`;
  const body = [
    kit.done(r),
    `<p>${t('overview_intro', { account: account.name, role: plain(`role_${user.role}`) })}</p>`,
    termsLine,
    `<h2>${t('overview_subscriptions')}</h2>`,
    subscribed.length
      ? '<ul>' +
        subscribed
          .map(
            (c) =>
              `<li>${escapeHtml(c.descriptor.title)} (<code>${escapeHtml(c.config.id)}</code>)` +
              `${g.state.hasSeat(user.id, c.config.key) ? ` — ${t('overview_you_hold_seat')}` : ''}</li>`,
          )
          .join('') +
        '</ul>'
      : `<p>${t('overview_no_subscriptions')} <a href="/portal/connectors">${t('nav_connectors')}</a></p>`,
    `<h2>${t('overview_usage')}</h2><p>` +
      `${t('usage_summary', { used: record.fairUse.used, limit: record.fairUse.limit, month: record.fairUse.month })}` +
      '</p>',
    `<h2>${t('overview_connections')}</h2><p>` +
      t('overview_connections_count', {
        connected: connections.filter((c) => !c.reconnectRequiredAt).length,
        reconnect: connections.filter((c) => c.reconnectRequiredAt).length,
      }) +
      ` <a href="/portal/connections">${t('nav_connections')}</a></p>`,
    `<h2>${t('overview_sessions')}</h2><p class="note">${t('overview_sessions_note')}</p>`,
    postButton('/portal/sign-out-everywhere', r.signedIn.csrf, plain('sign_out_everywhere'), {}, 'secondary'),
  ].join('');
  return kit.view(r, 200, plain('overview_title'), body);
}

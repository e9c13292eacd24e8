// The signed-in portal pages: overview, connectors (subscribe), team (invite, roles, seats),
// connections (status, connect, reconnect, disconnect), usage (chart, fair use, quota), API tokens,
// terms, the data-layer opt-in and the audit log. Every page reads only the signed-in user's
// account; every id a form names is checked against that account; members see only what a member
// may (administrator pages answer 403). After a change: an audit entry and a redirect to the page
// with a confirmation (`?done=`), so a reload never posts twice.
import { randomBytes } from 'node:crypto';
import type { ConnectorRuntime, Endpoint } from '../gateway-context.ts';
import type { CredentialKind } from '../handler-api/descriptor-types.ts';
import { StoreError } from '../platform/sql-store.ts';
import type { Connection, FairUseMode, User, UserRole } from '../platform/store.ts';
import { issueToken } from '../platform/tokens.ts';
import { barChart, escapeHtml, postButton, redirect } from './html.ts';
import type { PortalKit, PortalRequest, SignedInRequest } from './kit.ts';
import { sha256 } from './session.ts';

/** The form fields of each credential kind a tenant enters (OAuth connects through the provider). */
export const CREDENTIAL_FORM_FIELDS: Readonly<Record<Exclude<CredentialKind, 'managed_basic' | 'oauth2'>, ReadonlyArray<{ name: string; label: string; secret: boolean }>>> = {
  api_key: [{ name: 'apiKey', label: 'field_api_key', secret: true }],
  static_token: [{ name: 'token', label: 'field_grant_token', secret: true }],
  login_company: [
    { name: 'username', label: 'field_username', secret: false },
    { name: 'password', label: 'field_password', secret: true },
    { name: 'companyId', label: 'field_company_id', secret: false },
  ],
};

/** Confirmations a page shows after a redirect (`?done=<name>`): only these names. */
const DONE = new Set([
  'subscribed',
  'seats_saved',
  'role_saved',
  'connected',
  'disconnected',
  'quota_saved',
  'token_revoked',
  'grant_revoked',
  'terms_accepted',
  'data_layer_enabled',
  'data_layer_disabled',
]);

const MAX_EMAIL = 254;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export type ConnectionStatus = 'connected' | 'reconnect' | 'never';

export function connectionStatus(connection: Connection | undefined): ConnectionStatus {
  if (!connection) return 'never';
  return connection.reconnectRequiredAt ? 'reconnect' : 'connected';
}

/** What the OAuth start needs from the portal: the same flow the connect link starts. */
export type OAuthStarter = (r: PortalRequest, target: { accountId: string; userId: string; instanceId: string; jti: string }, connector: ConnectorRuntime) => Promise<number>;

export function createAccountPages(kit: PortalKit, startOAuth: OAuthStarter) {
  const g = kit.g;
  const t = kit.t.bind(kit);
  const plain = kit.text.plain;

  const connectors = (): ConnectorRuntime[] => [...new Map([...g.endpoints.values()].map((e) => [e.connector.config.key, e.connector])).values()];
  const isAdmin = (r: SignedInRequest) => r.signedIn.user.role === 'admin';
  const done = (r: PortalRequest): string => {
    const name = r.query.get('done');
    return name && DONE.has(name) ? `<p class="ok" role="status">${t(`done_${name}`)}</p>` : '';
  };
  const adminOnly = (r: SignedInRequest) => kit.notice(r, 403, 'forbidden_title', 'admin_only');
  const fmtDate = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
  const accountUsers = (r: SignedInRequest) => g.store.listUsers(r.signedIn.account.id);
  const seatCount = (users: readonly User[], key: string) => users.filter((u) => g.state.hasSeat(u.id, key)).length;

  async function overview(r: SignedInRequest): Promise<number> {
    const { user, account } = r.signedIn;
    const subscribed = connectors().filter((c) => g.state.isSubscribed(account.id, c.config.key));
    const record = await g.meter.usageRecord(g.state.account(account.id) ?? account, g.now());
    const connections = await g.store.listConnections(account.id);
    const termsLine = user.termsAcceptedAt
      ? `<p>${t('overview_terms_accepted', { date: fmtDate(user.termsAcceptedAt) })}</p>`
      : `<p class="warning">${t('overview_terms_pending')} <a href="/portal/terms">${t('terms_open')}</a></p>`;
    const body = [
      done(r),
      `<p>${t('overview_intro', { account: account.name, role: plain(`role_${user.role}`) })}</p>`,
      termsLine,
      `<h2>${t('overview_subscriptions')}</h2>`,
      subscribed.length
        ? `<ul>${subscribed.map((c) => `<li>${escapeHtml(c.descriptor.title)} (<code>${escapeHtml(c.config.id)}</code>)${g.state.hasSeat(user.id, c.config.key) ? ` — ${t('overview_you_hold_seat')}` : ''}</li>`).join('')}</ul>`
        : `<p>${t('overview_no_subscriptions')} <a href="/portal/connectors">${t('nav_connectors')}</a></p>`,
      `<h2>${t('overview_usage')}</h2><p>${t('usage_summary', { used: record.fairUse.used, limit: record.fairUse.limit, month: record.fairUse.month })}</p>`,
      `<h2>${t('overview_connections')}</h2><p>${t('overview_connections_count', { connected: connections.filter((c) => !c.reconnectRequiredAt).length, reconnect: connections.filter((c) => c.reconnectRequiredAt).length })} <a href="/portal/connections">${t('nav_connections')}</a></p>`,
      `<h2>${t('overview_sessions')}</h2><p class="note">${t('overview_sessions_note')}</p>`,
      postButton('/portal/sign-out-everywhere', r.signedIn.csrf, plain('sign_out_everywhere'), {}, 'secondary'),
    ].join('');
    return kit.view(r, 200, plain('overview_title'), body);
  }

  async function connectorsPage(r: SignedInRequest): Promise<number> {
    const { account } = r.signedIn;
    const users = await accountUsers(r);
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      if (!isAdmin(r)) return adminOnly(r);
      if (!kit.options.selfServicePurchase) return kit.notice(r, 403, 'forbidden_title', 'purchase_by_operator');
      const connector = connectors().find((c) => c.config.key === form.get('connector'));
      if (!connector) return kit.notice(r, 400, 'bad_request_title', 'unknown_connector');
      await g.store.setSubscription(account.id, connector.config.key, true);
      await g.store.setSeat(r.signedIn.user.id, connector.config.key, true);
      await g.state.refresh();
      await kit.audit(r, { ...r.signedIn.user }, 'subscription.set', connector.config.key, { subscribed: 'on', seat_for: r.signedIn.user.email });
      return redirect(r.res, '/portal/connectors?done=subscribed');
    }
    const rows = connectors()
      .map((c) => {
        const key = c.config.key;
        const subscribed = g.state.isSubscribed(account.id, key);
        let action: string;
        if (subscribed) action = t('connectors_subscribed');
        else if (!kit.options.selfServicePurchase) action = t('purchase_by_operator');
        else if (!isAdmin(r)) action = t('purchase_admin_only');
        else action = postButton('/portal/connectors', r.signedIn.csrf, plain('subscribe_button', { connector: c.descriptor.title }), { connector: key });
        const seats = subscribed ? t('seats_in_use', { used: seatCount(users, key), users: users.length }) : '—';
        return `<tr><th scope="row">${escapeHtml(c.descriptor.title)}</th><td><code>${escapeHtml(c.config.id)}</code></td><td>${seats}</td><td>${action}</td></tr>`;
      })
      .join('');
    const body = `${done(r)}<p>${t('connectors_intro')}</p><table><caption>${t('connectors_caption')}</caption><thead><tr><th scope="col">${t('col_connector')}</th><th scope="col">${t('col_id')}</th><th scope="col">${t('col_seats')}</th><th scope="col">${t('col_subscription')}</th></tr></thead><tbody>${rows}</tbody></table>`;
    return kit.view(r, 200, plain('connectors_title'), body);
  }

  /** The team page (also reached through a team link, `via`: then only the link's connector). */
  async function team(r: SignedInRequest): Promise<number> {
    const { account, user } = r.signedIn;
    const users = await accountUsers(r);
    const subscribed = connectors().filter((c) => g.state.isSubscribed(account.id, c.config.key));
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      if (!isAdmin(r)) return adminOnly(r);
      const action = form.get('action');
      if (action === 'seats') {
        const wanted = new Set(form.getAll('seat'));
        const changes: string[] = [];
        for (const c of subscribed) {
          for (const u of users) {
            const on = wanted.has(`${u.id}|${c.config.key}`);
            if (on !== g.state.hasSeat(u.id, c.config.key)) {
              await g.store.setSeat(u.id, c.config.key, on);
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
        if (!target || (role !== 'admin' && role !== 'member')) return kit.notice(r, 400, 'bad_request_title', 'unknown_user');
        // The last administrator cannot step down: someone must be able to manage the account.
        if (role === 'member' && target.role === 'admin' && users.filter((u) => u.role === 'admin').length <= 1) return kit.notice(r, 400, 'bad_request_title', 'last_admin');
        await g.store.setUserRole(target.id, role as UserRole);
        await g.state.refresh();
        await kit.audit(r, { ...user }, 'user.role', target.id, { email: target.email, role });
        return redirect(r.res, '/portal/team?done=role_saved');
      }
      if (action === 'invite') {
        const email = (form.get('email') ?? '').trim();
        const name = (form.get('name') ?? '').trim().slice(0, 200);
        const role = form.get('role') === 'admin' ? 'admin' : 'member';
        if (!EMAIL.test(email) || email.length > MAX_EMAIL || !name) return teamPage(r, users, subscribed, 400, `<p class="error" role="alert">${t('invite_invalid')}</p>`);
        let invited: User;
        try {
          invited = await g.store.createUser({ accountId: account.id, email, name, role });
        } catch (error) {
          if (error instanceof StoreError && error.code === 'conflict') return teamPage(r, users, subscribed, 409, `<p class="error" role="alert">${t('invite_exists')}</p>`);
          throw error;
        }
        await g.state.refresh();
        const link = await newPasswordLink(invited.id);
        kit.options.deliverPasswordLink?.({ email: invited.email, name: invited.name }, link);
        await kit.audit(r, { ...user }, 'user.invite', invited.id, { email: invited.email, role });
        const shown = `<div class="ok" role="status"><p>${t('invite_done', { email: invited.email })}</p><p>${t('invite_link_note')}</p><p class="secret">${escapeHtml(link)}</p></div>`;
        return teamPage(r, await accountUsers(r), subscribed, 200, shown);
      }
      return kit.notice(r, 400, 'bad_request_title', 'unknown_action');
    }
    return teamPage(r, users, subscribed, 200, done(r));
  }

  async function newPasswordLink(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const validSeconds = g.platform.limits.passwordLinkValidSeconds!;
    await g.store.createPasswordLink({ tokenHash: sha256(token), userId, expiresAt: new Date(g.now().getTime() + validSeconds * 1000) });
    return `${g.config.publicBaseUrl}/portal/set-password/${token}`;
  }

  function teamPage(r: SignedInRequest, users: readonly User[], subscribed: readonly ConnectorRuntime[], status: number, top: string): number {
    const admin = isAdmin(r);
    const { csrf } = r.signedIn;
    const counts = subscribed.length
      ? `<ul>${subscribed.map((c) => `<li>${t('seats_in_use_of', { connector: c.descriptor.title, used: seatCount(users, c.config.key), users: users.length })}</li>`).join('')}</ul>`
      : `<p>${t('team_no_subscriptions')}</p>`;
    const head = `<tr><th scope="col">${t('col_name')}</th><th scope="col">${t('col_email')}</th><th scope="col">${t('col_role')}</th>${subscribed.map((c) => `<th scope="col">${t('col_seat_on', { connector: c.config.id })}</th>`).join('')}</tr>`;
    const rows = users
      .map((u) => {
        const seats = subscribed
          .map((c) => {
            const has = g.state.hasSeat(u.id, c.config.key);
            if (!admin) return `<td>${t(has ? 'answer_yes' : 'answer_no')}</td>`;
            const id = `seat-${escapeHtml(u.id)}-${escapeHtml(c.config.key)}`;
            return `<td><input type="checkbox" id="${id}" name="seat" value="${escapeHtml(`${u.id}|${c.config.key}`)}"${has ? ' checked' : ''}> <label class="inline" for="${id}">${t('seat_label', { name: u.name, connector: c.descriptor.title })}</label></td>`;
          })
          .join('');
        return `<tr><th scope="row">${escapeHtml(u.name)}</th><td>${escapeHtml(u.email)}</td><td>${t(`role_${u.role}`)}</td>${seats}</tr>`;
      })
      .join('');
    const table = `<table><caption>${t('team_caption')}</caption><thead>${head}</thead><tbody>${rows}</tbody></table>`;
    let body = `${top}<h2>${t('team_seats_heading')}</h2>${counts}`;
    if (!admin) {
      const admins = users.filter((u) => u.role === 'admin').map((u) => u.email);
      body += `${table}<p class="note">${t('team_member_note', { admins: admins.join(', ') || '—' })}</p>`;
      return kit.view(r, status, plain('team_title'), body);
    }
    body += `<form method="post" action="/portal/team"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="action" value="seats">${table}${subscribed.length ? `<button type="submit">${t('save_seats')}</button>` : ''}</form>`;
    const userOptions = users.map((u) => `<option value="${escapeHtml(u.id)}">${escapeHtml(`${u.name} (${u.email})`)}</option>`).join('');
    const roleOptions = (['member', 'admin'] as const).map((role) => `<option value="${role}">${t(`role_${role}`)}</option>`).join('');
    body += `<h2>${t('team_role_heading')}</h2><form method="post" action="/portal/team"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="action" value="role"><label for="role-user">${t('field_user')}</label><select id="role-user" name="user">${userOptions}</select><label for="role-role">${t('field_role')}</label><select id="role-role" name="role">${roleOptions}</select><button type="submit">${t('save_role')}</button></form>`;
    body += `<h2>${t('team_invite_heading')}</h2><p class="note">${t('team_invite_note')}</p><form method="post" action="/portal/team"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="action" value="invite"><label for="invite-name">${t('field_name')}</label><input type="text" id="invite-name" name="name" required autocomplete="off"><label for="invite-email">${t('field_email')}</label><input type="email" id="invite-email" name="email" required autocomplete="off"><label for="invite-role">${t('field_role')}</label><select id="invite-role" name="role">${roleOptions}</select><button type="submit">${t('invite_button')}</button></form>`;
    return kit.view(r, status, plain('team_title'), body);
  }

  /** Endpoint instances of the account's subscribed connectors, in configuration order. */
  const subscribedEndpoints = (accountId: string): Endpoint[] => [...g.endpoints.values()].filter((e) => g.state.isSubscribed(accountId, e.connector.config.key));

  async function connections(r: SignedInRequest): Promise<number> {
    const { account, user } = r.signedIn;
    const stored = new Map((await g.store.listConnections(account.id)).map((c) => [c.instanceId, c]));
    // Per connector: its first instance, every instance with a connection, and the next free one
    // (to connect another company file); not all 99 possible instances.
    const nextFree = new Set<string>();
    const shown = subscribedEndpoints(account.id).filter((e) => {
      if (e.instance === 1 || stored.has(e.instanceId)) return true;
      if (e.connector.descriptor.credential === 'managed_basic' || nextFree.has(e.connector.config.key)) return false;
      nextFree.add(e.connector.config.key);
      return true;
    });
    const rows = shown
      .map((e) => {
        const kind = e.connector.descriptor.credential;
        const title = escapeHtml(e.connector.descriptor.title);
        const url = `<code>${escapeHtml(kit.endpointUrl(e.instanceId))}</code>`;
        if (kind === 'managed_basic') return `<tr><th scope="row"><code>${escapeHtml(e.instanceId)}</code></th><td>${title}</td><td>${url}</td><td>${t('status_managed')}</td><td></td></tr>`;
        const connection = stored.get(e.instanceId);
        const status = connectionStatus(connection);
        const since = connection ? ` <span class="note">${t('status_since', { date: fmtDate(connection.reconnectRequiredAt ?? connection.updatedAt) })}</span>` : '';
        const actions: string[] = [];
        if (g.state.hasSeat(user.id, e.connector.config.key)) {
          actions.push(`<a href="/portal/connections/${escapeHtml(e.instanceId)}/connect">${t(status === 'never' ? 'connect_action' : 'reconnect_action', { instance: e.instanceId })}</a>`);
        }
        if (connection && isAdmin(r)) actions.push(postButton(`/portal/connections/${e.instanceId}/disconnect`, r.signedIn.csrf, plain('disconnect_button', { instance: e.instanceId }), {}, 'danger'));
        return `<tr><th scope="row"><code>${escapeHtml(e.instanceId)}</code></th><td>${title}</td><td>${url}</td><td><span class="status-${status}">${t(`status_${status}`)}</span>${since}</td><td>${actions.join(' ')}</td></tr>`;
      })
      .join('');
    const body = `${done(r)}<p>${t('connections_intro')}</p>${rows ? `<table><caption>${t('connections_caption')}</caption><thead><tr><th scope="col">${t('col_instance')}</th><th scope="col">${t('col_connector')}</th><th scope="col">${t('col_endpoint')}</th><th scope="col">${t('col_status')}</th><th scope="col">${t('col_actions')}</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>${t('team_no_subscriptions')}</p>`}`;
    return kit.view(r, 200, plain('connections_title'), body);
  }

  /** `/portal/connections/<instance>/connect` and `/disconnect`. */
  async function connectionAction(r: SignedInRequest, instanceId: string, action: 'connect' | 'disconnect'): Promise<number> {
    const { account, user } = r.signedIn;
    const endpoint = g.endpoints.get(instanceId);
    if (!endpoint || !g.state.isSubscribed(account.id, endpoint.connector.config.key)) return kit.notice(r, 404, 'not_found_title', 'unknown_instance');
    const connector = endpoint.connector;
    const kind = connector.descriptor.credential;
    if (kind === 'managed_basic') return kit.notice(r, 400, 'bad_request_title', 'status_managed');
    if (action === 'disconnect') {
      if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      if (!isAdmin(r)) return adminOnly(r);
      await g.store.deleteConnection(account.id, instanceId);
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'connection.delete', instanceId, { connector: connector.config.key });
      return redirect(r.res, '/portal/connections?done=disconnected');
    }
    if (!g.state.hasSeat(user.id, connector.config.key)) return kit.notice(r, 403, 'forbidden_title', 'connect_needs_seat', { connector: connector.descriptor.title });
    // The terms gate holds on every connect path, as it does for connect_account.
    if (!user.termsAcceptedAt) return termsFirst(r, r.path);
    const title = plain('connect_title', { connector: connector.descriptor.title });
    if (kind === 'oauth2') {
      if (r.req.method === 'POST') {
        const form = await kit.form(r);
        if (!form) return r.res.statusCode;
        // The same flow a connect link starts, from a single-use link record made for this session.
        const jti = randomBytes(16).toString('base64url');
        const validMs = g.platform.limits.connectLinkValidSeconds! * 1000;
        await g.store.createConnectLink({ jti, accountId: account.id, userId: user.id, instanceId, expiresAt: new Date(g.now().getTime() + validMs) });
        await kit.audit(r, { ...user }, 'connection.oauth_start', instanceId, { connector: connector.config.key });
        return startOAuth(r, { accountId: account.id, userId: user.id, instanceId, jti }, connector);
      }
      const body = `<p>${t('connect_context_session', { connector: connector.descriptor.title, account: account.name, endpoint: kit.endpointUrl(instanceId) })}</p><p class="note">${t('connect_oauth_note')}</p>${postButton(r.path, r.signedIn.csrf, plain('connect_oauth_button', { connector: connector.descriptor.title }))}`;
      return kit.view(r, 200, title, body);
    }
    const fields = CREDENTIAL_FORM_FIELDS[kind];
    let error = '';
    let status = 400;
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      const values = Object.fromEntries(fields.map((f) => [f.name, (form.get(f.name) ?? '').trim()]));
      const missing = fields.filter((f) => !values[f.name]);
      const refused = missing.length === 0 ? await kit.verifyCredential(r, { accountId: account.id, userId: user.id, instanceId, connector: connector.config.id }, values) : undefined;
      if (missing.length === 0 && !refused) {
        const sealed = g.vault.seal(JSON.stringify(values), account.id, instanceId);
        await g.store.putConnection({ accountId: account.id, instanceId, connectorKey: connector.config.key, ciphertext: sealed.ciphertext, keyVersion: sealed.keyVersion });
        await g.state.refresh();
        g.log.info({ accountId: account.id, userId: user.id, connector: connector.config.id, instance: instanceId }, 'connection stored');
        await kit.audit(r, { ...user }, 'connection.set', instanceId, { connector: connector.config.key });
        return redirect(r.res, '/portal/connections?done=connected');
      }
      error = refused?.html ?? `<p class="error" role="alert">${t('fill_in', { fields: missing.map((f) => plain(f.label)).join(', ') })}</p>`;
      status = refused?.status ?? 400;
    }
    const inputs = fields
      .map((f) => `<label for="${f.name}">${t(f.label)}</label><input id="${f.name}" name="${f.name}" type="${f.secret ? 'password' : 'text'}" autocomplete="off" required>`)
      .join('');
    const body = `<p>${t('connect_context_session', { connector: connector.descriptor.title, account: account.name, endpoint: kit.endpointUrl(instanceId) })}</p><p class="note">${t('connect_stored_note')}</p>${error}<form method="post" action="${escapeHtml(r.path)}"><input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}">${inputs}<button type="submit">${t('connect_button')}</button></form>`;
    return kit.view(r, error ? status : 200, title, body);
  }

  function termsFirst(r: SignedInRequest, next: string): number {
    return kit.view(r, 403, plain('terms_first_title'), `<p class="warning">${t('terms_first')}</p><p><a href="/portal/terms?next=${encodeURIComponent(next)}">${t('terms_open')}</a></p>`);
  }

  async function usage(r: SignedInRequest): Promise<number> {
    const { account, user } = r.signedIn;
    const quotaAllowed = kit.options.selfServiceQuota === true && isAdmin(r);
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      if (!isAdmin(r)) return adminOnly(r);
      if (!kit.options.selfServiceQuota) return kit.notice(r, 403, 'forbidden_title', 'quota_by_operator');
      const raw = (form.get('quota') ?? '').trim();
      const quota = raw === '' ? null : /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
      if (quota !== null && !Number.isSafeInteger(quota)) return kit.notice(r, 400, 'bad_request_title', 'quota_invalid');
      await g.store.setFairUse(account.id, { quota });
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'fair_use.quota', account.id, { quota: quota ?? 'default' });
      return redirect(r.res, '/portal/usage?done=quota_saved');
    }
    const current = g.state.account(account.id) ?? account;
    const record = await g.meter.usageRecord(current, g.now());
    const { usage: u, fairUse } = record;
    const byConnector = Object.entries(u.byConnector);
    const chart = byConnector.length
      ? barChart(
          byConnector.flatMap(([id, c]) => Object.entries(c.byTool).map(([tool, n]) => ({ label: `${id} · ${tool}`, value: n }))),
          plain('usage_chart_title', { month: fairUse.month }),
          plain('usage_chart_desc', { summary: byConnector.map(([id, c]) => `${id} ${c.calls}`).join(', ') }),
        )
      : `<p>${t('usage_none')}</p>`;
    const tools = byConnector
      .flatMap(([id, c]) => Object.entries(c.byTool).map(([tool, n]) => `<tr><th scope="row"><code>${escapeHtml(id)}</code></th><td><code>${escapeHtml(tool)}</code></td><td>${n}</td></tr>`))
      .join('');
    const state = fairUse.mode === 'off' ? 'fair_use_off' : fairUse.withinQuota ? 'fair_use_within' : fairUse.mode === 'hard' ? 'fair_use_blocked_state' : 'fair_use_over_soft';
    let quotaForm = '';
    if (quotaAllowed) {
      quotaForm = `<h2>${t('quota_heading')}</h2><form method="post" action="/portal/usage"><input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}"><label for="quota">${t('field_quota')}</label><input type="number" id="quota" name="quota" min="0" step="1" value="${current.fairUseQuota ?? ''}" aria-describedby="quota-note"><p class="note" id="quota-note">${t('quota_note', { default: g.config.fairUse.defaultQuota })}</p><button type="submit">${t('save_quota')}</button></form>`;
    } else if (isAdmin(r)) quotaForm = `<p class="note">${t('quota_by_operator')}</p>`;
    const body = `${done(r)}<p>${t('usage_period', { from: u.from, to: u.to })}</p><p>${t('usage_summary', { used: fairUse.used, limit: fairUse.limit, month: fairUse.month })}</p><p>${t(state, { mode: plain(`fair_use_mode_${fairUse.mode as FairUseMode}`) })}</p><h2>${t('usage_by_connector')}</h2>${chart}${tools ? `<table><caption>${t('usage_by_tool')}</caption><thead><tr><th scope="col">${t('col_connector')}</th><th scope="col">${t('col_tool')}</th><th scope="col">${t('col_calls')}</th></tr></thead><tbody>${tools}</tbody></table>` : ''}${quotaForm}`;
    return kit.view(r, 200, plain('usage_title'), body);
  }

  async function tokens(r: SignedInRequest, sub: '' | 'create' | 'revoke' | 'revoke-grant'): Promise<number> {
    const { account, user } = r.signedIn;
    const users = await accountUsers(r);
    const byId = new Map(users.map((u) => [u.id, u]));
    const visible = async () => (isAdmin(r) ? await g.store.listAccountTokens(account.id) : (await g.store.listTokens(user.id)).reverse());
    // An administrator sees (and may revoke) every assistant of the account; a member their own.
    const visibleGrants = async () => (await g.store.listMcpGrants(account.id)).filter((x) => isAdmin(r) || x.userId === user.id);
    let top = done(r);
    if (r.req.method === 'POST' && sub === 'create') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      const label = (form.get('label') ?? '').trim().slice(0, 100) || plain('token_default_label');
      const { token, record } = await issueToken(g.store, user.id, label);
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'token.create', record.id, { label });
      top = `<div class="ok" role="status"><p>${t('token_created', { label })}</p><p>${t('token_shown_once')}</p><p class="secret">${escapeHtml(token)}</p></div>`;
    } else if (r.req.method === 'POST' && sub === 'revoke') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      const id = form.get('token') ?? '';
      const target = (await visible()).find((x) => x.id === id);
      // A token of another account (or, for a member, of another user) is unknown here.
      if (!target) return kit.notice(r, 404, 'not_found_title', 'unknown_token');
      await g.store.revokeToken(target.id, g.now());
      // Effective at once: this replica reloads, and the others hear of it (shared store) or see
      // the changed version at their next identify of an unknown token or refresh.
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'token.revoke', target.id, { label: target.label, owner: byId.get(target.userId)?.email });
      return redirect(r.res, '/portal/tokens?done=token_revoked');
    } else if (r.req.method === 'POST' && sub === 'revoke-grant') {
      // An assistant connected with OAuth (issue 21): its grant, and so every token of it.
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      const id = form.get('grant') ?? '';
      const target = (await visibleGrants()).find((x) => x.id === id && !x.revokedAt);
      if (!target) return kit.notice(r, 404, 'not_found_title', 'unknown_grant');
      await g.store.revokeMcpGrant(target.id, g.now());
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'oauth.grant.revoke', target.id, { reason: 'portal', client: target.clientName, client_id: target.clientId, owner: byId.get(target.userId)?.email });
      return redirect(r.res, '/portal/tokens?done=grant_revoked');
    } else if (r.req.method === 'POST') return kit.notice(r, 400, 'bad_request_title', 'unknown_action');
    const list = await visible();
    const rows = list
      .map((x) => {
        const owner = byId.get(x.userId);
        const state = x.revokedAt ? t('token_revoked_at', { date: fmtDate(x.revokedAt) }) : t('token_active');
        const action = x.revokedAt ? '' : postButton('/portal/tokens/revoke', r.signedIn.csrf, plain('revoke_button', { label: x.label }), { token: x.id }, 'danger');
        return `<tr><th scope="row">${escapeHtml(x.label)}</th><td>${escapeHtml(owner?.email ?? '')}</td><td>${fmtDate(x.createdAt)}</td><td>${state}</td><td>${action}</td></tr>`;
      })
      .join('');
    const body = `${top}<p>${t('tokens_intro')}</p><h2>${t('token_create_heading')}</h2><form method="post" action="/portal/tokens/create"><input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}"><label for="token-label">${t('field_label')}</label><input type="text" id="token-label" name="label" maxlength="100" autocomplete="off"><button type="submit">${t('token_create_button')}</button></form><h2>${t('tokens_heading')}</h2>${rows ? `<table><caption>${t(isAdmin(r) ? 'tokens_caption_admin' : 'tokens_caption')}</caption><thead><tr><th scope="col">${t('col_label')}</th><th scope="col">${t('col_user')}</th><th scope="col">${t('col_created')}</th><th scope="col">${t('col_status')}</th><th scope="col">${t('col_actions')}</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>${t('tokens_none')}</p>`}`;
    const grantRows = (await visibleGrants())
      .filter((x) => !x.revokedAt)
      .map((x) => {
        const action = postButton('/portal/tokens/revoke-grant', r.signedIn.csrf, plain('grant_revoke_button', { client: x.clientName }), { grant: x.id }, 'danger');
        return `<tr><th scope="row">${escapeHtml(x.clientName)}<br><span class="note">${escapeHtml(x.clientId)}</span></th><td>${escapeHtml(byId.get(x.userId)?.email ?? '')}</td><td>${x.endpoints.map((e) => `<code>${escapeHtml(e)}</code>`).join(' ')}</td><td>${fmtDate(x.createdAt)}</td><td>${action}</td></tr>`;
      })
      .join('');
    const grants = `<h2>${t('grants_heading')}</h2><p>${t('grants_intro')}</p>${grantRows ? `<table><caption>${t('grants_caption')}</caption><thead><tr><th scope="col">${t('col_client')}</th><th scope="col">${t('col_user')}</th><th scope="col">${t('col_endpoints')}</th><th scope="col">${t('col_created')}</th><th scope="col">${t('col_actions')}</th></tr></thead><tbody>${grantRows}</tbody></table>` : `<p>${t('grants_none')}</p>`}`;
    return kit.view(r, 200, plain('tokens_title'), body + grants);
  }

  async function terms(r: SignedInRequest): Promise<number> {
    const { user } = r.signedIn;
    const next = r.query.get('next');
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      await g.store.acceptTerms(user.id, g.now());
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'terms.accept', user.id);
      const target = form.get('next');
      return redirect(r.res, target?.startsWith('/portal/') && !target.startsWith('//') ? target : '/portal/terms?done=terms_accepted');
    }
    const accepted = user.termsAcceptedAt ? `<p class="ok">${t('overview_terms_accepted', { date: fmtDate(user.termsAcceptedAt) })}</p>` : '';
    const hidden: Record<string, string> = next?.startsWith('/portal/') && !next.startsWith('//') ? { next } : {};
    const body = `${done(r)}${accepted}<p>${t('terms_text')}</p>${user.termsAcceptedAt ? '' : postButton('/portal/terms', r.signedIn.csrf, plain('terms_accept'), hidden)}`;
    return kit.view(r, 200, plain('terms_title'), body);
  }

  async function dataLayer(r: SignedInRequest): Promise<number> {
    if (!isAdmin(r)) return adminOnly(r);
    const { account, user } = r.signedIn;
    const eligible = subscribedEndpoints(account.id).filter((e) => e.connector.descriptor.tools.some((x) => x.dataLayer) && g.state.connection(account.id, e.instanceId));
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      const endpoint = eligible.find((e) => e.instanceId === form.get('instance'));
      const on = form.get('enabled') === 'on';
      if (!endpoint) return kit.notice(r, 400, 'bad_request_title', 'unknown_instance');
      if (on) await g.store.enableDataLayer(account.id, endpoint.instanceId, g.now());
      else await g.store.disableDataLayer(account.id, endpoint.instanceId);
      await kit.audit(r, { ...user }, on ? 'data_layer.enable' : 'data_layer.disable', endpoint.instanceId, { connector: endpoint.connector.config.key });
      return redirect(r.res, `/portal/data-layer?done=${on ? 'data_layer_enabled' : 'data_layer_disabled'}`);
    }
    const rows: string[] = [];
    for (const e of eligible) {
      const layer = await g.store.getDataLayer(account.id, e.instanceId);
      const state = layer ? t('data_layer_on', { date: fmtDate(layer.enabledAt), items: layer.itemCount }) : t('data_layer_off');
      const button = postButton(
        '/portal/data-layer',
        r.signedIn.csrf,
        plain(layer ? 'data_layer_disable' : 'data_layer_enable', { instance: e.instanceId }),
        { instance: e.instanceId, enabled: layer ? 'off' : 'on' },
        layer ? 'danger' : '',
      );
      rows.push(`<tr><th scope="row"><code>${escapeHtml(e.instanceId)}</code></th><td>${escapeHtml(e.connector.descriptor.title)}</td><td>${state}</td><td>${button}</td></tr>`);
    }
    const body = `${done(r)}<p>${t('data_layer_intro')}</p>${rows.length ? `<table><caption>${t('data_layer_caption')}</caption><thead><tr><th scope="col">${t('col_instance')}</th><th scope="col">${t('col_connector')}</th><th scope="col">${t('col_status')}</th><th scope="col">${t('col_actions')}</th></tr></thead><tbody>${rows.join('')}</tbody></table>` : `<p>${t('data_layer_none')}</p>`}`;
    return kit.view(r, 200, plain('data_layer_title'), body);
  }

  async function audit(r: SignedInRequest): Promise<number> {
    if (!isAdmin(r)) return adminOnly(r);
    const entries = await g.store.listAudit(r.signedIn.account.id, g.platform.limits.auditPageEntries!);
    const rows = entries
      .map(
        (e) =>
          `<tr><td>${fmtDate(e.at)}</td><td>${escapeHtml(e.actor)}</td><td><code>${escapeHtml(e.action)}</code></td><td>${escapeHtml(e.target)}</td><td>${escapeHtml(e.detail)}</td><td>${escapeHtml(e.source)}</td></tr>`,
      )
      .join('');
    const body = `<p>${t('audit_intro', { count: entries.length })}</p>${rows ? `<table><caption>${t('audit_caption')}</caption><thead><tr><th scope="col">${t('col_when')}</th><th scope="col">${t('col_who')}</th><th scope="col">${t('col_what')}</th><th scope="col">${t('col_target')}</th><th scope="col">${t('col_detail')}</th><th scope="col">${t('col_from')}</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>${t('audit_none')}</p>`}`;
    return kit.view(r, 200, plain('audit_title'), body);
  }

  async function signOutEverywhere(r: SignedInRequest): Promise<number> {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const { ended, cookie } = await kit.sessions.signOutEverywhere(r.signedIn.user);
    await kit.audit(r, { ...r.signedIn.user }, 'session.sign_out_everywhere', r.signedIn.user.id, { sessions: ended });
    return redirect(r.res, '/portal/sign-in?done=signed_out_everywhere', { 'set-cookie': cookie });
  }

  /** Routes a signed-in request; undefined when the path is not one of these pages. */
  return async function route(r: SignedInRequest): Promise<number | undefined> {
    const p = r.path;
    if (r.req.method !== 'GET' && r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
    if (p === '/portal' || p === '/portal/') return overview(r);
    if (p === '/portal/connectors') return connectorsPage(r);
    if (p === '/portal/team') return team(r);
    if (p === '/portal/connections') return connections(r);
    const connection = /^\/portal\/connections\/([a-z0-9-]{1,80})\/(connect|disconnect)$/.exec(p);
    if (connection) return connectionAction(r, connection[1]!, connection[2] as 'connect' | 'disconnect');
    if (p === '/portal/usage') return usage(r);
    if (p === '/portal/tokens') return tokens(r, '');
    if (p === '/portal/tokens/create') return tokens(r, 'create');
    if (p === '/portal/tokens/revoke') return tokens(r, 'revoke');
    if (p === '/portal/tokens/revoke-grant') return tokens(r, 'revoke-grant');
    if (p === '/portal/terms') return terms(r);
    if (p === '/portal/data-layer') return dataLayer(r);
    if (p === '/portal/audit') return audit(r);
    if (p === '/portal/sign-out-everywhere' && r.req.method === 'POST') return signOutEverywhere(r);
    return undefined;
  };
}

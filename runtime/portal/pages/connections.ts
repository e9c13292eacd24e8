// The connections page (status, connect, reconnect, disconnect, client setup) and the connect form of a session.
import { randomBytes } from 'node:crypto';
import type { Endpoint } from '../../gateway-context.ts';
import type { Connection } from '../../store/store.ts';
import { connectionRefusal, connectRefusal } from '../account-rules.ts';
import { dataTable, escapeHtml, postButton, redirect } from '../html.ts';
import { fmtDate, type PortalKit, type SignedInRequest } from '../kit.ts';
import { clientSetup } from './client-setup.ts';
import { confirmStep } from './confirm-step.ts';
import { CREDENTIAL_FORM_FIELDS, credentialInputs, postedCredential } from './credential-form.ts';
import { startOAuth } from './oauth.ts';

export type ConnectionStatus = 'connected' | 'reconnect' | 'never';

export function connectionStatus(connection: Connection | undefined): ConnectionStatus {
  if (!connection) return 'never';
  return connection.reconnectRequiredAt ? 'reconnect' : 'connected';
}

/** The page; `notice` (already HTML) is a test's answer shown above the table (connection-test.ts). */
export async function connections(kit: PortalKit, r: SignedInRequest, notice = ''): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { account, user } = r.signedIn;
  const stored = new Map((await g.store.connections.listConnections(account.id)).map((c) => [c.instanceId, c]));
  // Per connector: its first instance, every instance with a connection, and the next free one
  // (to connect another company file); not all 99 possible instances.
  const nextFree = new Set<string>();
  const shown = kit.subscribedEndpoints(account.id).filter((e) => {
    if (e.instance === 1 || stored.has(e.instanceId)) return true;
    if (e.connector.descriptor.credential === 'managed_basic' || nextFree.has(e.connector.config.key)) return false;
    nextFree.add(e.connector.config.key);
    return true;
  });
  const use = await connectionUse(kit, account.id, [...stored.keys()]);
  const rows = shown
    .map((e) => {
      const kind = e.connector.descriptor.credential;
      const title = escapeHtml(e.connector.descriptor.title);
      const url = `<code>${escapeHtml(kit.endpointUrl(e.instanceId))}</code>`;
      if (kind === 'managed_basic')
        return (
          `<tr><th scope="row"><code>${escapeHtml(e.instanceId)}</code></th><td>${title}</td><td>${url}</td><td>` +
          `${t('status_managed')}` +
          '</td><td></td></tr>'
        );
      const connection = stored.get(e.instanceId);
      const status = connectionStatus(connection);
      const since = connection
        ? ' <span class="note">' +
          `${t('status_since', { date: fmtDate(connection.reconnectRequiredAt ?? connection.updatedAt) })}` +
          '</span>' +
          (connection.reconnectRequiredAt && connection.reconnectReason
            ? `<br><span class="note">${escapeHtml(connection.reconnectReason)}</span>`
            : '') +
          (use.get(e.instanceId) ?? '')
        : '';
      const actions: string[] = [];
      // Reconnect is offered only where this user may store one (docs/decisions/portal.md, 'One rule for connecting').
      if (g.state.hasSeat(user.id, e.connector.config.key) && !connectRefusal(user.role, connection)) {
        actions.push(
          `<a href="/portal/connections/${escapeHtml(e.instanceId)}/connect">` +
            `${t(status === 'never' ? 'connect_action' : 'reconnect_action', { instance: e.instanceId })}` +
            '</a>',
        );
      }
      if (connection) actions.push(testButton(kit, r, e));
      actions.push(
        `<a href="/portal/connections/${escapeHtml(e.instanceId)}/tools">` +
          `${t('tools_action', { instance: e.instanceId })}</a>`,
      );
      if (connection && kit.isAdmin(r))
        actions.push(
          postButton(
            `/portal/connections/${e.instanceId}/disconnect`,
            r.signedIn.csrf,
            plain('disconnect_button', { instance: e.instanceId }),
            {},
            'danger',
          ),
        );
      return (
        `<tr><th scope="row"><code>${escapeHtml(e.instanceId)}</code></th><td>${title}</td><td>${url}</td><td><span ` +
        `class="status-${status}">${t(`status_${status}`)}</span>${since}</td><td>${actions.join(' ')}</td></tr>`
      );
    })
    .join('');
  const body =
    `${notice || kit.done(r)}<p>${t('connections_intro')}</p>` +
    (rows
      ? dataTable(
          t('connections_caption'),
          [t('col_instance'), t('col_connector'), t('col_endpoint'), t('col_status'), t('col_actions')],
          rows,
        )
      : `<p>${t('team_no_subscriptions')}</p>`) +
    clientSetup(kit, shown);
  return kit.view(r, 200, plain('connections_title'), body);
}

/** `/portal/connections/<instance>/connect` and `/disconnect`. */
export async function connectionAction(
  kit: PortalKit,
  r: SignedInRequest,
  instanceId: string,
  action: 'connect' | 'disconnect',
): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { account, user } = r.signedIn;
  const endpoint = g.endpoints.get(instanceId);
  if (
    !endpoint ||
    connectionRefusal(
      g.state.isSubscribed(account.id, endpoint.connector.config.key),
      endpoint.connector.descriptor.credential,
    ) === 'unknown_instance'
  ) {
    return kit.notice(r, 404, 'not_found_title', 'unknown_instance');
  }
  const connector = endpoint.connector;
  const kind = connector.descriptor.credential;
  if (kind === 'managed_basic') return kit.notice(r, 400, 'bad_request_title', 'status_managed');
  if (action === 'disconnect') {
    if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    if (!kit.isAdmin(r)) return kit.adminOnly(r);
    if (form.get('confirm') !== 'yes')
      return confirmStep(kit, r, {
        title: plain('confirm_disconnect_title', { instance: instanceId }),
        text: t('confirm_disconnect_text', { instance: instanceId }),
        action: `/portal/connections/${instanceId}/disconnect`,
        button: plain('disconnect_button', { instance: instanceId }),
        hidden: {},
        cancel: '/portal/connections',
      });
    await g.store.connections.deleteConnection(account.id, instanceId);
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'connection.delete', instanceId, { connector: connector.config.key });
    return redirect(r.res, '/portal/connections?done=disconnected');
  }
  if (!g.state.hasSeat(user.id, connector.config.key))
    return kit.notice(r, 403, 'forbidden_title', 'connect_needs_seat', { connector: connector.descriptor.title });
  // The terms gate holds on every connect path, as it does for connect_account.
  if (!user.termsAcceptedAt) return termsFirst(kit, r, r.path);
  const title = plain('connect_title', { connector: connector.descriptor.title });
  if (kind === 'oauth2') {
    if (r.req.method === 'POST') {
      const form = await kit.form(r);
      if (!form) return r.res.statusCode;
      // The same flow a connect link starts, from a single-use link record made for this session.
      const jti = randomBytes(16).toString('base64url');
      const validMs = g.platform.limits.connectLinkValidSeconds * 1000;
      await g.store.links.createConnectLink({
        jti,
        accountId: account.id,
        userId: user.id,
        instanceId,
        expiresAt: new Date(g.now().getTime() + validMs),
      });
      await kit.audit(r, { ...user }, 'connection.oauth_start', instanceId, { connector: connector.config.key });
      return startOAuth(kit, r, { accountId: account.id, userId: user.id, instanceId, jti }, connector);
    }
    const body =
      '<p>' +
      t('connect_context_session', {
        connector: connector.descriptor.title,
        account: account.name,
        endpoint: kit.endpointUrl(instanceId),
      }) +
      `</p><p class="note">${t('connect_oauth_note')}</p>` +
      postButton(r.path, r.signedIn.csrf, plain('connect_oauth_button', { connector: connector.descriptor.title }));
    return kit.view(r, 200, title, body);
  }
  const fields = CREDENTIAL_FORM_FIELDS[kind];
  let error = '';
  let status = 400;
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const { values, refused } = await postedCredential(kit, r, form, fields, {
      accountId: account.id,
      userId: user.id,
      instanceId,
      connector: connector.config.id,
    });
    if (!refused) {
      const sealed = g.vault.seal(JSON.stringify(values), account.id, instanceId);
      await g.store.connections.putConnection({
        accountId: account.id,
        instanceId,
        connectorKey: connector.config.key,
        ciphertext: sealed.ciphertext,
        keyVersion: sealed.keyVersion,
      });
      await g.state.refresh();
      g.log.info(
        { accountId: account.id, userId: user.id, connector: connector.config.id, instance: instanceId },
        'connection stored',
      );
      await kit.audit(r, { ...user }, 'connection.set', instanceId, { connector: connector.config.key });
      return redirect(r.res, '/portal/connections?done=connected');
    }
    error = refused.html;
    status = refused.status;
  }
  const body =
    '<p>' +
    t('connect_context_session', {
      connector: connector.descriptor.title,
      account: account.name,
      endpoint: kit.endpointUrl(instanceId),
    }) +
    `</p><p class="note">${t('connect_stored_note')}</p>${error}<form method="post" action="${escapeHtml(r.path)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}">${credentialInputs(kit, fields)}` +
    `<button type="submit">${t('connect_button')}</button></form>`;
  return kit.view(r, error ? status : 200, title, body);
}

function termsFirst(kit: PortalKit, r: SignedInRequest, next: string): number {
  const { t, plain } = kit.text;
  return kit.view(
    r,
    403,
    plain('terms_first_title'),
    `<p class="warning">${t('terms_first')}</p><p><a href="/portal/terms?next=${encodeURIComponent(next)}">` +
      `${t('terms_open')}` +
      '</a></p>',
  );
}

/** The "Test connection" button of a row, where the connector declares a test and the user holds a seat. */
export function testButton(kit: PortalKit, r: SignedInRequest, endpoint: Endpoint): string {
  if (!endpoint.connector.descriptor.connectionTest || !kit.options.testConnection) return '';
  if (!kit.g.state.hasSeat(r.signedIn.user.id, endpoint.connector.config.key)) return '';
  return postButton(
    `/portal/connections/${endpoint.instanceId}/test`,
    r.signedIn.csrf,
    kit.text.plain('test_button', { instance: endpoint.instanceId }),
  );
}

/** "Last used … · last error …" of each connected instance, from the call log (newest rows, two reads each). */
export async function connectionUse(
  kit: PortalKit,
  accountId: string,
  instanceIds: readonly string[],
): Promise<Map<string, string>> {
  const log = kit.g.store.callLog;
  const { t } = kit.text;
  const notes = await Promise.all(
    instanceIds.map(async (instanceId) => {
      const [[ok], [failed]] = await Promise.all([
        log.listCalls(accountId, { instanceId, outcome: 'ok' }, 1, 0),
        log.listCalls(accountId, { instanceId, outcome: 'error' }, 1, 0),
      ]);
      const last = [ok, failed].filter((c) => c !== undefined).sort((a, b) => b.at.getTime() - a.at.getTime())[0];
      const parts = [
        last ? t('last_used', { date: fmtDate(last.at) }) : t('never_used'),
        ...(failed ? [t('last_error', { date: fmtDate(failed.at), tool: failed.tool, code: failed.detail })] : []),
      ];
      return [instanceId, `<br><span class="note">${parts.join(' · ')}</span>`] as const;
    }),
  );
  return new Map(notes);
}

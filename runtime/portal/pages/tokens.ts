// API tokens (create, list, revoke) and the assistants connected with OAuth (their grants).
import { issueToken } from '../../auth/caller-tokens.ts';
import { describeTokenScope, parseTokenScope, type ScopeCatalog } from '../../auth/token-scope.ts';
import { dataTable, escapeHtml, postButton, redirect } from '../html.ts';
import type { McpGrant } from '../../store/store.ts';
import { fmtDate, type PortalKit, type SignedInRequest } from '../kit.ts';
import { confirmStep } from './confirm-step.ts';

type TokenAction = 'create' | 'revoke' | 'revoke-grant';

/** What a signed-in user may see and act on: an administrator every token and assistant, a member their own. */
function visibility(kit: PortalKit, r: SignedInRequest) {
  const g = kit.g;
  const { account, user } = r.signedIn;
  return {
    tokens: async () =>
      kit.isAdmin(r)
        ? await g.store.tokens.listAccountTokens(account.id)
        : (await g.store.tokens.listTokens(user.id)).reverse(),
    grants: async () =>
      (await g.store.mcp.listMcpGrants(account.id)).filter((x) => kit.isAdmin(r) || x.userId === user.id),
  };
}

/**
 * One row per connected assistant: the active grants of one client for one user (an assistant that
 * connected again, or to another endpoint, made a grant each time) as one, with every endpoint, the
 * first connection's date and the newest grant's id (revoking it ends them all).
 */
function assistants(grants: readonly McpGrant[]): McpGrant[] {
  const rows = new Map<string, McpGrant>();
  for (const x of grants.filter((g) => !g.revokedAt)) {
    const key = `${x.userId} ${x.clientId}`;
    const row = rows.get(key);
    if (!row) {
      rows.set(key, x);
      continue;
    }
    const newer = x.createdAt > row.createdAt ? x : row;
    rows.set(key, {
      ...newer,
      endpoints: [...new Set([...row.endpoints, ...x.endpoints])],
      createdAt: x.createdAt < row.createdAt ? x.createdAt : row.createdAt,
    });
  }
  return [...rows.values()];
}

/** The account's subscribed connectors with their toolset ids: what a token made here may be scoped to. */
function scopeCatalog(kit: PortalKit, r: SignedInRequest): ScopeCatalog {
  const catalog = new Map<string, ReadonlySet<string>>();
  for (const e of kit.subscribedEndpoints(r.signedIn.account.id)) {
    const { key } = e.connector.config;
    if (!catalog.has(key)) catalog.set(key, new Set(e.connector.descriptor.toolsets.map((x) => x.id)));
  }
  return catalog;
}

/** The create form's scope fields: a checkbox per subscribed connector, toolset pairs, read-only. */
function scopeFields(kit: PortalKit, r: SignedInRequest): string {
  const { t } = kit.text;
  const boxes = [...scopeCatalog(kit, r).entries()]
    .map(
      ([key, ids]) =>
        `<label class="check"><input type="checkbox" name="connector" value="${escapeHtml(key)}"> ` +
        `${escapeHtml(key)} <span class="note">(${escapeHtml([...ids].join(', '))})</span></label>`,
    )
    .join('');
  return (
    `<fieldset><legend>${t('token_scope_legend')}</legend>` +
    `<p>${t('field_scope_connectors')}</p>${boxes}` +
    `<label for="token-toolsets">${t('field_scope_toolsets')}</label>` +
    '<input type="text" id="token-toolsets" name="toolsets" maxlength="2000" autocomplete="off">' +
    `<label class="check"><input type="checkbox" name="read_only"> ${t('field_scope_read_only')}</label>` +
    '</fieldset>'
  );
}

/** A POST: the page's status when it answered, or the notice to show above the page (a new token). */
async function act(kit: PortalKit, r: SignedInRequest, sub: TokenAction): Promise<number | string> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { user } = r.signedIn;
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const visible = visibility(kit, r);
  const ownerEmail = async (userId: string) => (await kit.accountUsers(r)).find((u) => u.id === userId)?.email;
  if (sub === 'create') {
    const label = (form.get('label') ?? '').trim().slice(0, 100) || plain('token_default_label');
    const scope = parseTokenScope(
      {
        connectors: form.getAll('connector').join(','),
        toolsets: (form.get('toolsets') ?? '').slice(0, 2000),
        readOnly: form.get('read_only') === 'on',
      },
      scopeCatalog(kit, r),
    );
    if (scope !== null && 'error' in scope)
      return `<div class="error" role="alert"><p>${t('token_scope_invalid', { reason: scope.error })}</p></div>`;
    const { token, record } = await issueToken(g.store, user.id, label, undefined, scope);
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'token.create', record.id, { label, scope: describeTokenScope(scope) });
    return (
      `<div class="ok" role="status"><p>${t('token_created', { label })}</p><p>${t('token_shown_once')}</p><p ` +
      `class="secret">${escapeHtml(token)}</p></div>`
    );
  }
  if (sub === 'revoke') {
    const id = form.get('token') ?? '';
    const target = (await visible.tokens()).find((x) => x.id === id);
    // A token of another account (or, for a member, of another user) is unknown here.
    if (!target) return kit.notice(r, 404, 'not_found_title', 'unknown_token');
    if (form.get('confirm') !== 'yes')
      return confirmStep(kit, r, {
        title: plain('confirm_revoke_title', { label: target.label }),
        text: t('confirm_revoke_text'),
        action: '/portal/tokens/revoke',
        button: plain('revoke_button', { label: target.label }),
        hidden: { token: target.id },
        cancel: '/portal/tokens',
      });
    await g.store.tokens.revokeToken(target.id, g.now());
    // Effective at once: this replica reloads, and the others hear of it (shared store) or see
    // the changed version at their next identify of an unknown token or refresh.
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'token.revoke', target.id, {
      label: target.label,
      owner: await ownerEmail(target.userId),
    });
    return redirect(r.res, '/portal/tokens?done=token_revoked');
  }
  // An assistant connected with OAuth (docs/decisions/mcp-authorization.md): its grant, and so every token of it.
  // One assistant is every active grant of its client for one user (one row on the page): all end.
  const id = form.get('grant') ?? '';
  const active = (await visible.grants()).filter((x) => !x.revokedAt);
  const target = active.find((x) => x.id === id);
  if (!target) return kit.notice(r, 404, 'not_found_title', 'unknown_grant');
  if (form.get('confirm') !== 'yes')
    return confirmStep(kit, r, {
      title: plain('confirm_revoke_grant_title', { client: target.clientName }),
      text: t('confirm_revoke_grant_text'),
      action: '/portal/tokens/revoke-grant',
      button: plain('grant_revoke_button', { client: target.clientName }),
      hidden: { grant: target.id },
      cancel: '/portal/tokens',
    });
  const owner = await ownerEmail(target.userId);
  for (const grant of active.filter((x) => x.clientId === target.clientId && x.userId === target.userId)) {
    await g.store.mcp.revokeMcpGrant(grant.id, g.now());
    await kit.audit(r, { ...user }, 'oauth.grant.revoke', grant.id, {
      reason: 'portal',
      client: grant.clientName,
      client_id: grant.clientId,
      owner,
    });
  }
  await g.state.refresh();
  return redirect(r.res, '/portal/tokens?done=grant_revoked');
}

export async function tokens(kit: PortalKit, r: SignedInRequest, sub: '' | TokenAction): Promise<number> {
  const { t, plain } = kit.text;
  let top = kit.done(r);
  if (r.req.method === 'POST') {
    if (sub === '') return kit.notice(r, 400, 'bad_request_title', 'unknown_action');
    const answer = await act(kit, r, sub);
    if (typeof answer === 'number') return answer;
    top = answer;
  }
  const users = await kit.accountUsers(r);
  const byId = new Map(users.map((u) => [u.id, u]));
  const visible = visibility(kit, r);
  const list = await visible.tokens();
  const rows = list
    .map((x) => {
      const owner = byId.get(x.userId);
      const state = x.revokedAt ? t('token_revoked_at', { date: fmtDate(x.revokedAt) }) : t('token_active');
      const action = x.revokedAt
        ? ''
        : postButton(
            '/portal/tokens/revoke',
            r.signedIn.csrf,
            plain('revoke_button', { label: x.label }),
            { token: x.id },
            'danger',
          );
      return (
        `<tr><th scope="row">${escapeHtml(x.label)}</th><td>${escapeHtml(owner?.email ?? '')}</td><td>` +
        `${fmtDate(x.createdAt)}</td>` +
        `<td>${x.scope === null ? t('scope_all') : escapeHtml(describeTokenScope(x.scope))}</td>` +
        `<td>${state}</td><td>${action}</td></tr>`
      );
    })
    .join('');
  const body =
    `${top}<p>${t('tokens_intro')}</p><h2>${t('token_create_heading')}</h2><form method="post" ` +
    `action="/portal/tokens/create"><input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}"><label ` +
    `for="token-label">${t('field_label')}</label><input type="text" id="token-label" name="label" maxlength="100" ` +
    `autocomplete="off">${scopeFields(kit, r)}<button type="submit">${t('token_create_button')}</button></form>` +
    `<h2>${t('tokens_heading')}` +
    '</h2>' +
    (rows
      ? dataTable(
          t(kit.isAdmin(r) ? 'tokens_caption_admin' : 'tokens_caption'),
          [t('col_label'), t('col_user'), t('col_created'), t('col_scope'), t('col_status'), t('col_actions')],
          rows,
        )
      : `<p>${t('tokens_none')}</p>`);
  const grantRows = assistants(await visible.grants())
    .map((x) => {
      const action = postButton(
        '/portal/tokens/revoke-grant',
        r.signedIn.csrf,
        plain('grant_revoke_button', { client: x.clientName }),
        { grant: x.id },
        'danger',
      );
      return (
        `<tr><th scope="row">${escapeHtml(x.clientName)}<br><span class="note">${escapeHtml(x.clientId)}</span></th>` +
        `<td>${escapeHtml(byId.get(x.userId)?.email ?? '')}</td><td>` +
        `${x.endpoints.map((e) => `<code>${escapeHtml(e)}</code>`).join(' ')}` +
        `</td><td>${fmtDate(x.createdAt)}</td><td>${action}</td></tr>`
      );
    })
    .join('');
  const grants =
    `<h2>${t('grants_heading')}</h2><p>${t('grants_intro')}</p>` +
    (grantRows
      ? dataTable(
          t('grants_caption'),
          [t('col_client'), t('col_user'), t('col_endpoints'), t('col_created'), t('col_actions')],
          grantRows,
        )
      : `<p>${t('grants_none')}</p>`);
  return kit.view(r, 200, plain('tokens_title'), body + grants);
}

// `/portal/connections/<instance>/tools`: the account's tool settings of one endpoint instance
// (docs/decisions/mcp-authorization.md, 'Tool settings of an instance'). Everyone sees them; an
// administrator changes them.
import { parseTurnedOff } from '../../auth/token-scope.ts';
import { escapeHtml, redirect } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';

export async function toolSettings(kit: PortalKit, r: SignedInRequest, instanceId: string): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { account, user } = r.signedIn;
  const endpoint = g.endpoints.get(instanceId);
  if (!endpoint || !g.state.isSubscribed(account.id, endpoint.connector.config.key))
    return kit.notice(r, 404, 'not_found_title', 'unknown_instance');
  const { descriptor } = endpoint.connector;
  const names = { toolsets: descriptor.toolsets.map((x) => x.id), tools: descriptor.tools.map((x) => x.name) };
  let problem = '';
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    if (!kit.isAdmin(r)) return kit.adminOnly(r);
    const on = new Set(form.getAll('toolset'));
    const off = parseTurnedOff(
      {
        toolsets: names.toolsets.filter((id) => !on.has(id)).join(','),
        tools: (form.get('tools') ?? '').slice(0, 4000),
      },
      names,
    );
    if (!('error' in off)) {
      const settings = { ...off, readOnly: form.get('read_only') === 'on' };
      await g.store.connections.putToolSettings({ accountId: account.id, instanceId, ...settings });
      await g.state.refresh();
      await kit.audit(r, { ...user }, 'tools.set', instanceId, {
        off_toolsets: settings.disabledToolsets.join(',') || 'none',
        off_tools: settings.disabledTools.join(',') || 'none',
        read_only: settings.readOnly,
      });
      return redirect(r.res, `/portal/connections/${instanceId}/tools?done=tools_saved`);
    }
    problem = `<div class="error" role="alert"><p>${t('tools_invalid', { reason: off.error })}</p></div>`;
  }
  const current = g.state.toolSettings(account.id, instanceId);
  const disabled = kit.isAdmin(r) ? '' : ' disabled';
  const boxes = descriptor.toolsets
    .map(
      (x) =>
        `<label class="check"><input type="checkbox" name="toolset" value="${escapeHtml(x.id)}"` +
        `${current?.disabledToolsets.includes(x.id) ? '' : ' checked'}${disabled}> ` +
        `${escapeHtml(x.title)} <span class="note">(${escapeHtml(x.id)})</span></label>`,
    )
    .join('');
  const body =
    `${kit.done(r)}${problem}<p>${t('tools_intro')}</p>` +
    `<form method="post" action="/portal/connections/${escapeHtml(instanceId)}/tools">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(r.signedIn.csrf)}">` +
    `<fieldset><legend>${t('tools_toolsets_legend')}</legend>${boxes}</fieldset>` +
    `<label for="tools-off">${t('field_tools_off', { example: names.tools[0] ?? '' })}</label>` +
    `<input type="text" id="tools-off" name="tools" maxlength="4000" autocomplete="off"` +
    ` value="${escapeHtml(current?.disabledTools.join(', ') ?? '')}"${disabled}>` +
    `<label class="check"><input type="checkbox" name="read_only"${current?.readOnly ? ' checked' : ''}${disabled}>` +
    ` ${t('field_tools_read_only')}</label>` +
    (kit.isAdmin(r) ? `<button type="submit">${t('tools_save')}</button>` : '') +
    '</form>';
  return kit.view(r, 200, plain('tools_title', { instance: instanceId }), body);
}

// The data-layer opt-in per connected instance (administrators): first-seen records on or off.
import { dataTable, escapeHtml, postButton, redirect } from '../html.ts';
import { fmtDate, type PortalKit, type SignedInRequest } from '../kit.ts';

export async function dataLayer(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  if (!kit.isAdmin(r)) return kit.adminOnly(r);
  const { account, user } = r.signedIn;
  const eligible = kit
    .subscribedEndpoints(account.id)
    .filter(
      (e) => e.connector.descriptor.tools.some((x) => x.dataLayer) && g.state.connection(account.id, e.instanceId),
    );
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    const endpoint = eligible.find((e) => e.instanceId === form.get('instance'));
    const on = form.get('enabled') === 'on';
    if (!endpoint) return kit.notice(r, 400, 'bad_request_title', 'unknown_instance');
    if (on) await g.store.dataLayer.enableDataLayer(account.id, endpoint.instanceId, g.now());
    else await g.store.dataLayer.disableDataLayer(account.id, endpoint.instanceId);
    await kit.audit(r, { ...user }, on ? 'data_layer.enable' : 'data_layer.disable', endpoint.instanceId, {
      connector: endpoint.connector.config.key,
    });
    return redirect(r.res, `/portal/data-layer?done=${on ? 'data_layer_enabled' : 'data_layer_disabled'}`);
  }
  const rows: string[] = [];
  for (const e of eligible) {
    const layer = await g.store.dataLayer.getDataLayer(account.id, e.instanceId);
    const state = layer
      ? t('data_layer_on', { date: fmtDate(layer.enabledAt), items: layer.itemCount })
      : t('data_layer_off');
    const button = postButton(
      '/portal/data-layer',
      r.signedIn.csrf,
      plain(layer ? 'data_layer_disable' : 'data_layer_enable', { instance: e.instanceId }),
      { instance: e.instanceId, enabled: layer ? 'off' : 'on' },
      layer ? 'danger' : '',
    );
    rows.push(
      `<tr><th scope="row"><code>${escapeHtml(e.instanceId)}</code></th><td>` +
        `${escapeHtml(e.connector.descriptor.title)}` +
        `</td><td>${state}</td><td>${button}</td></tr>`,
    );
  }
  const body =
    `${kit.done(r)}<p>${t('data_layer_intro')}</p>` +
    (rows.length
      ? dataTable(
          t('data_layer_caption'),
          [t('col_instance'), t('col_connector'), t('col_status'), t('col_actions')],
          rows.join(''),
        )
      : `<p>${t('data_layer_none')}</p>`);
  return kit.view(r, 200, plain('data_layer_title'), body);
}

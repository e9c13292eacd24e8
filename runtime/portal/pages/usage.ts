// The usage page: calls of this or a past month by connector and tool, by day, endpoint instance and
// user (usage-breakdown.ts, with the CSV export), the fair-use state, the quota form.
import type { FairUseMode } from '../../store/store.ts';
import { barChart, dataTable, escapeHtml, redirect } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';
import { byConnectorOf, chosenMonth, dailyTables, monthPicker } from './usage-breakdown.ts';

export { usageCsv } from './usage-breakdown.ts';

export async function usage(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { account, user } = r.signedIn;
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    if (!kit.isAdmin(r)) return kit.adminOnly(r);
    if (!kit.options.selfServiceQuota) return kit.notice(r, 403, 'forbidden_title', 'quota_by_operator');
    const raw = (form.get('quota') ?? '').trim();
    const quota = raw === '' ? null : /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
    // A wrong value answers on the usage page, above the form it was typed into (400).
    if (quota !== null && !Number.isSafeInteger(quota)) return usagePage(kit, r, 400, raw);
    await g.store.accounts.setFairUse(account.id, { quota });
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'fair_use.quota', account.id, { quota: quota ?? 'default' });
    return redirect(r.res, '/portal/usage?done=quota_saved');
  }
  return usagePage(kit, r, 200);
}

/** The page; `invalid` is a refused quota as typed, shown in the form with its error. */
async function usagePage(kit: PortalKit, r: SignedInRequest, status: number, invalid?: string): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { account } = r.signedIn;
  const quotaAllowed = kit.options.selfServiceQuota === true && kit.isAdmin(r);
  const current = g.state.account(account.id) ?? account;
  const { month, current: thisMonth } = chosenMonth(kit, r);
  const record = await g.meter.usageRecord(current, g.now());
  const { usage: u, fairUse } = record;
  const past = month !== thisMonth;
  const byConnector = Object.entries(
    past ? byConnectorOf(await g.store.usage.getUsage(account.id, month)) : u.byConnector,
  );
  const chart = byConnector.length
    ? barChart(
        byConnector.flatMap(([id, c]) =>
          Object.entries(c.byTool).map(([tool, n]) => ({ label: `${id} · ${tool}`, value: n })),
        ),
        plain('usage_chart_title', { month }),
        plain('usage_chart_desc', { summary: byConnector.map(([id, c]) => `${id} ${c.calls}`).join(', ') }),
      )
    : `<p>${past ? t('usage_none_month', { month }) : t('usage_none')}</p>`;
  const tools = byConnector
    .flatMap(([id, c]) =>
      Object.entries(c.byTool).map(
        ([tool, n]) =>
          `<tr><th scope="row"><code>${escapeHtml(id)}</code></th><td><code>${escapeHtml(tool)}</code></td><td>${n}` +
          '</td></tr>',
      ),
    )
    .join('');
  const state =
    fairUse.mode === 'off'
      ? 'fair_use_off'
      : fairUse.withinQuota
        ? 'fair_use_within'
        : fairUse.mode === 'hard'
          ? 'fair_use_blocked_state'
          : 'fair_use_over_soft';
  let quotaForm = '';
  if (quotaAllowed) {
    quotaForm =
      `<h2>${t('quota_heading')}</h2><form method="post" action="/portal/usage"><input type="hidden" name="csrf" ` +
      `value="${escapeHtml(r.signedIn.csrf)}"><label for="quota">${t('field_quota')}</label><input type="number" ` +
      `id="quota" name="quota" min="0" step="1" value="${escapeHtml(invalid ?? String(current.fairUseQuota ?? ''))}" ` +
      `aria-describedby="${invalid === undefined ? '' : 'quota-error '}quota-note"` +
      `${invalid === undefined ? '' : ' aria-invalid="true"'}>` +
      (invalid === undefined ? '' : `<p class="error" id="quota-error" role="alert">${t('quota_invalid')}</p>`) +
      `<p class="note" id="quota-note">${t('quota_note', { default: g.config.fairUse.defaultQuota })}</p><button ` +
      `type="submit">${t('save_quota')}</button></form>`;
  } else if (kit.isAdmin(r)) quotaForm = `<p class="note">${t('quota_by_operator')}</p>`;
  const period = past
    ? `<p>${t('usage_period_past', { month })}</p>`
    : `<p>${t('usage_period', { from: u.from, to: u.to })}</p><p>` +
      `${t('usage_summary', { used: fairUse.used, limit: fairUse.limit, month: fairUse.month })}` +
      `</p><p>${t(state, { mode: plain(`fair_use_mode_${fairUse.mode as FairUseMode}`) })}</p>`;
  const body =
    `${kit.done(r)}${await monthPicker(kit, r, month, thisMonth)}${period}<h2>${t('usage_by_connector')}</h2>${chart}` +
    (tools ? dataTable(t('usage_by_tool'), [t('col_connector'), t('col_tool'), t('col_calls')], tools) : '') +
    `${await dailyTables(kit, r, month)}${quotaForm}`;
  return kit.view(r, status, plain('usage_title'), body);
}

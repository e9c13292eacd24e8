// The Usage page's month view (docs/decisions/portal.md, 'Usage by day, endpoint instance and user'):
// which months there are, the calls by connector and tool of a past month, the metered calls by day,
// endpoint instance and user of any month (from the daily usage the call log writer keeps), and the
// month as CSV.
import type { DailyUsageRow } from '../../store/call-log.ts';
import type { UsageRow, User } from '../../store/store.ts';
import type { UsageRecord } from '../../metering/usage-record.ts';
import { dataTable, escapeHtml } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';
import { sendCsv } from './csv-export.ts';

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The month the request asks for (`?month=YYYY-MM`), or the current billing month. */
export function chosenMonth(kit: PortalKit, r: SignedInRequest): { month: string; current: string } {
  const current = kit.g.meter.month(kit.g.now());
  const asked = r.query.get('month') ?? '';
  return { month: MONTH.test(asked) && asked <= current ? asked : current, current };
}

/** Calls by connector and tool of a stored month, shaped as the usage record's `byConnector`. */
export function byConnectorOf(rows: readonly UsageRow[]): UsageRecord['usage']['byConnector'] {
  const out: Record<string, { calls: number; costUnits: number; byTool: Record<string, number> }> = {};
  for (const row of rows) {
    out[row.connectorId] ??= { calls: 0, costUnits: 0, byTool: {} };
    const c = out[row.connectorId]!;
    c.calls += row.calls;
    c.costUnits += row.costUnits;
    c.byTool[row.tool] = (c.byTool[row.tool] ?? 0) + row.calls;
  }
  return out;
}

/** The month picker: the current month and every month with usage, newest first. */
export async function monthPicker(kit: PortalKit, r: SignedInRequest, month: string, current: string): Promise<string> {
  const { t } = kit.text;
  const months = [...new Set([current, ...(await kit.g.store.callLog.usageMonths(r.signedIn.account.id))])]
    .filter((m) => m <= current)
    .sort()
    .reverse();
  const options = months.map((m) => `<option value="${m}"${m === month ? ' selected' : ''}>${m}</option>`).join('');
  return (
    `<form method="get" action="/portal/usage"><fieldset><legend>${t('usage_month_legend')}</legend>` +
    `<label for="month">${t('field_month')}</label><select id="month" name="month">${options}</select>` +
    `<button type="submit">${t('usage_month_button')}</button></fieldset></form>`
  );
}

function sums(rows: readonly DailyUsageRow[], key: (row: DailyUsageRow) => string): [string, number][] {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(key(row), (totals.get(key(row)) ?? 0) + row.calls);
  return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const userLabel = (users: ReadonlyMap<string, User>, id: string): string => {
  const u = users.get(id);
  return u ? `${u.name} <${u.email}>` : id;
};

/** The tables by day, endpoint instance and user of a month, with the export link. */
export async function dailyTables(kit: PortalKit, r: SignedInRequest, month: string): Promise<string> {
  const { t } = kit.text;
  const [rows, userList] = await Promise.all([
    kit.g.store.callLog.dailyUsage(r.signedIn.account.id, month),
    kit.accountUsers(r),
  ]);
  const users = new Map(userList.map((u) => [u.id, u]));
  // A member sees the account's totals by day and instance, and by user only their own calls.
  const own = kit.isAdmin(r) ? rows : rows.filter((x) => x.userId === r.signedIn.user.id);
  const exportLink =
    `<p><a href="/portal/usage.csv?month=${month}">${t('usage_export', { month })}</a></p>` +
    `<p class="note">${t('usage_daily_note')}</p>`;
  if (rows.length === 0) return exportLink;
  const table = (caption: string, first: string, entries: [string, string][], asCode: boolean) =>
    dataTable(
      caption,
      [first, t('col_calls')],
      entries
        .map(([label, n]) => `<tr><th scope="row">${asCode ? `<code>${label}</code>` : label}</th><td>${n}</td></tr>`)
        .join(''),
    );
  const count = (e: [string, number][], show: (k: string) => string): [string, string][] =>
    e.map(([k, n]) => [escapeHtml(show(k)), String(n)]);
  return (
    table(
      t('usage_by_day', { month }),
      t('col_day'),
      count(
        sums(rows, (x) => x.day),
        String,
      ),
      false,
    ) +
    table(
      t('usage_by_instance', { month }),
      t('col_instance'),
      count(
        sums(rows, (x) => x.instanceId),
        (k) => k,
      ),
      true,
    ) +
    table(
      t('usage_by_user', { month }),
      t('col_user'),
      count(
        sums(own, (x) => x.userId),
        (k) => userLabel(users, k),
      ),
      false,
    ) +
    exportLink
  );
}

/**
 * `/portal/usage.csv?month=YYYY-MM`: the month's metered calls by day, endpoint instance and user (a member's: only
 * their own).
 */
export async function usageCsv(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const { plain } = kit.text;
  const { month } = chosenMonth(kit, r);
  const [rows, userList] = await Promise.all([
    kit.g.store.callLog.dailyUsage(r.signedIn.account.id, month),
    kit.accountUsers(r),
  ]);
  const users = new Map(userList.map((u) => [u.id, u]));
  return sendCsv(
    r.res,
    `usage-${month}.csv`,
    [plain('col_day'), plain('col_instance'), plain('col_user'), plain('col_calls')],
    rows
      .filter((x) => kit.isAdmin(r) || x.userId === r.signedIn.user.id)
      .map((x) => [x.day, x.instanceId, users.get(x.userId)?.email ?? x.userId, x.calls]),
  );
}

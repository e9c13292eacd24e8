// The Calls page: the account's call log (docs/decisions/portal.md, 'The call log keeps no arguments or
// results'), filtered by endpoint instance, tool, outcome and user, a page at a time, and its CSV export.
// An administrator sees every user's calls; a member sees their own.
import { CALL_OUTCOMES, type CallLogEntry, type CallLogFilter, type CallOutcome } from '../../store/call-log.ts';
import type { User } from '../../store/store.ts';
import { dataTable, escapeHtml } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';
import { sendCsv } from './csv-export.ts';

const PAGE_PARAM = /^[1-9]\d{0,4}$/;
const FILTER_VALUE = /^[\w.:-]{1,120}$/;

interface CallsQuery {
  readonly filter: CallLogFilter;
  readonly page: number;
  /** The filters as query parameters (for the paging and export links). */
  readonly params: URLSearchParams;
}

/** The filters of the request; a member's calls are always only their own. */
function callsQuery(kit: PortalKit, r: SignedInRequest): CallsQuery {
  const q = r.query;
  const pick = (name: string): string | undefined => {
    const value = q.get(name) ?? '';
    return FILTER_VALUE.test(value) ? value : undefined;
  };
  const outcome = pick('outcome');
  const filter: { -readonly [K in keyof CallLogFilter]: CallLogFilter[K] } = {};
  const instance = pick('instance');
  const tool = pick('tool');
  const user = kit.isAdmin(r) ? pick('user') : r.signedIn.user.id;
  if (instance) filter.instanceId = instance;
  if (tool) filter.tool = tool;
  if (outcome && (CALL_OUTCOMES as readonly string[]).includes(outcome)) filter.outcome = outcome as CallOutcome;
  if (user) filter.userId = user;
  const params = new URLSearchParams();
  if (filter.instanceId) params.set('instance', filter.instanceId);
  if (filter.tool) params.set('tool', filter.tool);
  if (filter.outcome) params.set('outcome', filter.outcome);
  if (filter.userId && kit.isAdmin(r)) params.set('user', filter.userId);
  const page = q.get('page') ?? '';
  return { filter, page: PAGE_PARAM.test(page) ? Number(page) : 1, params };
}

const when = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

function select(id: string, label: string, any: string, options: readonly [string, string][], chosen?: string): string {
  const items = options
    .map(
      ([value, text]) =>
        `<option value="${escapeHtml(value)}"${value === chosen ? ' selected' : ''}>${escapeHtml(text)}</option>`,
    )
    .join('');
  return (
    `<label for="f-${id}">${label}</label><select id="f-${id}" name="${id}"><option value="">${any}</option>` +
    `${items}</select>`
  );
}

function userName(users: ReadonlyMap<string, User>, id: string): string {
  const u = users.get(id);
  return u ? `${u.name} <${u.email}>` : id;
}

export async function calls(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const account = r.signedIn.account;
  const { filter, page, params } = callsQuery(kit, r);
  const perPage = g.platform.limits.callLogPageEntries;
  const [found, choices, userList] = await Promise.all([
    g.store.callLog.listCalls(account.id, filter, perPage + 1, (page - 1) * perPage),
    g.store.callLog.callChoices(account.id),
    kit.accountUsers(r),
  ]);
  const users = new Map(userList.map((u) => [u.id, u]));
  const admin = kit.isAdmin(r);
  const shown = found.slice(0, perPage);
  const any = t('filter_any');
  // The chosen value stays a choice even when nothing was metered for it (a refused call's tool).
  const withChosen = (list: readonly string[], chosen?: string) =>
    [...new Set([...list, ...(chosen ? [chosen] : [])])].sort().map((x): [string, string] => [x, x]);
  const form =
    `<form method="get" action="/portal/calls"><fieldset><legend>${t('calls_filter_legend')}</legend>` +
    select(
      'instance',
      t('field_filter_instance'),
      any,
      withChosen(choices.instances, filter.instanceId),
      filter.instanceId,
    ) +
    select('tool', t('field_filter_tool'), any, withChosen(choices.tools, filter.tool), filter.tool) +
    select(
      'outcome',
      t('field_filter_outcome'),
      any,
      CALL_OUTCOMES.map((o) => [o, plain(`outcome_${o}`)]),
      filter.outcome,
    ) +
    (admin
      ? select(
          'user',
          t('field_filter_user'),
          any,
          userList.map((u) => [u.id, userName(users, u.id)]),
          filter.userId,
        )
      : '') +
    `<button type="submit">${t('calls_filter_button')}</button></fieldset></form>`;
  const rows = shown.map((c) => callRow(kit, c, users, admin)).join('');
  const link = (n: number) => {
    const p = new URLSearchParams(params);
    if (n > 1) p.set('page', String(n));
    const query = p.toString();
    return `/portal/calls${query ? `?${query}` : ''}`;
  };
  const paging = [
    page > 1 ? `<a href="${escapeHtml(link(page - 1))}">${t('calls_newer')}</a>` : '',
    found.length > perPage ? `<a href="${escapeHtml(link(page + 1))}">${t('calls_older')}</a>` : '',
  ].filter(Boolean);
  const headers = [t('col_when'), t('col_instance'), t('col_tool'), t('col_outcome'), t('col_code')];
  if (admin) headers.push(t('col_user'));
  headers.push(t('col_token'), t('col_duration'));
  const exportQuery = params.toString();
  const body =
    `<p>${t(admin ? 'calls_intro' : 'calls_intro_member', { days: g.config.callLogDays })}</p>${form}` +
    `<p><a href="/portal/calls.csv${exportQuery ? `?${escapeHtml(exportQuery)}` : ''}">` +
    `${t('calls_export', { max: g.platform.limits.callLogExportRows })}</a></p>` +
    (rows ? dataTable(t('calls_caption', { page }), headers, rows) : `<p>${t('calls_none')}</p>`) +
    (paging.length ? `<p>${paging.join(' · ')}</p>` : '');
  return kit.view(r, 200, plain('calls_title'), body);
}

function callRow(kit: PortalKit, c: CallLogEntry, users: ReadonlyMap<string, User>, admin: boolean): string {
  const { t } = kit.text;
  return (
    `<tr><td>${when(c.at)}</td><td><code>${escapeHtml(c.instanceId)}</code></td><td><code>${escapeHtml(c.tool)}` +
    `</code></td><td>${t(`outcome_${c.outcome}`)}</td><td><code>${escapeHtml(c.detail)}</code></td>` +
    (admin ? `<td>${escapeHtml(userName(users, c.userId))}</td>` : '') +
    `<td>${escapeHtml(c.tokenLabel)}</td><td>${c.durationMs ?? ''}</td></tr>`
  );
}

/** `/portal/calls.csv`: the calls the filters match, newest first, at most `callLogExportRows`. */
export async function callsCsv(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { plain } = kit.text;
  const { filter } = callsQuery(kit, r);
  const [found, userList] = await Promise.all([
    g.store.callLog.listCalls(r.signedIn.account.id, filter, g.platform.limits.callLogExportRows, 0),
    kit.accountUsers(r),
  ]);
  const users = new Map(userList.map((u) => [u.id, u]));
  return sendCsv(
    r.res,
    'calls.csv',
    [
      plain('col_when'),
      plain('col_instance'),
      plain('col_tool'),
      plain('col_outcome'),
      plain('col_code'),
      plain('col_user'),
      plain('col_token'),
      plain('col_duration'),
    ],
    found.map((c) => [
      c.at.toISOString(),
      c.instanceId,
      c.tool,
      c.outcome,
      c.detail,
      users.get(c.userId)?.email ?? c.userId,
      c.tokenLabel,
      c.durationMs,
    ]),
  );
}

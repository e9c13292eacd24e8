// The account's audit log (administrators): the newest entries.
import { dataTable, escapeHtml } from '../html.ts';
import { fmtDate, type PortalKit, type SignedInRequest } from '../kit.ts';

export async function audit(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  if (!kit.isAdmin(r)) return kit.adminOnly(r);
  const entries = await g.store.audit.listAudit(r.signedIn.account.id, g.platform.limits.auditPageEntries);
  const rows = entries
    .map(
      (e) =>
        `<tr><td>${fmtDate(e.at)}</td><td>${escapeHtml(e.actor)}</td><td><code>${escapeHtml(e.action)}</code></td>` +
        `<td>${escapeHtml(e.target)}</td><td>${escapeHtml(e.detail)}</td><td>${escapeHtml(e.source)}</td></tr>`,
    )
    .join('');
  const body =
    `<p>${t('audit_intro', { count: entries.length })}</p>` +
    (rows
      ? dataTable(
          t('audit_caption'),
          [t('col_when'), t('col_who'), t('col_what'), t('col_target'), t('col_detail'), t('col_from')],
          rows,
        )
      : `<p>${t('audit_none')}</p>`);
  return kit.view(r, 200, plain('audit_title'), body);
}

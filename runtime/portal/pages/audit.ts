// The account's audit log (administrators): the newest entries.
import { escapeHtml } from '../html.ts';
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
    `${rows ? `<table><caption>${t('audit_caption')}</caption><thead><tr><th scope="col">${t('col_when')}</th><th scope="col">${t('col_who')}</th><th scope="col">${t('col_what')}</th><th scope="col">${t('col_target')}</th><th scope="col">${t('col_detail')}</th><th scope="col">${t('col_from')}</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>${t('audit_none')}</p>`}`;
  return kit.view(r, 200, plain('audit_title'), body);
}

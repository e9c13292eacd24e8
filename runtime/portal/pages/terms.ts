// The terms page: read and accept (a connect path may send the user here first, with `next`).
import { postButton, redirect } from '../html.ts';
import { fmtDate, type PortalKit, type SignedInRequest } from '../kit.ts';

export async function terms(kit: PortalKit, r: SignedInRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  const { user } = r.signedIn;
  const next = r.query.get('next');
  if (r.req.method === 'POST') {
    const form = await kit.form(r);
    if (!form) return r.res.statusCode;
    await g.store.users.acceptTerms(user.id, g.now());
    await g.state.refresh();
    await kit.audit(r, { ...user }, 'terms.accept', user.id);
    const target = form.get('next');
    return redirect(
      r.res,
      target?.startsWith('/portal/') && !target.startsWith('//') ? target : '/portal/terms?done=terms_accepted',
    );
  }
  const accepted = user.termsAcceptedAt
    ? `<p class="ok">${t('overview_terms_accepted', { date: fmtDate(user.termsAcceptedAt) })}</p>`
    : '';
  const hidden: Record<string, string> = next?.startsWith('/portal/') && !next.startsWith('//') ? { next } : {};
  const body =
    `${kit.done(r)}${accepted}<p>${t('terms_text')}</p>` +
    `${user.termsAcceptedAt ? '' : postButton('/portal/terms', r.signedIn.csrf, plain('terms_accept'), hidden)}`;
  return kit.view(r, 200, plain('terms_title'), body);
}

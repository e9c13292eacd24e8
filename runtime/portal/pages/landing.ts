// The public landing page: the endpoints and the way to sign in (also the 404 page outside /portal).
import { escapeHtml } from '../html.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';

export function landing(kit: PortalKit, r: PortalRequest, status: number): number {
  const { t, plain } = kit.text;
  r.req.resume();
  const list = [...kit.g.endpoints.values()]
    .filter((e) => e.instance === 1)
    .map(
      (e) =>
        `<li><code>${escapeHtml(kit.endpointUrl(e.instanceId))}</code> — ${escapeHtml(e.connector.descriptor.title)}` +
        '</li>',
    )
    .join('');
  return kit.view(
    r,
    status,
    plain(status === 404 ? 'not_found_title' : 'landing_title'),
    `<p>${t('landing_endpoints')}</p><ul>${list}</ul><p><a href="/portal/sign-in">${t('landing_sign_in')}</a></p>`,
  );
}

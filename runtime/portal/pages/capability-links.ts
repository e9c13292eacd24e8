// Purchase, team and terms links hand their own user, signed in, to the portal page. A link never
// acts and shows nothing of the account by itself (docs/decisions/portal.md, 'Signed links never
// act on their own'): what it leads to is a form of the session, with its CSRF token.
import type { LinkPayload } from '../../secrets/signed-links.ts';
import type { PortalWord } from '../html.ts';
import { escapeHtml, redirect } from '../html.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';

/** The portal page each capability link leads to. */
const LINK_PAGE: Readonly<Record<'purchase' | 'team' | 'terms', string>> = {
  purchase: '/portal/connectors',
  team: '/portal/team',
  terms: '/portal/terms',
};

/** The page title of each link before sign-in (no account data). */
const LINK_TITLE: Readonly<Record<'purchase' | 'team' | 'terms', PortalWord>> = {
  purchase: 'connectors_title',
  team: 'team_title',
  terms: 'terms_title',
};

/**
 * Purchase, team and terms links. The link's user signed in: their portal page. Anyone else (no
 * session, or signed in as another user) gets a sign-in prompt that names nothing of the account,
 * and a POST (an old link page's form) changes nothing.
 */
export async function capabilityLink(
  kit: PortalKit,
  r: PortalRequest,
  purpose: 'purchase' | 'team' | 'terms',
  payload: LinkPayload,
  token: string,
): Promise<number> {
  const { t, plain } = kit.text;
  r.req.resume();
  const requester = await kit.requesterOf(payload);
  if (!requester || (!kit.connectorOf(payload.connectorKey) && purpose !== 'terms'))
    return kit.linkInvalid(r, 'invalid');
  if (r.signedIn?.user.id === requester.user.id) return redirect(r.res, LINK_PAGE[purpose]);
  const action = `/portal/${purpose}/${token}`;
  const signIn = `/portal/sign-in?next=${encodeURIComponent(action)}`;
  if (r.signedIn) {
    kit.g.log.warn(
      { linkUser: requester.user.id, signedInUser: r.signedIn.user.id, purpose },
      'portal link refused: signed in as another user',
    );
    return kit.view(r, 403, plain(LINK_TITLE[purpose]), `<p class="error" role="alert">${t('link_other_user')}</p>`);
  }
  return kit.view(
    r,
    r.req.method === 'POST' ? 401 : 200,
    plain(LINK_TITLE[purpose]),
    `<p>${t('link_sign_in_first')}</p>` +
      `<p><a class="button" href="${escapeHtml(signIn)}">${t('sign_in_to_continue')}</a></p>`,
  );
}

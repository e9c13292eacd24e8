// The portal: sign-in, the signed-in account pages (account-pages.ts), and the signed links the
// platform texts hand out (connect, purchase, team, terms), server-rendered without JavaScript.
//
// Signed links land on the portal pages: the link's user, signed in, is sent to the page; anyone
// else sees a sign-in prompt that names nothing of the account (docs/decisions/portal.md, 'Signed
// links never act on their own'). A connect link is bound to the user who asked for it: its form (and an OAuth
// start) needs that user signed in, so nobody else can store a credential in the asking account,
// and the terms must be accepted first (the gate connect_account applies, on every connect path).
//
// Each page is a module of `pages/` exporting its handlers; the route tables here and in
// account-pages.ts say which path reaches which, in order.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext } from '../gateway-context.ts';
import { accountPage } from './account-pages.ts';
import { AUTHORIZE_PATH, authorizePage } from './authorize-page.ts';
import { redirect, sendPage } from './html.ts';
import { PortalKit, type PortalOptions, type PortalRequest, safeNext, type SignedInRequest } from './kit.ts';
import { landing } from './pages/landing.ts';
import { OAUTH_CALLBACK_PATH, oauthCallback } from './pages/oauth.ts';
import { forgotPassword } from './pages/password-links.ts';
import { setPassword, signIn, signOut } from './pages/sign-in.ts';
import { SIGNED_LINK, signedLink } from './pages/signed-links.ts';
import { routeTo, type Route } from './routes.ts';
import type { PortalSessions } from './session.ts';

export type { PasswordLinkDelivery, PortalOptions } from './kit.ts';
export { OAUTH_CALLBACK_PATH } from './pages/oauth.ts';

export interface PortalRoutes {
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
  /** Sign-in and sessions, for other routes that need the signed-in user (a consent page). */
  readonly sessions: PortalSessions;
}

/**
 * Pages anyone may open (after the session is looked up), matched in order before the signed-in
 * pages. The OAuth callback comes before all of them: every method, and no session look-up.
 */
export const PUBLIC_ROUTES: readonly Route<PortalRequest>[] = [
  { path: '/', page: (kit, r) => landing(kit, r, 200) },
  { path: '/portal/sign-in', page: signIn },
  { path: '/portal/sign-out', page: signOut },
  { path: '/portal/forgot-password', page: forgotPassword },
  { path: /^\/portal\/set-password\/([A-Za-z0-9_-]{20,100})$/, page: (kit, r, [token]) => setPassword(kit, r, token!) },
  { path: SIGNED_LINK, page: signedLink },
  { path: AUTHORIZE_PATH, page: authorizePage },
];

export function createPortal(gateway: GatewayContext, options: PortalOptions): PortalRoutes {
  // Set-password links go by mail (runtime/mail/) unless a test hands its own delivery; never to the log.
  const kit = new PortalKit(gateway, options);
  const { t, plain } = kit.text;
  const sessions = kit.sessions;

  return {
    sessions,
    async handle(req, res, path) {
      const query = new URL(req.url ?? '/', 'http://portal.invalid').searchParams;
      const base: PortalRequest = { req, res, path, query, signedIn: undefined };
      if (path === OAUTH_CALLBACK_PATH) return oauthCallback(kit, base);
      if (req.method !== 'GET' && req.method !== 'POST') {
        req.resume();
        return sendPage(res, 405, {
          title: plain('method_title'),
          body: `<p>${t('method_not_allowed')}</p><p class="back"><a href="/">${t('back_to_start')}</a></p>`,
        });
      }
      const r: PortalRequest = { ...base, signedIn: await sessions.lookup(req) };
      const open = await routeTo(PUBLIC_ROUTES, kit, r);
      if (open !== undefined) return open;
      if (!path.startsWith('/portal')) return landing(kit, r, 404);
      if (!r.signedIn) {
        req.resume();
        const known = path === '/portal' || /^\/portal\/[a-z-]+(\/|$)/.test(path);
        if (!known) return landing(kit, r, 404);
        return redirect(res, `/portal/sign-in?next=${encodeURIComponent(safeNext(path))}`);
      }
      const answered = await accountPage(kit, r as SignedInRequest);
      if (answered !== undefined) return answered;
      req.resume();
      return kit.notice(r, 404, 'not_found_title', 'page_not_found');
    },
  };
}

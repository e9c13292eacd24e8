// The signed-in portal pages: overview, connectors (subscribe), team (invite, roles, seats),
// connections (status, connect, reconnect, disconnect, client setup), usage (chart, fair use, quota, by
// day, instance and user, CSV), calls (the call log, CSV), API tokens,
// terms, the data-layer opt-in and the audit log. Every page reads only the signed-in user's
// account; every id a form names is checked against that account; members see only what a member
// may (administrator pages answer 403). After a change: an audit entry and a redirect to the page
// with a confirmation (`?done=`), so a reload never posts twice.
//
// Each page is a module of `pages/`; this table routes to them, in order.
import type { PortalKit, SignedInRequest } from './kit.ts';
import { audit } from './pages/audit.ts';
import { calls, callsCsv } from './pages/calls.ts';
import { connectionTestAction } from './pages/connection-test.ts';
import { connectionConnect } from './pages/connection-connect.ts';
import { connectionAction, connections } from './pages/connections.ts';
import { connectorsPage } from './pages/connectors.ts';
import { dataLayer } from './pages/data-layer.ts';
import { overview } from './pages/overview.ts';
import { signOutEverywhere } from './pages/sign-in.ts';
import { team } from './pages/team.ts';
import { terms } from './pages/terms.ts';
import { tokens } from './pages/tokens.ts';
import { toolSettings } from './pages/tool-settings.ts';
import { usage, usageCsv } from './pages/usage.ts';
import { routeTo, type Route } from './routes.ts';

/** The signed-in pages, matched in order. */
export const ACCOUNT_ROUTES: readonly Route<SignedInRequest>[] = [
  { path: /^\/portal\/?$/, page: overview },
  { path: '/portal/connectors', page: connectorsPage },
  { path: '/portal/team', page: team },
  { path: '/portal/connections', page: (kit, r) => connections(kit, r) },
  {
    path: /^\/portal\/connections\/([a-z0-9-]{1,80})\/(connect|disconnect)$/,
    page: (kit, r, [instanceId, action]) =>
      action === 'connect'
        ? connectionConnect(kit, r, instanceId!)
        : connectionAction(kit, r, instanceId!, action as 'connect' | 'disconnect'),
  },
  {
    path: /^\/portal\/connections\/([a-z0-9-]{1,80})\/test$/,
    page: (kit, r, [instanceId]) => connectionTestAction(kit, r, instanceId!),
  },
  {
    path: /^\/portal\/connections\/([a-z0-9-]{1,80})\/tools$/,
    page: (kit, r, [instanceId]) => toolSettings(kit, r, instanceId!),
  },
  { path: '/portal/usage', page: usage },
  { path: '/portal/usage.csv', methods: ['GET'], page: usageCsv },
  { path: '/portal/calls', methods: ['GET'], page: calls },
  { path: '/portal/calls.csv', methods: ['GET'], page: callsCsv },
  { path: '/portal/tokens', page: (kit, r) => tokens(kit, r, '') },
  { path: '/portal/tokens/create', page: (kit, r) => tokens(kit, r, 'create') },
  { path: '/portal/tokens/revoke', page: (kit, r) => tokens(kit, r, 'revoke') },
  { path: '/portal/tokens/revoke-grant', page: (kit, r) => tokens(kit, r, 'revoke-grant') },
  { path: '/portal/terms', page: terms },
  { path: '/portal/data-layer', page: dataLayer },
  { path: '/portal/audit', page: audit },
  { path: '/portal/sign-out-everywhere', methods: ['POST'], page: signOutEverywhere },
];

/** Routes a signed-in request; undefined when the path is not one of these pages. */
export async function accountPage(kit: PortalKit, r: SignedInRequest): Promise<number | undefined> {
  if (r.req.method !== 'GET' && r.req.method !== 'POST')
    return kit.notice(r, 405, 'method_title', 'method_not_allowed');
  return routeTo(ACCOUNT_ROUTES, kit, r);
}

// The portal's route tables (runtime/portal/routes.ts, pages.ts, account-pages.ts): the first
// matching route wins, an exact path is exact, a pattern's groups are the page's parameters, a
// route limited to some methods lets the others go on down the table, and every page the portal
// served before the split is still reached (the pages themselves are tested in portal.test.ts).
import { describe, expect, it } from 'vitest';
import { ACCOUNT_ROUTES } from '../runtime/portal/account-pages.ts';
import { PUBLIC_ROUTES } from '../runtime/portal/pages.ts';
import { matchRoute, type Page, type Route } from '../runtime/portal/routes.ts';
import type { PortalRequest } from '../runtime/portal/kit.ts';

const page =
  (status: number): Page<PortalRequest> =>
  () =>
    status;

describe('portal route table', () => {
  const routes: Route<PortalRequest>[] = [
    { path: '/portal/tokens', page: page(1) },
    { path: /^\/portal\/connections\/([a-z0-9-]{1,80})\/(connect|disconnect)$/, page: page(2) },
    { path: '/portal/sign-out-everywhere', methods: ['POST'], page: page(3) },
    { path: /^\/portal\/sign-out-everywhere$/, page: page(4) },
    { path: /^\/portal\/tokens$/, page: page(5) },
  ];
  const answer = (path: string, method = 'GET') => {
    const found = matchRoute(routes, path, method);
    return found && { status: found.page({} as never, {} as PortalRequest, found.params), params: found.params };
  };

  it('takes the first route that matches, exact paths exactly', () => {
    expect(answer('/portal/tokens')).toEqual({ status: 1, params: [] });
    expect(answer('/portal/tokens/')).toBeUndefined();
    expect(answer('/portal/tokens/create')).toBeUndefined();
    expect(answer('/portal')).toBeUndefined();
  });

  it('hands a pattern’s groups to the page as its parameters', () => {
    expect(answer('/portal/connections/cases-2/disconnect')).toEqual({ status: 2, params: ['cases-2', 'disconnect'] });
    expect(answer('/portal/connections/Cases/connect')).toBeUndefined();
  });

  it('lets a method a route does not answer go on down the table', () => {
    expect(answer('/portal/sign-out-everywhere', 'POST')?.status).toBe(3);
    expect(answer('/portal/sign-out-everywhere', 'GET')?.status).toBe(4);
  });
});

describe('the portal’s tables', () => {
  const reached = <R extends PortalRequest>(routes: readonly Route<R>[], path: string, method = 'GET') =>
    matchRoute(routes, path, method) !== undefined;

  it('reach every page anyone may open', () => {
    for (const path of [
      '/',
      '/portal/sign-in',
      '/portal/sign-out',
      `/portal/set-password/${'a'.repeat(43)}`,
      '/portal/connect/abc.def',
      '/portal/purchase/abc.def',
      '/portal/team/abc.def',
      '/portal/terms/abc.def',
      '/portal/authorize',
    ]) {
      expect(reached(PUBLIC_ROUTES, path), path).toBe(true);
    }
    // Not a link (no signature part), too short a set-password token, another purpose.
    for (const path of [
      '/portal/connect/abc',
      `/portal/set-password/${'a'.repeat(19)}`,
      '/portal/tokens/abc.def',
      '/portal',
      '/portal/oauth/callback',
    ]) {
      expect(reached(PUBLIC_ROUTES, path), path).toBe(false);
    }
  });

  it('reach every signed-in page, and sign-out-everywhere by POST only', () => {
    const pages = [
      '/portal',
      '/portal/',
      '/portal/connectors',
      '/portal/team',
      '/portal/connections',
      '/portal/connections/cases/connect',
      '/portal/connections/cases-2/disconnect',
      '/portal/usage',
      '/portal/tokens',
      '/portal/tokens/create',
      '/portal/tokens/revoke',
      '/portal/tokens/revoke-grant',
      '/portal/terms',
      '/portal/data-layer',
      '/portal/audit',
    ];
    for (const path of pages) expect(reached(ACCOUNT_ROUTES, path), path).toBe(true);
    expect(reached(ACCOUNT_ROUTES, '/portal/sign-out-everywhere', 'POST')).toBe(true);
    expect(reached(ACCOUNT_ROUTES, '/portal/sign-out-everywhere', 'GET')).toBe(false);
    for (const path of [
      '/portal/nowhere',
      '/portal/tokens/delete',
      '/portal/connections/cases/remove',
      '/portal/sign-in',
    ]) {
      expect(reached(ACCOUNT_ROUTES, path), path).toBe(false);
    }
  });

  it('never route one path to both a public and a signed-in page', () => {
    const exact = (routes: readonly { path: string | RegExp }[]) =>
      routes.flatMap((r) => (typeof r.path === 'string' ? [r.path] : []));
    const shared = exact(PUBLIC_ROUTES).filter(
      (p) =>
        exact(ACCOUNT_ROUTES).includes(p) || ACCOUNT_ROUTES.some((r) => r.path instanceof RegExp && r.path.test(p)),
    );
    expect(shared).toEqual([]);
  });
});

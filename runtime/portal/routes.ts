// A route table: the portal's pages as data, matched in order. A route names its path (exact, or a
// pattern whose groups become the page's parameters), optionally the methods it answers (another
// method goes on down the table), and the page handler of its module in `pages/`.
import type { PortalKit, PortalRequest } from './kit.ts';

export type PageMethod = 'GET' | 'POST';

/** A page handler: answers the request and returns the status sent. */
export type Page<R extends PortalRequest> = (
  kit: PortalKit,
  r: R,
  params: readonly string[],
) => Promise<number> | number;

export interface Route<R extends PortalRequest> {
  readonly path: string | RegExp;
  /** Only these methods reach the page; absent: every method the portal serves (GET and POST). */
  readonly methods?: readonly PageMethod[];
  readonly page: Page<R>;
}

/** The first route of the table for the path and method, with the path's parameters; undefined for none. */
export function matchRoute<R extends PortalRequest>(
  routes: readonly Route<R>[],
  path: string,
  method: string | undefined,
): { readonly page: Page<R>; readonly params: readonly string[] } | undefined {
  for (const route of routes) {
    if (route.methods && !route.methods.includes(method as PageMethod)) continue;
    if (typeof route.path === 'string') {
      if (route.path === path) return { page: route.page, params: [] };
      continue;
    }
    const match = route.path.exec(path);
    if (match) return { page: route.page, params: match.slice(1) };
  }
  return undefined;
}

/** Routes the request to the first matching page of the table; undefined when none matches. */
export function routeTo<R extends PortalRequest>(
  routes: readonly Route<R>[],
  kit: PortalKit,
  r: R,
): Promise<number> | number | undefined {
  const found = matchRoute(routes, r.path, r.req.method);
  return found?.page(kit, r, found.params);
}

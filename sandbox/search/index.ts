import type { Sandbox } from '../sandbox.ts';
import { sandboxOAuth, startIdentityProvider, verifyAccessToken } from '../identity/index.ts';
import { dateOfDay, SEARCH_SITES } from './data.ts';
import { pacificToday, SEARCH_SCOPES, startSearchSandbox } from './server.ts';

/**
 * Calendar days before today in Pacific time (Search Console's calendar, the one the sandbox's
 * final data ends on), YYYY-MM-DD: the examples stay inside the final data. Not the UTC date,
 * which runs a day ahead of Pacific time for 7–8 hours of every day.
 */
export function daysAgo(days: number): string {
  return dateOfDay(pacificToday() - days);
}

/**
 * Google Search Console API (webmasters v3): a domain property and URL-prefix properties of
 * example.dk with 16 months of generated search traffic (36,000 queries, 400 pages, countries,
 * devices, search appearances). The connection is a Google OAuth grant through the sandbox
 * identity provider, which the demo tenant gets without a browser.
 */
export const sandbox: Sandbox = {
  connector: 'search',
  title: 'Google Search Console API',
  examples: [
    { tool: 'list_sites', args: {} },
    { tool: 'top_queries', args: { siteUrl: SEARCH_SITES[0]!.siteUrl, startDate: daysAgo(34), endDate: daysAgo(4) } },
  ],
  async start({ host, port }) {
    // Google's identity provider: the demo connects through it, and the portal's connect flow of
    // any other account goes through its consent page.
    const idp = await startIdentityProvider({ host });
    const client = {
      style: 'google' as const,
      clientId: 'demo-search-client.apps.googleusercontent.com',
      clientSecret: 'demo-search-secret',
    };
    const server = await startSearchSandbox({ host, port, verifyToken: verifyAccessToken });
    return {
      url: server.url,
      oauth: sandboxOAuth(idp, client, { apiPath: '', scope: [SEARCH_SCOPES[0]!] }),
      close: async () => {
        await server.close();
        await idp.close();
      },
    };
  },
};

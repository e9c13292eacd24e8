import type { Sandbox } from '../sandbox.ts';
import { BOOKS_DEMO_ORG_ID, BOOKS_YEARS } from './data.ts';
import { startBooksSandbox } from './server.ts';
import { sandboxOAuth, startIdentityProvider, verifyAccessToken } from '../identity/index.ts';

/** Where the Visma Connect authorize and token endpoints sit below the provider's base. */
const VISMA_CONNECT_PATH = '/connect';

/**
 * The Dinero API: a Pro organisation with two accounting years, ~120 accounts, ~2,000 entries,
 * 250 contacts, 300 invoices in every status (one with three reminders), credit notes, trade
 * offers, vouchers, products and files (one over 6 MB); a free organisation (403: no Pro plan)
 * and a throttled one. The connection is a Visma Connect OAuth grant (authorization code + PKCE,
 * `offline_access`) from the sandbox identity provider, which connects the demo tenant.
 */
export const sandbox: Sandbox = {
  connector: 'books',
  title: 'Dinero API (Visma Dinero)',
  examples: [
    { tool: 'list_organizations', args: {} },
    { tool: 'get_result_report', args: { organizationId: BOOKS_DEMO_ORG_ID, accountingYear: BOOKS_YEARS[1] } },
    { tool: 'list_invoices_overdue', args: { organizationId: BOOKS_DEMO_ORG_ID } },
  ],
  async start({ host, port }) {
    const idp = await startIdentityProvider({ host });
    const client = { style: 'visma' as const, clientId: 'isv_dinero_demo', clientSecret: 'demo-dinero-secret' };
    const server = await startBooksSandbox({
      host,
      port,
      verifyToken: (token) => {
        const check = verifyAccessToken(token);
        // A token without the read scope reaches nothing (Dinero answers such a token 401 as well).
        const valid = check.valid && check.style === 'visma' && check.scope.includes('dineropublicapi:read');
        return { valid, expired: check.expired, ...(check.clientId ? { clientId: check.clientId } : {}) };
      },
    });
    return {
      url: server.url,
      oauth: sandboxOAuth(idp, client, {
        apiPath: VISMA_CONNECT_PATH,
        scope: ['dineropublicapi:read', 'offline_access'],
      }),
      close: async () => {
        await server.close();
        await idp.close();
      },
    };
  },
};

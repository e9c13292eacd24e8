import type { Sandbox } from '../sandbox.ts';
import { ERP_DEMO_COMPANY_ID } from './data.ts';
import { startErpSandbox } from './server.ts';
import { ENTRA_BC_RESOURCE, sandboxOAuth, startIdentityProvider, verifyAccessToken } from '../identity/index.ts';

/** Where the Entra-style authorize and token endpoints sit below the provider's base. */
const ENTRA_API_PATH = '/organizations/oauth2/v2.0';

/**
 * Business Central API v2.0 (OData v4): environments Production and Sandbox, three companies, a
 * demo company with 120 customers, 600 general ledger entries and 80 sales invoices. The
 * connection is an OAuth grant (no connect-form credential); until the identity provider
 * connects the demo tenant, the sandbox accepts its static bearer token (ERP_SANDBOX_TOKEN).
 */
export const sandbox: Sandbox = {
  connector: 'erp',
  title: 'Business Central API v2.0',
  examples: [
    { tool: 'list_companies', args: {} },
    {
      tool: 'query_entity',
      args: {
        companyId: ERP_DEMO_COMPANY_ID,
        entity: 'customers',
        select: ['number', 'displayName', 'city', 'balanceDue'],
        pageSize: 5,
      },
    },
  ],
  async start({ host, port }) {
    // The ERP's identity provider (Entra style): the demo connects through it, and the portal's
    // connect flow of any other account goes through its consent page.
    const idp = await startIdentityProvider({ host });
    const client = { style: 'entra' as const, clientId: 'demo-erp-client', clientSecret: 'demo-erp-secret' };
    const server = await startErpSandbox({
      host,
      port,
      verifyToken: (token) => {
        const check = verifyAccessToken(token);
        return { valid: check.valid, expired: check.expired, licensed: true };
      },
    });
    return {
      url: server.url,
      oauth: sandboxOAuth(idp, client, {
        apiPath: ENTRA_API_PATH,
        scope: [`${ENTRA_BC_RESOURCE}Financials.ReadWrite.All`, 'offline_access'],
      }),
      close: async () => {
        await server.close();
        await idp.close();
      },
    };
  },
};

import type { Sandbox } from '../sandbox.ts';
import { ERP_DEMO_COMPANY_ID } from './data.ts';
import { startErpSandbox } from './server.ts';

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
    { tool: 'query_entity', args: { companyId: ERP_DEMO_COMPANY_ID, entity: 'customers', select: ['number', 'displayName', 'city', 'balanceDue'], pageSize: 5 } },
  ],
  async start({ host, port }) {
    const server = await startErpSandbox({ host, port });
    return { url: server.url, close: () => server.close() };
  },
};

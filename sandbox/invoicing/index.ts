import type { Sandbox } from '../sandbox.ts';
import { INVOICING_SPLIT_YEAR } from './data.ts';
import { INVOICING_SANDBOX_APP_SECRET, INVOICING_SANDBOX_GRANT, startInvoicingSandbox } from './server.ts';

/**
 * Visma e-conomic REST API (classic): a demo agreement with 60 customers, 150 booked invoices,
 * 10 drafts, 80 accounts with entries and accounting years including the split year 2023/2024.
 * The app secret token is the integrator's (the deployment setting the demo wires up); the demo
 * tenant's credential is the connect form's one field, the agreement grant token.
 */
export const sandbox: Sandbox = {
  connector: 'invoicing',
  title: 'Visma e-conomic REST API',
  examples: [
    { tool: 'list_customers', args: { filter: 'name$like:*nordic*', pagesize: 5 } },
    { tool: 'list_invoices_overdue', args: {} },
    { tool: 'list_accounting_periods', args: { year: INVOICING_SPLIT_YEAR } },
  ],
  async start({ host, port }) {
    const server = await startInvoicingSandbox({ host, port });
    return {
      url: server.url,
      appSecret: INVOICING_SANDBOX_APP_SECRET,
      tenantCredential: { token: INVOICING_SANDBOX_GRANT },
      close: () => server.close(),
    };
  },
};

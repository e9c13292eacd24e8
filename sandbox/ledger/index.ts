import type { Sandbox } from '../sandbox.ts';
import { startLedgerSandbox } from './server.ts';

/** Uniconta's WebAPI with a demo company of 55,613 postings. */
export const sandbox: Sandbox = {
  connector: 'ledger',
  title: 'Uniconta WebAPI',
  examples: [
    {
      tool: 'aggregate',
      args: {
        entity: 'GLTransClient',
        groupBy: ['Account'],
        sum: ['Amount'],
        fromDate: '2025-01-01',
        toDate: '2025-12-31',
      },
    },
  ],
  async start({ host, port }) {
    const server = await startLedgerSandbox({ host, port });
    const { username, password, companyId } = server.credentials;
    return {
      url: server.url,
      tenantCredential: { username, password, companyId: String(companyId) },
      close: () => server.close(),
    };
  },
};

import type { Sandbox } from '../sandbox.ts';
import { startCasesSandbox } from './server.ts';

/** Ordrestyring's GraphQL API with 1,260 demo cases. */
export const sandbox: Sandbox = {
  connector: 'cases',
  title: 'Ordrestyring GraphQL',
  examples: [{ tool: 'find_cases', args: { text: 'solcelleanlæg' } }],
  async start({ host, port }) {
    const server = await startCasesSandbox({ host, port, rateLimitPerMinute: 6000 });
    return { url: server.url, tenantCredential: { apiKey: server.tokens.demo }, close: () => server.close() };
  },
};

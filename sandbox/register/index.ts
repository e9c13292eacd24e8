import type { Sandbox } from '../sandbox.ts';
import { startRegisterSandbox } from './server.ts';

const USERNAME = 'demo';
const PASSWORD = 'demo-register-password';

/** The company register (CVR distribution API, Elasticsearch) with 25 demo companies. */
export const sandbox: Sandbox = {
  connector: 'register',
  title: 'CVR distribution API',
  examples: [{ tool: 'soeg_virksomhed', args: { query: 'Demo' } }],
  async start({ host, port }) {
    const server = await startRegisterSandbox({ host, port, username: USERNAME, password: PASSWORD });
    return {
      url: server.url,
      managedCredential: { username: USERNAME, password: PASSWORD },
      close: () => server.close(),
    };
  },
};

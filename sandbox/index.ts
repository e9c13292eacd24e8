// Every sandbox upstream, started together for the demo and the end-to-end tests. Each one is a
// separate HTTP server that the gateway reaches exactly like the real upstream.
import { startCasesSandbox } from './cases/server.ts';
import { startLedgerSandbox } from './ledger/server.ts';
import { startRegisterSandbox } from './register/server.ts';

export interface SandboxSet {
  /** Configuration the gateway needs to reach the sandboxes, as environment variables. */
  readonly env: Readonly<Record<string, string>>;
  /** Tenant credentials for connectors with a connect step, by connector key. */
  readonly tenantCredentials: Readonly<Record<string, Record<string, string>>>;
  readonly urls: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export const SANDBOX_REGISTER_USER = 'demo';
export const SANDBOX_REGISTER_PASSWORD = 'demo-register-password';

export async function startSandboxes(options: { host?: string; basePort?: number } = {}): Promise<SandboxSet> {
  const host = options.host ?? '127.0.0.1';
  const port = (offset: number) => (options.basePort ? options.basePort + offset : 0);
  const register = await startRegisterSandbox({ host, port: port(0), username: SANDBOX_REGISTER_USER, password: SANDBOX_REGISTER_PASSWORD });
  const cases = await startCasesSandbox({ host, port: port(1), rateLimitPerMinute: 6000 });
  const ledger = await startLedgerSandbox({ host, port: port(2) });
  return {
    env: {
      CONNECTOR_REGISTER_BASE_URL: register.url,
      REGISTER_USERNAME: SANDBOX_REGISTER_USER,
      REGISTER_PASSWORD: SANDBOX_REGISTER_PASSWORD,
      CONNECTOR_CASES_BASE_URL: cases.url,
      CONNECTOR_LEDGER_BASE_URL: ledger.url,
    },
    tenantCredentials: {
      cases: { apiKey: cases.tokens.demo },
      ledger: { username: ledger.credentials.username, password: ledger.credentials.password, companyId: String(ledger.credentials.companyId) },
    },
    urls: { register: register.url, cases: cases.url, ledger: ledger.url },
    async close() {
      await Promise.all([register.close(), cases.close(), ledger.close()]);
    },
  };
}

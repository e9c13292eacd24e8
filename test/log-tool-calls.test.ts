// LOG_TOOL_CALLS: the `tool call` info line of every tools/call is written by default, and
// `LOG_TOOL_CALLS=false` leaves out that line alone (docs/decisions/operations.md, 'Logs are
// written asynchronously'): the call answers the same and other info lines are still written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../runtime/operations/observability.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { startLedgerSandbox, type LedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  captureLogLines,
  connectTenant,
  createTenant,
  resultJson,
  rpc,
  startGateway,
  type StartedGateway,
} from './support/gateway.ts';

describe('LOG_TOOL_CALLS', () => {
  let store: PlatformStore;
  let sandbox: LedgerSandbox;
  const gateways: StartedGateway[] = [];

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startLedgerSandbox({});
  }, 60_000);
  afterAll(async () => {
    for (const gw of gateways) await gw.close();
    await sandbox?.close();
    await store?.close();
  });

  async function callOnce(env: Record<string, string>) {
    const { lines, destination } = captureLogLines();
    const gw = await startGateway(store, {
      logger: createLogger('info', destination),
      env: { CONNECTOR_LEDGER_BASE_URL: sandbox.url, ...env },
    });
    gateways.push(gw);
    const tenant = await createTenant(store, { subscribe: ['ledger'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });
    const res = await rpc(gw.url, 'ledger', tenant.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ledger__list_companies', arguments: {} },
    });
    expect(res.status).toBe(200);
    expect(resultJson((res.json as { result: unknown }).result)).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the log destination is asynchronous
    return { lines, accountId: tenant.account.id };
  }

  it('writes the line by default, with the call’s account, tool, outcome and duration', async () => {
    const { lines, accountId } = await callOnce({});
    const line = lines.find((l) => l.msg === 'tool call');
    expect(line).toMatchObject({ level: 30, accountId, tool: 'list_companies', outcome: 'ok' });
    expect(typeof line?.durationMs).toBe('number');
  });

  it('LOG_TOOL_CALLS=false leaves that line out and nothing else', async () => {
    const { lines } = await callOnce({ LOG_TOOL_CALLS: 'false' });
    expect(lines.some((l) => l.msg === 'tool call')).toBe(false);
    expect(lines.some((l) => l.level === 30)).toBe(true); // other info lines (start-up) are still written
  });
});

// Connection health that tells the truth (issue 36 item 1): a call that gets the connector's
// key-rejected text marks the instance "needs reconnect" with the time and the text, on the
// Connections page and in the overview count; storing a working key again clears it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { type CasesSandbox, startCasesSandbox } from '../sandbox/cases/server.ts';
import { connectTenant, createTenant, rpc, type StartedGateway, startGateway, type Tenant } from './support/gateway.ts';
import { portalAs } from './support/portal.ts';

describe('connection health', () => {
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let gw: StartedGateway;
  let tenant: Tenant;

  const call = () =>
    rpc(
      gw.url,
      'cases',
      tenant.token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'cases__list_cases', arguments: {} } },
      { 'mcp-protocol-version': '2025-06-18' },
    );

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 1_000_000 });
    gw = await startGateway(store, { env: { CONNECTOR_CASES_BASE_URL: sandbox.url } });
    tenant = await createTenant(store, { subscribe: ['cases'] });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('marks a connection whose key is rejected, shows why and since when, clears on reconnect', async () => {
    await connectTenant(gw, tenant, 'cases', { apiKey: 'not-the-key' });
    const portal = await portalAs(gw, tenant.user);
    expect((await portal.get('/portal')).html).toContain('1 connected, 0 to reconnect.');
    const rejected = await call();
    const text = (rejected.json as { result: { content: { text: string }[] } }).result.content[0]!.text;
    expect(text).toContain('rejected');
    const stored = await store.connections.getConnection(tenant.account.id, 'cases');
    expect(stored?.reconnectRequiredAt).toBeInstanceOf(Date);
    expect(stored?.reconnectReason).toBe(text.split('\n\n')[0]);
    const page = (await portal.get('/portal/connections')).html;
    expect(page).toContain('needs reconnect');
    expect(page).toContain(text.split('\n\n')[0]!.slice(0, 40));
    expect((await portal.get('/portal')).html).toContain('0 connected, 1 to reconnect.');
    // A second failing call keeps the first time.
    await call();
    expect((await store.connections.getConnection(tenant.account.id, 'cases'))?.reconnectRequiredAt).toEqual(
      stored?.reconnectRequiredAt,
    );
    await connectTenant(gw, tenant, 'cases', { apiKey: sandbox.tokens.demo });
    const fixed = await store.connections.getConnection(tenant.account.id, 'cases');
    expect(fixed?.reconnectRequiredAt).toBeNull();
    expect(fixed?.reconnectReason).toBeNull();
    expect((await call()).status).toBe(200);
    expect((await portal.get('/portal')).html).toContain('1 connected, 0 to reconnect.');
  });
});

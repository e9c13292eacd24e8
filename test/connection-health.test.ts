// Connection health that tells the truth (issue 36 item 1): a call that gets the connector's
// key-rejected text marks the instance "needs reconnect" with the time and the text, on the
// Connections page and in the overview count; storing a working key again clears it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { type CasesSandbox, startCasesSandbox } from '../sandbox/cases/server.ts';
import {
  connectTenant,
  createTenant,
  rpc,
  type StartedGateway,
  startGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';
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

  it("tests a connection as the user's call from the Connections page; shows last use and error", async () => {
    const other = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, other, 'cases', { apiKey: 'not-the-key' });
    const portal = await portalAs(gw, other.user);
    const page = (await portal.get('/portal/connections')).html;
    expect(page).toContain('no calls in the call log');
    expect(page).toContain('action="/portal/connections/cases/test"');
    const failed = await portal.post('/portal/connections/cases/test', {});
    expect(failed.status).toBe(200);
    expect(failed.html).toContain('cases did not pass the test: list_cases answered with an error.');
    expect(failed.html).toContain('rejected');
    expect((await store.connections.getConnection(other.account.id, 'cases'))?.reconnectRequiredAt).toBeInstanceOf(
      Date,
    );
    // Without the page's CSRF token nothing runs.
    expect((await portal.post('/portal/connections/cases/test', {}, 'forged')).status).toBe(403);
    await connectTenant(gw, other, 'cases', { apiKey: sandbox.tokens.demo });
    const passed = await portal.post('/portal/connections/cases/test', {});
    expect(passed.html).toMatch(/cases works: list_cases answered in \d+ ms\./);
    // The tests were calls of this user: in the call log, so the page shows their times.
    await gw.app.context.callLog.flush();
    const after = (await portal.get('/portal/connections')).html;
    expect(after).toMatch(/last used \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)/);
    expect(after).toMatch(/last error \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\): list_cases, \w+/);
    // Metered as the two calls they were.
    await gw.app.context.meter.flush(true);
    expect((await usageOf(gw.url, other.token)).usage.totalCalls).toBe(2);
  });

  it('asks before disconnecting, and disconnects only on the confirmed post', async () => {
    const third = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, third, 'cases', { apiKey: sandbox.tokens.demo });
    const portal = await portalAs(gw, third.user);
    await portal.get('/portal/connections');
    const asked = await portal.post('/portal/connections/cases/disconnect', {});
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('Disconnect cases?');
    expect(asked.html).toContain('name="confirm" value="yes"');
    expect(await store.connections.getConnection(third.account.id, 'cases')).not.toBeNull();
    const done = await portal.post('/portal/connections/cases/disconnect', { confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await store.connections.getConnection(third.account.id, 'cases')).toBeNull();
  });
});

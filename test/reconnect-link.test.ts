// A text the spec marks `reconnect: true` carries a connect link, in its one text block, to the portal form of that
// very
// instance, also on endpoints without connect_account (the ledger), so a user with a refused
// credential can reconnect without the operator. A used link says so on GET, before any typing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerDescriptor } from '../generated/ledger/descriptor.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { startLedgerSandbox, type LedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  reconnectParts,
  startGateway,
  type StartedGateway,
} from './support/gateway.ts';
import { fetchAs, portalAs } from './support/portal.ts';

const form = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});

describe('reconnect links', () => {
  let store: PlatformStore;
  let sandbox: LedgerSandbox;
  let gw: StartedGateway;
  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startLedgerSandbox({});
    gw = await startGateway(store, { env: { CONNECTOR_LEDGER_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '1000' } });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it("follows the reconnect text with a single-use link to this instance's form, which reconnects", async () => {
    const tenant = await createTenant(store, { subscribe: ['ledger'] });
    await connectTenant(
      gw,
      tenant,
      'ledger',
      { username: LEDGER_DEMO_USER, password: 'not-the-password-7f3', companyId: String(LEDGER_DEMO_COMPANY_ID) },
      'ledger-2',
    );
    const client = await mcpClient(gw.url, 'ledger-2', tenant.token);
    const refused = await client.callTool({ name: 'ledger-2__list_companies', arguments: {} });
    expect(refused.isError).toBe(true);
    // One text block (spec 000: a failure is exactly one): the spec's text, a blank line, the instruction with the
    // link.
    expect(refused.content).toHaveLength(1);
    const { text, instruction, link } = reconnectParts(refused);
    expect(text).toBe(ledgerDescriptor.errors.reconnect_required.text);
    expect(instruction).toMatch(
      /^Reconnect Ledger for the endpoint ledger-2 here \(.*\): http:\/\/127\.0\.0\.1:\d+\/portal\/connect\/\S+$/,
    );
    const url = link!;
    // The link is bound to its user (docs/decisions/portal.md, 'Sign-in, sessions, CSRF, connect links bound to their
    // user'): used signed in as that user.
    const portal = await portalAs(gw, tenant.user);
    const fetch = (u: string, init?: { method?: string; body?: string; headers?: Record<string, string> }) =>
      fetchAs(portal, u, init);

    const shown = await fetch(url);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('name="companyId"');
    const stored = await fetch(
      url,
      form({ username: LEDGER_DEMO_USER, password: LEDGER_DEMO_PASSWORD, companyId: String(LEDGER_DEMO_COMPANY_ID) }),
    );
    expect(stored.status).toBe(200);
    await gw.app.context.state.refresh();
    const answered = await client.callTool({ name: 'ledger-2__list_companies', arguments: {} });
    expect(answered.isError).toBeFalsy();

    const again = await fetch(url);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('The link has already been used.');
    await client.close();
  });
});

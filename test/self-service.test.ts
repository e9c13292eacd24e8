// Self-service is the operator's choice (docs/decisions/portal.md, 'Self-service is the operator's
// choice'): SELF_SERVICE_PURCHASE and SELF_SERVICE_QUOTA, off by default, decide what account
// administrators may do in the portal, and the hard-mode refusal names who can raise the quota.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, resultText, rpc, startGateway, type StartedGateway } from './support/gateway.ts';
import { portalAs } from './support/portal.ts';

const env = {
  REGISTER_USERNAME: 'platform-user',
  REGISTER_PASSWORD: 'platform-secret-pw-Kd2',
  CONNECTOR_REGISTER_BASE_URL: 'https://cvr.test',
  RATE_LIMIT_PER_SECOND: '1000',
  RATE_LIMIT_BURST: '1000',
};

const blockedText = async (gw: StartedGateway, token: string): Promise<string> => {
  const r = await rpc(gw.url, 'register', token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345678 } },
  });
  return resultText((r.json as { result: unknown }).result);
};

describe('self-service settings', () => {
  let store: PlatformStore;
  let quotaOnly: StartedGateway;
  let neither: StartedGateway;

  beforeAll(async () => {
    store = await openStore({});
    quotaOnly = await startGateway(store, { env: { ...env, SELF_SERVICE_QUOTA: 'true' } });
    neither = await startGateway(store, { env });
  }, 60_000);
  afterAll(async () => {
    await quotaOnly?.close();
    await neither?.close();
    await store?.close();
  });

  it('reads the settings: off unless set', () => {
    expect(quotaOnly.app.context.config.selfService).toEqual({ purchase: false, quota: true });
    expect(neither.app.context.config.selfService).toEqual({ purchase: false, quota: false });
  });

  it('offers the quota form and no purchase where only the quota is self-service', async () => {
    const tenant = await createTenant(store, { subscribe: ['register'] });
    await quotaOnly.app.context.state.refresh();
    const portal = await portalAs(quotaOnly, tenant.user);
    expect((await portal.get('/portal/usage')).html).toContain('Save quota');
    const connectors = await portal.get('/portal/connectors');
    expect(connectors.html).toContain('Subscriptions are set up by the operator');
    expect(connectors.html).not.toContain('Subscribe to');
    expect((await portal.post('/portal/connectors', { connector: 'cases' })).status).toBe(403);
    expect(quotaOnly.app.context.state.isSubscribed(tenant.account.id, 'cases')).toBe(false);
    const closed = await portalAs(neither, tenant.user);
    expect((await closed.get('/portal/usage')).html).not.toContain('Save quota');
  });

  it('names who can raise the quota in the hard-mode refusal', async () => {
    const tenant = await createTenant(store, { subscribe: ['register'] });
    await store.accounts.setFairUse(tenant.account.id, { mode: 'hard', quota: 0 });
    await quotaOnly.app.context.state.refresh();
    await neither.app.context.state.refresh();
    expect(await blockedText(quotaOnly, tenant.token)).toContain(
      'or an administrator of your company raises the quota on the usage page of the portal.',
    );
    const operator = await blockedText(neither, tenant.token);
    expect(operator).toContain('or the operator of this gateway raises the quota');
    expect(operator).not.toContain('usage page');
  });
});

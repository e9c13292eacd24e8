// Connect links do not pile up (docs/decisions/store-and-replicas.md, 'Connect links are kept a day after they
// expire'): every not-connected refusal makes one, so the
// gateway deletes those that expired more than a day ago, at start and then hourly.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { newId } from '../runtime/store/sql-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, startGateway, type StartedGateway } from './support/gateway.ts';

let store: PlatformStore;
let gw: StartedGateway | undefined;
beforeAll(async () => {
  store = await openStore({});
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await store?.close();
});

it('purges links expired more than a day ago when the gateway starts, and keeps the others', async () => {
  const tenant = await createTenant(store);
  const link = (hoursAgo: number) => ({
    jti: newId('jti_'),
    accountId: tenant.account.id,
    userId: tenant.user.id,
    instanceId: 'cases',
    expiresAt: new Date(Date.now() - hoursAgo * 3600_000),
  });
  const stale = [link(25), link(24 * 40)];
  const kept = link(23);
  for (const l of [...stale, kept]) await store.links.createConnectLink(l);
  gw = await startGateway(store);
  await expect.poll(() => store.links.connectLinkState(stale[0]!.jti, new Date()), { timeout: 10_000 }).toBe('missing');
  expect(await store.links.connectLinkState(stale[1]!.jti, new Date())).toBe('missing');
  expect(await store.links.connectLinkState(kept.jti, new Date())).toBe('expired');
});

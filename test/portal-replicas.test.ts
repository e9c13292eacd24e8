// The portal with two replicas on PostgreSQL and Redis (docs/decisions/portal.md): a session made on one replica
// is valid on the other, sign-out everywhere ends it on both, failed sign-ins count across
// replicas, and a token revoked in one replica's portal is refused by the other (its snapshot is
// invalidated through Redis), so the store's portal statements run on a PostgreSQL server too.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { givePassword, PortalClient } from './support/portal.ts';
import { DATABASE_URL, needs, REDIS_URL } from './support/services.ts';

describe('portal across two replicas (PostgreSQL and Redis)', needs('postgres', 'redis'), () => {
  const schema = `portal_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;
  let tenant: Tenant;

  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    const env = {
      REDIS_URL,
      REDIS_PREFIX: `test-${schema}:`,
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
      SNAPSHOT_REFRESH_MS: '600000',
    };
    a = await startGateway(stores[0]!, { env });
    b = await startGateway(stores[1]!, { env });
    tenant = await createTenant(stores[0]!, { subscribe: ['register'] });
    await givePassword(stores[0]!, tenant.user.id);
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  it('accepts a session made on one replica on the other, and ends it on both when signing out all', async () => {
    const onA = new PortalClient(a.url);
    expect((await onA.signIn(tenant.user.email)).status).toBe(303);
    const onB = new PortalClient(b.url);
    for (const [k, v] of onA.cookies) onB.cookies.set(k, v);
    expect((await onB.get('/portal')).status).toBe(200);
    // The session's CSRF token is the same on both replicas (one vault key, one session).
    await onA.get('/portal');
    expect(onB.csrf).toBe(onA.csrf);
    const out = await onB.post('/portal/sign-out-everywhere', {});
    expect(out.status).toBe(303);
    expect((await onA.get('/portal')).status).toBe(303);
  });

  it('counts failed sign-ins of one account across replicas', async () => {
    const limit = a.app.context.platform.limits.signInFailuresPerAccount!;
    await stores[0]!.portal.recordSignInFailure(
      Array.from({ length: limit - 1 }, () => `account:${tenant.account.id}`),
      new Date(),
    );
    expect((await new PortalClient(a.url).signIn(tenant.user.email, 'Not-the-Password-4411')).status).toBe(401);
    expect((await new PortalClient(b.url).signIn(tenant.user.email)).status).toBe(429);
    await stores[0]!.portal.purgePortal(new Date(Date.now() + 3600_000));
    expect((await new PortalClient(b.url).signIn(tenant.user.email)).status).toBe(303);
  });

  it('refuses on the other replica a token revoked in one replica’s portal', async () => {
    const portal = new PortalClient(a.url);
    await portal.signIn(tenant.user.email);
    await portal.get('/portal/tokens');
    const created = await portal.post('/portal/tokens/create', { label: 'replica-test' });
    const token = /cgw_[A-Za-z0-9_-]+/.exec(created.html)![0];
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    // B learns of the new token from the store (a token it has not seen is looked up).
    expect((await rpc(b.url, 'register', token, list)).status).toBe(200);
    const record = (await stores[0]!.tokens.listTokens(tenant.user.id)).find((x) => x.label === 'replica-test')!;
    expect((await portal.post('/portal/tokens/revoke', { token: record.id, confirm: 'yes' })).status).toBe(303);
    expect((await rpc(a.url, 'register', token, list)).status).toBe(401);
    // B holds the token in its snapshot; the invalidation through Redis reloads it (no 10-minute wait).
    await expect
      .poll(async () => (await rpc(b.url, 'register', token, list)).status, { timeout: 5000, interval: 50 })
      .toBe(401);
  });
});

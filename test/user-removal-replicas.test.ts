// Removing a user on one replica ends them on the other at once (docs/decisions/portal.md, 'Users
// are removed at once; a forgotten password is reset by mail'): two gateways on one PostgreSQL
// schema and Redis, the other replica's snapshot refreshed only by the broadcast (the version poll
// is set to ten minutes). The member's API token, OAuth access token and portal session work on
// replica B, the admin removes the member on replica A's team page, and B refuses all three at
// the next request; the deletes run on a PostgreSQL server too.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../runtime/secrets/hash.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, type StartedGateway, startGateway } from './support/gateway.ts';
import { PortalClient, portalAs } from './support/portal.ts';
import { DATABASE_URL, needs, REDIS_URL } from './support/services.ts';

describe('user removal across two replicas (PostgreSQL and Redis)', needs('postgres', 'redis'), () => {
  const schema = `removal_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;

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
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  const status = async (gw: StartedGateway, token: string) =>
    (await rpc(gw.url, 'register', token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status;

  it("refuses on replica B the removed member's token, OAuth token and session at the next request", async () => {
    const owner = await createTenant(stores[0]!, { subscribe: ['register'] });
    const member = await createTenant(stores[0]!, {
      accountId: owner.account.id,
      role: 'member',
      subscribe: ['register'],
    });
    const grantId = `grant-${randomBytes(4).toString('hex')}`;
    await stores[0]!.mcp.createMcpGrant(
      {
        id: grantId,
        clientId: 'client-r',
        clientName: 'Assistant',
        userId: member.user.id,
        accountId: owner.account.id,
        endpoints: ['register'],
      },
      {
        codeHash: sha256Hex(`code-${grantId}`),
        redirectUri: 'http://127.0.0.1:4000/cb',
        codeChallenge: 'c',
        expiresAt: new Date(Date.now() + 60_000),
      },
    );
    const accessToken = `cgwa_${grantId}-replica-Mp40`;
    await stores[0]!.mcp.storeMcpTokens(grantId, [
      { tokenHash: sha256Hex(accessToken), kind: 'access', expiresAt: new Date(Date.now() + 3_600_000) },
    ]);
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
    const memberOnB = await portalAs(b, member.user);
    expect(await status(b, member.token)).toBe(200);
    expect(await status(b, accessToken)).toBe(200);
    expect((await memberOnB.get('/portal')).status).toBe(200);

    const ownerOnA = await portalAs(a, owner.user);
    await ownerOnA.get('/portal/team');
    const removed = await ownerOnA.post('/portal/team', { action: 'remove', user: member.user.id, confirm: 'yes' });
    expect(removed.location).toBe('/portal/team?done=user_removed');

    // B heard of it over Redis; the broadcast may land a moment after A answered: wait for B's version.
    const version = a.app.context.state.version;
    while (b.app.context.state.version < version) await new Promise((r) => setTimeout(r, 10));
    expect(await status(b, member.token)).toBe(401);
    expect(await status(b, accessToken)).toBe(401);
    expect((await memberOnB.get('/portal')).status).toBe(303);
    expect(await status(b, owner.token)).toBe(200);
    expect(await new PortalClient(b.url).signIn(member.user.email)).toMatchObject({ status: 401 });
  });
});

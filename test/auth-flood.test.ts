// Unknown tokens cost the store nothing per token (docs/decisions/check-order-and-metering.md, 'Unknown tokens and
// failed authentication'): a token not in the snapshot
// waits for a shared read of the store's change version instead of a lookup of its own, a token
// issued on another replica is still accepted at its first request, and failed authentications
// are limited per client address without ever refusing a token the gateway holds in memory.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore, Repositories } from '../runtime/store/store.ts';
import { createTenant, rpc, startGateway, type StartedGateway } from './support/gateway.ts';
import { DATABASE_URL, needs } from './support/services.ts';

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** Counts the store reads the token check can make, and the most version reads in flight at once. */
function countReads(store: Pick<Repositories, 'tokens' | 'changes'>) {
  const counts = { lookups: 0, versionReads: 0, inFlight: 0, maxInFlight: 0 };
  const findByTokenHash = store.tokens.findByTokenHash.bind(store.tokens);
  const changeVersion = store.changes.changeVersion.bind(store.changes);
  store.tokens.findByTokenHash = (hash) => {
    counts.lookups++;
    return findByTokenHash(hash);
  };
  store.changes.changeVersion = async () => {
    counts.versionReads++;
    counts.maxInFlight = Math.max(counts.maxInFlight, ++counts.inFlight);
    try {
      return await changeVersion();
    } finally {
      counts.inFlight--;
    }
  };
  return counts;
}

const randomToken = () => `cgw_${randomBytes(24).toString('base64url')}`;

describe('unknown tokens on two replicas sharing PostgreSQL', needs('postgres'), () => {
  const schema = `authflood_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;
  let reads: ReturnType<typeof countReads>;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    // No timer refresh during the test: what A learns of B's writes, it learns through the token check.
    const env = { SNAPSHOT_REFRESH_MS: '600000', AUTH_FAILURES_PER_SECOND: '100000', AUTH_FAILURE_BURST: '100000' };
    a = await startGateway(stores[0]!, { env });
    b = await startGateway(stores[1]!, { env });
    reads = countReads(stores[0]!);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.close();
  });

  it('refuses 300 concurrent random tokens with no per-token lookup and one version read in flight', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 300 }, () => rpc(a.url, 'register', randomToken(), PING).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect(reads.lookups).toBe(0);
    expect(reads.maxInFlight).toBe(1);
    expect(reads.versionReads).toBeGreaterThan(0);
  });

  it('accepts a token issued on the other replica at its first request', async () => {
    const tenant = await createTenant(stores[1]!, { subscribe: ['register'] });
    const reply = await rpc(a.url, 'register', tenant.token, PING);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('refuses a token revoked on the other replica at its next request after the change', async () => {
    const tenant = await createTenant(stores[1]!, { subscribe: ['register'] });
    expect((await rpc(a.url, 'register', tenant.token, PING)).status).toBe(200);
    const [record] = await stores[1]!.tokens.listTokens(tenant.user.id);
    await stores[1]!.tokens.revokeToken(record!.id, new Date());
    // A holds the token in memory until it sees the change: the snapshot timer or a broadcast
    // (Redis) brings it; here the next unknown token's version read does.
    expect((await rpc(a.url, 'register', randomToken(), PING)).status).toBe(401);
    expect((await rpc(a.url, 'register', tenant.token, PING)).status).toBe(401);
  });
});

describe('failed authentications per client address', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, { env: { AUTH_FAILURES_PER_SECOND: '0.001', AUTH_FAILURE_BURST: '5' } });
  }, 30_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('answers 429 once the address spent its bucket, without a store read, still serving a cached token', async () => {
    const known = await createTenant(store, { subscribe: ['register'] });
    expect((await rpc(gw.url, 'register', known.token, PING)).status).toBe(200);
    const reads = countReads(store);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await rpc(gw.url, 'register', randomToken(), PING)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    expect(reads.versionReads).toBe(5);
    const limited = await rpc(gw.url, 'register', randomToken(), PING);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.json).toMatchObject({
      error: {
        code: -32029,
        message:
          'Too many failed authentication attempts from this address. Retry ' +
          'after 1 second with a token issued by this gateway.',
      },
    });
    expect((await rpc(gw.url, 'register', known.token, PING)).status).toBe(200);
    expect(reads.versionReads).toBe(5);
    const usage = await fetch(`${gw.url}/api/usage`, { headers: { authorization: `Bearer ${randomToken()}` } });
    expect(usage.status).toBe(429);
  });

  it('takes the scheme name in any case', async () => {
    const tenant = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh(); // this address spent its failures above: only tokens in memory pass
    expect((await rpc(gw.url, 'register', null, PING, { authorization: `bearer ${tenant.token}` })).status).toBe(200);
    expect((await rpc(gw.url, 'register', null, PING, { authorization: `BEARER ${tenant.token}` })).status).toBe(200);
  });
});

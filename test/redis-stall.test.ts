// A Redis stall on one replica (a TCP proxy between that replica and Redis, paused for a moment):
// a slot granted after its caller gave up is given back at once, a connection that keeps missing
// its deadlines is replaced, and register calls on another replica are unaffected
// (docs/decisions/operations.md, 'A late slot grant is released', 'A Redis connection that stops
// answering is replaced').
import nock from 'nock';
import { randomBytes } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { RedisSharedStore } from '../runtime/store/shared-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { SharedGate } from '../runtime/upstream/gate.ts';
import { createTenant, rpc, startGateway, type StartedGateway } from './support/gateway.ts';
import { DATABASE_URL, needs, REDIS_URL } from './support/services.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const redisTarget = () => {
  const u = new URL(REDIS_URL);
  return { host: u.hostname, port: Number(u.port || 6379) };
};

describe('a stalled Redis connection', needs('redis'), () => {
  const prefix = `test-stall-${randomBytes(4).toString('hex')}:`;
  let proxy: TcpProxy;
  let direct: RedisClientType;
  beforeAll(async () => {
    proxy = await startTcpProxy(redisTarget().host, redisTarget().port);
    direct = createClient({ url: REDIS_URL }) as RedisClientType;
    await direct.connect();
  });
  afterAll(async () => {
    await direct?.close();
    await proxy?.close();
  });

  it('gives back a slot granted after the caller stopped waiting (the slot count returns to 0)', async () => {
    const store = await RedisSharedStore.connect(proxy.url(REDIS_URL), { prefix, timeoutMs: 100 });
    try {
      let failedOpen = 0;
      // A lease of a minute: without the release the slot would still be held when the test ends.
      const gate = new SharedGate(store, 'gate:late', 1, 1000, 60_000, () => failedOpen++);
      proxy.stall();
      const release = await gate.acquire(new AbortController().signal); // fails open after 100 ms
      expect(failedOpen).toBe(1);
      proxy.resume(); // the stalled acquire runs in Redis now and is granted
      release();
      await vi.waitFor(async () => expect(await direct.zCard(`${prefix}gate:late`)).toBe(0), {
        timeout: 5000,
        interval: 50,
      });
      expect(store.replaced).toBe(0); // one miss: the connection was kept
    } finally {
      proxy.resume();
      await store.close();
    }
  });

  it('replaces a connection that keeps missing its deadlines, and answers again on the new one', async () => {
    const store = await RedisSharedStore.connect(proxy.url(REDIS_URL), { prefix, timeoutMs: 100 });
    try {
      proxy.stall();
      for (let i = 0; i < 3; i++) await expect(store.getUnits('stalled')).rejects.toThrow(/longer than 100 ms/);
      expect(store.replaced).toBe(1);
      proxy.resume();
      // The fresh connection answers (the stalled one was closed with its lost replies).
      await vi.waitFor(() => store.ping(), { timeout: 5000, interval: 50 });
      await direct.set(`${prefix}fresh`, '7');
      expect(await store.getUnits('fresh')).toBe(7);
      expect(store.replaced).toBe(1);
    } finally {
      proxy.resume();
      await store.close();
    }
  });
});

describe('a 300 ms Redis stall on one of two replicas', needs('postgres', 'redis'), () => {
  const schema = `stall_${randomBytes(6).toString('hex')}`;
  const REGISTER = 'https://cvr-stall.test/cvr-permanent';
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let proxy: TcpProxy;
  let direct: RedisClientType;
  let a: StartedGateway;
  let b: StartedGateway;
  const prefix = `test-${schema}:`;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    proxy = await startTcpProxy(redisTarget().host, redisTarget().port);
    direct = createClient({ url: REDIS_URL }) as RedisClientType;
    await direct.connect();
    const env = {
      REDIS_PREFIX: prefix,
      REGISTER_USERNAME: 'u',
      REGISTER_PASSWORD: 'p',
      CONNECTOR_REGISTER_BASE_URL: REGISTER,
      // One slot cluster-wide: a slot held by the stalled replica would block every other one.
      CONNECTOR_REGISTER_MAX_CONCURRENT: '1',
      FAIR_USE_STORE_TIMEOUT_MS: '100',
    };
    a = await startGateway(stores[0]!, { env: { ...env, REDIS_URL: proxy.url(REDIS_URL) } });
    b = await startGateway(stores[1]!, { env: { ...env, REDIS_URL } });
    nock('https://cvr-stall.test')
      .persist()
      .post('/cvr-permanent/virksomhed/_search')
      .reply(200, { hits: { total: 0, hits: [] } });
  });
  afterAll(async () => {
    proxy?.resume();
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.close();
    await direct?.close();
    await proxy?.close();
    nock.cleanAll();
  });

  it('register calls on the other replica succeed and no slot stays held', async () => {
    const t = await createTenant(stores[0]!, { subscribe: ['register'] });
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
    const call = (gw: StartedGateway, id: number) =>
      rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'register__soeg_virksomhed', arguments: { query: 'x' } },
      });
    const ok = (r: Awaited<ReturnType<typeof call>>) =>
      r.status === 200 && (r.json as { result?: { isError?: boolean } }).result?.isError !== true;

    proxy.stall();
    const onA = await call(a, 1); // A fails open on its Redis commands and still answers
    await new Promise((r) => setTimeout(r, 300));
    proxy.resume();
    expect(ok(onA)).toBe(true);
    // Nothing A asked for during the stall stays held: not a late grant, not a lost command.
    await vi.waitFor(async () => expect(await direct.zCard(`${prefix}gate:register`)).toBe(0), {
      timeout: 5000,
      interval: 50,
    });

    const onB = [];
    for (let i = 0; i < 5; i++) onB.push(await call(b, 10 + i));
    expect(onB.map(ok)).toEqual([true, true, true, true, true]);
    await vi.waitFor(async () => expect(await direct.zCard(`${prefix}gate:register`)).toBe(0), {
      timeout: 5000,
      interval: 50,
    });
    // A answers through Redis again (on the same or a replaced connection).
    expect(ok(await call(a, 20))).toBe(true);
    expect(await direct.zCard(`${prefix}gate:register`)).toBe(0);
  });
});

// Store faults never end the process: Redis connections that die (the subscriber included) are
// re-established and fail open meanwhile; a PostgreSQL outage keeps tool calls answering from the
// snapshot, keeps counted usage in memory and flushes it, exactly once, when the database returns.
// Both servers keep running: the gateways reach them through a TCP proxy the tests cut.
import nock from 'nock';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore, Repositories } from '../runtime/store/store.ts';
import { UsageMeter } from '../runtime/metering/usage.ts';
import { createTenant, rpc, silentLogger, startGateway, type StartedGateway } from './support/gateway.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { REDIS_URL, DATABASE_URL, needs } from './support/services.ts';

const REGISTER = 'https://cvr-faults.test/cvr-permanent';
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const search = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'register__soeg_virksomhed', arguments: { query: 'x' } },
};

async function metric(url: string, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}${labels} `) ||
        (labels === '' && l.startsWith(`${name}{`) === false && l.startsWith(`${name} `)),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

async function until(what: string, check: () => Promise<boolean> | boolean, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting: ${what}`);
}

function upstream(times: number): void {
  nock('https://cvr-faults.test')
    .post('/cvr-permanent/virksomhed/_search')
    .times(times)
    .reply(200, { hits: { total: 0, hits: [] } });
}

const baseEnv = {
  REGISTER_USERNAME: 'u',
  REGISTER_PASSWORD: 'p',
  CONNECTOR_REGISTER_BASE_URL: REGISTER,
  RATE_LIMIT_BURST: '1000',
};

describe('store faults', needs('postgres', 'redis'), () => {
  const schema = `faults_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let direct: PlatformStore;
  const stores: PlatformStore[] = [];
  const gateways: StartedGateway[] = [];
  const proxies: TcpProxy[] = [];
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    direct = await openStore({ databaseUrl: DATABASE_URL, schema });
  });
  afterAll(async () => {
    for (const p of proxies) p.setMode('forward');
    for (const g of gateways) await g.close().catch(() => {});
    for (const s of stores) await s.close().catch(() => {});
    for (const p of proxies) await p.close();
    await direct?.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
    nock.cleanAll();
  });

  it('survives Redis connections dying (subscriber too), fails open, hears invalidations after reconnect', async () => {
    const redis = await startTcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379));
    proxies.push(redis);
    const prefix = `test-${schema}:`;
    const a = await startGateway(direct, {
      env: { ...baseEnv, REDIS_URL, REDIS_PREFIX: prefix, FAIR_USE_STORE_TIMEOUT_MS: '1000' },
    });
    const bStore = await openStore({ databaseUrl: DATABASE_URL, schema });
    stores.push(bStore);
    // B refreshes its snapshot only when told (no timer within the test): invalidation must work.
    const b = await startGateway(bStore, {
      env: {
        ...baseEnv,
        REDIS_URL: redis.url(REDIS_URL),
        REDIS_PREFIX: prefix,
        FAIR_USE_STORE_TIMEOUT_MS: '300',
        SNAPSHOT_REFRESH_MS: '600000',
      },
    });
    gateways.push(a, b);
    const t = await createTenant(direct, { subscribe: ['register'] });
    await a.app.context.state.refresh();
    await until('B sees the tenant', () => b.app.context.state.isSubscribed(t.account.id, 'register'));

    // Every connection of B to Redis dies, and Redis stays unreachable for a while.
    redis.setMode('refuse');
    redis.drop();
    await new Promise((r) => setTimeout(r, 300));
    expect((await rpc(b.url, 'register', t.token, ping)).status).toBe(200);
    expect(await metric(b.url, 'gateway_fail_open_total', '{component="rate_limit"}')).toBeGreaterThan(0);

    // Redis is back: B reconnects both clients and hears A's invalidations again.
    redis.setMode('forward');
    await until(
      'B reconnected',
      async () =>
        (await rpc(b.url, 'register', t.token, ping)).status === 200 &&
        (await metric(b.url, 'gateway_ready', '{check="shared_store"}')) === 1,
    );
    await direct.accounts.setSubscription(t.account.id, 'register', false);
    await until('B hears the invalidation', async () => {
      await a.app.context.state.refresh(); // publishes again until the resubscription is in place
      return !b.app.context.state.isSubscribed(t.account.id, 'register');
    });
  });

  it('a flush whose answer is lost after the database committed it is not counted twice', async () => {
    const t = await createTenant(direct, { subscribe: [] });
    let lose = true;
    // The write lands, then the connection dies before the answer arrives (an ambiguous commit).
    const usage = direct.usage;
    const flaky: Pick<Repositories, 'usage'> = {
      usage: {
        addUsage: async (...args) => {
          await usage.addUsage(...args);
          if (lose) {
            lose = false;
            throw new Error('Connection terminated unexpectedly');
          }
        },
        getUsage: (...args) => usage.getUsage(...args),
        getMonthCostUnits: (...args) => usage.getMonthCostUnits(...args),
        getMonthCostUnitsOf: (...args) => usage.getMonthCostUnitsOf(...args),
      },
    };
    const meter = new UsageMeter({
      store: flaky,
      timeZone: 'Europe/Copenhagen',
      defaultQuota: 100,
      flushMs: 60_000,
      counterTimeoutMs: 1000,
      log: silentLogger(),
    });
    const now = new Date();
    for (let i = 0; i < 3; i++) meter.record(t.account.id, 'register', 'soeg_virksomhed', now);
    await expect(meter.flush()).rejects.toThrow('Connection terminated');
    expect(meter.backlog()).toEqual({ rows: 1, calls: 3 });
    meter.record(t.account.id, 'register', 'soeg_virksomhed', now);
    await meter.flush();
    await meter.flush();
    expect(meter.backlog()).toEqual({ rows: 0, calls: 0 });
    expect((await direct.usage.getUsage(t.account.id, meter.month(now))).map((r) => r.calls)).toEqual([4]);
    expect((await meter.usageRecord(t.account, now)).usage.totalCalls).toBe(4);
  });

  it('serves tool calls from the snapshot while PostgreSQL is out, keeps usage in memory, flushes once', async () => {
    const pg = await startTcpProxy('127.0.0.1', Number(new URL(DATABASE_URL).port || 5432));
    proxies.push(pg);
    const store = await openStore({ databaseUrl: pg.url(DATABASE_URL), schema, queryTimeoutMs: 400 });
    stores.push(store);
    const gw = await startGateway(store, { env: { ...baseEnv, USAGE_FLUSH_MS: '100', SNAPSHOT_REFRESH_MS: '100' } });
    gateways.push(gw);
    const t = await createTenant(direct, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    upstream(6);

    expect((await rpc(gw.url, 'register', t.token, search)).status).toBe(200);
    await until(
      'first call flushed',
      async () => (await direct.usage.getUsage(t.account.id, gw.app.context.meter.month(new Date()))).length === 1,
    );

    // The database goes away: calls still answer; their usage waits in memory.
    pg.setMode('refuse');
    pg.drop();
    for (let i = 0; i < 3; i++) {
      const r = await rpc(gw.url, 'register', t.token, search);
      expect(r.status).toBe(200);
      expect((r.json as { result: { isError?: boolean } }).result.isError).not.toBe(true);
    }
    await new Promise((r) => setTimeout(r, 400)); // a few failed flushes
    expect(await metric(gw.url, 'gateway_usage_backlog_calls')).toBe(3);
    const usage = await fetch(`${gw.url}/api/usage`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(usage.status).toBe(503);
    const body = (await usage.json()) as { error: string; jsonrpc?: string };
    expect(body.jsonrpc).toBeUndefined();
    expect(body.error).toMatch(/temporarily unavailable/);

    // A database that accepts connections and never answers: the usage API still answers.
    pg.setMode('hang');
    expect((await fetch(`${gw.url}/api/usage`, { headers: { authorization: `Bearer ${t.token}` } })).status).toBe(503);
    expect((await rpc(gw.url, 'register', t.token, search)).status).toBe(200);

    // The database returns: the backlog is flushed once, nothing lost, nothing twice.
    pg.setMode('forward');
    pg.drop();
    await until('backlog flushed', async () => (await metric(gw.url, 'gateway_usage_backlog_calls')) === 0);
    const rows = await direct.usage.getUsage(t.account.id, gw.app.context.meter.month(new Date()));
    expect(rows.map((r) => r.calls)).toEqual([5]);
    const after = await fetch(`${gw.url}/api/usage`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { usage: { totalCalls: number } }).usage.totalCalls).toBe(5);
  });
});

describe('the last resort of the start entry point', () => {
  it('logs a fault nothing handled and exits non-zero', async () => {
    const script = [
      "import pino from 'pino';",
      "import { exitOnUnhandledFaults } from './runtime/operations/last-resort.ts';",
      'exitOnUnhandledFaults(pino({ base: null }, pino.destination({ dest: 1, sync: true })));',
      "Promise.reject(new Error('a bug nobody handled'));",
      'setTimeout(() => {}, 5000);',
    ].join('\n');
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { cwd: process.cwd() },
        (_error, out) => resolve({ code: child.exitCode, stdout: out }),
      );
    });
    expect(code).toBe(1);
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({
      level: 60,
      msg: 'unhandled promise rejection; exiting',
      err: { message: 'a bug nobody handled' },
    });
  });
});

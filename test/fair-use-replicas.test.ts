// Fair use in hard mode across replicas (PostgreSQL + Redis): the Redis counter is authoritative,
// a check is one atomic reserve with no database read, an absent counter is seeded once per
// account and month, counters behind the database are raised after a flush, and only an
// unreachable Redis makes calls fail open.
import { Writable } from 'node:stream';
import nock from 'nock';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { RedisSharedStore } from '../runtime/store/shared-store.ts';
import { UsageMeter } from '../runtime/metering/usage.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore, Repositories } from '../runtime/store/store.ts';
import {
  createTenant,
  rpc,
  silentLogger,
  startGateway,
  usageOf,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { REDIS_URL, DATABASE_URL, needs } from './support/services.ts';

const HOST = 'https://cvr-fair-use.test';
const BLOCKED = /^Fair-use quota reached for register in \d{4}-\d{2}: \d+ of \d+ cost units used\./;

async function metric(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function until(what: string, check: () => Promise<boolean> | boolean, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting: ${what}`);
}

/** The result text of a tools/call, and whether it was refused by fair use. */
async function search(gw: StartedGateway, t: Tenant): Promise<{ text: string; blocked: boolean }> {
  const r = await rpc(gw.url, 'register', t.token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'register__soeg_virksomhed', arguments: { query: 'x' } },
  });
  const text = (r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
  return { text, blocked: BLOCKED.test(text) };
}

/**
 * Slows the store's fair-use reads (the database under a burst) by `delay.ms`; 0 leaves them as
 * they are. Counts them too.
 */
function slowReads(store: Pick<Repositories, 'usage'>, delay: { ms: number; reads: number }): void {
  const one = store.usage.getMonthCostUnits.bind(store.usage);
  const many = store.usage.getMonthCostUnitsOf?.bind(store.usage);
  const wait = () => (delay.ms > 0 ? new Promise((r) => setTimeout(r, delay.ms)) : Promise.resolve());
  store.usage.getMonthCostUnits = async (...args) => {
    delay.reads++;
    await wait();
    return one(...args);
  };
  if (many) {
    store.usage.getMonthCostUnitsOf = async (...args) => {
      await wait();
      return many(...args);
    };
  }
}

describe('fair use in hard mode across two replicas', needs('postgres', 'redis'), () => {
  const schema = `fairuse_${randomBytes(6).toString('hex')}`;
  const prefix = `test-${schema}:`;
  const delay = { ms: 0, reads: 0 };
  const logLines: string[] = [];
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let counters: RedisSharedStore;
  let redisProxy: TcpProxy;
  let a: StartedGateway;
  let b: StartedGateway;
  let upstreamRequests = 0;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    for (const s of stores) slowReads(s, delay);
    counters = await RedisSharedStore.connect(REDIS_URL, { prefix, timeoutMs: 2000 });
    // Replica B reaches Redis through a proxy the test can cut.
    redisProxy = await startTcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379));
    const env = {
      REDIS_PREFIX: prefix,
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      REGISTER_MAX_CONCURRENT: '64',
      REGISTER_USERNAME: 'u',
      REGISTER_PASSWORD: 'p',
      CONNECTOR_REGISTER_BASE_URL: `${HOST}/cvr-permanent`,
      // Generous waits: a busy test machine must not make a healthy Redis look down.
      FAIR_USE_STORE_TIMEOUT_MS: '1000',
      FAIR_USE_SEED_TIMEOUT_MS: '20000',
      USAGE_FLUSH_MS: '100',
    };
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    });
    a = await startGateway(stores[0]!, { env: { ...env, REDIS_URL } });
    b = await startGateway(stores[1]!, {
      env: { ...env, REDIS_URL: redisProxy.url(REDIS_URL) },
      logger: pino({ level: 'info' }, sink),
    });
    nock(HOST)
      .post('/cvr-permanent/virksomhed/_search')
      .reply(() => {
        upstreamRequests++;
        return [200, { hits: { total: 0, hits: [] } }];
      })
      .persist();
  });
  afterAll(async () => {
    redisProxy?.setMode('forward');
    await a?.close();
    await b?.close();
    await counters?.close();
    await redisProxy?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
    nock.cleanAll();
  });

  async function hardTenant(quota: number, alreadyUsed: number): Promise<{ t: Tenant; month: string }> {
    const t = await createTenant(stores[0]!, { subscribe: ['register'] });
    await stores[0]!.accounts.setFairUse(t.account.id, { mode: 'hard', quota });
    const month = a.app.context.meter.month(new Date());
    if (alreadyUsed > 0)
      await stores[0]!.usage.addUsage([
        {
          accountId: t.account.id,
          month,
          connectorId: 'register',
          tool: 'soeg_virksomhed',
          calls: alreadyUsed,
          costUnits: alreadyUsed,
        },
      ]);
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
    return { t, month };
  }

  it('200 concurrent calls on two replicas, 50 units headroom, slow database: 50 allowed, overshoot 0', async () => {
    const { t, month } = await hardTenant(80, 30);
    const failOpenBefore =
      (await metric(a.url, 'gateway_fail_open_total', '{component="fair_use"}')) +
      (await metric(b.url, 'gateway_fail_open_total', '{component="fair_use"}'));
    // Every database read of the month's units now takes longer than the hot-path wait.
    delay.ms = 1500;
    delay.reads = 0;
    const before = upstreamRequests;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => search(i % 2 ? b : a, t)));
    delay.ms = 0;
    expect(results.filter((r) => !r.blocked)).toHaveLength(50);
    expect(results.filter((r) => r.blocked)).toHaveLength(150);
    expect(results.find((r) => r.blocked)!.text).toMatch(`for register in ${month}: 80 of 80 cost units used.`);
    expect(upstreamRequests - before).toBe(50);
    // A seed read per replica (a late straggler may read again), not one per call; no fail-open.
    expect(delay.reads).toBeLessThanOrEqual(4);
    const failOpenAfter =
      (await metric(a.url, 'gateway_fail_open_total', '{component="fair_use"}')) +
      (await metric(b.url, 'gateway_fail_open_total', '{component="fair_use"}'));
    expect(failOpenAfter - failOpenBefore).toBe(0);
    expect(await counters.getUnits(`fu:${t.account.id}:${month}`)).toBe(80);
    const usage = await usageOf(a.url, t.token);
    expect(usage.usage.totalCalls).toBe(80);
    expect(usage.fairUse).toMatchObject({ used: 80, limit: 80, withinQuota: true, mode: 'hard' });
    await until(
      'both replicas flushed',
      async () => (await stores[0]!.usage.getMonthCostUnits(t.account.id, month)) === 80,
    );
  });

  it('raises a counter behind the database (units metered by a replica without Redis) at the next flush', async () => {
    const { t, month } = await hardTenant(45, 0);
    const key = `fu:${t.account.id}:${month}`;
    expect((await search(a, t)).blocked).toBe(false); // seeds the counter: 1
    expect(await counters.getUnits(key)).toBe(1);
    // A replica that ran without Redis metered 40 units straight into the database.
    await stores[1]!.usage.addUsage([
      { accountId: t.account.id, month, connectorId: 'register', tool: 'hent_virksomhed', calls: 40, costUnits: 40 },
    ]);
    await until('the counter is raised to the database total', async () => (await counters.getUnits(key)) === 41);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => search(i % 2 ? b : a, t)));
    expect(results.filter((r) => !r.blocked)).toHaveLength(4);
    expect(await counters.getUnits(key)).toBe(45);
  });

  it("a process's first check of an account catches a stale counter up with the database, then reserves", async () => {
    const { t, month } = await hardTenant(10, 0);
    const key = `fu:${t.account.id}:${month}`;
    // The counter says 2, but 8 units were metered without a reservation (the account was in soft
    // mode meanwhile, or a replica ran without Redis) and the replicas checking it have stopped.
    await counters.reserveUnit(key, 10, 60, 1);
    await stores[0]!.usage.addUsage([
      { accountId: t.account.id, month, connectorId: 'register', tool: 'soeg_virksomhed', calls: 8, costUnits: 8 },
    ]);
    const fresh = new UsageMeter({
      store: stores[0]!,
      timeZone: 'Europe/Copenhagen',
      defaultQuota: 100,
      flushMs: 60_000,
      counterTimeoutMs: 1000,
      seedTimeoutMs: 20_000,
      shared: counters,
      log: silentLogger(),
    });
    const account = (await stores[0]!.accounts.getAccount(t.account.id))!;
    const now = new Date();
    const decisions = [
      await fresh.check(account, now),
      await fresh.check(account, now),
      await fresh.check(account, now),
    ];
    expect(decisions.map((d) => d.blocked)).toEqual([false, false, true]);
    expect(decisions[2]).toMatchObject({ used: 10, limit: 10 });
  });

  it('fails open only while Redis is unreachable (logged, counted), and catches the counter up after', async () => {
    const { t, month } = await hardTenant(3, 0);
    const key = `fu:${t.account.id}:${month}`;
    const first = await Promise.all([search(b, t), search(b, t), search(b, t), search(b, t)]);
    expect(first.filter((r) => r.blocked)).toHaveLength(1);

    const failOpenBefore = await metric(b.url, 'gateway_fail_open_total', '{component="fair_use"}');
    const outagesBefore = logLines.filter((l) => l.includes('redis (REDIS_URL) unavailable: outage started')).length;
    const before = upstreamRequests;
    redisProxy.setMode('refuse');
    redisProxy.drop();
    // The overshoot while Redis is down: every call of the outage is allowed (DECISIONS §10).
    const during = [];
    for (let i = 0; i < 5; i++) during.push(await search(b, t));
    expect(during.filter((r) => r.blocked)).toHaveLength(0);
    expect(upstreamRequests - before).toBe(5);
    expect((await metric(b.url, 'gateway_fail_open_total', '{component="fair_use"}')) - failOpenBefore).toBe(5);
    // One line for the outage, not one per call
    // (docs/decisions/operations.md, 'Store outages are logged when they start and end').
    expect(
      logLines.filter((l) => l.includes('redis (REDIS_URL) unavailable: outage started')).length - outagesBefore,
    ).toBe(1);
    expect(logLines.filter((l) => l.includes('fair-use counter unavailable'))).toHaveLength(0);

    // Redis is back: the 5 units metered meanwhile reach the counter, and the account is blocked.
    redisProxy.setMode('forward');
    await until('the counter catches up with the database', async () => (await counters.getUnits(key)) === 8);
    const after = await search(b, t);
    expect(after.text).toMatch(`for register in ${month}: 8 of 3 cost units used.`);
    expect(logLines.some((l) => l.includes('fair-use counters were behind the database; raised'))).toBe(true);
    await until('the end of the outage is logged', async () =>
      logLines.some((l) => l.includes('redis (REDIS_URL) available again: outage ended after')),
    );
  });
});

// `/healthz` is liveness (the process serves); `/readyz` is readiness: the database and the shared
// store answer, migrations are applied, the snapshot is fresh and no stored credential needs a key
// version this process lacks. Not ready: 503 naming each failing check, and the same in the
// `gateway_ready` gauges.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startGateway, type StartedGateway } from './support/gateway.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { REDIS_URL, DATABASE_URL, needs } from './support/services.ts';

interface Ready {
  status: string;
  failing?: string[];
  degraded?: string[];
  checks: Record<string, string>;
}

async function readyz(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as Ready };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('/readyz', needs('postgres', 'redis'), () => {
  const schema = `ready_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let store: PlatformStore;
  let pg: TcpProxy;
  let redis: TcpProxy;
  let gw: StartedGateway;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    pg = await startTcpProxy('127.0.0.1', Number(new URL(DATABASE_URL).port || 5432));
    redis = await startTcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379));
    store = await openStore({ databaseUrl: pg.url(DATABASE_URL), schema, queryTimeoutMs: 400 });
    gw = await startGateway(store, {
      storeTimeoutMs: 400,
      env: { REDIS_URL: redis.url(REDIS_URL), REDIS_PREFIX: `test-${schema}:`, SNAPSHOT_REFRESH_MS: '100' },
    });
  });
  afterAll(async () => {
    pg?.setMode('forward');
    redis?.setMode('forward');
    await gw?.close();
    await store?.close();
    await pg?.close();
    await redis?.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  it('is ready when every check passes', async () => {
    const r = await readyz(gw.url);
    expect(r).toEqual({
      status: 200,
      body: {
        status: 'ready',
        checks: { store: 'ok', shared_store: 'ok', migrations: 'ok', snapshot: 'ok', keys: 'ok' },
      },
    });
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('gateway_ready{check="all"} 1');
  });

  it('names the database, the migrations and a stale snapshot while PostgreSQL is away; /healthz lives', async () => {
    pg.setMode('refuse');
    pg.drop();
    await until('snapshot stale', async () => (await readyz(gw.url)).body.failing?.includes('snapshot') ?? false);
    const r = await readyz(gw.url);
    expect(r.status).toBe(503);
    expect(r.body.status).toBe('not_ready');
    expect(r.body.failing).toEqual(['store', 'migrations', 'snapshot']);
    expect(r.body.checks.store).toBe('the platform database does not answer');
    expect(r.body.checks.snapshot).toMatch(/^the in-memory snapshot was last confirmed \d+ seconds ago/);
    expect(r.body.checks.shared_store).toBe('ok');
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('gateway_ready{check="store"} 0');
    expect(metrics).toContain('gateway_ready{check="all"} 0');

    pg.setMode('forward');
    await until('ready again', async () => (await readyz(gw.url)).status === 200);
  });

  it('Redis away: ready, degraded in the body and the metric; not degraded after the reconnect', async () => {
    redis.setMode('refuse');
    redis.drop();
    const r = await readyz(gw.url);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ready');
    expect(r.body.degraded).toEqual(['shared_store']);
    expect(r.body.checks.shared_store).toBe('the shared store (Redis) does not answer');
    expect(await (await fetch(`${gw.url}/metrics`)).text()).toContain('gateway_degraded{dependency="redis"} 1');
    redis.setMode('forward');
    await until('not degraded again', async () => (await readyz(gw.url)).body.degraded === undefined);
    expect(await (await fetch(`${gw.url}/metrics`)).text()).toContain('gateway_degraded{dependency="redis"} 0');
  });

  it('names migrations this build has and the database lacks', async () => {
    const { rows } = await admin.query<{ version: number; name: string }>(
      `SELECT version, name FROM ${schema}.schema_migrations ORDER BY version DESC LIMIT 1`,
    );
    const last = rows[0]!;
    await admin.query(`DELETE FROM ${schema}.schema_migrations WHERE version = $1`, [last.version]);
    try {
      const r = await readyz(gw.url);
      expect(r.status).toBe(503);
      expect(r.body.failing).toEqual(['migrations']);
      expect(r.body.checks.migrations).toBe('1 database migrations are not applied');
    } finally {
      await admin.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
        last.version,
        last.name,
      ]);
    }
    expect((await readyz(gw.url)).status).toBe(200);
  });

  it('starts while Redis does not answer: ready and degraded, then uses Redis once it answers', async () => {
    const late = await startTcpProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379));
    late.setMode('refuse');
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const url = late.url(REDIS_URL);
    const started = await startGateway(store, {
      logger: pino({ level: 'info' }, sink),
      env: { REDIS_URL: url, REDIS_PREFIX: `test-late-${schema}:`, FAIR_USE_STORE_TIMEOUT_MS: '300' },
    });
    try {
      const down = await readyz(started.url);
      expect(down.status).toBe(200);
      expect(down.body.degraded).toEqual(['shared_store']);
      const warning = lines.find((l) => l.includes('Redis did not answer at start'));
      expect(warning).toContain(`redis://127.0.0.1:${late.port}`);
      // Calls are served meanwhile (failing open), as during any Redis outage.
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
      late.setMode('forward');
      await until('Redis used once it answers', async () => (await readyz(started.url)).body.degraded === undefined);
      expect(await (await fetch(`${started.url}/metrics`)).text()).toContain('gateway_degraded{dependency="redis"} 0');
      // One outage: started at the failed connect, ended once Redis answered (not before it existed).
      await until('the outage logged as ended', async () => lines.some((l) => l.includes('outage ended')));
      expect(lines.filter((l) => l.includes('outage started') && l.includes('REDIS_URL'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('outage ended'))).toHaveLength(1);
    } finally {
      await started.close();
      await late.close();
    }
  });

  it('refuses to start when Redis answers with an error (a wrong password), naming REDIS_URL without it', async () => {
    const url = REDIS_URL.replace('redis://', 'redis://ops:not-a-real-pw-41@');
    const failure = await startGateway(store, { env: { REDIS_URL: url, FAIR_USE_STORE_TIMEOUT_MS: '300' } }).then(
      (started) => started.close().then(() => undefined),
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/^REDIS_URL redis:\/\/ops@127\.0\.0\.1:\d+ did not answer: WRONGPASS/);
    expect(failure?.message).not.toContain('not-a-real-pw-41');
  });

  it('refuses a REDIS_URL that is not a URL, without echoing its password', async () => {
    const failure = await startGateway(store, { env: { REDIS_URL: 'redis://ops:not-a-real-pw-41@[bad' } }).then(
      (started) => started.close().then(() => undefined),
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/REDIS_URL/);
    expect(failure?.message).not.toContain('not-a-real-pw-41');
  });
});

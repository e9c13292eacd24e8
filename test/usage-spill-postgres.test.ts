// A stop while PostgreSQL is away keeps the usage it could not flush (issue 33 item 2): a real
// gateway process (bin/start.mjs) behind a TCP proxy in front of PostgreSQL answers calls, the proxy
// cuts the database, more calls are answered from the snapshot, SIGTERM stops it; the rest goes to a
// 0600 spill file in DATA_DIR; the next start (database back) applies it; a second start and the
// admin CLI applying a copy of the same file count nothing twice.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecretKey } from '../runtime/secrets/vault.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { DEMO_CASE_ID } from '../sandbox/cases/data.ts';
import { type CasesSandbox, startCasesSandbox } from '../sandbox/cases/server.ts';
import { createTenant, rpc, storeSealedConnection, type Tenant } from './support/gateway.ts';
import { DATABASE_URL, needs } from './support/services.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exit: Promise<number | null>;
}

describe('a stop during a database outage', needs('postgres'), () => {
  const database = `spill_${randomBytes(6).toString('hex')}`;
  const direct = new URL(DATABASE_URL);
  direct.pathname = `/${database}`;
  const key = newSecretKey();
  let admin: SqlClient;
  let store: PlatformStore;
  let proxy: TcpProxy;
  let sandbox: CasesSandbox;
  let tenant: Tenant;
  let dataDir: string;
  const children: ChildProcess[] = [];

  const env = () => ({
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    DATABASE_URL: proxy.url(direct.toString()),
    GATEWAY_SECRET_KEYS: `1:${key}`,
    CONNECTOR_CASES_BASE_URL: sandbox.url,
    USAGE_FLUSH_MS: '200',
    USAGE_DRAIN_TIMEOUT_MS: '1500',
    STORE_TIMEOUT_MS: '500',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  });

  async function start(): Promise<Started> {
    const child = spawn(process.execPath, ['bin/start.mjs'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      void exit.then((code) => reject(new Error(`exited with ${code}:\n${out}`)));
      const check = setInterval(() => {
        const line = out.split('\n').find((l) => l.includes('"gateway listening"'));
        if (line) {
          clearInterval(check);
          resolve((JSON.parse(line) as { url: string }).url);
        }
      }, 20);
    });
    return { child, url, output: () => out, exit };
  }

  async function calls(url: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const r = await rpc(url, 'cases', tenant.token, {
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'cases__get_case', arguments: { id: DEMO_CASE_ID } },
      });
      const result = (r.json as { result?: { isError?: boolean } } | undefined)?.result;
      expect(result && !result.isError, r.text).toBe(true);
    }
  }

  const recorded = async () =>
    (await store.usage.getUsage(tenant.account.id, new Date().toISOString().slice(0, 7))).reduce(
      (sum, r) => sum + Number(r.calls),
      0,
    );
  const spills = () => readdirSync(dataDir).filter((n) => n.startsWith('usage-spill-') && n.endsWith('.json'));

  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE DATABASE ${database}`);
    store = await openStore({ databaseUrl: direct.toString() });
    proxy = await startTcpProxy('127.0.0.1', Number(direct.port || 5432));
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 1_000_000 });
    tenant = await createTenant(store, { subscribe: ['cases'] });
    await storeSealedConnection(store, key, tenant, 'cases', { apiKey: sandbox.tokens.demo });
    dataDir = mkdtempSync(join(tmpdir(), 'spill-'));
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await store?.close();
    await proxy?.close();
    await sandbox?.close();
    await admin?.exec(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('spills on SIGTERM, applies the spill once at the next start, and never counts a batch twice', async () => {
    const first = await start();
    await calls(first.url, 12);
    // Flushed while the database answers.
    for (let i = 0; i < 200 && (await recorded()) < 12; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await recorded()).toBe(12);

    proxy.setMode('refuse');
    proxy.drop();
    // Answered from the snapshot while the database is away; counted in memory only.
    await calls(first.url, 7);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    const files = spills();
    expect(files).toHaveLength(1);
    expect(statSync(join(dataDir, files[0]!)).mode & 0o777).toBe(0o600);
    const stopLine = first
      .output()
      .split('\n')
      .find((l) => l.includes('final usage flush incomplete'));
    expect(stopLine, first.output()).toBeDefined();
    expect(JSON.parse(stopLine!)).toMatchObject({ kept: 7, flushed: 0, spilled: 7 });
    expect(await recorded()).toBe(12);
    const copy = join(tmpdir(), `spill-copy-${randomBytes(4).toString('hex')}.json`);
    copyFileSync(join(dataDir, files[0]!), copy);

    // Database back: the next start applies the file and removes it.
    proxy.setMode('forward');
    const second = await start();
    expect(await recorded()).toBe(19);
    expect(spills()).toHaveLength(0);
    expect(second.output()).toContain('usage spill file applied');
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    // The same batches again, by hand: counted once already, so nothing is added.
    // Straight to PostgreSQL: spawnSync holds this process, and with it the proxy, until the CLI ends.
    const cli = spawnSync(process.execPath, ['bin/admin.ts', 'usage', 'apply-spill', copy, '--json'], {
      env: { ...env(), DATABASE_URL: direct.toString() },
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr + cli.stdout).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ ok: true, result: { calls: 7 } });
    expect(await recorded()).toBe(19);

    // A start with nothing to apply counts nothing.
    const third = await start();
    await calls(third.url, 1);
    third.child.kill('SIGTERM');
    expect(await third.exit).toBe(0);
    expect(await recorded()).toBe(20);
  }, 90_000);
});

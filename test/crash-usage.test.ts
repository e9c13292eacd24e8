// kill -9 of a replica under load (a child process running bin/start.mjs on PostgreSQL): metered
// usage loses at most what was answered within the flush bound (USAGE_FLUSH_MS) before the kill,
// and never counts a call twice (never more than the calls answered plus those in flight).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { newSecretKey } from '../runtime/secrets/vault.ts';
import { DEMO_CASE_ID } from '../sandbox/cases/data.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import { createTenant, rpc, storeSealedConnection, type Tenant } from './support/gateway.ts';
import { DATABASE_URL, needs } from './support/services.ts';

const FLUSH_MS = 200;
/** A flush that started within the bound still has to commit: the time one flush may take. */
const FLUSH_COMMIT_MS = 1000;

describe('kill -9 of a replica under load', needs('postgres'), () => {
  const database = `crash_${randomBytes(6).toString('hex')}`;
  const url = new URL(DATABASE_URL);
  url.pathname = `/${database}`;
  const key = newSecretKey();
  let admin: SqlClient;
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let tenant: Tenant;
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE DATABASE ${database}`);
    store = await openStore({ databaseUrl: url.toString() });
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 1_000_000 });
    tenant = await createTenant(store, { subscribe: ['cases'] });
    await storeSealedConnection(store, key, tenant, 'cases', { apiKey: sandbox.tokens.demo });
    dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await store?.close();
    await sandbox?.close();
    await admin?.exec(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses at most the calls of the last flush interval and counts none twice', async () => {
    child = spawn(process.execPath, ['bin/start.mjs'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        DATABASE_URL: url.toString(),
        GATEWAY_SECRET_KEYS: `1:${key}`,
        CONNECTOR_CASES_BASE_URL: sandbox.url,
        USAGE_FLUSH_MS: String(FLUSH_MS),
        RATE_LIMIT_BURST: '100000',
        RATE_LIMIT_PER_SECOND: '100000',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    const gatewayUrl = await new Promise<string>((resolve, reject) => {
      child!.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
      const check = setInterval(() => {
        const line = out.split('\n').find((l) => l.includes('"gateway listening"'));
        if (line) {
          clearInterval(check);
          resolve((JSON.parse(line) as { url: string }).url);
        }
      }, 20);
    });

    // Load: every answered call is stamped with the time its answer arrived.
    const answeredAt: number[] = [];
    let failedAfterKill = 0;
    let killedAt = Number.POSITIVE_INFINITY;
    const worker = async () => {
      for (let n = 0; ; n++) {
        try {
          const r = await rpc(gatewayUrl, 'cases', tenant.token, {
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: { name: 'cases__get_case', arguments: { id: DEMO_CASE_ID } },
          });
          const result = (r.json as { result?: { isError?: boolean } } | undefined)?.result;
          expect(result && !result.isError, r.text).toBe(true);
          answeredAt.push(Date.now());
        } catch (error) {
          if (Date.now() < killedAt) throw error;
          failedAfterKill++;
          return;
        }
      }
    };
    const workers = [1, 2, 3, 4].map(worker);
    // Several flush intervals of load, then the kill in the middle of one: at least 300 answers, and
    // the first of them older than the loss bound, so the check below is never vacuous on a busy machine.
    while (answeredAt.length < 300 || Date.now() - answeredAt[0]! < FLUSH_MS + FLUSH_COMMIT_MS + 500)
      await new Promise((r) => setTimeout(r, 10));
    killedAt = Date.now();
    child.kill('SIGKILL');
    await exited;
    await Promise.all(workers);
    expect(failedAfterKill).toBe(4);

    const month = new Date().toISOString().slice(0, 7);
    const recorded = (await store.usage.getUsage(tenant.account.id, month)).reduce(
      (sum, r) => sum + Number(r.calls),
      0,
    );
    const answered = answeredAt.length;
    const answeredBeforeBound = answeredAt.filter((t) => t <= killedAt - FLUSH_MS - FLUSH_COMMIT_MS).length;
    // Never counted twice: at most the calls answered plus the 4 in flight at the kill, and never
    // more than the upstream requests the sandbox received.
    expect(recorded).toBeLessThanOrEqual(answered + 4);
    expect(recorded).toBeLessThanOrEqual(sandbox.stats.requests);
    // Lost at most the calls answered within the flush bound before the kill.
    expect(recorded).toBeGreaterThanOrEqual(answeredBeforeBound);
    expect(answeredBeforeBound).toBeGreaterThan(0);
  }, 60_000);
});

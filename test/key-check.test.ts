// A wrong credential encryption key never starts "healthy": each key version leaves a check value
// in the database the first time it is used, and a gateway whose key does not match refuses to
// start, naming GATEWAY_SECRET_KEYS (or the key file) and the key version.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { runCli } from '../bin/admin.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { ConfigError } from '../runtime/config/settings.ts';
import { checkKeys } from '../runtime/secrets/key-check.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { newSecretKey, Vault } from '../runtime/secrets/vault.ts';
import { connectTenant, createTenant, startGateway, testConfig } from './support/gateway.ts';
import { DATABASE_URL, needs } from './support/services.ts';

const RIGHT = newSecretKey();
const WRONG = newSecretKey();
const keyed = (keys: Record<number, string>) => ({ ...testConfig(), secretKeys: keys });

describe('key check', () => {
  let store: PlatformStore;
  beforeAll(async () => {
    store = await openStore({});
    const gw = await startGateway(store, { config: keyed({ 1: RIGHT }) });
    const t = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, t, 'cases', { apiKey: 'k' });
    await gw.close();
  });
  afterAll(async () => {
    await store.close();
  });

  it('refuses to start with a wrong key against credentials sealed with the right one', async () => {
    const started = startGateway(store, { config: keyed({ 1: WRONG }) });
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow(/GATEWAY_SECRET_KEYS key version 1/);
  });

  it('starts with the right key, and with a new version added beside it', async () => {
    await (await startGateway(store, { config: keyed({ 1: RIGHT }) })).close();
    await (await startGateway(store, { config: keyed({ 2: newSecretKey(), 1: RIGHT }) })).close();
  });

  it('refuses a wrong key on a database from before key checks (probes a stored credential)', async () => {
    const old = await openStore({});
    try {
      // Credentials sealed before any key check was recorded (a database from an older build).
      const t = await createTenant(old, { subscribe: ['cases'] });
      const sealed = new Vault({ 1: RIGHT }).seal('{"apiKey":"k"}', t.account.id, 'cases');
      await old.connections.putConnection({
        accountId: t.account.id,
        instanceId: 'cases',
        connectorKey: 'cases',
        ...sealed,
      });
      await expect(startGateway(old, { config: keyed({ 1: WRONG }) })).rejects.toThrow(
        /GATEWAY_SECRET_KEYS key version 1/,
      );
      await (await startGateway(old, { config: keyed({ 1: RIGHT }) })).close();
      await expect(startGateway(old, { config: keyed({ 1: WRONG }) })).rejects.toThrow(
        /GATEWAY_SECRET_KEYS key version 1/,
      );
    } finally {
      await old.close();
    }
  });

  it('is not ready while credentials are sealed with a key version it lacks', async () => {
    const own = await openStore({});
    try {
      const v1 = newSecretKey();
      const gw = await startGateway(own, { config: keyed({ 2: newSecretKey(), 1: v1 }) });
      const t = await createTenant(own, { subscribe: ['cases'] });
      await connectTenant(gw, t, 'cases', { apiKey: 'k' }); // sealed with version 2
      await gw.close();
      const retired = await startGateway(own, { config: keyed({ 1: v1 }) });
      try {
        const res = await fetch(`${retired.url}/readyz`);
        expect(res.status).toBe(503);
        const body = (await res.json()) as { failing: string[]; checks: Record<string, string> };
        expect(body.failing).toEqual(['keys']);
        expect(body.checks.keys).toContain('key version 2');
        expect(body.checks.keys).toContain('GATEWAY_SECRET_KEYS');
      } finally {
        await retired.close();
      }
    } finally {
      await own.close();
    }
  });

  it('names the key file when the keys come from one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keycheck-'));
    try {
      const config = { ...testConfig({ DATA_DIR: dir }) };
      delete (config as { secretKeys?: unknown }).secretKeys;
      await expect(startGateway(store, { config })).rejects.toThrow(
        new RegExp(`key file ${join(dir, 'secret.key')}.*key version 1`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the admin CLI refuses to seal or re-encrypt with a wrong key', async () => {
    const config = loadConfig(registry, {
      DATA_DIR: '/tmp/cg-test-unused',
      GATEWAY_SECRET_KEYS: `3:${newSecretKey()},1:${WRONG}`,
    });
    const out: string[] = [];
    await expect(runCli(['keys', 'reencrypt'], config, store, (l) => out.push(l))).rejects.toThrow(
      /GATEWAY_SECRET_KEYS key version 1/,
    );
    const account = await store.accounts.createAccount({ name: 'CLI' });
    // Subscribed, so the CLI's own check passes and the key check is what refuses.
    await store.accounts.setSubscription(account.id, 'cases', true);
    await expect(
      runCli(
        ['connections', 'set', account.id, 'cases'],
        config,
        store,
        (l) => out.push(l),
        async () => 'apiKey=x',
      ),
    ).rejects.toThrow(ConfigError);
    expect(await store.connections.getConnection(account.id, 'cases')).toBeNull();
    expect((await store.connections.keyChecks()).has(3)).toBe(false);
  });

  it('bin/start.mjs prints the refusal and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keycheck-start-'));
    try {
      const db = await openStore({ dataDir: join(dir, 'db') });
      await checkKeys(new Vault({ 1: RIGHT }), db, { kind: 'env' });
      await db.close();
      const child = spawnSync(process.execPath, ['bin/start.mjs'], {
        env: {
          PATH: process.env.PATH ?? '',
          DATA_DIR: dir,
          GATEWAY_SECRET_KEYS: `1:${WRONG}`,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
        },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(child.stderr).toContain('configuration: GATEWAY_SECRET_KEYS key version 1 is not the key');
      expect(child.stderr).not.toContain(WRONG);
      expect(child.status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('replicas sharing a database, each with its own key file', needs('postgres'), () => {
  const schema = `keycheck_${randomBytes(6).toString('hex')}`;
  const dirs = [mkdtempSync(join(tmpdir(), 'replica-a-')), mkdtempSync(join(tmpdir(), 'replica-b-'))];
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('the second replica refuses to start and says to set GATEWAY_SECRET_KEYS', async () => {
    const config = (dir: string) =>
      loadConfig(registry, { DATA_DIR: dir, DATABASE_URL, LOG_LEVEL: 'silent', USAGE_FLUSH_MS: '60000' });
    expect(config(dirs[0]!).secretKeys).toBeUndefined();
    const first = await startGateway(stores[0]!, { config: config(dirs[0]!) });
    try {
      const second = startGateway(stores[1]!, { config: config(dirs[1]!) });
      await expect(second).rejects.toThrow(ConfigError);
      await expect(second).rejects.toThrow(/each replica made its own key file\. Set GATEWAY_SECRET_KEYS to the same/);
      await expect(second).rejects.toThrow(`key file ${join(dirs[1]!, 'secret.key')}`);
    } finally {
      await first.close();
    }
    // The first replica restarts fine with its own key file.
    await (await startGateway(stores[0]!, { config: config(dirs[0]!) })).close();
  });
});

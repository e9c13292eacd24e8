// Start-up opens the embedded database of a warm data directory in its own thread before the rest
// of the gateway loads (bin/gateway.ts, runtime/store/embedded-opening.ts). Here: where it looks
// (`storeLocation` reads the store settings exactly as loadConfig does), that a warm start takes
// that path and serves, that a configuration refused after the database began opening closes it
// properly (lock released, data intact), and that an opening the configuration does not use is
// closed by createApp.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { createApp } from '../runtime/app.ts';
import { loadConfig, storeLocation } from '../runtime/config/config.ts';
import { beginEmbeddedOpening } from '../runtime/store/embedded-opening.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import { createTenant } from './support/gateway.ts';

const ROOT = resolve(import.meta.dirname, '..');
const KEYS = `1:${Buffer.alloc(32, 7).toString('base64')}`;

describe('storeLocation reads the store settings as loadConfig does', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'store-location-')), 'gateway.json');

  it('defaults to ./data, takes the config file, and lets the environment win', () => {
    expect(storeLocation({})).toEqual({ dataDir: resolve('data'), storeTimeoutMs: 5000 });
    writeFileSync(
      file,
      JSON.stringify({ dataDir: '/srv/from-file', storeTimeoutMs: 900, connectors: { cases: { enabled: false } } }),
    );
    expect(storeLocation({ GATEWAY_CONFIG: file })).toEqual({ dataDir: '/srv/from-file', storeTimeoutMs: 900 });
    expect(storeLocation({ GATEWAY_CONFIG: file, DATA_DIR: '/srv/from-env', STORE_TIMEOUT_MS: '1200' })).toEqual({
      dataDir: '/srv/from-env',
      storeTimeoutMs: 1200,
    });
    expect(storeLocation({}, file)).toEqual({ dataDir: '/srv/from-file', storeTimeoutMs: 900 });
    expect(storeLocation({ DATABASE_URL: 'postgres://gw@db:5432/gateway' })).toMatchObject({
      databaseUrl: 'postgres://gw@db:5432/gateway',
    });
  });

  it('agrees with loadConfig wherever loadConfig accepts the settings', () => {
    for (const env of [
      {},
      { DATA_DIR: '/srv/a' },
      { DATA_DIR: 'relative/b', STORE_TIMEOUT_MS: '250' },
      { GATEWAY_CONFIG: file },
      { GATEWAY_CONFIG: file, DATA_DIR: '/srv/c' },
    ]) {
      const config = loadConfig(registry, env);
      expect(storeLocation(env)).toEqual({ dataDir: config.dataDir, storeTimeoutMs: config.storeTimeoutMs });
    }
  });

  it('is undefined when it cannot tell (loadConfig then says why)', () => {
    expect(storeLocation({ GATEWAY_CONFIG: join(tmpdir(), 'no-such-gateway-config.json') })).toBeUndefined();
    writeFileSync(file, '{ not json');
    expect(storeLocation({ GATEWAY_CONFIG: file })).toBeUndefined();
    writeFileSync(file, JSON.stringify({ dataDir: 42 }));
    expect(storeLocation({ GATEWAY_CONFIG: file })).toBeUndefined();
    expect(storeLocation({ STORE_TIMEOUT_MS: 'soon' })).toBeUndefined();
  });
});

/** Runs `node bin/start.mjs` until it logs `gateway listening` (resolves its lines) or exits (resolves its code). */
function startGateway(env: Record<string, string>): {
  child: ChildProcess;
  outcome: Promise<{ lines: Record<string, unknown>[]; exitCode?: number | null; output: string }>;
} {
  const child = spawn(process.execPath, ['--liftoff-only', 'bin/start.mjs'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const parse = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const outcome = new Promise<{ lines: Record<string, unknown>[]; exitCode?: number | null; output: string }>(
    (resolveOutcome) => {
      const onData = (d: Buffer) => {
        output += d.toString('utf8');
        if (output.includes('"gateway listening"')) resolveOutcome({ lines: parse(), output });
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.on('exit', (code) => resolveOutcome({ lines: parse(), exitCode: code, output }));
    },
  );
  return { child, outcome };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise((r) => {
    child.once('exit', r);
    child.kill('SIGTERM');
  });
}

describe('a warm start opens the embedded database first', () => {
  let dataDir: string;
  const env = () => ({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', GATEWAY_SECRET_KEYS: KEYS });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'early-open-'));
    // The first start creates the database (no early opening: initdb only after the config is known right).
    const first = startGateway(env());
    const { lines, output } = await first.outcome;
    expect(
      lines.find((l) => l.msg === 'gateway listening'),
      output,
    ).toMatchObject({ storeOpenedEarly: false });
    await stop(first.child);
  }, 120_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves after opening the existing database early', async () => {
    const second = startGateway(env());
    try {
      const { lines, output } = await second.outcome;
      const listening = lines.find((l) => l.msg === 'gateway listening');
      expect(listening, output).toMatchObject({ storeOpenedEarly: true, store: `embedded ${join(dataDir, 'db')}` });
      const ready = await fetch(`${listening!.url as string}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      await stop(second.child);
    }
    expect(existsSync(join(dataDir, 'db.lock'))).toBe(false);
  }, 120_000);

  it('closes the early database when the configuration is refused (exit 2, lock released, data kept)', async () => {
    const refused = startGateway({ ...env(), RATE_LIMIT_PER_SECOND: 'lots' });
    const { exitCode, output } = await refused.outcome;
    expect(exitCode, output).toBe(2);
    expect(output).toContain('configuration: RATE_LIMIT_PER_SECOND');
    expect(existsSync(join(dataDir, 'db.lock'))).toBe(false);
    // The database opens cleanly afterwards, with the key check the first start stored.
    const store = await openStore({ dataDir: join(dataDir, 'db') });
    try {
      expect((await store.connections.keyChecks()).get(1)).toEqual(expect.any(String));
    } finally {
      await store.close();
    }
  }, 120_000);

  it('is left to createApp when another process holds the lock, which names the holder', async () => {
    const holder = startGateway(env());
    try {
      const { lines } = await holder.outcome;
      expect(lines.find((l) => l.msg === 'gateway listening')).toMatchObject({ storeOpenedEarly: true });
      const second = startGateway(env());
      const { exitCode, output } = await second.outcome;
      // A data directory another process holds is refused naming DATA_DIR, like a configuration (exit 2).
      expect(exitCode).toBe(2);
      expect(output).toMatch(/is in use by process \d+/);
    } finally {
      await stop(holder.child);
    }
  }, 120_000);
});

describe('createApp and an opening it does not use', () => {
  it('closes the opening and releases its lock when the configuration names another store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'early-unused-'));
    try {
      // Opened for one directory, while the configuration points at another.
      const other = join(dir, 'other');
      const prepared = await openStore({ dataDir: join(other, 'db') });
      await prepared.close();
      const opening = beginEmbeddedOpening(join(other, 'db'));
      expect(readdirSync(other)).toContain('db.lock');
      const config = loadConfig(registry, { DATA_DIR: join(dir, 'configured'), GATEWAY_SECRET_KEYS: KEYS, PORT: '0' });
      const app = await createApp({ config, registry, logger: createLogger('silent'), embeddedOpening: opening });
      try {
        expect(readdirSync(other)).not.toContain('db.lock');
        await expect(opening.client.query('SELECT 1')).rejects.toThrow('the embedded database stopped');
        expect(app.context.store.kind).toBe('embedded');
      } finally {
        await app.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the embedded database thread going away under a running gateway', () => {
  it('keeps serving from the snapshot, says so on /readyz, and closes without hanging', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'thread-gone-'));
    try {
      const opening = beginEmbeddedOpening(join(dir, 'db'));
      const config = loadConfig(registry, {
        DATA_DIR: dir,
        GATEWAY_SECRET_KEYS: KEYS,
        PORT: '0',
        USAGE_FLUSH_MS: '60000',
      });
      const app = await createApp({ config, registry, logger: createLogger('silent'), embeddedOpening: opening });
      const tenant = await createTenant(app.context.store, { subscribe: ['register'] });
      await app.context.state.refresh();
      const url = await app.listen(0, '127.0.0.1');
      const list = () =>
        fetch(`${url}/register/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tenant.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
      expect((await list()).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      await opening.client.thread.terminate();

      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { failing: string[] }).failing).toContain('store');
      // Callers the snapshot knows are still answered.
      const listed = await list();
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
      await app.close().catch(() => {});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

// The data directory is private in every mode, and the admin CLI checks the admin socket before it
// sends anything over it (docs/decisions/operations.md, 'The admin CLI checks the socket before it
// sends anything'): a socket open to others, a file that is no socket, or a gateway serving another
// store than the configured one is refused (exit 4) and the gateway behind it never hears the command.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { createApp } from '../runtime/app.ts';
import { describeStore } from '../runtime/config/checks.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import { serveAdminSocket } from '../runtime/operations/admin-socket.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { newSecretKey } from '../runtime/secrets/vault.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const PG_URL = 'postgres://admin@127.0.0.1:5999/elsewhere';

function cli(env: Record<string, string>, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['bin/admin.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL: '', DATABASE_URL: '', LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end('');
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

describe('a private data directory and a checked admin socket', () => {
  const root = mkdtempSync(join(tmpdir(), 'admin-private-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('makes an open data directory private with DATABASE_URL and GATEWAY_SECRET_KEYS set, and says so', async () => {
    const dataDir = join(root, 'production');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o777);
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const config = loadConfig(registry, {
      DATA_DIR: dataDir,
      DATABASE_URL: PG_URL,
      GATEWAY_SECRET_KEYS: `1:${newSecretKey()}`,
      USAGE_FLUSH_MS: '60000',
    });
    const store = await openStore({});
    const app = await createApp({ config, registry, store, logger: createLogger('info', destination) });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const warning = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => String(l.msg).startsWith('the data directory was open to other users'));
      expect(warning).toMatchObject({ level: 40, dataDir });
    } finally {
      await app.close();
      await store.close();
    }
  }, 60_000);

  it('runs over a socket of the configured store, names the store first, and makes the directory private', async () => {
    const dataDir = join(root, 'same');
    mkdirSync(dataDir);
    const heard: string[][] = [];
    const server = await serveAdminSocket(
      join(dataDir, 'admin.sock'),
      async ({ argv, out }) => {
        heard.push([...argv]);
        out('handled');
        return { code: 0 };
      },
      { store: describeStore(loadConfig(registry, { DATA_DIR: dataDir })) },
    );
    try {
      chmodSync(dataDir, 0o777);
      const ran = await cli({ DATA_DIR: dataDir }, ['accounts', 'list']);
      expect(ran.code, ran.err).toBe(0);
      expect(ran.out).toBe('handled\n');
      const err = ran.err.split('\n');
      expect(err[0]).toBe(`note: ${dataDir} was open to other users; made it private (directories 0700, files 0600)`);
      expect(err[1]).toBe(
        `store: embedded ${join(dataDir, 'db')} (through the running gateway's admin socket ` +
          `${join(dataDir, 'admin.sock')}` +
          ')',
      );
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(heard).toEqual([['accounts', 'list']]);

      // A gateway of another store than the configured one: refused, nothing sent, in text and in JSON.
      const other = await cli({ DATA_DIR: dataDir, DATABASE_URL: PG_URL }, ['connections', 'set', 'acc_1', 'cases']);
      expect(other.code).toBe(4);
      expect(other.out).toBe('');
      expect(other.err).toContain(
        `serves embedded ${join(dataDir, 'db')}, but this configuration names PostgreSQL ` +
          'postgres://admin@127.0.0.1:5999/elsewhere: refusing',
      );
      const otherJson = await cli({ DATA_DIR: dataDir, DATABASE_URL: PG_URL }, ['accounts', 'list', '--json']);
      expect(otherJson.code).toBe(4);
      expect(otherJson.err).toBe('');
      expect(JSON.parse(otherJson.out)).toMatchObject({
        ok: false,
        command: 'accounts list',
        store: 'PostgreSQL postgres://admin@127.0.0.1:5999/elsewhere',
        error: { kind: 'refused', exitCode: 4 },
      });

      // A socket open to other users: refused before anything is sent.
      chmodSync(join(dataDir, 'admin.sock'), 0o666);
      const open = await cli({ DATA_DIR: dataDir }, ['accounts', 'list']);
      expect(open.code).toBe(4);
      expect(open.err).toContain(
        'is open to other users (mode 0666, the gateway makes it 0600): refusing to send anything over it',
      );
      expect(heard).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 90_000);

  it('refuses an admin.sock that is not a socket', async () => {
    const dataDir = join(root, 'planted');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'admin.sock'), '');
    const planted = await cli({ DATA_DIR: dataDir }, ['accounts', 'list']);
    expect(planted.code).toBe(4);
    expect(planted.err).toContain(`${join(dataDir, 'admin.sock')} is not a socket: refusing to send anything over it`);
  }, 60_000);
});

// The data directory holds token hashes, credential ciphertexts, entitlements and the key file: no
// file or directory in it grants any permission to group or others — on a new embedded database
// (PGlite's initdb writes its files 0666 whatever the umask), after writes, and on a directory an
// older version left open, which the gateway tightens at start with a warning.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { createApp } from '../runtime/app.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import { openStore } from '../runtime/store/open-store.ts';

/** Every path under `root` (itself included) whose mode grants group or other users anything, with its mode. */
function openToOthers(root: string): string[] {
  const stat = lstatSync(root);
  const here = (stat.mode & 0o077) !== 0 ? [`${root} ${(stat.mode & 0o777).toString(8)}`] : [];
  if (!stat.isDirectory()) return here;
  return [...here, ...readdirSync(root).flatMap((name) => openToOthers(join(root, name)))];
}

function countEntries(root: string): number {
  return lstatSync(root).isDirectory()
    ? 1 + readdirSync(root).reduce((n, name) => n + countEntries(join(root, name)), 0)
    : 1;
}

/** Opens everything up the way an older version left it: directories 0755, files 0666. */
function loosen(root: string): void {
  const stat = lstatSync(root);
  chmodSync(root, stat.isDirectory() ? 0o755 : 0o666);
  if (stat.isDirectory()) for (const name of readdirSync(root)) loosen(join(root, name));
}

describe('data directory permissions', () => {
  const root = mkdtempSync(join(tmpdir(), 'data-perms-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a new embedded database is private (directories 0700, files 0600) while open and after close', async () => {
    const dataDir = join(root, 'fresh');
    mkdirSync(dataDir, { mode: 0o700 });
    const store = await openStore({ dataDir: join(dataDir, 'db') });
    try {
      const account = await store.accounts.createAccount({ name: 'Private' });
      await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'cases',
        connectorKey: 'cases',
        ciphertext: 'c',
        keyVersion: 1,
      });
      expect(countEntries(join(dataDir, 'db'))).toBeGreaterThan(100);
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await store.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
  }, 60_000);

  it('the gateway makes a data directory an older version left open private at start, and says so', async () => {
    const dataDir = join(root, 'old', 'data');
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', USAGE_FLUSH_MS: '60000' };
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    // First start: a new directory, key file and database; nothing to warn about.
    const first = await createApp({
      config: loadConfig(registry, env),
      registry,
      logger: createLogger('info', destination),
    });
    await first.close();
    expect(openToOthers(dataDir)).toEqual([]);
    expect(lines.join('\n')).not.toContain('open to other users');

    // The demo tenant's token file (npm start) is the gateway's too.
    writeFileSync(join(dataDir, 'demo-token'), 'cgw_demo\n');
    loosen(dataDir);
    const opened = countEntries(dataDir);
    expect(openToOthers(dataDir)).toHaveLength(opened);
    const second = await createApp({
      config: loadConfig(registry, env),
      registry,
      logger: createLogger('info', destination),
    });
    try {
      expect(openToOthers(dataDir)).toEqual([]);
      const warning = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find(
          (l) => l.msg === 'the data directory was open to other users: made it private (directories 0700, files 0600)',
        );
      expect(warning).toMatchObject({ level: 40, dataDir, entries: opened });
    } finally {
      await second.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
  }, 120_000);
});

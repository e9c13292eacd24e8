// Start-up failures name the setting that points at the store or the directory
// (docs/decisions/operations.md, 'Start-up failures name the setting'), never its password.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { createApp } from '../runtime/app.ts';
import { ConfigError, loadConfig } from '../runtime/config/config.ts';

const PASSWORD = 'Qx7-startup-pw-9f';
const dir = mkdtempSync(join(tmpdir(), 'startup-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startError(env: Record<string, string>): Promise<Error> {
  const config = loadConfig(registry, { LOG_LEVEL: 'silent', ...env });
  try {
    const app = await createApp({ config, registry, logger: pino({ level: 'silent' }), storeTimeoutMs: 2000 });
    await app.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the gateway started');
}

describe('start-up failures', () => {
  it('a database that does not answer names DATABASE_URL and where it points, without the password', async () => {
    const error = await startError({
      DATA_DIR: join(dir, 'pg'),
      DATABASE_URL: `postgres://gateway:${PASSWORD}@127.0.0.1:5999/gateway`,
      GATEWAY_SECRET_KEYS: `1:${Buffer.alloc(32, 3).toString('base64')}`,
    });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(
      /^DATABASE_URL postgres:\/\/.*127\.0\.0\.1:5999.* could not be opened: .*ECONNREFUSED/,
    );
    expect(error.message).not.toContain(PASSWORD);
  });

  it('a data directory that is a file names DATA_DIR', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const error = await startError({ DATA_DIR: file });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(new RegExp(`^DATA_DIR ${file} cannot be used: .*(ENOTDIR|EEXIST)`));
  });
});

// Settings that only make sense together are refused alone, and a setting a connector does not
// read is refused like an unknown one (docs/decisions/operations.md, 'Settings that only make sense
// together are refused alone').
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { loadConfig } from '../runtime/config/config.ts';

const SECRET = 'Vb3-combo-secret-77';
const load = (env: Record<string, string>, file?: unknown) => {
  if (file === undefined) return loadConfig(registry, { DATA_DIR: '/tmp/cg-unused', ...env });
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(file));
  return loadConfig(registry, { DATA_DIR: '/tmp/cg-unused', ...env }, path);
};
const dir = mkdtempSync(join(tmpdir(), 'config-combinations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('settings refused alone', () => {
  it('REGISTER_PASSWORD without REGISTER_USERNAME, and the other way round', () => {
    expect(() => load({ REGISTER_PASSWORD: SECRET })).toThrow(
      'REGISTER_PASSWORD (connectors.register.managedCredential.password) is set without REGISTER_USERNAME',
    );
    expect(() => load({ REGISTER_USERNAME: 'gateway' })).toThrow(
      'REGISTER_USERNAME (connectors.register.managedCredential.username) is set without REGISTER_PASSWORD',
    );
    expect(() => load({}, { connectors: { register: { managedCredential: { password: SECRET } } } })).toThrow(
      /without REGISTER_USERNAME/,
    );
    expect(
      load({ REGISTER_USERNAME: 'gateway', REGISTER_PASSWORD: SECRET }).connectors.find((c) => c.key === 'register')
        ?.managedCredential,
    ).toEqual({ username: 'gateway', password: SECRET });
  });

  it('an OAuth client secret or base URL without the client id', () => {
    expect(() => load({ CONNECTOR_ERP_OAUTH_CLIENT_SECRET: SECRET })).toThrow(
      'CONNECTOR_ERP_OAUTH_CLIENT_SECRET (connectors.erp.oauth.clientSecret) is set without ' +
        'CONNECTOR_ERP_OAUTH_CLIENT_ID',
    );
    expect(() => load({ CONNECTOR_ERP_OAUTH_BASE_URL: 'https://idp.example.com' })).toThrow(
      /CONNECTOR_ERP_OAUTH_BASE_URL .* is set without CONNECTOR_ERP_OAUTH_CLIENT_ID/,
    );
    expect(() =>
      load({ CONNECTOR_ERP_OAUTH_CLIENT_ID: 'client', CONNECTOR_ERP_OAUTH_CLIENT_SECRET: SECRET }),
    ).not.toThrow();
  });

  it('REDIS_PREFIX without REDIS_URL', () => {
    expect(() => load({ REDIS_PREFIX: 'cg-a:' })).toThrow('REDIS_PREFIX (redisPrefix) is set without REDIS_URL');
    expect(() => load({ REDIS_PREFIX: 'cg-a:', REDIS_URL: 'redis://127.0.0.1:6379' })).not.toThrow();
  });

  it('never echoes the secret it refuses', () => {
    const envs: Record<string, string>[] = [
      { REGISTER_PASSWORD: SECRET },
      { CONNECTOR_ERP_OAUTH_CLIENT_SECRET: SECRET },
      { CONNECTOR_REGISTER_OAUTH_CLIENT_SECRET: SECRET },
    ];
    for (const env of envs) {
      expect(() => load(env)).toThrow();
      try {
        load(env);
      } catch (error) {
        expect((error as Error).message).not.toContain(SECRET);
      }
    }
  });
});

describe('settings a connector does not read', () => {
  it('refuses OAuth settings of a connector that does not use OAuth like an unknown setting', () => {
    expect(() => load({ CONNECTOR_REGISTER_OAUTH_CLIENT_ID: 'client' })).toThrow(
      'unknown setting CONNECTOR_REGISTER_OAUTH_CLIENT_ID (connectors.register.oauth.clientId): ' +
        'the register connector does not use OAuth and does not read it',
    );
    expect(() => load({}, { connectors: { register: { oauth: { clientId: 'client' } } } })).toThrow(
      /unknown setting .*connectors\.register\.oauth\.clientId/,
    );
  });

  it('refuses a deployment account for a connector that has none', () => {
    expect(() => load({}, { connectors: { erp: { managedCredential: { username: 'u', password: SECRET } } } })).toThrow(
      'unknown setting connectors.erp.managedCredential',
    );
  });
});

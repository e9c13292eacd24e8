// Deployment configuration read the same way for every connector of the registry.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { loadConfig } from '../runtime/config/config.ts';
import * as configModule from '../runtime/config/settings.ts';
import { ConfigError } from '../runtime/config/settings.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const KEY = (n: number) => Buffer.alloc(32, n).toString('base64');
const refusal = (env: Record<string, string>, configPath?: string): string => {
  try {
    loadConfig(registry, { ...base, ...env }, configPath);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
};

const base = { DATA_DIR: '/tmp/cg-config-test' };
const connector = (env: Record<string, string>, key: string) =>
  loadConfig(registry, { ...base, ...env }).connectors.find((c) => c.key === key)!;

describe('configuration', () => {
  it('has one entry per connector of the registry, with the spec defaults', () => {
    const config = loadConfig(registry, base);
    expect(config.connectors.map((c) => c.key).sort()).toEqual(Object.keys(registry).sort());
    for (const c of config.connectors) {
      const { descriptor } = registry[c.key as keyof typeof registry];
      expect(c).toMatchObject({
        id: descriptor.defaultId,
        baseUrl: descriptor.upstream.baseUrl,
        maxInstances: 99,
        enabled: true,
      });
      expect(c.maxConcurrent).toBe((descriptor.limits as Record<string, number>).maxConcurrent);
    }
  });

  it('takes the default fair-use quota from the platform spec', () => {
    expect(loadConfig(registry, base).fairUse.defaultQuota).toBe(platformDescriptor.limits.fairUseDefaultMonthlyQuota);
    expect(loadConfig(registry, { ...base, FAIR_USE_MONTHLY_QUOTA: '5' }).fairUse.defaultQuota).toBe(5);
  });

  it('keeps self-service purchase and quota off unless the operator turns them on', () => {
    expect(loadConfig(registry, base).selfService).toEqual({ purchase: false, quota: false });
    const on = loadConfig(registry, { ...base, SELF_SERVICE_PURCHASE: 'true', SELF_SERVICE_QUOTA: 'true' });
    expect(on.selfService).toEqual({ purchase: true, quota: true });
    expect(loadConfig(registry, { ...base, SELF_SERVICE_QUOTA: 'false' }).selfService.quota).toBe(false);
    expect(() => loadConfig(registry, { ...base, SELF_SERVICE_PURCHASE: 'yes' })).toThrow(
      /SELF_SERVICE_PURCHASE.*true or false/,
    );
  });

  it('caps concurrency per connector the same way for every connector', () => {
    for (const key of Object.keys(registry)) {
      const name = key.toUpperCase();
      expect(connector({ [`CONNECTOR_${name}_MAX_CONCURRENT`]: '3' }, key).maxConcurrent, key).toBe(3);
      expect(connector({ [`${name}_MAX_CONCURRENT`]: '2' }, key).maxConcurrent, key).toBe(2);
    }
    // DECISIONS §14 names REGISTER_MAX_CONCURRENT; it is the same rule.
    expect(connector({ REGISTER_MAX_CONCURRENT: '7' }, 'register').maxConcurrent).toBe(7);
    expect(connector({}, 'register').maxConcurrent).toBe(4);
  });

  it('refuses a concurrency cap that is not a positive integer', () => {
    for (const value of ['0', '-1', '1.5', 'many']) {
      expect(() => loadConfig(registry, { ...base, CONNECTOR_LEDGER_MAX_CONCURRENT: value }), value).toThrow(
        ConfigError,
      );
    }
  });
});

describe('strict configuration', () => {
  it('refuses a malformed environment value with a message naming the setting and the expected form', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ DATABASE_URL: 'not-a-url' }, /^DATABASE_URL must be a PostgreSQL URL such as postgres:\/\/.*got "not-a-url"/],
      [{ DATABASE_URL: 'mysql://h/db' }, /^DATABASE_URL must be a PostgreSQL URL/],
      [{ REDIS_URL: 'localhost:6379' }, /^REDIS_URL must be a Redis URL/],
      [{ PORT: '99999' }, /^PORT must be a port number from 0 to 65535, got "99999"/],
      [{ PORT: 'eighty' }, /^PORT must be a port number/],
      [
        { LOG_LEVEL: 'verbose' },
        /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/,
      ],
      [{ PUBLIC_BASE_URL: 'gateway.example.com' }, /^PUBLIC_BASE_URL must be an http\(s\) URL/],
      [{ ALLOWED_ORIGINS: 'https://ok.example,app.example' }, /^ALLOWED_ORIGINS must be a comma list of origins/],
      [{ RATE_LIMIT_PER_SECOND: '0' }, /^RATE_LIMIT_PER_SECOND must be a positive number/],
      [{ RATE_LIMIT_BURST: '1.5' }, /^RATE_LIMIT_BURST must be a positive integer/],
      [{ FAIR_USE_MONTHLY_QUOTA: '-1' }, /^FAIR_USE_MONTHLY_QUOTA must be a non-negative integer/],
      [{ USAGE_FLUSH_MS: 'soon' }, /^USAGE_FLUSH_MS must be milliseconds/],
      [{ BILLING_TIME_ZONE: 'Mars/Olympus' }, /^BILLING_TIME_ZONE must be an IANA time zone/],
      [{ CONNECTOR_CASES_MAX_INSTANCES: '100' }, /^CONNECTOR_CASES_MAX_INSTANCES must be an integer from 1 to 99/],
      [{ CONNECTOR_CASES_BASE_URL: 'cases.example' }, /^CONNECTOR_CASES_BASE_URL must be an http\(s\) URL/],
      [{ GATEWAY_SECRET_KEYS: '1:dG9vIHNob3J0' }, /^GATEWAY_SECRET_KEYS must be key versions with 32-byte base64 keys/],
    ];
    for (const [env, message] of cases) expect(refusal(env), JSON.stringify(env)).toMatch(message);
  });

  it('never echoes a key or password it refuses', () => {
    expect(refusal({ GATEWAY_SECRET_KEYS: '1:c2VjcmV0LWtleS1tYXRlcmlhbA==' })).not.toContain('c2VjcmV0');
  });

  it('refuses a key version given twice in GATEWAY_SECRET_KEYS', () => {
    expect(refusal({ GATEWAY_SECRET_KEYS: `2:${KEY(2)},1:${KEY(1)},2:${KEY(3)}` })).toMatch(
      /^GATEWAY_SECRET_KEYS names key version 2 twice/,
    );
    expect(loadConfig(registry, { ...base, GATEWAY_SECRET_KEYS: `2:${KEY(2)},1:${KEY(1)}` }).secretKeys).toEqual({
      1: KEY(1),
      2: KEY(2),
    });
  });

  it('refuses unknown connector keys and connector variables with the closest valid name', () => {
    expect(refusal({ CONNECTORS_ENABLED: 'nosuch' })).toMatch(
      /^CONNECTORS_ENABLED: unknown connector key "nosuch"; valid: books, cases/,
    );
    expect(refusal({ CONNECTORS_ENABLED: 'cases,ledgr' })).toBe(
      'CONNECTORS_ENABLED: unknown connector key "ledgr"; did you mean "ledger"?',
    );
    expect(refusal({ CONNECTOR_CASES_MAX_INSTANCE: '3' })).toBe(
      'unknown setting CONNECTOR_CASES_MAX_INSTANCE; did you mean "CONNECTOR_CASES_MAX_INSTANCES"?',
    );
    expect(refusal({ CONNECTOR_CASSES_ID: 'x' })).toMatch(/did you mean "CONNECTOR_CASES_ID"\?/);
  });

  it('checks the config file against the same schema and names the closest key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-config-file-'));
    const file = (content: unknown) => {
      const path = join(dir, 'config.json');
      writeFileSync(path, JSON.stringify(content));
      return path;
    };
    try {
      expect(refusal({}, file({ prot: 8080 }))).toMatch(/unknown setting "prot"; did you mean "port"\?$/);
      expect(refusal({}, file({ logLevl: 'info' }))).toMatch(/unknown setting "logLevl"; did you mean "logLevel"\?$/);
      expect(refusal({}, file({ rateLimit: { burts: 5 } }))).toMatch(
        /unknown setting "rateLimit.burts"; did you mean "burst"\?$/,
      );
      expect(refusal({}, file({ connectors: { casse: {} } }))).toMatch(
        /unknown connector key "connectors.casse"; did you mean "cases"\?$/,
      );
      expect(refusal({}, file({ connectors: { cases: { baseUrll: 'http://x' } } }))).toMatch(
        /unknown setting "connectors.cases.baseUrll"; did you mean "baseUrl"\?$/,
      );
      expect(refusal({}, file({ port: 99999 }))).toMatch(/"port" must be a port number from 0 to 65535$/);
      expect(refusal({}, file({ logLevel: 'verbose' }))).toMatch(/"logLevel" must be one of fatal, error/);
      expect(refusal({}, file({ connectors: { cases: { maxInstances: 0 } } }))).toMatch(
        /"connectors.cases.maxInstances" must be an integer from 1 to 99$/,
      );
      expect(refusal({}, file([1, 2]))).toMatch(/must be .*a JSON object/);
      const config = loadConfig(
        registry,
        { ...base, PORT: '9000' },
        file({
          port: 8080,
          logLevel: 'warn',
          rateLimit: { burst: 5 },
          connectors: { cases: { maxInstances: 5, enabled: false } },
        }),
      );
      expect(config).toMatchObject({ port: 9000, logLevel: 'warn', rateLimit: { burst: 5, perSecond: 10 } });
      expect(config.connectors.find((c) => c.key === 'cases')).toMatchObject({ maxInstances: 5, enabled: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents every setting of the schema in the README table, and nothing else', () => {
    const { SETTINGS, CONNECTOR_SETTINGS } = configModule as unknown as Record<
      string,
      Array<{ file?: string; env: string[] }>
    >;
    expect(SETTINGS, 'runtime/config/settings.ts exports SETTINGS').toBeDefined();
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Configuration'), readme.indexOf('### Operator CLI'));
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    const cells = (n: number) =>
      new Set(rows.flatMap((r) => [...(r.split('|')[n] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
    const documentedEnv = cells(1);
    const documentedFile = cells(2);
    const schemaEnv = new Set([...SETTINGS!, ...CONNECTOR_SETTINGS!].flatMap((s) => s.env));
    const schemaFile = new Set([
      ...SETTINGS!.flatMap((s) => (s.file ? [s.file] : [])),
      ...CONNECTOR_SETTINGS!.map((s) => `connectors.<key>.${s.file}`),
      // CONNECTORS_ENABLED's counterpart in the file is connectors.<key>.enabled.
    ]);
    expect([...documentedEnv].sort()).toEqual([...schemaEnv].sort());
    expect([...documentedFile].sort()).toEqual([...schemaFile].sort());
  });
});

describe('entry points', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: join(tmpdir(), 'cg-entry-unused'), ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('print help and exit 0 on --help instead of starting', () => {
    for (const args of [
      ['bin/start.mjs', '--help'],
      ['bin/start.mjs', '--demo', '--help'],
      ['codegen/main.ts', '--help'],
      ['bin/catalog-diff.ts', '--help'],
      ['test/bench/run.ts', '--help'],
      ['bin/admin.ts', '--help'],
      ['bin/admin.ts', 'accounts', 'list', '--help'],
    ]) {
      const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/^Usage: /);
    }
  });

  it('refuses a bad setting before starting, naming it (exit 2)', () => {
    for (const [env, message] of [
      [{ PORT: '99999' }, 'configuration: PORT must be a port number from 0 to 65535'],
      [{ LOG_LEVEL: 'verbose' }, 'configuration: LOG_LEVEL must be one of'],
      [{ DATABASE_URL: 'not-a-url' }, 'configuration: DATABASE_URL must be a PostgreSQL URL'],
    ] as const) {
      const result = run(['bin/start.mjs'], env);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });

  it('npm run serve refuses HOST=0.0.0.0 without PUBLIC_BASE_URL: links must not point at 0.0.0.0', () => {
    const result = run(['bin/start.mjs'], { HOST: '0.0.0.0', PORT: '0' });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'configuration: HOST=0.0.0.0 listens on every interface, so links (connect, purchase, team) need PUBLIC_BASE_URL',
    );
  });
});

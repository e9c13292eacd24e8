// Deployment configuration read the same way for every connector of the registry.
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { ConfigError, loadConfig } from '../runtime/config.ts';

const base = { DATA_DIR: '/tmp/cg-config-test' };
const connector = (env: Record<string, string>, key: string) => loadConfig(registry, { ...base, ...env }).connectors.find((c) => c.key === key)!;

describe('configuration', () => {
  it('has one entry per connector of the registry, with the spec defaults', () => {
    const config = loadConfig(registry, base);
    expect(config.connectors.map((c) => c.key).sort()).toEqual(Object.keys(registry).sort());
    for (const c of config.connectors) {
      const { descriptor } = registry[c.key as keyof typeof registry];
      expect(c).toMatchObject({ id: descriptor.defaultId, baseUrl: descriptor.upstream.baseUrl, maxInstances: 99, enabled: true });
      expect(c.maxConcurrent).toBe((descriptor.limits as Record<string, number>).maxConcurrent);
    }
  });

  it('takes the default fair-use quota from the platform spec', () => {
    expect(loadConfig(registry, base).fairUse.defaultQuota).toBe(platformDescriptor.limits.fairUseDefaultMonthlyQuota);
    expect(loadConfig(registry, { ...base, FAIR_USE_MONTHLY_QUOTA: '5' }).fairUse.defaultQuota).toBe(5);
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
      expect(() => loadConfig(registry, { ...base, CONNECTOR_LEDGER_MAX_CONCURRENT: value }), value).toThrow(ConfigError);
    }
  });
});

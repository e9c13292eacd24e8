// Key rotation end to end with two replicas on PostgreSQL and Redis, calls going on throughout:
// a new key is added (rolling restart with `2:<new>,1:<old>`), `keys reencrypt` runs through the
// admin CLI, the old key is retired (rolling restart with `2:<new>` only). No call fails: every
// tools/call answers from the upstream sandbox with the tenant's stored credential.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { runCli } from '../bin/admin.ts';
import { loadConfig } from '../runtime/config/config.ts';
import type { GatewayConfig } from '../runtime/config/settings.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { newSecretKey } from '../runtime/secrets/vault.ts';
import { DEMO_CASE_ID } from '../sandbox/cases/data.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import { connectTenant, createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { REDIS_URL, DATABASE_URL, needs } from './support/services.ts';

const OLD = newSecretKey();
const NEW = newSecretKey();

describe('key rotation across two replicas under load', needs('postgres', 'redis'), () => {
  const schema = `rotation_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let sandbox: CasesSandbox;
  const stores: PlatformStore[] = [];
  const live: StartedGateway[] = [];
  /** Calls in flight per replica: a restart drains its replica first, as a load balancer would. */
  const inFlight = new Map<StartedGateway, number>();
  const tenants: Tenant[] = [];
  let config: (keys: string) => GatewayConfig;

  const replica = async (keys: string): Promise<StartedGateway> => {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema });
    stores.push(store);
    return startGateway(store, { config: config(keys) });
  };
  /** Takes a replica out of rotation, lets its in-flight calls finish, and starts its successor. */
  const restart = async (old: StartedGateway, keys: string): Promise<StartedGateway> => {
    live.splice(live.indexOf(old), 1);
    while ((inFlight.get(old) ?? 0) > 0) await new Promise((r) => setTimeout(r, 5));
    await old.close();
    const next = await replica(keys);
    live.push(next);
    return next;
  };

  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 1_000_000 });
    config = (keys) =>
      loadConfig(registry, {
        DATA_DIR: '/tmp/cg-test-unused',
        LOG_LEVEL: 'silent',
        USAGE_FLUSH_MS: '60000',
        SNAPSHOT_REFRESH_MS: '100',
        DATABASE_URL,
        REDIS_URL,
        REDIS_PREFIX: `test-${schema}:`,
        GATEWAY_SECRET_KEYS: keys,
        CONNECTOR_CASES_BASE_URL: sandbox.url,
        RATE_LIMIT_BURST: '100000',
        RATE_LIMIT_PER_SECOND: '100000',
      });
    live.push(await replica(`1:${OLD}`), await replica(`1:${OLD}`));
    for (let i = 0; i < 3; i++) {
      const t = await createTenant(stores[0]!, { subscribe: ['cases'] });
      await connectTenant(live[0]!, t, 'cases', { apiKey: sandbox.tokens.demo });
      tenants.push(t);
    }
    for (const gw of live) await gw.app.context.state.refresh();
  });
  afterAll(async () => {
    for (const gw of live) await gw.close();
    for (const s of stores) await s.close();
    await sandbox?.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  it('adds a key, re-encrypts, retires the old key: no call fails', async () => {
    const failures: string[] = [];
    let calls = 0;
    let running = true;
    const load = async (worker: number) => {
      for (let n = worker; running; n++) {
        const gw = live[n % live.length]!;
        const t = tenants[n % tenants.length]!;
        inFlight.set(gw, (inFlight.get(gw) ?? 0) + 1);
        const r = await rpc(gw.url, 'cases', t.token, {
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: { name: 'cases__get_case', arguments: { id: DEMO_CASE_ID } },
        }).finally(() => inFlight.set(gw, inFlight.get(gw)! - 1));
        calls++;
        const result = (r.json as { result?: { isError?: boolean; content: Array<{ text: string }> } } | undefined)
          ?.result;
        if (r.status !== 200 || !result || result.isError || !result.content[0]!.text.includes('"caseNumber"'))
          failures.push(`${r.status} ${r.text.slice(0, 200)}`);
      }
    };
    const workers = [0, 1, 2, 3].map(load);
    const settle = async () => {
      const before = calls;
      while (calls < before + 20) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      await settle();
      // 1. Add the new key: a rolling restart with `2:<new>,1:<old>`.
      for (const gw of [...live]) {
        await restart(gw, `2:${NEW},1:${OLD}`);
        await settle();
      }
      // A replica given only the new key before re-encryption is not ready (and says why).
      const early = await replica(`2:${NEW}`);
      const ready = (await (await fetch(`${early.url}/readyz`)).json()) as {
        failing: string[];
        checks: Record<string, string>;
      };
      await early.close();
      expect(ready.failing).toEqual(['keys']);
      expect(ready.checks.keys).toContain('key version 1');

      // 2. Re-encrypt every credential under version 2 through the admin CLI.
      const out: string[] = [];
      await runCli(['keys', 'reencrypt'], config(`2:${NEW},1:${OLD}`), stores[0]!, (l) => out.push(l));
      expect(out.at(-1)).toBe('re-encrypted 3 credential(s) under key version 2');
      expect((await stores[0]!.connections.listConnections()).map((c) => c.keyVersion)).toEqual([2, 2, 2]);
      await settle();

      // 3. Retire the old key: a rolling restart with `2:<new>` only.
      for (const gw of [...live]) {
        await restart(gw, `2:${NEW}`);
        await settle();
      }
      for (const gw of live) expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
      expect([...(await stores[0]!.connections.keyChecks()).keys()].sort()).toEqual([1, 2]);
    } finally {
      running = false;
      await Promise.all(workers);
    }
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(100);
  });
});

// Several replicas on PostgreSQL and Redis: the request-rate bucket and the fair-use quota are
// cluster-wide, and a write through one replica is seen by the other at once.
import nock from 'nock';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, startGateway, usageOf, type StartedGateway } from './support/gateway.ts';
import { REDIS_URL, DATABASE_URL, needs } from './support/services.ts';

const REGISTER = 'https://cvr-replicas.test/cvr-permanent';

describe('two replicas sharing PostgreSQL and Redis', needs('postgres', 'redis'), () => {
  const schema = `replicas_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    const env = {
      REDIS_URL,
      REDIS_PREFIX: `test-${schema}:`,
      RATE_LIMIT_PER_SECOND: '0.001',
      RATE_LIMIT_BURST: '6',
      REGISTER_USERNAME: 'u',
      REGISTER_PASSWORD: 'p',
      CONNECTOR_REGISTER_BASE_URL: REGISTER,
      FAIR_USE_STORE_TIMEOUT_MS: '1000',
    };
    a = await startGateway(stores[0]!, { env });
    b = await startGateway(stores[1]!, { env });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
    nock.cleanAll();
  });

  it('shares one request-rate bucket per account and connector across replicas', async () => {
    const t = await createTenant(stores[0]!, { subscribe: ['register'] });
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await rpc(a.url, 'register', t.token, ping)).status);
    for (let i = 0; i < 4; i++) statuses.push((await rpc(b.url, 'register', t.token, ping)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('never overshoots a hard fair-use quota across replicas', async () => {
    nock('https://cvr-replicas.test')
      .post('/cvr-permanent/virksomhed/_search')
      .times(20)
      .reply(200, { hits: { total: 0, hits: [] } });
    const t = await createTenant(stores[0]!, { subscribe: ['register'] });
    await stores[0]!.accounts.setFairUse(t.account.id, { mode: 'hard', quota: 3 });
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
    const call = (gw: StartedGateway) =>
      rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'register__soeg_virksomhed', arguments: { query: 'x' } },
      });
    const results = await Promise.all([call(a), call(b), call(a), call(b), call(a), call(b)]);
    const texts = results.map(
      (r) => (r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text,
    );
    expect(texts.filter((x) => x.startsWith('Fair-use quota reached'))).toHaveLength(3);
    await a.app.context.meter.flush();
    await b.app.context.meter.flush();
    const usage = await usageOf(a.url, t.token);
    expect(usage.usage.totalCalls).toBe(3);
    expect(usage.fairUse).toMatchObject({ used: 3, limit: 3, withinQuota: true });
  });

  it('a write through one replica reaches the other through the shared store at once', async () => {
    const t = await createTenant(stores[0]!, { subscribe: [] });
    await a.app.context.state.refresh(); // publishes an invalidation
    await new Promise((r) => setTimeout(r, 200));
    expect(b.app.context.state.isSubscribed(t.account.id, 'register')).toBe(false);
    await stores[0]!.accounts.setSubscription(t.account.id, 'register', true);
    await a.app.context.state.refresh();
    for (let i = 0; i < 50 && !b.app.context.state.isSubscribed(t.account.id, 'register'); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(b.app.context.state.isSubscribed(t.account.id, 'register')).toBe(true);
  });
});

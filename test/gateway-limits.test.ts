// Request-rate limit (HTTP 429, Retry-After: 1, JSON-RPC -32029 with the request id), keyed by
// account and connector id and shared by instances; fair use failing open when its store is down;
// logs without secrets.
import { Writable } from 'node:stream';
import nock from 'nock';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, startGateway, usageOf, type StartedGateway } from './support/gateway.ts';

const REGISTER = 'https://cvr-limits.test/cvr-permanent';

describe('request-rate limit and fail-open', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  const logLines: string[] = [];
  beforeAll(async () => {
    store = await openStore({});
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    });
    gw = await startGateway(store, {
      env: {
        REGISTER_USERNAME: 'limits-user',
        REGISTER_PASSWORD: 'limits-secret-pw',
        CONNECTOR_REGISTER_BASE_URL: REGISTER,
        RATE_LIMIT_PER_SECOND: '0.001',
        RATE_LIMIT_BURST: '5',
      },
      logger: pino({ level: 'debug' }, sink),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
    nock.cleanAll();
  });

  it('answers 429, Retry-After: 1 and -32029 with the request id once the burst is spent; shared bucket', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    const other = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await rpc(gw.url, 'register', t.token, { jsonrpc: '2.0', id: i, method: 'ping' })).status);
    for (let i = 0; i < 2; i++)
      statuses.push((await rpc(gw.url, 'register-2', t.token, { jsonrpc: '2.0', id: i, method: 'ping' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const limited = await rpc(gw.url, 'register-3', t.token, {
      jsonrpc: '2.0',
      id: 'call-42',
      method: 'tools/call',
      params: { name: 'register-3__soeg_virksomhed', arguments: { query: 'x' } },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.json).toEqual({
      jsonrpc: '2.0',
      id: 'call-42',
      error: { code: -32029, message: expect.stringContaining('Rate limit'), data: { retryAfterSeconds: 1 } },
    });
    // Another account has its own bucket; a rate-limited call is not metered.
    expect((await rpc(gw.url, 'register', other.token, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
    expect((await usageOf(gw.url, t.token)).usage.totalCalls).toBe(0);
  });

  it('fails open when the fair-use counter store is down: the call is allowed and withinQuota reads true', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await store.accounts.setFairUse(t.account.id, { mode: 'hard', quota: 1 });
    await gw.app.context.state.refresh();
    nock('https://cvr-limits.test')
      .post('/cvr-permanent/virksomhed/_search')
      .reply(200, { hits: { total: 0, hits: [] } });
    const original = store.usage.getMonthCostUnits.bind(store.usage);
    store.usage.getMonthCostUnits = () => Promise.reject(new Error('store down'));
    try {
      const r = await rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'register__soeg_virksomhed', arguments: { query: 'nothing' } },
      });
      expect(r.json).toMatchObject({ result: { content: [{ type: 'text', text: '{"total":0,"companies":[]}' }] } });
    } finally {
      store.usage.getMonthCostUnits = original;
    }
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_fail_open_total\{component="fair_use"\} [1-9]/);
  });

  it('logs request id, account, connector, tool, outcome and duration, and no secret', async () => {
    const joined = logLines.join('');
    expect(joined).toMatch(/"reqId":"[^"]+"/);
    expect(joined).toMatch(/"tool":"soeg_virksomhed","outcome":"ok","durationMs":\d+/);
    expect(joined).toMatch(/"connector":"register"/);
    expect(joined).toMatch(/"accountId":"acc_/);
    expect(joined).not.toContain('limits-secret-pw');
    expect(joined).not.toContain(Buffer.from('limits-user:limits-secret-pw').toString('base64'));
    expect(joined).not.toMatch(/cgw_[A-Za-z0-9_-]{20,}/);
  });
});

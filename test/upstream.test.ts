// The upstream HTTP layer: deadline, no redirects, size cap, the single throttle retry with
// Retry-After (seconds and HTTP date, clamped), typed failures. nock answers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamPolicy } from '../runtime/handler-api/descriptor-types.ts';
import { classifyStatus, createUpstreamClient, retryAfterMs } from '../runtime/upstream/client.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { LocalGate } from '../runtime/upstream/gate.ts';

const policy = (over: Partial<UpstreamPolicy> = {}): UpstreamPolicy => ({
  name: 'Test',
  baseUrl: 'https://up.test/api',
  timeoutMs: 2000,
  retry: { onThrottle: 'once', maxWaitMs: 5000, defaultWaitMs: 1000 },
  maxResponseBytes: 1024,
  ...over,
});

function client(over: Partial<UpstreamPolicy> = {}, waits: number[] = []) {
  return createUpstreamClient({ policy: policy(over), sleep: async (ms) => void waits.push(ms) });
}

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('upstream client', () => {
  afterEach(() => nock.cleanAll());

  it('joins the base path, sends JSON and parses JSON', async () => {
    const scope = nock('https://up.test').post('/api/things/_search', { q: 1 }).query({ a: 'b' }).matchHeader('content-type', 'application/json').reply(200, { ok: true });
    const res = await client().request({ method: 'POST', path: '/things/_search', query: { a: 'b', skip: undefined }, json: { q: 1 } });
    expect(res.body).toEqual({ ok: true });
    expect(scope.isDone()).toBe(true);
  });

  it('retries a 429 exactly once after Retry-After, clamped to 5 s', async () => {
    const waits: number[] = [];
    nock('https://up.test').get('/api/x').reply(429, 'slow down', { 'retry-after': '30' }).get('/api/x').reply(200, { ok: 1 });
    expect((await client({}, waits).request({ method: 'GET', path: '/x' })).body).toEqual({ ok: 1 });
    expect(waits).toEqual([5000]);
  });

  it('waits 1 s without Retry-After, parses an HTTP date, and fails as throttled after the retry', async () => {
    const waits: number[] = [];
    nock('https://up.test').get('/api/x').twice().reply(429, '{}');
    expect((await failure(client({}, waits).request({ method: 'GET', path: '/x' }))).kind).toBe('throttled');
    expect(waits).toEqual([1000]);
    expect(retryAfterMs(new Date(Date.now() + 2000).toUTCString(), 1000, 5000)).toBeGreaterThan(500);
    expect(retryAfterMs('2', 1000, 5000)).toBe(2000);
    expect(retryAfterMs('junk', 1000, 5000)).toBe(1000);
    // Neither delay-seconds nor an HTTP date (V8's Date.parse reads "-1" and " 5" as years): the default wait.
    for (const odd of ['-1', '-0', '1.5e3', '+3', 'abc 1']) expect(retryAfterMs(odd, 1000, 5000), odd).toBe(1000);
    expect(retryAfterMs('Sunday, 06-Nov-94 08:49:37 GMT', 1000, 5000)).toBe(0);
    expect(retryAfterMs('Sun Nov  6 08:49:37 1994', 1000, 5000)).toBe(0);
  });

  it('never retries without the policy, nor a write', async () => {
    const waits: number[] = [];
    nock('https://up.test').post('/api/w').reply(429, '{}');
    expect((await failure(client({}, waits).request({ method: 'POST', path: '/w', json: {}, write: true }))).kind).toBe('throttled');
    nock('https://up.test').get('/api/x').reply(429, '{}');
    expect((await failure(client({ retry: { onThrottle: 'none', maxWaitMs: 0, defaultWaitMs: 0 } }, waits).request({ method: 'GET', path: '/x' }))).kind).toBe('throttled');
    expect(waits).toEqual([]);
  });

  it('does not follow redirects', async () => {
    nock('https://up.test').get('/api/x').reply(302, '', { location: 'https://elsewhere.test/steal' });
    const error = await failure(client().request({ method: 'GET', path: '/x' }));
    expect(error.kind).toBe('client');
    expect(error.status).toBe(302);
  });

  it('refuses absolute URLs outside the connector origin', async () => {
    expect((await failure(client().request({ method: 'GET', path: 'https://evil.test/x' }))).kind).toBe('client');
  });

  it('caps response bodies while streaming', async () => {
    // A real server (aborting a body that nock's interceptor is still writing trips an undici assertion).
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x'.repeat(3000));
      setTimeout(() => res.end('x'.repeat(3000)), 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const capped = createUpstreamClient({ policy: policy({ baseUrl: `http://127.0.0.1:${port}` }) });
      expect((await failure(capped.request({ method: 'GET', path: '/big', expect: 'text' }))).kind).toBe('too_large');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('classifies statuses and bodies', async () => {
    expect([401, 403, 429, 400, 422, 404, 408, 500, 503, 418].map(classifyStatus)).toEqual([
      'auth',
      'auth',
      'throttled',
      'validation',
      'validation',
      'not_found',
      'server',
      'server',
      'server',
      'client',
    ]);
    nock('https://up.test').get('/api/html').reply(200, '<html>oops</html>');
    expect((await failure(client().request({ method: 'GET', path: '/html' }))).kind).toBe('bad_body');
    nock('https://up.test')
      .get('/api/err')
      .reply(400, { error: { reason: 'bad' } });
    const e = await failure(client().request({ method: 'GET', path: '/err' }));
    expect(e).toMatchObject({ kind: 'validation', status: 400, body: { error: { reason: 'bad' } } });
  });

  it('ends a slow call at the connector deadline', async () => {
    // A real slow server (nock's delay and undici's abort do not mix).
    const server = createServer((_req, res) => void setTimeout(() => res.end('{}'), 1500));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const slow = createUpstreamClient({ policy: policy({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 100 }) });
      expect((await failure(slow.request({ method: 'GET', path: '/slow' }))).kind).toBe('timeout');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a gate admits at most its limit at once, first in first out, and times out waiters', async () => {
    const gate = new LocalGate(2, 50);
    const signal = new AbortController().signal;
    const order: number[] = [];
    const r1 = await gate.acquire(signal);
    const r2 = await gate.acquire(signal);
    const arrived = (n: number) => (release: () => void) => {
      order.push(n);
      return release;
    };
    const w3 = gate.acquire(signal).then(arrived(3));
    const w4 = gate.acquire(signal).then(arrived(4));
    expect(gate.active).toBe(2);
    expect(gate.waiting).toBe(2);
    r1();
    (await w3)();
    r2();
    (await w4)();
    expect(order).toEqual([3, 4]);
    const a = await gate.acquire(signal);
    const b = await gate.acquire(signal);
    await expect(gate.acquire(signal)).rejects.toMatchObject({ kind: 'timeout' });
    a();
    b();
    expect(gate.active).toBe(0);
  });
});

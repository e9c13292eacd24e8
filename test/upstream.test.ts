// The upstream HTTP layer: deadline, no redirects, size cap, the single throttle retry with
// Retry-After (seconds and HTTP date, clamped), typed failures. nock answers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamPolicy } from '../runtime/handler-api/descriptor-types.ts';
import { createUpstreamClient } from '../runtime/upstream/client.ts';
import { classifyStatus, retryAfterMs } from '../runtime/upstream/http-parts.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { LocalGate } from '../runtime/upstream/gate.ts';
import { BodyBudget } from '../runtime/upstream/body-budget.ts';
import type { ServerResponse } from 'node:http';

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
    const scope = nock('https://up.test')
      .post('/api/things/_search', { q: 1 })
      .query({ a: 'b' })
      .matchHeader('content-type', 'application/json')
      .reply(200, { ok: true });
    const res = await client().request({
      method: 'POST',
      path: '/things/_search',
      query: { a: 'b', skip: undefined },
      json: { q: 1 },
    });
    expect(res.body).toEqual({ ok: true });
    expect(scope.isDone()).toBe(true);
  });

  it('retries a 429 exactly once after Retry-After, clamped to 5 s', async () => {
    const waits: number[] = [];
    nock('https://up.test')
      .get('/api/x')
      .reply(429, 'slow down', { 'retry-after': '30' })
      .get('/api/x')
      .reply(200, { ok: 1 });
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
    expect((await failure(client({}, waits).request({ method: 'POST', path: '/w', json: {}, write: true }))).kind).toBe(
      'throttled',
    );
    nock('https://up.test').get('/api/x').reply(429, '{}');
    expect(
      (
        await failure(
          client({ retry: { onThrottle: 'none', maxWaitMs: 0, defaultWaitMs: 0 } }, waits).request({
            method: 'GET',
            path: '/x',
          }),
        )
      ).kind,
    ).toBe('throttled');
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

  it('ends a call whose upstream stalls mid-body at the deadline, and one its caller aborts mid-body', async () => {
    // The head and half the body come at once, the rest never: the abort must reach the running
    // exchange (through its abort hook, with no listener on the request's signal).
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' });
      res.write('{"partial":');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const baseUrl = `http://127.0.0.1:${port}`;
      const slow = createUpstreamClient({ policy: policy({ baseUrl, timeoutMs: 150 }) });
      expect(await failure(slow.request({ method: 'GET', path: '/stall' }))).toMatchObject({
        kind: 'timeout',
        message: expect.stringContaining('before the upstream finished its answer'),
      });
      const caller = new AbortController();
      const aborted = createUpstreamClient({ policy: policy({ baseUrl, timeoutMs: 10_000 }), signal: caller.signal });
      const pending = failure(aborted.request({ method: 'GET', path: '/stall' }));
      setTimeout(() => caller.abort(), 100);
      expect((await pending).kind).toBe('timeout');
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
    // Full: no slot at once (the caller then waits in acquire).
    expect(gate.tryAcquire(signal)).toBeUndefined();
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
    // A free slot is taken at once, unless someone waits or the call is aborted already.
    const c = gate.tryAcquire(signal);
    expect(c).toBeTypeOf('function');
    expect(gate.tryAcquire(AbortSignal.abort())).toBeUndefined();
    c!();
    b();
    expect(gate.active).toBe(0);
  });

  it('one deadline per call: a second request gets only what is left of it, not a fresh timeout', async () => {
    // A real slow server: each answer alone is within the timeout, two are not.
    const server = createServer((_req, res) => void setTimeout(() => res.end('{"ok":true}'), 1000));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const call = createUpstreamClient({ policy: policy({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1600 }) });
      expect((await call.request({ method: 'GET', path: '/first' })).body).toEqual({ ok: true });
      // Before: the second request had a fresh 1.6 s and answered.
      expect((await failure(call.request({ method: 'GET', path: '/second' }))).kind).toBe('timeout');
      // Once the deadline has passed, a further request is not even sent.
      expect((await failure(call.request({ method: 'GET', path: '/third' }))).kind).toBe('timeout');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("the wait before the throttle retry ends at the call's deadline", async () => {
    // The real sleep: Retry-After 5 s is within the policy's 5 s but not within the call's 300 ms.
    nock('https://up.test').get('/api/x').reply(429, '{}', { 'retry-after': '5' });
    const call = createUpstreamClient({ policy: policy({ timeoutMs: 300 }) });
    const error = await failure(call.request({ method: 'GET', path: '/x' }));
    // Before: it slept the whole 5 s and retried.
    expect(error.kind).toBe('timeout');
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('refuses a body whose declared length passes the cap without reading it', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
      res.write('['); // the rest never comes: the client must not wait for it
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const capped = createUpstreamClient({ policy: policy({ baseUrl: `http://127.0.0.1:${port}` }) });
      expect((await failure(capped.request({ method: 'GET', path: '/big' }))).kind).toBe('too_large');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('upstream body budget', () => {
  it('reserves all or nothing, first in first out, and gives up at the signal', async () => {
    const budget = new BodyBudget(10);
    const signal = new AbortController().signal;
    const a = await budget.reserve(6, signal);
    const order: string[] = [];
    const arrived = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const b = budget.reserve(6, signal).then(arrived('b'));
    // Fits, but waits behind b: first in first out.
    const c = budget.reserve(1, signal).then(arrived('c'));
    expect(budget.tryReserve(1)).toBeUndefined();
    expect(budget.waiting).toBe(2);
    const gone = new AbortController();
    const d = budget.reserve(50, gone.signal); // more than the whole budget: waits for all of it
    gone.abort();
    await expect(d).rejects.toMatchObject({ kind: 'timeout' });
    a();
    a(); // a second release changes nothing
    const releaseB = await b;
    const releaseC = await c;
    expect(order).toEqual(['b', 'c']);
    expect(budget.reserved).toBe(7);
    releaseB();
    releaseC();
    expect(budget.reserved).toBe(0);
    expect(budget.highWater).toBe(7);
    const whole = await budget.reserve(50, signal);
    expect(budget.reserved).toBe(10);
    whole();
    expect(budget.waiting).toBe(0);
  });

  /** A server whose answers stop half-way until `finish()`: bodies of `bytes` bytes, some without a content-length. */
  async function halfWayServer(bytes: number) {
    const held: Array<{ res: ServerResponse; rest: string }> = [];
    let n = 0;
    const server = createServer((req, res) => {
      req.resume();
      const i = n++;
      const chunked = req.url === '/chunked';
      const head = `{"i":${i},"pad":"`;
      const body = head + 'x'.repeat(bytes - head.length - 2) + '"}';
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(chunked ? {} : { 'content-length': String(body.length) }),
      });
      res.write(body.slice(0, bytes >> 1));
      held.push({ res, rest: body.slice(bytes >> 1) });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      held,
      finish(): void {
        for (const h of held.splice(0)) h.res.end(h.rest);
      },
      close(): void {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  async function until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise((r) => setTimeout(r, 5));
  }

  it('concurrent big bodies never hold more than the budget at once, and all of them complete', async () => {
    const MiB = 1024 * 1024;
    const server = await halfWayServer(MiB);
    const budget = new BodyBudget(2.5 * MiB);
    try {
      const p = policy({ baseUrl: server.url, maxResponseBytes: 4 * MiB, timeoutMs: 60_000 });
      const paths = ['/a', '/b', '/c', '/d', '/e', '/f', '/chunked', '/chunked'];
      const calls = paths.map((path) =>
        createUpstreamClient({ policy: p, bodyBudget: budget }).request<{ i: number; pad: string }>({
          method: 'GET',
          path,
        }),
      );
      // Every request has its headers and half a body; the bodies that fit hold the budget and the
      // rest wait for it (a chunked body reserves the cap: 4 MiB, at most the whole budget).
      await until(() => server.held.length === paths.length && budget.waiting >= 6);
      expect(budget.reserved).toBeLessThanOrEqual(budget.total);
      server.finish();
      // Bodies that were waiting get their room as the first ones are parsed; the server sends their rest at once.
      const results = await Promise.all(calls);
      for (const r of results) expect(JSON.stringify(r.body)).toHaveLength(MiB);
      expect(new Set(results.map((r) => r.body.i)).size).toBe(paths.length);
      expect(budget.highWater).toBeLessThanOrEqual(budget.total);
      expect(budget.highWater).toBeGreaterThanOrEqual(2 * MiB);
      expect(budget.reserved).toBe(0);
      expect(budget.waiting).toBe(0);
    } finally {
      server.close();
    }
  });

  it("a body waiting past its call's deadline ends the call as a timeout, leaving the budget as it was", async () => {
    const MiB = 1024 * 1024;
    const server = await halfWayServer(MiB);
    const budget = new BodyBudget(1.5 * MiB);
    try {
      const first = createUpstreamClient({
        policy: policy({ baseUrl: server.url, maxResponseBytes: 4 * MiB, timeoutMs: 60_000 }),
        bodyBudget: budget,
      }).request({ method: 'GET', path: '/a' });
      await until(() => budget.reserved === MiB);
      const second = createUpstreamClient({
        policy: policy({ baseUrl: server.url, maxResponseBytes: 4 * MiB, timeoutMs: 300 }),
        bodyBudget: budget,
      }).request({ method: 'GET', path: '/b' });
      const error = await failure(second);
      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/body budget/);
      expect(budget.waiting).toBe(0);
      expect(budget.reserved).toBe(MiB);
      server.finish();
      expect(((await first).body as { i: number }).i).toBe(0);
      expect(budget.reserved).toBe(0);
    } finally {
      server.close();
    }
  });
});

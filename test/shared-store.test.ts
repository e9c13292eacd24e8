// The shared store for several replicas (Redis at 127.0.0.1:6379): the register's cluster-wide
// concurrency slots, the atomic fair-use reserve, and failing open when the store misbehaves.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedGate } from '../runtime/upstream/gate.ts';
import { SharedRateLimiter } from '../runtime/platform/rate-limit.ts';
import { RedisSharedStore, type SharedStore } from '../runtime/platform/shared-store.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('Redis shared store', () => {
  let a: RedisSharedStore;
  let b: RedisSharedStore;
  const prefix = `test-shared-${randomBytes(4).toString('hex')}:`;
  beforeAll(async () => {
    a = await RedisSharedStore.connect(REDIS_URL, { prefix, timeoutMs: 1000 });
    b = await RedisSharedStore.connect(REDIS_URL, { prefix, timeoutMs: 1000 });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('two replicas never hold more register slots than the limit, and slots pass on when released', async () => {
    const gates = [new SharedGate(a, 'gate:register', 2, 2000, 5000, () => {}), new SharedGate(b, 'gate:register', 2, 2000, 5000, () => {})];
    const signal = new AbortController().signal;
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const release = await gates[i % 2]!.acquire(signal);
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 30));
        inside--;
        release();
      }),
    );
    expect(most).toBe(2);
  });

  it('reserves fair-use units atomically across replicas, seeded once', async () => {
    const key = `fu:acc:${randomBytes(3).toString('hex')}`;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).reserveUnit(key, 4, 1, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(3); // seeded with 1 used, limit 4
    expect(await a.getUnits(key)).toBe(4);
    expect(await b.addUnits(key, -1, 0, 60)).toBe(3);
  });
});

describe('failing open', () => {
  const broken: SharedStore = new Proxy({} as SharedStore, { get: () => () => Promise.reject(new Error('store down')) });

  it('the rate limiter lets the request through and reports it', async () => {
    const events: unknown[] = [];
    const limiter = new SharedRateLimiter(broken, { perSecond: 1, burst: 1 }, (e) => events.push(e));
    expect(await limiter.take('acc|register')).toEqual({ allowed: true, failOpen: true });
    expect(events).toHaveLength(1);
  });

  it('the register gate falls back to its per-process limit', async () => {
    let failOpen = 0;
    const gate = new SharedGate(broken, 'gate:register', 1, 100, 1000, () => failOpen++);
    const signal = new AbortController().signal;
    const release = await gate.acquire(signal);
    expect(failOpen).toBe(1);
    await expect(gate.acquire(signal)).rejects.toMatchObject({ kind: 'timeout' });
    release();
  });
});

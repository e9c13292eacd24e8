// The shared store for several replicas (Redis at 127.0.0.1:6379): the register's cluster-wide
// concurrency slots, the atomic fair-use reserve, and failing open when the store misbehaves.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedGate } from '../runtime/upstream/gate.ts';
import { SharedRateLimiter } from '../runtime/metering/rate-limit.ts';
import { RedisSharedStore, type SharedStore } from '../runtime/store/shared-store.ts';
import { REDIS_URL, needs } from './support/services.ts';

describe('Redis shared store', needs('redis'), () => {
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
    const gates = [
      new SharedGate(a, 'gate:register', 2, 2000, 5000, () => {}),
      new SharedGate(b, 'gate:register', 2, 2000, 5000, () => {}),
    ];
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
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).reserveUnit(key, 4, 60, 1)));
    expect(results.filter((r) => r?.allowed)).toHaveLength(3); // seeded with 1 used, limit 4
    expect(await a.getUnits(key)).toBe(4);
    expect(await b.addUnits(key, -1)).toBe(3);
    // A lower seed does not lower the counter; a higher one raises it.
    expect(await a.reserveUnit(key, 5, 60, 0)).toEqual({ allowed: true, used: 4 });
    expect(await a.reserveUnit(key, 10, 60, 8)).toEqual({ allowed: true, used: 9 });
  });

  it('answers null for an absent counter unless given a seed, and never creates one by adding or raising', async () => {
    const key = `fu:acc:${randomBytes(3).toString('hex')}`;
    expect(await a.reserveUnit(key, 4, 60)).toBeNull();
    expect(await a.addUnits(key, 1)).toBeNull();
    expect(await a.raiseUnits(new Map([[key, 3]]), 60)).toBe(0);
    expect(await a.getUnits(key)).toBeNull();
    expect(await a.reserveUnit(key, 4, 60, 2)).toEqual({ allowed: true, used: 3 });
    expect(await a.addUnits(key, -5)).toBe(0); // never below zero
  });

  it('raises counters that are behind and never lowers one', async () => {
    const behind = `fu:acc:${randomBytes(3).toString('hex')}`;
    const ahead = `fu:acc:${randomBytes(3).toString('hex')}`;
    await a.reserveUnit(behind, 100, 60, 10);
    await a.reserveUnit(ahead, 100, 60, 50);
    expect(
      await b.raiseUnits(
        new Map([
          [behind, 40],
          [ahead, 20],
        ]),
        60,
      ),
    ).toBe(1);
    expect(await a.getUnits(behind)).toBe(40);
    expect(await a.getUnits(ahead)).toBe(51);
  });
});

describe('failing open', () => {
  const broken: SharedStore = new Proxy({} as SharedStore, {
    get: () => () => Promise.reject(new Error('store down')),
  });

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

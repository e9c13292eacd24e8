// Store outages are logged once when they start and once when they end, with their duration
// (docs/decisions/operations.md, 'Store outages are logged when they start and end'); a snapshot
// refresh that fails is one of the faults (it was swallowed before), so an outage with no traffic
// is in the log too.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../runtime/operations/observability.ts';
import { OutageLog } from '../runtime/operations/outage-log.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startGateway, type StartedGateway } from './support/gateway.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: createLogger('info', destination) };
}

describe('OutageLog', () => {
  it('logs the start once, however many operations fail, and the end once with the duration and the count', () => {
    const { lines, log } = capture();
    let now = 1000;
    const outage = new OutageLog({ store: 'redis', setting: 'REDIS_URL', log, now: () => now });
    outage.ok(); // no outage: nothing
    for (let i = 0; i < 500; i++)
      outage.fault('rate limit', new Error('shared store: rate limit took longer than 100 ms'));
    expect(outage.down).toBe(true);
    now = 4250;
    outage.ok();
    outage.ok();
    expect(lines.map((l) => l.msg)).toEqual([
      'redis (REDIS_URL) unavailable: outage started',
      'redis (REDIS_URL) available again: outage ended after 3250 ms',
    ]);
    expect(lines[0]).toMatchObject({
      level: 50,
      store: 'redis',
      operation: 'rate limit',
      err: { message: 'shared store: rate limit took longer than 100 ms' },
    });
    expect(lines[1]).toMatchObject({ level: 40, durationMs: 3250, failedOperations: 500 });
  });

  it('probes while down, so the end is logged without traffic', async () => {
    const { lines, log } = capture();
    let answering = false;
    const outage = new OutageLog({
      store: 'redis',
      setting: 'REDIS_URL',
      log,
      probeMs: 10,
      probe: async () => (answering ? undefined : Promise.reject(new Error('down'))),
    });
    outage.fault('connection', new Error('connect ECONNREFUSED'));
    answering = true;
    await vi.waitFor(() => expect(outage.down).toBe(false), { timeout: 5000, interval: 10 });
    outage.close();
    expect(lines.map((l) => l.msg)).toHaveLength(2);
  });
});

describe('a store outage with no traffic', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  const { lines, log } = capture();
  let failing = false;
  let failed = 0;
  beforeAll(async () => {
    store = await openStore({});
    const changeVersion = store.changes.changeVersion.bind(store.changes);
    store.changes.changeVersion = () =>
      failing && ++failed ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : changeVersion();
    gw = await startGateway(store, { logger: log, env: { SNAPSHOT_REFRESH_MS: '20' } });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('logs the failing snapshot refreshes as one outage start, and its end when a refresh succeeds again', async () => {
    failing = true;
    await vi.waitFor(
      () => expect(lines.some((l) => l.msg === 'embedded (DATA_DIR) unavailable: outage started')).toBe(true),
      { timeout: 10_000, interval: 20 },
    );
    const started = lines.find((l) => l.store === 'embedded')!;
    expect(started).toMatchObject({
      level: 50,
      operation: 'snapshot refresh',
      err: { message: 'connect ECONNREFUSED 127.0.0.1:5432' },
    });
    // Several refreshes fail meanwhile; still one line.
    await vi.waitFor(() => expect(failed).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });
    failing = false;
    await vi.waitFor(
      () =>
        expect(
          lines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('embedded (DATA_DIR) available again')),
        ).toBe(true),
      { timeout: 10_000, interval: 20 },
    );
    const outageLines = lines.filter((l) => l.store === 'embedded');
    expect(outageLines).toHaveLength(2);
    expect(outageLines[1]!.failedOperations).toBeGreaterThanOrEqual(3);
  });
});

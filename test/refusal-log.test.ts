// Refusals before a call are counted and logged, aggregated per reason and interval
// (docs/decisions/operations.md, 'Refusals are logged per reason and interval'): a flood of 1,000
// bad tokens makes a handful of lines with counts and sources, every 401 is in
// gateway_refusals_total, and no token reaches a line.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, Metrics } from '../runtime/operations/observability.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { REFUSAL_LOG_INTERVAL_MS, RefusalLog } from '../runtime/operations/refusal-log.ts';
import { rpc, startGateway, type StartedGateway } from './support/gateway.ts';

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

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

describe('a flood of bad tokens', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  const { lines, log } = capture();
  const raw: string[] = [];
  beforeAll(async () => {
    store = await openStore({});
    // Failed authentications are not limited here, so every one of the 1,000 is a 401.
    gw = await startGateway(store, {
      logger: log,
      env: { AUTH_FAILURES_PER_SECOND: '100000', AUTH_FAILURE_BURST: '100000' },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('yields a handful of lines with counts and sources, and 1,000 refusals in gateway_refusals_total', async () => {
    const started = Date.now();
    const tokens = Array.from({ length: 1000 }, () => `cgw_${randomBytes(24).toString('base64url')}`);
    for (let i = 0; i < tokens.length; i += 50) {
      const statuses = await Promise.all(
        tokens.slice(i, i + 50).map(async (token) => (await rpc(gw.url, 'cases', token, PING)).status),
      );
      expect(statuses.every((s) => s === 401)).toBe(true);
    }
    gw.app.http.refusals.flush(); // the end of the interval
    const refusalLines = lines.filter((l) => l.reason === 'unauthorized');
    // The first line, then one per 10 s interval the flood lasted (a loaded machine takes several).
    const intervals = Math.ceil((Date.now() - started) / REFUSAL_LOG_INTERVAL_MS);
    expect(refusalLines.length).toBeGreaterThanOrEqual(2);
    expect(refusalLines.length).toBeLessThanOrEqual(1 + intervals);
    // The first at once, the rest counted: together all 1,000.
    expect(refusalLines[0]).toMatchObject({ level: 40, connector: 'cases', source: '127.0.0.1' });
    const counted = refusalLines.slice(1).reduce((n, l) => n + (l.count as number), 0);
    expect(1 + counted).toBe(1000);
    for (const line of refusalLines.slice(1))
      expect(line).toMatchObject({ sources: { '127.0.0.1': line.count }, distinctSources: 1, connectors: ['cases'] });
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('gateway_refusals_total{connector="cases",reason="unauthorized"} 1000');
    raw.push(...lines.map((l) => JSON.stringify(l)));
    for (const token of tokens.slice(0, 20)) expect(raw.join('\n')).not.toContain(token);
  });

  it('after a quiet interval, the next refusal is logged at once again', async () => {
    gw.app.http.refusals.flush(); // nothing since the last flush: the reason's window closes
    const before = lines.length;
    expect((await rpc(gw.url, 'cases', 'cgw_nottoken', PING)).status).toBe(401);
    expect(lines.slice(before).filter((l) => l.reason === 'unauthorized' && l.source === '127.0.0.1')).toHaveLength(1);
  });
});

describe('RefusalLog', () => {
  it('keeps one window per reason, names the most frequent sources and counts the rest', () => {
    const { lines, log } = capture();
    const metrics = new Metrics(false);
    const refusals = new RefusalLog(log, metrics, 60_000);
    for (let i = 0; i < 30; i++) refusals.refused('auth_rate_limited', 'cases', `10.0.0.${i % 15}`);
    for (let i = 0; i < 5; i++) refusals.refused('rate_limited', 'register', '10.1.0.1');
    refusals.flush();
    refusals.close();
    expect(lines.map((l) => [l.reason, l.count ?? 'first'])).toEqual([
      ['auth_rate_limited', 'first'],
      ['rate_limited', 'first'],
      ['auth_rate_limited', 29],
      ['rate_limited', 4],
    ]);
    const flood = lines[2]!;
    expect(Object.keys(flood.sources as object)).toHaveLength(10);
    expect(flood.distinctSources).toBe(15);
  });
});

// The slow-upstream row (issue 38, item 4): 1,000 calls in flight at once through one gateway to an
// upstream that answers every request after 2 s. Its own upstream and gateway (an embedded store
// seeded with one tenant), the register's concurrency cap raised above the load as the other rows
// raise theirs; connections per upstream origin stay at the gateway's default
// (CONNECTOR_<KEY>_MAX_CONNECTIONS unset), which is what the row checks.
import { join } from 'node:path';
import { type ChildHandle, startChild } from './lib/children.ts';
import { rssMiB, rssSampler } from './lib/machine.ts';
import type { LoadJob, LoadResult } from './load.ts';

export const SLOW_CALLS = 1000;
export const SLOW_DELAY_MS = 2000;

export interface SlowUpstreamFigures {
  readonly result: LoadResult;
  /** The gateway's RSS before the calls and the most seen while they were in flight (MiB). */
  readonly idleMiB: number;
  readonly peakMiB: number;
  /** (peak − idle) ÷ calls, KiB. */
  readonly perCallKiB: number;
}

export interface SlowUpstreamSetup {
  readonly bench: string;
  readonly tmp: string;
  readonly load: ChildHandle;
  readonly body: string;
  readonly env: () => Record<string, string>;
  readonly execArgv: readonly string[];
  readonly logLevel: string;
  readonly log: (line: string) => void;
}

export async function measureSlowUpstream(setup: SlowUpstreamSetup): Promise<SlowUpstreamFigures> {
  const { bench, load, log } = setup;
  const upstream = await startChild('slow-upstream', join(bench, 'servers/upstream.ts'), [
    '--delay-ms',
    String(SLOW_DELAY_MS),
  ]);
  const upstreamUrl = String(upstream.info['url']);
  const dir = join(setup.tmp, 'gateway-slow');
  const gatewayArgs = ['--store', 'embedded', '--data-dir', dir, '--upstream', upstreamUrl];
  let gateway: ChildHandle | undefined;
  try {
    const seed = await startChild(
      'seed-slow',
      join(bench, 'servers/gateway.ts'),
      [...gatewayArgs, '--accounts', '1', '--seed-only'],
      { env: setup.env(), readyTimeoutMs: 300_000 },
    );
    await seed.stop();
    const tokens = seed.info['tokens'] as string[];
    gateway = await startChild(
      'gateway-slow',
      join(bench, 'servers/gateway.ts'),
      [...gatewayArgs, '--seeded', '--log-level', setup.logLevel, '--max-concurrent', String(SLOW_CALLS * 2)],
      { env: setup.env(), execArgv: setup.execArgv, readyTimeoutMs: 300_000 },
    );
    const url = String(gateway.info['url']);
    const job = (connections: number, calls: number): LoadJob => ({
      kind: 'rate',
      url,
      path: '/register/mcp',
      body: setup.body,
      tokens,
      connections,
      // Open loop, every call sent within ~0.1 s: all of them are in flight together.
      rate: calls * 10,
      durationSec: 0.1,
    });
    // Warm-up: the code paths compiled, a few connections to the upstream opened.
    await load.job<LoadResult>({ load: job(50, 50) });
    const idleMiB = rssMiB(gateway.pid);
    const sampler = rssSampler(gateway.pid, 50);
    const result = await load.job<LoadResult>({ load: job(SLOW_CALLS, SLOW_CALLS) });
    const peakMiB = sampler.stop();
    const perCallKiB = ((peakMiB - idleMiB) * 1024) / SLOW_CALLS;
    log(
      `slow upstream: ${result.ok} of ${result.sent} answered (${result.failed} failed, ${result.transportErrors} ` +
        `transport errors), p50 ${result.latency.p50.toFixed(0)} ms, p99 ${result.latency.p99.toFixed(0)} ms, ` +
        `max ${result.latency.max.toFixed(0)} ms; RSS ${idleMiB.toFixed(0)} → ${peakMiB.toFixed(0)} MiB ` +
        `(${perCallKiB.toFixed(1)} KiB per call in flight)`,
    );
    return { result, idleMiB, peakMiB, perCallKiB };
  } finally {
    await gateway?.stop(30_000);
    await upstream.stop();
  }
}

// The memory-over-time row (issue 38, item 3): one embedded gateway of its own (seeded with one
// tenant) under closed-loop load for `minutes`, its RSS read after 1, 5 and 10 minutes (a fifth,
// half and all of a shorter soak) and its CPU per call over the whole soak. Flat memory means the
// last figure is not above the first beyond noise: a leak grows with the calls served.
import { join } from 'node:path';
import { type ChildHandle, startChild } from './lib/children.ts';
import { cpuMs, rssMiB } from './lib/machine.ts';
import type { LoadJob, LoadResult } from './load.ts';

export interface SoakFigures {
  /** [minute, RSS MiB] at each mark. */
  readonly marks: readonly (readonly [number, number])[];
  readonly calls: number;
  readonly failed: number;
  readonly cpuUsPerCall: number;
}

export interface SoakSetup {
  readonly bench: string;
  readonly tmp: string;
  readonly load: ChildHandle;
  readonly upstreamUrl: string;
  readonly body: string;
  readonly connections: number;
  readonly minutes: number;
  readonly env: () => Record<string, string>;
  readonly execArgv: readonly string[];
  readonly logLevel: string;
  readonly log: (line: string) => void;
}

export async function measureSoak(setup: SoakSetup): Promise<SoakFigures> {
  const { bench, load, log, minutes } = setup;
  const dir = join(setup.tmp, 'gateway-soak');
  const args = ['--store', 'embedded', '--data-dir', dir, '--upstream', setup.upstreamUrl];
  const seed = await startChild(
    'seed-soak',
    join(bench, 'servers/gateway.ts'),
    [...args, '--accounts', '1', '--seed-only'],
    {
      env: setup.env(),
      readyTimeoutMs: 300_000,
    },
  );
  await seed.stop();
  const tokens = seed.info['tokens'] as string[];
  const gateway = await startChild(
    'gateway-soak',
    join(bench, 'servers/gateway.ts'),
    [...args, '--seeded', '--log-level', setup.logLevel],
    { env: setup.env(), execArgv: setup.execArgv, readyTimeoutMs: 300_000 },
  );
  try {
    const job: LoadJob = {
      kind: 'closed',
      url: String(gateway.info['url']),
      path: '/register/mcp',
      body: setup.body,
      tokens,
      connections: setup.connections,
      amount: 20_000,
    };
    const markMinutes = minutes >= 10 ? [1, 5, 10] : [minutes / 5, minutes / 2, minutes];
    const marks: [number, number][] = [];
    const started = performance.now();
    const cpu0 = cpuMs(gateway.pid);
    let calls = 0;
    let failed = 0;
    for (const mark of markMinutes) {
      // Chunks of 20,000 calls (a few seconds each) until the mark: RSS is read between chunks,
      // with the load just stopped, the same moment at every mark.
      while (performance.now() - started < mark * 60_000) {
        const r = await load.job<LoadResult>({ load: job });
        calls += r.ok;
        failed += r.failed + r.transportErrors;
      }
      marks.push([mark, rssMiB(gateway.pid)]);
      log(
        `soak: ${mark.toFixed(1)} min, ${calls.toLocaleString('en-US')} calls, RSS ${marks.at(-1)![1].toFixed(0)} MiB`,
      );
    }
    const cpuUsPerCall = calls > 0 ? ((cpuMs(gateway.pid) - cpu0) * 1000) / calls : Number.NaN;
    return { marks, calls, failed, cpuUsPerCall };
  } finally {
    await gateway.stop(30_000);
  }
}

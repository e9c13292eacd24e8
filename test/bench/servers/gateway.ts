// The gateway under test: the real runtime (`createApp`) in its own process, with everything on —
// caller tokens, rate limit (threshold above the load, but applied to every request), subscription,
// seat and connection checks, argument validation, metering, fair use in soft mode, structured
// logs — calling the zero-latency upstream through the real company-register handler
// (`register__hent_virksomhed`, managed HTTP Basic credential). All seven connectors are loaded.
//
//   --store embedded|postgres   --data-dir DIR (embedded)   --database-url URL --schema NAME (postgres)
//   --accounts N                tenants to seed (one admin user, one token each)
//   --bulk                      seed with set-based statements (100,000 tenants in seconds)
//   --seeded                    the store is seeded already (by a --seed-only run): no seeding
//   --redis URL --redis-prefix P  a replica sharing Redis (broadcasts of writes)
//   --upstream URL              CONNECTOR_REGISTER_BASE_URL
//   --max-concurrent N          REGISTER_MAX_CONCURRENT (the bench's default: 256)
//   --seed-only                 seed the store, report the tokens, and exit (start-up figure)
//   --profile FILE              write a CPU profile of the serving phase to FILE (.cpuprofile)
// Jobs (servers/ipc.ts): memory, GC and event-loop windows, allocation sampling (lib/allocation.ts), the
// snapshot's costs and change broadcasts; see the handler below.
import { registry } from '../../../generated/registry.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { flushCompileCache } from 'node:module';
import { Session } from 'node:inspector/promises';
import {
  monitorEventLoopDelay,
  PerformanceObserver,
  type PerformanceEntry,
  constants as perfConstants,
} from 'node:perf_hooks';
import v8 from 'node:v8';
import pino from 'pino';
import { createApp, type App } from '../../../runtime/app.ts';
import { loadConfig } from '../../../runtime/config/config.ts';
import { createLogger } from '../../../runtime/operations/observability.ts';
import { createPgliteThreadClient, createPostgresClient, type SqlClient } from '../../../runtime/store/sql-client.ts';
import { SqlPlatformStore } from '../../../runtime/store/sql-store.ts';
import type { PlatformStore } from '../../../runtime/store/store.ts';
import { collectOnce } from '../../../runtime/heap.ts';
import { AllocationSampler, allocationJob } from '../lib/allocation.ts';
import { gatewayEnv } from '../lib/gateway-env.ts';
import { seedTenants, seedTenantsBulk, type BenchTenant } from '../seed.ts';
import { argValue, exitWithParent, onJob, ready } from './ipc.ts';

/** Main-thread GC pauses over one window, by kind (the harness reads them with the `gc` job). */
export type GcPauses = Record<string, { count: number; ms: number; maxMs: number }>;

/** Wall-clock milliseconds comparable across the processes of one machine (sub-millisecond). */
const clock = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const kind = argValue('store', 'embedded');
  const dataDir = argValue('data-dir');
  const upstream = argValue('upstream');
  const accounts = Number(argValue('accounts', '1'));
  const logLevel = argValue('log-level', 'info')!;
  if (!upstream || !dataDir) throw new Error('--upstream and --data-dir are required');

  let db: SqlClient;
  if (kind === 'postgres') {
    const databaseUrl = argValue('database-url');
    const schema = argValue('schema');
    if (!databaseUrl || !schema) throw new Error('--database-url and --schema are required with --store postgres');
    db = createPostgresClient({ connectionString: databaseUrl, schema });
  } else {
    mkdirSync(dataDir, { recursive: true });
    // As the gateway runs it (openStore): the embedded engine in its own thread.
    const threaded = createPgliteThreadClient({ dataDir: `${dataDir}/db` });
    await threaded.opened;
    db = threaded;
  }
  const threadOf = (c: SqlClient) => (c as { thread?: import('node:worker_threads').Worker }).thread;
  const store: PlatformStore = new SqlPlatformStore(db);
  await store.migrate();
  const seedStarted = performance.now();
  const seeded = process.argv.includes('--seeded');
  const tenants: BenchTenant[] = seeded
    ? []
    : process.argv.includes('--bulk')
      ? await seedTenantsBulk(db, accounts)
      : await seedTenants(store, accounts);
  const seedMs = performance.now() - seedStarted;

  if (process.argv.includes('--seed-only')) {
    await store.close();
    // Stays until the harness stops it: a disconnect right after a large ready message could drop it.
    exitWithParent();
    ready({
      tokens: tenants.map((t) => t.token),
      userIds: tenants.map((t) => t.userId),
      tokenIds: tenants.map((t) => t.tokenId),
      seedMs,
    });
    flushCompileCache();
    return;
  }

  const redis = argValue('redis');
  const maxConcurrent = argValue('max-concurrent');
  const config = loadConfig(registry, {
    ...gatewayEnv({ upstream, dataDir, logLevel }),
    ...(redis ? { REDIS_URL: redis, REDIS_PREFIX: argValue('redis-prefix', 'bench:')! } : {}),
    ...(maxConcurrent ? { REGISTER_MAX_CONCURRENT: maxConcurrent } : {}),
  });
  // Logs go to stdout, which the harness points at /dev/null: the work of logging is measured.
  const app: App = await createApp({
    config,
    registry,
    store,
    logger: logLevel === 'silent' ? pino({ level: 'silent' }) : createLogger(logLevel),
  });
  await collectOnce(); // as bin/gateway.ts does before it listens
  const url = await app.listen(0, '127.0.0.1');
  // --profile FILE: a CPU profile (as node --cpu-prof writes) of the serving phase only, from ready
  // to stop, so seeding and start-up do not drown the hot path.
  const profile = argValue('profile');
  let session: Session | undefined;
  if (profile) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  // Event-loop delay while serving: stalls (a blocking snapshot reload, a long GC) show here.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const stopProfile = async () => {
    if (!session || !profile) return;
    const current = session;
    session = undefined;
    const { profile: data } = await current.post('Profiler.stop');
    writeFileSync(profile, JSON.stringify(data));
    current.disconnect();
  };
  // The same at 1 ms resolution over one window (the fixed-rate runs): the delay beyond the 1 ms
  // sampling interval is what a call arriving at a random moment waits for the loop.
  const windowDelay = monitorEventLoopDelay({ resolution: 1 });
  let watch: Promise<{ at: number; version: number }> | undefined;
  // Garbage collection on the main thread over one window (the fixed-rate runs), by kind (pauses;
  // concurrent marking on V8's helper threads shows in the process's CPU, not here). Observed only
  // inside the windows: an observer costs every collection a callback, which the floor does not pay.
  const gcKinds: Record<number, string> = {
    [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gc: GcPauses = {};
  const countGc = (entries: readonly PerformanceEntry[]) => {
    for (const entry of entries) {
      const kind = gcKinds[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? 'other';
      const g = gc[kind] ?? { count: 0, ms: 0, maxMs: 0 };
      gc[kind] = g;
      g.count++;
      g.ms += entry.duration;
      g.maxMs = Math.max(g.maxMs, entry.duration);
    }
  };
  const gcObserver = new PerformanceObserver((list) => countGc(list.getEntries()));
  const allocation = new AllocationSampler();
  onJob(async (job) => {
    const sampled = allocationJob(allocation, job['op']);
    if (sampled) return await sampled;
    if (job['op'] === 'reset-delay') delay.reset();
    if (job['op'] === 'window-start') {
      gc = {};
      gcObserver.observe({ entryTypes: ['gc'] });
      windowDelay.reset();
      windowDelay.enable();
      return {};
    }
    if (job['op'] === 'window') {
      windowDelay.disable();
      countGc(gcObserver.takeRecords());
      gcObserver.disconnect();
      const beyond = (ns: number) => Math.max(0, ns / 1e6 - 1);
      return {
        p99Ms: beyond(windowDelay.percentile(99)),
        maxMs: beyond(windowDelay.max),
        meanMs: beyond(windowDelay.mean),
      };
    }
    if (job['op'] === 'memory') {
      // Where the resident memory goes: V8's heap, buffers and WebAssembly memory (external), the rest.
      const m = process.memoryUsage();
      const heap = v8.getHeapStatistics();
      return {
        rss: m.rss,
        heapUsed: m.heapUsed,
        heapTotal: m.heapTotal,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        mallocedMemory: heap.malloced_memory,
        ...(threadOf(db) ? { worker: await threadOf(db)!.getHeapStatistics() } : {}),
      };
    }
    if (job['op'] === 'gc') {
      const taken = gc;
      gc = {};
      return taken;
    }
    if (job['op'] === 'stop-profile') await stopProfile();
    const state = app.context.state;
    if (job['op'] === 'refresh-cost') {
      // What a write costs the snapshot: a seat change of a bench user, then the catch-up that
      // follows every write (incremental); and, for comparison, one full load of every row.
      const userId = String(job['userId']);
      const writeMs: number[] = [];
      const fullBefore = state.stats().fullLoads;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await store.users.setSeat(userId, 'register', i % 2 === 1);
        await state.refresh();
        writeMs.push(performance.now() - t0);
      }
      await store.users.setSeat(userId, 'register', true);
      await state.refresh();
      const fullLoadsDuringWrites = state.stats().fullLoads - fullBefore;
      const fullMs: number[] = [];
      for (let i = 0; i < (Number(job['fullLoads']) || 3); i++) {
        const t0 = performance.now();
        await state.reload();
        fullMs.push(performance.now() - t0);
      }
      return { writeMs, fullMs, fullLoadsDuringWrites, refreshEveryMs: config.snapshotRefreshMs };
    }
    if (job['op'] === 'stats') return state.stats();
    if (job['op'] === 'arm') {
      // Watch for the next change version (polled every millisecond): the time it was applied here.
      const from = state.storeVersion;
      watch = new Promise((resolve) => {
        const timer = setInterval(() => {
          if (state.storeVersion === from) return;
          clearInterval(timer);
          resolve({ at: clock(), version: state.storeVersion });
        }, 1);
      });
      return { from };
    }
    if (job['op'] === 'collect') return await watch;
    if (job['op'] === 'write') {
      // A write through this replica as the portal makes it: the store, then the catch-up that
      // broadcasts its change version to the other replicas.
      const at = clock();
      if (job['kind'] === 'revoke') await store.tokens.revokeToken(String(job['tokenId']), new Date());
      else await store.users.setSeat(String(job['userId']), 'register', Boolean(job['seated']));
      await state.refresh();
      return { at, localMs: clock() - at, version: state.storeVersion };
    }
    return { delayMaxMs: delay.max / 1e6, delayP99Ms: delay.percentile(99) / 1e6, delayMeanMs: delay.mean / 1e6 };
  });
  exitWithParent(async () => {
    delay.disable();
    await stopProfile();
    await app.close();
    await store.close();
  });
  ready({
    url,
    tokens: tenants.map((t) => t.token),
    userIds: tenants.map((t) => t.userId),
    tokenIds: tenants.map((t) => t.tokenId),
    seedMs,
    store: store.kind,
    stats: app.context.state.stats(),
  });
  // With NODE_COMPILE_CACHE (the harness sets it as bin/start.mjs does), the modules compiled so far
  // are written now rather than at exit, so a process stopped hard still leaves the cache filled.
  flushCompileCache();
}

main().catch((error: unknown) => {
  console.error(`bench gateway failed: ${(error as Error)?.stack ?? String(error)}`);
  process.exit(1);
});

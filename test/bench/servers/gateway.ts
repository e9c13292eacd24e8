// The gateway under test: the real runtime (`createApp`) in its own process, with everything on —
// caller tokens, rate limit (threshold above the load, but applied to every request), subscription,
// seat and connection checks, argument validation, metering, fair use in soft mode, structured
// logs — calling the zero-latency upstream through the real company-register handler
// (`register__hent_virksomhed`, managed HTTP Basic credential). All seven connectors are loaded.
//
//   --store embedded|postgres   --data-dir DIR (embedded)   --database-url URL --schema NAME (postgres)
//   --accounts N                tenants to seed (one admin user, one token each)
//   --upstream URL              CONNECTOR_REGISTER_BASE_URL
//   --seed-only                 seed the store, report the tokens, and exit (start-up figure)
//   --profile FILE              write a CPU profile of the serving phase to FILE (.cpuprofile)
import { registry } from '../../../generated/registry.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { createApp, type App } from '../../../runtime/app.ts';
import { loadConfig } from '../../../runtime/config.ts';
import { createLogger } from '../../../runtime/observability.ts';
import { openStore } from '../../../runtime/platform/open-store.ts';
import type { PlatformStore } from '../../../runtime/platform/store.ts';
import { gatewayEnv } from '../lib/gateway-env.ts';
import { seedTenants } from '../seed.ts';
import { argValue, exitWithParent, onJob, ready } from './ipc.ts';

async function main(): Promise<void> {
  const kind = argValue('store', 'embedded');
  const dataDir = argValue('data-dir');
  const upstream = argValue('upstream');
  const accounts = Number(argValue('accounts', '1'));
  const logLevel = argValue('log-level', 'info')!;
  if (!upstream || !dataDir) throw new Error('--upstream and --data-dir are required');

  let store: PlatformStore;
  if (kind === 'postgres') {
    const databaseUrl = argValue('database-url');
    const schema = argValue('schema');
    if (!databaseUrl || !schema) throw new Error('--database-url and --schema are required with --store postgres');
    store = await openStore({ databaseUrl, schema });
  } else {
    mkdirSync(dataDir, { recursive: true });
    store = await openStore({ dataDir: `${dataDir}/db` });
  }
  const seedStarted = performance.now();
  const tenants = await seedTenants(store, accounts);
  const seedMs = performance.now() - seedStarted;

  if (process.argv.includes('--seed-only')) {
    await store.close();
    ready({ tokens: tenants.map((t) => t.token), seedMs });
    process.disconnect?.();
    return;
  }

  const config = loadConfig(registry, gatewayEnv({ upstream, dataDir, logLevel }));
  // Logs go to stdout, which the harness points at /dev/null: the work of logging is measured.
  const app: App = await createApp({ config, registry, store, logger: logLevel === 'silent' ? pino({ level: 'silent' }) : createLogger(logLevel) });
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
  onJob(async (job) => {
    if (job['op'] === 'reset-delay') delay.reset();
    if (job['op'] === 'stop-profile') await stopProfile();
    if (job['op'] === 'refresh-cost') {
      // What one full snapshot reload costs (it runs every SNAPSHOT_REFRESH_MS and after writes).
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        await app.context.state.refresh();
        times.push(performance.now() - t0);
      }
      return { refreshMs: times, refreshEveryMs: config.snapshotRefreshMs };
    }
    return { delayMaxMs: delay.max / 1e6, delayP99Ms: delay.percentile(99) / 1e6, delayMeanMs: delay.mean / 1e6 };
  });
  exitWithParent(async () => {
    delay.disable();
    await stopProfile();
    await app.close();
    await store.close();
  });
  ready({ url, tokens: tenants.map((t) => t.token), accountIds: tenants.map((t) => t.accountId), seedMs, store: store.kind });
}

main().catch((error: unknown) => {
  console.error(`bench gateway failed: ${(error as Error)?.stack ?? String(error)}`);
  process.exit(1);
});

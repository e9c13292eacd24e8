// The gateway process behind bin/start.mjs (which turns on the compile cache first, then loads this).
// Starts the gateway.
//   npm start          embedded defaults: embedded database in ./data, sandbox upstreams, demo tenant
//   npm run serve      production: configuration from GATEWAY_CONFIG and the environment only
// Start-up order: the embedded database starts opening in its own thread first (~0.4 s of CPU,
// pglite-thread.ts), then the runtime, the generated code and every connector's handlers load on
// this thread meanwhile; only then is the configuration checked in full. So the static imports
// here are the few that decide where the store is; the rest are imported in main().
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, storeLocation } from '#runtime/config/config.ts';
import { describeStore, describeUrl, isWildcardHost } from '#runtime/config/checks.ts';
import { CONNECTOR_SETTINGS, ConfigError, type GatewayConfig, SETTINGS } from '#runtime/config/settings.ts';
import { beginEmbeddedOpening, type EmbeddedOpening } from '#runtime/store/embedded-opening.ts';
import { collectOnce } from '#runtime/heap.ts';
import type { SandboxSet } from '../sandbox/index.ts';

const HELP = `Usage: node bin/start.mjs [--demo] [--config <file.json>]
       npm start                  embedded defaults: database in ./data, sandbox upstreams, demo tenant (--demo)
       npm run serve              production: configuration from GATEWAY_CONFIG / --config and the environment

  --demo             start the sandbox upstreams and seed the demo tenant
  --config <file>    JSON config file (same as GATEWAY_CONFIG); environment variables win
  --help             print this help

Settings (README.md, "Configuration"): ${SETTINGS.map((s) => s.env[0]).join(', ')},
and per connector ${CONNECTOR_SETTINGS.flatMap((s) => s.env).join(', ')}.
HOST=0.0.0.0 needs PUBLIC_BASE_URL in production (npm run serve): links must name a reachable address.`;

function parseArgs(argv: string[]): { demo: boolean; help: boolean; config?: string } {
  const i = argv.indexOf('--config');
  if (i >= 0 && !argv[i + 1]) throw new ConfigError('--config needs a file path');
  const known = ['--demo', '--help', '-h', '--config'];
  const unknown = argv.find((a, n) => !known.includes(a) && argv[n - 1] !== '--config');
  if (unknown) throw new ConfigError(`unknown argument "${unknown}" (see --help)`);
  return {
    demo: argv.includes('--demo'),
    help: argv.includes('--help') || argv.includes('-h'),
    ...(i >= 0 ? { config: argv[i + 1] } : {}),
  };
}

// A last resort, never the normal path: an error nothing handled is logged (name and message
// only: never a stack with arguments or a secret) and the process exits with 1.
/**
 * Begins opening the embedded database of an existing data directory (a warm start). A new one
 * (initdb, seconds) is left to createApp, after the configuration is known to be right; so is
 * every case this cannot decide (PostgreSQL, an unreadable config, a held lock: createApp reports it).
 */
function openEarly(configPath: string | undefined): EmbeddedOpening | undefined {
  const where = storeLocation(process.env, configPath);
  if (!where || where.databaseUrl) return undefined;
  const dbDir = join(where.dataDir, 'db');
  if (!existsSync(join(dbDir, 'PG_VERSION'))) return undefined;
  try {
    return beginEmbeddedOpening(dbDir, where.storeTimeoutMs);
  } catch {
    return undefined;
  }
}

/**
 * docs/decisions/operations.md, 'A stop signal to any process of the start chain stops the gateway once':
 * the first stop wins; a repeat (one Ctrl-C arrives up to three times: from the terminal, npm and
 * bin/run.mjs) is ignored, however many come. The stop is bounded by the drain of in-flight calls;
 * SIGKILL is the way to cut it short.
 */
function stopOnce(
  log: { info(o: object, m: string): void; error(o: object, m: string): void },
  close: () => Promise<unknown>,
): void {
  let stopping = false;
  const stop = (cause: { signal: string } | { parent: 'gone' }) => {
    if (stopping) return;
    stopping = true;
    log.info(cause, 'shutting down: finishing in-flight calls and flushing usage');
    void close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: (error as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop({ signal: 'SIGINT' }));
  process.on('SIGTERM', () => stop({ signal: 'SIGTERM' }));
  // Started by bin/run.mjs (npm start, npm run serve): its IPC channel closes when it ends, even by
  // SIGKILL, and a gateway whose start chain is gone stops instead of serving orphaned.
  if (process.channel) {
    process.once('disconnect', () => stop({ parent: 'gone' }));
    if (!process.connected) stop({ parent: 'gone' });
  }
}

/** Demo only (serve refuses a wildcard HOST without PUBLIC_BASE_URL): links point at this machine, never at 0.0.0.0. */
function linksToLoopback(
  config: { host: string; publicBaseUrl: string },
  url: string,
  log: { warn(fields: object, message: string): void },
): void {
  config.publicBaseUrl = url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])/, 'http://127.0.0.1');
  log.warn(
    { host: config.host, publicBaseUrl: config.publicBaseUrl },
    'HOST listens on every interface but PUBLIC_BASE_URL is unset: links use ' +
      '127.0.0.1 and work only on this machine; set PUBLIC_BASE_URL',
  );
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof ConfigError ? `configuration: ${error.message}` : String(error));
    process.exit(2);
  }
  if (args.help) {
    console.log(HELP);
    process.exit(0);
  }
  const early = openEarly(args.config);
  // The database opened early is closed properly before any exit (never left half-open).
  const closeEarly = async () => {
    await early?.client.close();
    early?.releaseLock();
  };
  const modules = await Promise.all([
    import('#generated/registry.ts'),
    import('#runtime/app.ts'),
    import('#runtime/operations/last-resort.ts'),
    import('#runtime/operations/observability.ts'),
    import('#runtime/operations/admin-socket.ts'),
    import('./admin.ts'),
    import('./demo.ts'),
  ]).catch(async (error: unknown) => {
    await closeEarly();
    throw error;
  });
  const [
    { registry },
    { createApp },
    { exitOnUnhandledFaults },
    { createLogger },
    { ADMIN_SOCKET_FILE, serveAdminSocket },
    { adminSocketHandler },
    demo,
  ] = modules;
  const { banner, sandboxEnv, sandboxTenantCredentials, seedDemoTenant } = demo;
  let config: GatewayConfig;
  let sandboxes: SandboxSet | undefined;
  try {
    config = loadConfig(registry, process.env, args.config);
    // A wildcard listen address is no link target: production must say where it is reached.
    if (!args.demo && isWildcardHost(config.host) && !config.publicBaseUrlExplicit) {
      throw new ConfigError(
        `HOST=${config.host} listens on every interface, so links (connect, purchase, team) ` +
          'need PUBLIC_BASE_URL, e.g. PUBLIC_BASE_URL=https://gateway.example.com',
      );
    }
  } catch (error) {
    await closeEarly();
    console.error(error instanceof ConfigError ? `configuration: ${error.message}` : String(error));
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  // The last resort: a fault nothing handled is logged and the process exits 1 for its supervisor.
  exitOnUnhandledFaults(log);
  if (args.demo) {
    // The sandboxes are separate HTTP servers; the gateway reaches them like real upstreams.
    const { startSandboxes } = await import('../sandbox/index.ts');
    sandboxes = await startSandboxes({ connectors: config.connectors.filter((c) => c.enabled).map((c) => c.key) });
    config = loadConfig(registry, { ...process.env, ...sandboxEnv(sandboxes) }, args.config);
  }
  // New: private from the start; an existing one is checked (and tightened, with a warning) by createApp.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const started = performance.now();
  const app = await createApp({
    config,
    registry,
    logger: log,
    // The demo turns self-service on; otherwise SELF_SERVICE_PURCHASE and SELF_SERVICE_QUOTA decide (off by default).
    selfServicePurchase: args.demo || config.selfService.purchase,
    selfServiceQuota: args.demo || config.selfService.quota,
    ...(early ? { embeddedOpening: early } : {}),
  });
  // Start-up's garbage and grown young generation given back before the first request, once.
  await collectOnce();
  const url = await app.listen();
  // The admin CLI talks to this process while it runs (the embedded database has one owner).
  const adminSocket = await serveAdminSocket(
    join(config.dataDir, ADMIN_SOCKET_FILE),
    adminSocketHandler(app.context.config, app.context.store, () => app.context.state.refresh()),
    { store: describeStore(config) },
  );
  if (isWildcardHost(config.host) && !config.publicBaseUrlExplicit) linksToLoopback(app.context.config, url, log);
  if (args.demo) {
    const tenant = await seedDemoTenant(
      app.context.store,
      app.context.vault,
      config,
      sandboxTenantCredentials(sandboxes!, `${app.context.config.publicBaseUrl}/portal/oauth/callback`),
    );
    await app.context.state.refresh();
    console.log(banner(config, app.context.config.publicBaseUrl, tenant.token, sandboxes!));
  }
  log.info(
    {
      url,
      publicBaseUrl: app.context.config.publicBaseUrl,
      store: describeStore(config),
      sharedStore: config.redisUrl ? describeUrl(config.redisUrl) : 'none (one process)',
      // True when the embedded database began opening before the modules loaded (a warm data directory).
      storeOpenedEarly: early !== undefined,
      startupMs: Math.round(performance.now() - started),
    },
    'gateway listening',
  );

  stopOnce(log, () =>
    adminSocket
      .close()
      .then(() => app.close())
      .then(() => sandboxes?.close()),
  );
}

main().catch((error: unknown) => {
  // A configuration found wrong only against the database (a key whose check value differs): exit 2.
  if (error instanceof ConfigError) {
    console.error(`configuration: ${error.message}`);
    process.exit(2);
  }
  console.error(`gateway failed to start: ${(error as Error).message}`);
  process.exit(1);
});

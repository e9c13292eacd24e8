// Starts the gateway.
//   npm start          embedded defaults: embedded database in ./data, sandbox upstreams, demo tenant
//   npm run serve      production: configuration from GATEWAY_CONFIG and the environment only
import { mkdirSync } from 'node:fs';
import { registry } from '#generated/registry.ts';
import { ConfigError, describeStore, describeUrl, loadConfig, type GatewayConfig } from '#runtime/config.ts';
import { createApp } from '#runtime/app.ts';
import { createLogger } from '#runtime/observability.ts';
import type { SandboxSet } from '../sandbox/index.ts';
import { banner, sandboxEnv, sandboxTenantCredentials, seedDemoTenant } from './demo.ts';

function parseArgs(argv: string[]): { demo: boolean; config?: string } {
  const i = argv.indexOf('--config');
  return { demo: argv.includes('--demo'), ...(i >= 0 && argv[i + 1] ? { config: argv[i + 1] } : {}) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let config: GatewayConfig;
  let sandboxes: SandboxSet | undefined;
  try {
    config = loadConfig(registry, process.env, args.config);
  } catch (error) {
    console.error(error instanceof ConfigError ? `configuration: ${error.message}` : String(error));
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  if (args.demo) {
    // The sandboxes are separate HTTP servers; the gateway reaches them like real upstreams.
    const { startSandboxes } = await import('../sandbox/index.ts');
    sandboxes = await startSandboxes({ connectors: config.connectors.filter((c) => c.enabled).map((c) => c.key) });
    config = loadConfig(registry, { ...process.env, ...sandboxEnv(sandboxes) }, args.config);
  }
  mkdirSync(config.dataDir, { recursive: true });
  const started = performance.now();
  const app = await createApp({ config, registry, logger: log, selfServicePurchase: args.demo });
  const url = await app.listen();
  if (args.demo) {
    const tenant = await seedDemoTenant(app.context.store, app.context.vault, config, sandboxTenantCredentials(sandboxes!));
    await app.context.state.refresh();
    console.log(banner(config, app.context.config.publicBaseUrl, tenant.token, sandboxes!));
  }
  log.info(
    {
      url,
      publicBaseUrl: app.context.config.publicBaseUrl,
      store: describeStore(config),
      sharedStore: config.redisUrl ? describeUrl(config.redisUrl) : 'none (one process)',
      startupMs: Math.round(performance.now() - started),
    },
    'gateway listening',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight calls and flushing usage');
    void app
      .close()
      .then(() => sandboxes?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: (error as Error).message }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`gateway failed to start: ${(error as Error).message}`);
  process.exit(1);
});

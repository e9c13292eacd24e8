// Starts the gateway.
//   npm start          embedded defaults: embedded database in ./data, sandbox upstreams, demo tenant
//   npm run serve      production: configuration from GATEWAY_CONFIG and the environment only
import { mkdirSync } from 'node:fs';
import { ConfigError, loadConfig, type GatewayConfig } from './config.ts';
import { createApp } from './app.ts';
import { createLogger } from './observability.ts';
import { seedDemoTenant } from './demo.ts';

function parseArgs(argv: string[]): { demo: boolean; config?: string } {
  const i = argv.indexOf('--config');
  return { demo: argv.includes('--demo'), ...(i >= 0 && argv[i + 1] ? { config: argv[i + 1] } : {}) };
}

function banner(config: GatewayConfig, url: string, token: string, sandboxUrls: Record<string, string>): string {
  const enabled = config.connectors.filter((c) => c.enabled);
  const first = enabled.find((c) => c.key === 'register') ?? enabled[0]!;
  const mcpUrl = (id: string) => `${url}/${id}/mcp`;
  const casesId = enabled.find((c) => c.key === 'cases')?.id;
  const ledgerId = enabled.find((c) => c.key === 'ledger')?.id;
  const lines = [
    '',
    'Connector gateway is running (embedded database, sandbox upstreams, demo tenant).',
    '',
    'MCP endpoints (POST, Authorization: Bearer <token>):',
    ...enabled.map((c) => `  ${c.key.padEnd(10)} ${mcpUrl(c.id)}`),
    '',
    `Demo token (account acc_demo, user demo@example.com): ${token}`,
    '',
    'Try it with the MCP Inspector CLI:',
    `  npx @modelcontextprotocol/inspector --cli ${mcpUrl(first.id)} --transport http --header "Authorization: Bearer ${token}" --method tools/list`,
    `  npx @modelcontextprotocol/inspector --cli ${mcpUrl(first.id)} --transport http --header "Authorization: Bearer ${token}" --method tools/call --tool-name ${first.id}__soeg_virksomhed --tool-arg query=Demo`,
    ...(casesId ? [`  npx @modelcontextprotocol/inspector --cli ${mcpUrl(casesId)} --transport http --header "Authorization: Bearer ${token}" --method tools/call --tool-name ${casesId}__find_cases --tool-arg text=solcelleanlæg`] : []),
    ...(ledgerId ? [`  npx @modelcontextprotocol/inspector --cli ${mcpUrl(ledgerId)} --transport http --header "Authorization: Bearer ${token}" --method tools/call --tool-name ${ledgerId}__aggregate --tool-arg entity=GLTransClient 'groupBy=["Account"]' 'sum=["Amount"]' fromDate=2025-01-01 toDate=2025-12-31`] : []),
    '',
    'Claude Code:',
    `  claude mcp add --transport http ${first.id} ${mcpUrl(first.id)} --header "Authorization: Bearer ${token}"`,
    '',
    'Client configuration (Claude Desktop, Cursor, … — any client with streamable HTTP):',
    JSON.stringify({ mcpServers: { [first.id]: { type: 'http', url: mcpUrl(first.id), headers: { Authorization: `Bearer ${token}` } } } }, null, 2)
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
    '',
    `Usage: curl -H "Authorization: Bearer ${token}" ${url}/api/usage`,
    `Sandboxes: ${Object.entries(sandboxUrls).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    'Stop with Ctrl+C.',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let config: GatewayConfig;
  let sandboxes: Awaited<ReturnType<typeof import('../sandbox/index.ts').startSandboxes>> | undefined;
  try {
    config = loadConfig(process.env, args.config);
  } catch (error) {
    console.error(error instanceof ConfigError ? `configuration: ${error.message}` : String(error));
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  if (args.demo) {
    // The sandboxes are separate HTTP servers; the gateway reaches them like real upstreams.
    const { startSandboxes } = await import('../sandbox/index.ts');
    sandboxes = await startSandboxes();
    config = loadConfig({ ...process.env, ...sandboxes.env }, args.config);
  }
  mkdirSync(config.dataDir, { recursive: true });
  const started = performance.now();
  const app = await createApp({ config, logger: log, selfServicePurchase: args.demo });
  const url = await app.listen();
  if (args.demo) {
    const tenant = await seedDemoTenant(app.context.store, app.context.vault, config, sandboxes!.tenantCredentials);
    await app.context.state.refresh();
    console.log(banner(config, app.context.config.publicBaseUrl, tenant.token, sandboxes!.urls));
  }
  log.info({ url, store: app.context.store.kind, startupMs: Math.round(performance.now() - started) }, 'gateway listening');

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

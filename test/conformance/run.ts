// The MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios of the 2026-07-28
// requirement set) against one endpoint of a started gateway: embedded store, sandbox upstreams and
// a tenant entitled to every connector, as `npm start` has them. The CLI cannot send a bearer
// token, so a local proxy adds `Authorization: Bearer <token>` to every request and forwards it to
// the endpoint unchanged otherwise. Exits with the CLI's code: non-zero when a check fails that
// test/conformance/expected-failures.yaml does not list, or when a listed one passes (stale).
//   npm run test:conformance                       the 2026-07-28 requirement set on `register`
//   CONFORMANCE_ENDPOINT=cases npm run test:conformance
//   npm run test:conformance -- --scenario server-stateless --spec-version 2026-07-28
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry, type ConnectorKey } from '../../generated/registry.ts';
import { sandboxEnv, sandboxTenantCredentials } from '../../bin/demo.ts';
import { openStore } from '../../runtime/store/open-store.ts';
import { startSandboxes } from '../../sandbox/index.ts';
import { connectTenant, createTenant, startGateway, testConfig } from '../support/gateway.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));
const REVISION = '2026-07-28';

/**
 * The runs: the revision's requirement set, then the header scenario, which the set only reports
 * ("pending", never scored: its failures would not change the exit code) but which this gateway must pass.
 */
const RUNS: readonly (readonly string[])[] = [
  ['--requirements', REVISION],
  ['--scenario', 'http-header-validation', '--spec-version', REVISION],
];

/** Where the proxy forwards to, with which token: set once the gateway is up. */
interface ProxyTarget {
  url?: URL;
  token?: string;
}

/**
 * A proxy on 127.0.0.1 that forwards every request to `target` with the caller's bearer token
 * added, every other header (Host and Origin included) unchanged.
 */
async function startTokenProxy(target: ProxyTarget): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (!target.url) {
      req.resume();
      res.writeHead(503).end();
      return;
    }
    const headers = { ...req.headers, authorization: `Bearer ${target.token}` };
    const upstream = httpRequest(
      { hostname: target.url.hostname, port: target.url.port, method: req.method, path: target.url.pathname, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function runCli(args: readonly string[]): Promise<number> {
  const bin = join(root, 'node_modules', '.bin', 'conformance');
  // The CLI needs Node >= 22 (fs.globSync): the Node running this script comes first on its PATH.
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: 'inherit', env, cwd: root });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const started = performance.now();
  const endpoint = (process.env.CONFORMANCE_ENDPOINT ?? 'register') as ConnectorKey;
  if (!(endpoint in registry))
    throw new Error(`CONFORMANCE_ENDPOINT=${endpoint}: not a connector (${Object.keys(registry).join(', ')})`);
  const target: ProxyTarget = {};
  const proxy = await startTokenProxy(target);
  const sandboxes = await startSandboxes();
  const store = await openStore({});
  // The proxy is the address the suite reaches the gateway under: its origins are the allowed ones
  // (as an operator lists a gateway's public origins), so dns-rebinding-protection sees a real deployment.
  const { port } = new URL(proxy.url);
  const config = testConfig({
    ...sandboxEnv(sandboxes),
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    ALLOWED_ORIGINS: `http://localhost:${port},http://127.0.0.1:${port}`,
  });
  const gateway = await startGateway(store, {
    config: { ...config, connectors: config.connectors.map((c) => ({ ...c, enabled: true })) },
  });
  try {
    const tenant = await createTenant(store, { subscribe: Object.keys(registry) });
    const credential = sandboxTenantCredentials(sandboxes)[endpoint];
    if (credential) await connectTenant(gateway, tenant, endpoint, credential);
    await gateway.app.context.state.refresh();
    const instanceId = gateway.app.context.config.connectors.find((c) => c.key === endpoint)!.id;
    target.url = new URL(`${gateway.url}/${instanceId}/mcp`);
    target.token = tenant.token;
    const output = mkdtempSync(join(tmpdir(), 'conformance-'));
    const setupMs = Math.round(performance.now() - started);
    console.log(
      `conformance: ${target.url.href} through ${proxy.url}/mcp (set up in ${setupMs} ms); results in ${output}`,
    );
    let worst = 0;
    for (const selection of process.argv.length > 2 ? [process.argv.slice(2)] : RUNS) {
      const runStarted = performance.now();
      const code = await runCli([
        'server',
        '--url',
        `${proxy.url}/mcp`,
        ...selection,
        '--expected-failures',
        join(here, 'expected-failures.yaml'),
        '-o',
        output,
      ]);
      console.log(
        `conformance: ${selection.join(' ')}: exit ${code} in ${Math.round(performance.now() - runStarted)} ms`,
      );
      worst = Math.max(worst, code);
    }
    console.log(`conformance: exit ${worst}; total ${Math.round(performance.now() - started)} ms`);
    return worst;
  } finally {
    proxy.server.closeAllConnections();
    await new Promise<void>((resolve) => proxy.server.close(() => resolve()));
    await gateway.close();
    await sandboxes.close();
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`conformance runner failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(2);
  },
);

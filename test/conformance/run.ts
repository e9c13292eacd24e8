// The MCP conformance suite (`@modelcontextprotocol/conformance`, server scenarios of the 2026-07-28
// requirement set) against one endpoint of a started gateway: embedded store, sandbox upstreams and
// a tenant entitled to every connector, as `npm start` has them. The CLI cannot send a bearer
// token, so a local proxy adds `Authorization: Bearer <token>` to every request and forwards it to
// the endpoint unchanged otherwise. Exits with the CLI's code: non-zero when a check fails that
// test/conformance/expected-failures.yaml does not list, or when a listed one passes (stale).
// A second step starts a gateway serving the fixture connector (test/fixtures/conformance-connector:
// the suite's fixture tools for progress and multi round-trip input requests, on the same runtime)
// and runs the requirement set against its endpoint, where those scenarios must pass, then the
// 2025-11-25 progress and elicitation scenarios (FIXTURE_RUNS); on the first endpoint, which has no
// such tools, they are expected to fail (FIXTURE_SCENARIOS).
//   npm run test:conformance                       the 2026-07-28 requirement set on `register`, then the fixture
//   CONFORMANCE_ENDPOINT=cases npm run test:conformance
//   npm run test:conformance -- --scenario server-stateless --spec-version 2026-07-28
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry, type ConnectorKey } from '../../generated/registry.ts';
import { sandboxEnv, sandboxTenantCredentials } from '../../bin/demo.ts';
import { openStore } from '../../runtime/store/open-store.ts';
import type { PlatformStore } from '../../runtime/store/store.ts';
import { startSandboxes } from '../../sandbox/index.ts';
import { startFixtureGateway } from '../support/conformance-fixture.ts';
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

/**
 * The scenarios (and single checks) whose fixture tools the fixture connector serves: they must pass
 * against its endpoint and are expected to fail on a real connector's (it has no such tools).
 * input-required-result-non-tool-request needs a prompt (prompts/get), which nothing here serves: it
 * stays in expected-failures.yaml.
 */
const FIXTURE_SCENARIOS: readonly string[] = [
  'server-stateless:sep-2575-server-rejects-undeclared-capability',
  'server-stateless:sep-2575-missing-capability-http-400',
  'tools-call-with-progress',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-result-type',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-validate-input',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
];

/**
 * The fixture step's runs beyond RUNS: the 2025-11-25 scenarios for progress and elicitation (the
 * person asked on the call's event stream), which the 2026-07-28 set no longer holds.
 */
const FIXTURE_RUNS: readonly (readonly string[])[] = [
  'tools-call-with-progress',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
].map((scenario) => ['--scenario', scenario, '--spec-version', '2025-11-25']);

/** Where the proxy forwards to, with which token: set once the gateway is up. */
interface ProxyTarget {
  url?: URL;
  token?: string;
  /**
   * The fixture endpoint's tool prefix (`<instance>__`). The suite calls its fixture tools by bare
   * names (`test_tool_with_progress`); the gateway serves every tool under its instance's prefix, so
   * the proxy prefixes a bare `test_*` name of a tools/call (body and Mcp-Name header alike).
   */
  toolPrefix?: string;
}

/** A tools/call body with its bare fixture tool name prefixed, or undefined when nothing changes. */
function prefixedCall(body: Buffer, prefix: string): { body: Buffer; name: string } | undefined {
  let message: { method?: unknown; params?: { name?: unknown } } | null;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const name = message?.params?.name;
  if (message?.method !== 'tools/call' || typeof name !== 'string' || !name.startsWith('test_')) return undefined;
  const params = { ...message.params, name: `${prefix}${name}` };
  return { body: Buffer.from(JSON.stringify({ ...message, params })), name: params.name };
}

/** Sends one request on to the target (its body streamed, or already read) and streams the answer back. */
function forward(
  req: IncomingMessage,
  body: Buffer | undefined,
  res: ServerResponse,
  url: URL,
  headers: IncomingHttpHeaders,
): void {
  const upstream = httpRequest(
    { hostname: url.hostname, port: url.port, method: req.method, path: url.pathname, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  if (body === undefined) req.pipe(upstream);
  else upstream.end(body);
}

/**
 * A proxy on 127.0.0.1 that forwards every request to `target` with the caller's bearer token
 * added, every other header (Host and Origin included) unchanged.
 */
async function startTokenProxy(target: ProxyTarget): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const { url, token, toolPrefix } = target;
    if (!url) {
      req.resume();
      res.writeHead(503).end();
      return;
    }
    const headers: IncomingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` };
    if (toolPrefix === undefined) {
      forward(req, undefined, res, url, headers);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const read = Buffer.concat(chunks);
      const call = prefixedCall(read, toolPrefix);
      if (call) {
        headers['content-length'] = String(call.body.length);
        if (headers['mcp-name'] !== undefined) headers['mcp-name'] = call.name;
      }
      forward(req, call?.body ?? read, res, url, headers);
    });
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

/** expected-failures.yaml and the fixture scenarios, for an endpoint without the fixture tools. */
function withoutFixtureTools(dir: string): string {
  const listed = readFileSync(join(here, 'expected-failures.yaml'), 'utf8').trimEnd();
  // The file's last key is `server:`, so the lines appended extend its list.
  const after = listed.split('\n').slice(listed.split('\n').indexOf('server:') + 1);
  if (!listed.split('\n').includes('server:') || after.some((line) => /^[^\s#]/.test(line)))
    throw new Error('expected-failures.yaml: `server:` must be its last key');
  const path = join(dir, 'expected-failures-without-fixture-tools.yaml');
  const fixture = FIXTURE_SCENARIOS.map((name) => `  - ${name}`).join('\n');
  writeFileSync(path, `${listed}\n  # The fixture connector's scenarios (run.ts, FIXTURE_SCENARIOS).\n${fixture}\n`);
  return path;
}

/** Runs every selection (RUNS and `more`, or the command line's) against the proxy's target: the worst exit code. */
async function runSelections(
  proxyUrl: string,
  expectedFailures: string,
  output: string,
  more: readonly (readonly string[])[] = [],
): Promise<number> {
  let worst = 0;
  for (const selection of process.argv.length > 2 ? [process.argv.slice(2)] : [...RUNS, ...more]) {
    const runStarted = performance.now();
    const args = ['server', '--url', `${proxyUrl}/mcp`, ...selection, '--expected-failures', expectedFailures];
    const code = await runCli([...args, '-o', output]);
    console.log(
      `conformance: ${selection.join(' ')}: exit ${code} in ${Math.round(performance.now() - runStarted)} ms`,
    );
    worst = Math.max(worst, code);
  }
  return worst;
}

/** What both steps share: the proxy (and the origins it is reached under), the store, the results folder. */
interface Steps {
  readonly target: ProxyTarget;
  readonly proxyUrl: string;
  readonly allowedOrigins: string;
  readonly store: PlatformStore;
  readonly output: string;
}

/** Step 1: the `CONFORMANCE_ENDPOINT` connector (default `register`) against sandbox upstreams. */
async function connectorStep(steps: Steps, endpoint: ConnectorKey): Promise<number> {
  const sandboxes = await startSandboxes();
  const config = testConfig({
    ...sandboxEnv(sandboxes),
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    ALLOWED_ORIGINS: steps.allowedOrigins,
  });
  const gateway = await startGateway(steps.store, {
    config: { ...config, connectors: config.connectors.map((c) => ({ ...c, enabled: true })) },
  });
  try {
    const tenant = await createTenant(steps.store, { subscribe: Object.keys(registry) });
    const credential = sandboxTenantCredentials(sandboxes)[endpoint];
    if (credential) await connectTenant(gateway, tenant, endpoint, credential);
    await gateway.app.context.state.refresh();
    const instanceId = gateway.app.context.config.connectors.find((c) => c.key === endpoint)!.id;
    Object.assign(steps.target, { url: new URL(`${gateway.url}/${instanceId}/mcp`), token: tenant.token });
    console.log(`conformance: ${steps.target.url!.href} through ${steps.proxyUrl}/mcp`);
    return await runSelections(steps.proxyUrl, withoutFixtureTools(steps.output), steps.output);
  } finally {
    await gateway.close();
    await sandboxes.close();
  }
}

/** Step 2: a gateway serving only the fixture connector, against the unchanged list. */
async function fixtureStep(steps: Steps): Promise<number> {
  const { gateway, tenant, instanceId } = await startFixtureGateway(steps.store, {
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    ALLOWED_ORIGINS: steps.allowedOrigins,
  });
  try {
    Object.assign(steps.target, {
      url: new URL(`${gateway.url}/${instanceId}/mcp`),
      token: tenant.token,
      toolPrefix: `${instanceId}__`,
    });
    console.log(`conformance: fixture ${steps.target.url!.href} through ${steps.proxyUrl}/mcp`);
    return await runSelections(steps.proxyUrl, join(here, 'expected-failures.yaml'), steps.output, FIXTURE_RUNS);
  } finally {
    await gateway.close();
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const endpoint = (process.env.CONFORMANCE_ENDPOINT ?? 'register') as ConnectorKey;
  if (!(endpoint in registry))
    throw new Error(`CONFORMANCE_ENDPOINT=${endpoint}: not a connector (${Object.keys(registry).join(', ')})`);
  const target: ProxyTarget = {};
  const proxy = await startTokenProxy(target);
  const store = await openStore({});
  // The proxy is the address the suite reaches the gateway under: its origins are the allowed ones
  // (as an operator lists a gateway's public origins), so dns-rebinding-protection sees a real deployment.
  const { port } = new URL(proxy.url);
  const steps: Steps = {
    target,
    proxyUrl: proxy.url,
    allowedOrigins: `http://localhost:${port},http://127.0.0.1:${port}`,
    store,
    output: mkdtempSync(join(tmpdir(), 'conformance-')),
  };
  console.log(`conformance: results in ${steps.output}`);
  try {
    const first = await connectorStep(steps, endpoint);
    const fixture = await fixtureStep(steps);
    const worst = Math.max(first, fixture);
    console.log(`conformance: exit ${worst}; total ${Math.round(performance.now() - started)} ms`);
    return worst;
  } finally {
    proxy.server.closeAllConnections();
    await new Promise<void>((resolve) => proxy.server.close(() => resolve()));
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

// `npm run bench`: starts everything it measures (each server, the load generator and every timed
// process is a child process of its own), warms up, measures, stops everything it started, and
// writes the dated results table to BENCHMARKS.md. Not part of `npm test`.
//
//   npm run bench                         5 runs of ~5 s per figure (the published table)
//   npm run bench -- --quick              1 short run each (development; writes .bench/BENCHMARKS-quick.md)
//   npm run bench -- --runs 5 --duration 10 --connections 32 --rate 1000
//   npm run bench -- --cpu-prof           also write a CPU profile of the gateway while it serves
//                                         (.bench/profiles/, git-ignored; summarise with test/bench/profile-top.ts)
//   npm run bench -- --no-postgres        skip the PostgreSQL figure
//   npm run bench -- --out FILE           write the table elsewhere (default BENCHMARKS.md)
//   npm run bench -- --large-accounts N   tenants of the growth gateway and the replica figure (100,000)
//   npm run bench -- --no-redis           skip the write-reaches-every-replica figure (PostgreSQL + Redis)
//   npm run bench -- --soak-minutes N     minutes of the memory-over-time row (10; quick: 1; 0 skips it)
//
// Exit code 1 when metering was not exact (usage totalCalls ≠ successful calls counted by the load
// generator) or a run failed; a missed target alone does not fail the command.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { request } from 'undici';
import type { FoldResult } from './fold.ts';
import { killAll, liveChildren, startChild, startProcess, type ChildHandle } from './lib/children.ts';
import { gatewayEnv } from './lib/gateway-env.ts';
import { cpuMs, machineInfo, rssMiB, rssSampler } from './lib/machine.ts';
import { renderReport, type AllocationRow, type Figure, type ReplicaFigures, type Report } from './lib/report.ts';
import type { AllocationSample } from './lib/allocation.ts';
import { spread, type Spread } from './lib/stats.ts';
import { isSuccess } from './lib/success.ts';
import type { LoadJob, LoadResult } from './load.ts';
import type { GcPauses } from './servers/gateway.ts';
import type { YoungGenerationResult } from './young-generation.ts';
import { openSessions } from './lib/mcp-sessions.ts';
import { measureSlowUpstream, SLOW_CALLS, SLOW_DELAY_MS } from './slow-upstream.ts';
import { measureSoak } from './soak.ts';
import { DEFAULT_UPSTREAM_CONNECTIONS } from '../../runtime/config/settings.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The MCP SDK the peer patterns run (the installed one). */
const sdkVersion = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as {
    version: string;
  }
).version;
const BENCH = join(ROOT, 'test/bench');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

interface Options {
  readonly quick: boolean;
  readonly runs: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly connections: number;
  readonly rate: number;
  readonly logLevel: string;
  readonly cpuProf: boolean;
  /** Minutes of the memory-over-time row (0: skipped). */
  readonly soakMinutes: number;
  readonly out: string;
  readonly databaseUrl: string | undefined;
  readonly startupRuns: number;
  readonly codegenRuns: number;
  readonly foldRepeats: number;
  readonly growth: readonly number[];
  readonly largeAccounts: number;
  readonly redisUrl: string | undefined;
}

/**
 * Node flags of every gateway: the ones `npm run serve` passes (package.json; `npm start` and the
 * container image pass the same), read from that script so the benchmark cannot drift from it: the
 * embedded engine's WebAssembly on V8's baseline compiler, 8 MiB semi-spaces, the old generation's
 * growth fixed at 30 % (docs/decisions/performance.md, 'The embedded engine runs with Liftoff only',
 * 'An 8 MiB semi-space', 'The old generation grows by 30 % at most').
 */
const GATEWAY_NODE_FLAGS = serveFlags();

function serveFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { serve: string } };
  const words = scripts.serve.split(/\s+/);
  const flags = words.slice(words.indexOf('bin/run.mjs') + 1, words.indexOf('bin/start.mjs'));
  if (flags.length === 0 || flags.some((flag) => !flag.startsWith('--')))
    throw new Error(`package.json's serve script has no node flags before bin/start.mjs: ${scripts.serve}`);
  return flags;
}
/**
 * …and the environment they run with: two glibc malloc arenas and a fixed mmap threshold (bin/run.mjs,
 * the Containerfile), and
 * Node's compile cache in the place `bin/start.mjs` turns it on (its default, under the system's
 * temporary directory). The seeding processes fill it, as a deployment's first start does; from a
 * filled cache Node loads neither the TypeScript stripper nor its WebAssembly (~5 MiB of resident
 * memory: docs/decisions/performance.md, 'Restarts run from the compile cache').
 */
const GATEWAY_PROCESS_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache'),
};
/**
 * How every gateway process of the benchmark starts, seeding ones included: the flags and the
 * environment above together, so no process can get one without the other (the compile cache's
 * entries are keyed by the flags).
 */
function asServed(): { env: Record<string, string>; execArgv: readonly string[] } {
  return { env: childEnv(GATEWAY_PROCESS_ENV), execArgv: GATEWAY_NODE_FLAGS };
}
/** Active accounts of the growth gateway (spread evenly over all its tenants). */
const LARGE_ACTIVE = 1000;

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback: number, zeroSkips = false) => {
    const v = value(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || (n === 0 && !zeroSkips))
      throw new Error(`--${name} needs a positive number${zeroSkips ? ' or 0' : ''}, got ${v}`);
    return n;
  };
  const quick = argv.includes('--quick');
  // Five: this machine's speed drifts by a third within minutes, and a median of three followed it.
  const runs = Math.round(num('runs', quick ? 1 : 5));
  return {
    quick,
    runs,
    durationSec: num('duration', quick ? 2 : 5),
    warmupSec: num('warmup', quick ? 1 : 2),
    connections: Math.round(num('connections', 32)),
    rate: num('rate', 1000),
    logLevel: value('log-level') ?? 'info',
    cpuProf: argv.includes('--cpu-prof'),
    soakMinutes: num('soak-minutes', quick ? 1 : 10, true),
    // A quick run is for development: never over the published table.
    out: resolve(ROOT, value('out') ?? (quick ? '.bench/BENCHMARKS-quick.md' : 'BENCHMARKS.md')),
    databaseUrl: argv.includes('--no-postgres')
      ? undefined
      : (value('database-url') ?? process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL),
    // Five starts: one start is ~0.6 s, and the median of three moved with a single slow one.
    startupRuns: Math.round(num('startup-runs', quick ? 1 : Math.max(5, runs))),
    codegenRuns: Math.round(num('codegen-runs', quick ? 1 : Math.max(3, runs))),
    foldRepeats: Math.round(num('fold-repeats', quick ? 3 : 7)),
    growth: [1, 10, 1000],
    largeAccounts: Math.round(num('large-accounts', 100_000)),
    redisUrl: argv.includes('--no-redis')
      ? undefined
      : (value('redis-url') ?? process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'),
  };
}

const started = performance.now();
function log(line: string): void {
  console.log(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
    ...extra,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Cleanup on every way out: children killed, PostgreSQL schema dropped, temporary files removed.

const cleanups: Array<() => Promise<void>> = [];
let cleaned = false;
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  killAll();
  for (const fn of cleanups.reverse())
    await fn().catch((error: unknown) => console.error(`cleanup: ${(error as Error).message}`));
  killAll();
}
process.on('exit', () => killAll());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n[bench] ${signal}: stopping everything it started`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// Requests

const CALL_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345674 } },
});
const LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
/** A selection in use: the register endpoint narrowed to one toolset by the path form. */
const SELECTED_LIST_PATH = '/register/x/companies/mcp';

async function once(
  url: string,
  body: string,
  token?: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; text: string }> {
  const res = await request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

interface Case {
  readonly id: string;
  readonly label: string;
  readonly server: ChildHandle;
  readonly path: string;
  readonly body: string;
  readonly tokens: readonly string[];
  /** Each request with its own JSON-RPC id (requests sharing an MCP session). */
  readonly uniqueIds?: boolean;
  /** More headers per request (the session peer's session ids). */
  readonly headerSets?: readonly Readonly<Record<string, string>>[];
  /** Successful tools/call answers are metered: count them for this gateway. */
  readonly metered: boolean;
}

/** What the load generator needs of a case to send its requests. */
function caseTarget(c: Case): Pick<LoadJob, 'url' | 'path' | 'body' | 'tokens' | 'headerSets' | 'uniqueIds'> {
  return {
    url: String(c.server.info['url']),
    path: c.path,
    body: c.body,
    tokens: c.tokens,
    ...(c.headerSets ? { headerSets: c.headerSets } : {}),
    ...(c.uniqueIds ? { uniqueIds: true } : {}),
  };
}

interface CaseRun {
  readonly result: LoadResult;
  /** Server CPU per successful call, µs. */
  readonly cpuUsPerCall: number;
  readonly rssMaxMiB?: number;
}

interface MemoryBreakdown {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

/** "minor 21 (max 3.1 ms), major 2 (max 8.0 ms)": the pauses of several windows together. */
function describeGc(windows: readonly GcPauses[]): string {
  const total: GcPauses = {};
  for (const w of windows)
    for (const [kind, g] of Object.entries(w)) {
      const t = total[kind] ?? { count: 0, ms: 0, maxMs: 0 };
      total[kind] = t;
      t.count += g.count;
      t.ms += g.ms;
      t.maxMs = Math.max(t.maxMs, g.maxMs);
    }
  const kinds = Object.entries(total).filter(([kind]) => kind !== 'weakcb');
  return kinds.length
    ? kinds
        .map(([kind, g]) => `${kind} ${g.count} (${g.ms.toFixed(0)} ms in all, longest ${g.maxMs.toFixed(1)} ms)`)
        .join(', ')
    : 'none';
}

interface RefreshCost {
  /** A seat change and the snapshot catch-up after it, ms each. */
  readonly writeMs: number[];
  /** A full load of every row, ms each. */
  readonly fullMs: number[];
  readonly fullLoadsDuringWrites: number;
  readonly refreshEveryMs: number;
}

/**
 * Two replicas on one PostgreSQL schema seeded with the large tenant count, sharing Redis: writes
 * through replica A (token revokes, seat changes, each followed by A's catch-up and broadcast), and
 * the time until replica B holds each of them. A revoked token must be refused by B afterwards.
 */
async function measureReplicas(options: Options, upstreamUrl: string, problems: string[]): Promise<ReplicaFigures> {
  const databaseUrl = options.databaseUrl!;
  const schema = `bench_rep_${process.pid}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });
  const tmp = mkdtempSync(join(tmpdir(), 'cg-bench-rep-'));
  cleanups.push(async () => rmSync(tmp, { recursive: true, force: true }));
  const store = ['--store', 'postgres', '--database-url', databaseUrl, '--schema', schema, '--upstream', upstreamUrl];
  const seed = await startChild(
    'seed-replicas',
    join(BENCH, 'servers/gateway.ts'),
    [...store, '--data-dir', join(tmp, 'seed'), '--accounts', String(options.largeAccounts), '--bulk', '--seed-only'],
    {
      ...asServed(),
      readyTimeoutMs: 600_000,
    },
  );
  await seed.stop();
  const tokens = seed.info['tokens'] as string[];
  const userIds = seed.info['userIds'] as string[];
  const tokenIds = seed.info['tokenIds'] as string[];
  const replica = (name: string) =>
    startChild(
      name,
      join(BENCH, 'servers/gateway.ts'),
      [
        ...store,
        '--data-dir',
        join(tmp, name),
        '--seeded',
        '--redis',
        options.redisUrl!,
        '--redis-prefix',
        `${schema}:`,
        '--log-level',
        options.logLevel,
      ],
      {
        ...asServed(),
        readyTimeoutMs: 300_000,
      },
    );
  const t0 = performance.now();
  const a = await replica('replica-a');
  const replicaReadyMs = performance.now() - t0;
  const b = await replica('replica-b');
  try {
    const before = [
      await a.job<{ fullLoads: number }>({ op: 'stats' }),
      await b.job<{ fullLoads: number }>({ op: 'stats' }),
    ];
    const revoke: number[] = [];
    const seat: number[] = [];
    const local: number[] = [];
    const writes = options.quick ? 3 : 7;
    for (let i = 0; i < writes * 2; i++) {
      const n = Math.floor(((i + 0.5) * tokens.length) / (writes * 2));
      const kind = i % 2 === 0 ? 'revoke' : 'seat';
      await b.job({ op: 'arm' });
      const w = await a.job<{ at: number; localMs: number }>({
        op: 'write',
        kind,
        tokenId: tokenIds[n],
        userId: userIds[n],
        seated: false,
      });
      const seen = await b.job<{ at: number }>({ op: 'collect' });
      (kind === 'revoke' ? revoke : seat).push(seen.at - w.at);
      local.push(w.localMs);
      if (kind === 'revoke') {
        const r = await once(`${String(b.info['url'])}/register/mcp`, CALL_BODY, tokens[n]);
        if (r.status !== 401)
          problems.push(`replica B answered a token revoked through replica A with HTTP ${r.status}`);
      }
    }
    const after = [
      await a.job<{ fullLoads: number }>({ op: 'stats' }),
      await b.job<{ fullLoads: number }>({ op: 'stats' }),
    ];
    const fullLoads = after[0]!.fullLoads - before[0]!.fullLoads + (after[1]!.fullLoads - before[1]!.fullLoads);
    if (fullLoads > 0)
      problems.push(`replicas: ${fullLoads} full snapshot load(s) during single writes (expected none)`);
    return {
      reachMs: spread([...revoke, ...seat]),
      revokeMs: spread(revoke),
      seatMs: spread(seat),
      localMs: spread(local),
      fullLoads,
      accounts: options.largeAccounts,
      replicaReadyMs,
    };
  } finally {
    await Promise.all([a.stop(30_000), b.stop(30_000)]);
  }
}

/** Measured order: floor, the peers, gateway-1, gateway-large, then the rest as listed. */
function orderKey(id: string): number {
  const first = ['floor', 'peer', 'peer-session', 'gateway-1', 'gateway-large'];
  const i = first.indexOf(id);
  return i >= 0 ? i : first.length;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const machine = machineInfo();
  const date = new Date();
  const tmp = mkdtempSync(join(tmpdir(), 'cg-bench-'));
  cleanups.push(async () => rmSync(tmp, { recursive: true, force: true }));
  const problems: string[] = [];
  log(
    `${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; ${options.runs} run(s) of ` +
      `~${options.durationSec} s, ${options.connections} connections${options.quick ? ' (quick)' : ''}`,
  );

  // ---- servers -------------------------------------------------------------------------------
  const upstream = await startChild('upstream', join(BENCH, 'servers/upstream.ts'), [], { env: childEnv() });
  const upstreamUrl = String(upstream.info['url']);
  const profDir = join(ROOT, '.bench/profiles');
  if (options.cpuProf) mkdirSync(profDir, { recursive: true });
  const profileFile = options.cpuProf
    ? join(profDir, `gateway-${date.toISOString().replace(/[:.]/g, '-')}.cpuprofile`)
    : undefined;
  const maxAccounts = Math.max(...options.growth);
  // The embedded gateways serve a warm data directory, seeded by a process of its own first (as a
  // restarted deployment does): the one-time initdb of a new directory is not what runs in production.
  log(
    `seeding ${maxAccounts} and ` +
      `${options.largeAccounts.toLocaleString('en-US')} tenants into two embedded data directories`,
  );
  const seedInto = (name: string, dir: string, accounts: number) =>
    startChild(
      name,
      join(BENCH, 'servers/gateway.ts'),
      [
        '--store',
        'embedded',
        '--data-dir',
        dir,
        '--accounts',
        String(accounts),
        '--bulk',
        '--upstream',
        upstreamUrl,
        '--seed-only',
      ],
      {
        ...asServed(),
        readyTimeoutMs: 600_000,
      },
    );
  const [seedSmall, seedLarge] = await Promise.all([
    seedInto('seed', join(tmp, 'gateway'), maxAccounts),
    seedInto('seed-large', join(tmp, 'gateway-large'), options.largeAccounts),
  ]);
  await Promise.all([seedSmall.stop(), seedLarge.stop()]);
  const tokens = seedSmall.info['tokens'] as string[];
  const userIds = seedSmall.info['userIds'] as string[];
  const largeTokens = seedLarge.info['tokens'] as string[];
  const largeUserIds = seedLarge.info['userIds'] as string[];
  log(
    `seeded (${Math.round(Number(seedSmall.info['seedMs']))} ms and ` +
      `${Math.round(Number(seedLarge.info['seedMs']))} ms)`,
  );
  const embeddedGateway = (name: string, dir: string) =>
    startChild(
      name,
      join(BENCH, 'servers/gateway.ts'),
      [
        '--store',
        'embedded',
        '--data-dir',
        dir,
        '--seeded',
        '--upstream',
        upstreamUrl,
        '--log-level',
        options.logLevel,
        ...(profileFile && name === 'gateway' ? ['--profile', profileFile] : []),
      ],
      { ...asServed(), readyTimeoutMs: 300_000 },
    );
  log('starting the two embedded gateways');
  const [gateway, large] = await Promise.all([
    embeddedGateway('gateway', join(tmp, 'gateway')),
    embeddedGateway('gateway-large', join(tmp, 'gateway-large')),
  ]);
  log('gateways ready');
  // Every server of a tools/call comparison does the tool's work (the handler's request body and
  // mapping, lib/register-answer.ts) and answers the same bytes: checked against the gateway's below.
  const called = await once(`${String(gateway.info['url'])}/register/mcp`, CALL_BODY, tokens[0]);
  if (!isSuccess(called.status, called.text))
    throw new Error(`the gateway's tools/call answered HTTP ${called.status}: ${called.text.slice(0, 300)}`);
  const answerArgs = ['--upstream', upstreamUrl];
  log('starting the floor and the two SDK peer patterns');
  const [floor, peer, peerSession] = await Promise.all([
    startChild('floor', join(BENCH, 'servers/floor.ts'), answerArgs, { env: childEnv() }),
    startChild('peer', join(BENCH, 'servers/peer.ts'), [...answerArgs, '--mode', 'stateless'], { env: childEnv() }),
    startChild('peer-session', join(BENCH, 'servers/peer.ts'), [...answerArgs, '--mode', 'session'], {
      env: childEnv(),
    }),
  ]);
  const floorCalled = await once(`${String(floor.info['url'])}/mcp`, CALL_BODY);
  if (Buffer.byteLength(floorCalled.text) !== Buffer.byteLength(called.text))
    throw new Error(
      `the floor answers ${Buffer.byteLength(floorCalled.text)} bytes, the gateway ${Buffer.byteLength(called.text)}`,
    );
  // One session per connection of the load, as that many clients would hold.
  const peerSessions = await openSessions(`${String(peerSession.info['url'])}/mcp`, options.connections);
  // The tools/list floor answers exactly the bytes the gateway answers.
  const listed = await once(`${String(gateway.info['url'])}/register/mcp`, LIST_BODY, tokens[0]);
  const listResult = (JSON.parse(listed.text) as { result?: unknown }).result;
  if (listed.status !== 200 || listResult === undefined)
    throw new Error(`the gateway's tools/list answered HTTP ${listed.status}: ${listed.text.slice(0, 300)}`);
  const listFile = join(tmp, 'tools-list-result.json');
  writeFileSync(listFile, JSON.stringify(listResult));
  const listFloor = await startChild('list-floor', join(BENCH, 'servers/list-floor.ts'), ['--result', listFile], {
    env: childEnv(),
  });
  const floorListed = await once(`${String(listFloor.info['url'])}/mcp`, LIST_BODY);
  if (Buffer.byteLength(floorListed.text) !== Buffer.byteLength(listed.text))
    throw new Error(
      `the tools/list floor answers ${Buffer.byteLength(floorListed.text)} ` +
        `bytes, the gateway ${Buffer.byteLength(listed.text)}`,
    );
  // The same with a selection in use (issue 34): one toolset by the path form. Its list is cached apart
  // from the whole list; the floor again answers exactly the gateway's bytes.
  const selectedListed = await once(`${String(gateway.info['url'])}${SELECTED_LIST_PATH}`, LIST_BODY, tokens[0]);
  const selectedResult = (JSON.parse(selectedListed.text) as { result?: { tools?: unknown[] } }).result;
  if (selectedListed.status !== 200 || selectedResult?.tools === undefined)
    throw new Error(
      `the selected tools/list answered HTTP ${selectedListed.status}: ${selectedListed.text.slice(0, 300)}`,
    );
  if (selectedResult.tools.length >= ((listResult as { tools?: unknown[] }).tools?.length ?? 0))
    throw new Error('the selected tools/list is not narrower than the whole list');
  const selectedFile = join(tmp, 'tools-list-selected.json');
  writeFileSync(selectedFile, JSON.stringify(selectedResult));
  const selectedFloor = await startChild(
    'list-floor-selected',
    join(BENCH, 'servers/list-floor.ts'),
    ['--result', selectedFile],
    { env: childEnv() },
  );
  const floorSelected = await once(`${String(selectedFloor.info['url'])}/mcp`, LIST_BODY);
  if (Buffer.byteLength(floorSelected.text) !== Buffer.byteLength(selectedListed.text))
    throw new Error(
      `the selected tools/list floor answers ${Buffer.byteLength(floorSelected.text)} ` +
        `bytes, the gateway ${Buffer.byteLength(selectedListed.text)}`,
    );
  const largeActive = Array.from(
    { length: Math.min(LARGE_ACTIVE, largeTokens.length) },
    (_, i) => largeTokens[Math.floor((i * largeTokens.length) / Math.min(LARGE_ACTIVE, largeTokens.length))]!,
  );

  let pgGateway: ChildHandle | undefined;
  let pgSkip: string | undefined;
  if (options.databaseUrl) {
    const schema = `bench_${process.pid}_${Date.now().toString(36)}`;
    const client = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      const url = options.databaseUrl;
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      });
      pgGateway = await startChild(
        'gateway-postgres',
        join(BENCH, 'servers/gateway.ts'),
        [
          '--store',
          'postgres',
          '--database-url',
          options.databaseUrl,
          '--schema',
          schema,
          '--data-dir',
          join(tmp, 'gateway-pg'),
          '--accounts',
          '1',
          '--upstream',
          upstreamUrl,
          '--log-level',
          options.logLevel,
        ],
        asServed(),
      );
      log(`PostgreSQL gateway ready (schema ${schema})`);
    } catch (error) {
      pgSkip =
        `PostgreSQL at ${options.databaseUrl.replace(/\/\/[^@]*@/, '//…@')} ` +
        `not usable: ${(error as Error).message.split('\n')[0]}`;
      log(pgSkip);
    } finally {
      await client.end().catch(() => {});
    }
  } else pgSkip = 'skipped with --no-postgres';

  await sleep(1000);
  const rssIdle = rssMiB(gateway.pid);
  const rssIdleLarge = rssMiB(large.pid);
  const rssIdlePg = pgGateway ? rssMiB(pgGateway.pid) : Number.NaN;
  const memoryIdle = await gateway.job<MemoryBreakdown>({ op: 'memory' });
  const memoryIdleLarge = await large.job<MemoryBreakdown>({ op: 'memory' });
  const memoryIdlePg = pgGateway ? await pgGateway.job<MemoryBreakdown>({ op: 'memory' }) : undefined;
  const load = await startChild('load', join(BENCH, 'load.ts'), [], { env: childEnv() });

  const cases: Case[] = [
    {
      id: 'floor',
      label: 'Floor (node:http + undici)',
      server: floor,
      path: '/mcp',
      body: CALL_BODY,
      tokens: [],
      metered: false,
    },
    {
      id: 'peer',
      label: 'Peer pattern (SDK stateless, per-request McpServer)',
      server: peer,
      path: '/mcp',
      body: CALL_BODY,
      tokens: [],
      metered: false,
    },
    {
      id: 'peer-session',
      label: `Peer pattern (SDK sessions, the README's; ${options.connections} sessions)`,
      server: peerSession,
      path: '/mcp',
      body: CALL_BODY,
      tokens: [],
      headerSets: peerSessions,
      uniqueIds: true,
      metered: false,
    },
    ...options.growth.map(
      (n): Case => ({
        id: `gateway-${n}`,
        label: `Gateway, ${n} active account${n === 1 ? '' : 's'}`,
        server: gateway,
        path: '/register/mcp',
        body: CALL_BODY,
        tokens: tokens.slice(0, n),
        metered: true,
      }),
    ),
    ...(pgGateway
      ? [
          {
            id: 'gateway-pg',
            label: 'Gateway on PostgreSQL, 1 account',
            server: pgGateway,
            path: '/register/mcp',
            body: CALL_BODY,
            tokens: (pgGateway.info['tokens'] as string[]).slice(0, 1),
            metered: true,
          },
        ]
      : []),
    {
      id: 'gateway-large',
      label:
        `Gateway, ${options.largeAccounts.toLocaleString('en-US')} accounts ` +
        `(${largeActive.length.toLocaleString('en-US')} active)`,
      server: large,
      path: '/register/mcp',
      body: CALL_BODY,
      tokens: largeActive,
      metered: true,
    },
    {
      id: 'list-floor',
      label: 'Floor serving the same `tools/list` bytes',
      server: listFloor,
      path: '/mcp',
      body: LIST_BODY,
      tokens: [],
      metered: false,
    },
    {
      id: 'gateway-list',
      label: 'Gateway tools/list, 1 account',
      server: gateway,
      path: '/register/mcp',
      body: LIST_BODY,
      tokens: tokens.slice(0, 1),
      metered: false,
    },
    {
      id: 'list-floor-selected',
      label: 'Floor serving the same selected `tools/list` bytes',
      server: selectedFloor,
      path: '/mcp',
      body: LIST_BODY,
      tokens: [],
      metered: false,
    },
    {
      id: 'gateway-list-selected',
      label: `Gateway tools/list at ${SELECTED_LIST_PATH}, 1 account`,
      server: gateway,
      path: SELECTED_LIST_PATH,
      body: LIST_BODY,
      tokens: tokens.slice(0, 1),
      metered: false,
    },
  ];
  // The call whose result the floor and the peers answer was metered.
  const okCounted = new Map<ChildHandle, number>([[gateway, 1]]);
  /** The tokens each metered gateway was called with (usage is read back for exactly these). */
  const meteredTokens = new Map<ChildHandle, string[]>([
    [gateway, tokens],
    [large, largeActive],
  ]);
  if (pgGateway) meteredTokens.set(pgGateway, (pgGateway.info['tokens'] as string[]).slice(0, 1));
  const count = (c: Case, ok: number) => {
    if (c.metered) okCounted.set(c.server, (okCounted.get(c.server) ?? 0) + ok);
  };

  // ---- sanity: one call each, and a clear failure when a server answers wrongly ---------------
  for (const c of cases) {
    const r = await once(`${String(c.server.info['url'])}${c.path}`, c.body, c.tokens[0], c.headerSets?.[0]);
    if (!isSuccess(r.status, r.text))
      throw new Error(`${c.label} did not answer the benchmark request: HTTP ${r.status} ${r.text.slice(0, 500)}`);
    count(c, 1);
  }

  const runClosed = async (c: Case, amount: number): Promise<CaseRun> => {
    const job: LoadJob = {
      kind: 'closed',
      ...caseTarget(c),
      connections: options.connections,
      amount: Math.max(Math.round(amount), options.connections * 4),
    };
    const cpu0 = cpuMs(c.server.pid);
    const sampler = rssSampler(c.server.pid);
    const result = await load.job<LoadResult>({ load: job });
    const rssMax = sampler.stop();
    const cpu = cpuMs(c.server.pid) - cpu0;
    count(c, result.ok);
    if (result.failed > 0 || result.transportErrors > 0)
      problems.push(
        `${c.label}: ${result.failed} failed and ${result.transportErrors} transport ` +
          `errors of ${result.sent}; first: ${result.firstFailure ?? ''}`,
      );
    return { result, cpuUsPerCall: result.ok > 0 ? (cpu * 1000) / result.ok : Number.NaN, rssMaxMiB: rssMax };
  };

  // ---- warm-up: a short probe for the rate, then ~warmupSec at full load ----------------------
  const estimate = new Map<string, number>();
  for (const c of cases) {
    const probe = await runClosed(c, options.connections * 20);
    // The growth gateway warms up three times as long: the first minutes after it loaded 100,000
    // tenants carry one-time work (each active account's first fair-use read, the collection of the
    // load's garbage) that is start-up, not the cost of a call.
    const warm = await runClosed(c, probe.result.rps * options.warmupSec * (c.id === 'gateway-large' ? 3 : 1));
    estimate.set(c.id, warm.result.rps);
    log(`warm-up ${c.id}: ${Math.round(warm.result.rps)} calls/s`);
  }
  problems.length = 0; // warm-up failures are reported only if they recur in measured runs
  const rateCases = [cases.find((c) => c.id === 'floor')!, cases.find((c) => c.id === 'gateway-1')!];
  for (const c of rateCases) {
    const r = await load.job<LoadResult>({
      load: {
        kind: 'rate',
        ...caseTarget(c),
        connections: options.connections,
        rate: options.rate,
        durationSec: Math.min(1, options.warmupSec),
      } satisfies LoadJob,
    });
    count(c, r.ok);
  }

  // ---- measured runs: every case once per run, so the ratios of a run come from the same run --
  await gateway.job({ op: 'reset-delay' });
  const runs = new Map<string, CaseRun[]>();
  const rateRuns = new Map<string, LoadResult[]>();
  let rssLoad = 0;
  const rateDelay: { p99Ms: number; maxMs: number; meanMs: number }[] = [];
  const rateGc: GcPauses[] = [];
  let rssLoadPg = 0;
  // The measured order keeps the cases whose figures are divided by each other next to each other
  // (floor, peer, gateway with 1 account, the 100,000-tenant gateway; the two tools/list servers),
  // so a ratio's two runs are seconds apart rather than a minute: this machine's speed drifts.
  const measureOrder = [...cases].sort((a, b) => orderKey(a.id) - orderKey(b.id));
  for (let r = 0; r < options.runs; r++) {
    for (const c of measureOrder) {
      // One second of the same load first, not measured (as before each fixed-rate run): a server
      // that sat idle for the minute of the other cases has had its heap shrunk by V8's memory
      // reducer, and regrowing it is not the cost of a call. Its calls are metered and counted.
      await runClosed(c, estimate.get(c.id)!);
      const run = await runClosed(c, estimate.get(c.id)! * options.durationSec);
      estimate.set(c.id, run.result.rps);
      if (c.server === gateway) rssLoad = Math.max(rssLoad, run.rssMaxMiB ?? 0);
      if (pgGateway && c.server === pgGateway) rssLoadPg = Math.max(rssLoadPg, run.rssMaxMiB ?? 0);
      (runs.get(c.id) ?? runs.set(c.id, []).get(c.id)!).push(run);
      log(
        `run ${r + 1}/${options.runs} ${c.id}: ${Math.round(run.result.rps)} calls/s, p99 ` +
          `${run.result.latency.p99.toFixed(2)} ms, ${Math.round(run.cpuUsPerCall)} µs CPU/call`,
      );
    }
    for (const c of rateCases) {
      // One second at the fixed rate first, not measured: the closed-loop runs just before leave the
      // processes with work of their own (garbage of ~5,000 calls/s, a usage backlog to write), and
      // the figure is the tail at a steady 1,000 calls/s, not the aftermath of another load.
      const settle = await load.job<LoadResult>({
        load: {
          kind: 'rate',
          ...caseTarget(c),
          connections: options.connections,
          rate: options.rate,
          durationSec: 1,
        } satisfies LoadJob,
      });
      count(c, settle.ok);
      const sampler = c.server === gateway ? rssSampler(gateway.pid) : undefined;
      if (c.server === gateway) {
        await gateway.job({ op: 'window-start' });
        await gateway.job({ op: 'gc' });
      }
      const result = await load.job<LoadResult>({
        load: {
          kind: 'rate',
          ...caseTarget(c),
          connections: options.connections,
          rate: options.rate,
          durationSec: options.durationSec,
        } satisfies LoadJob,
      });
      if (sampler) rssLoad = Math.max(rssLoad, sampler.stop());
      if (c.server === gateway) {
        rateDelay.push(await gateway.job<{ p99Ms: number; maxMs: number; meanMs: number }>({ op: 'window' }));
        rateGc.push(await gateway.job<GcPauses>({ op: 'gc' }));
      }
      count(c, result.ok);
      if (result.failed > 0 || result.transportErrors > 0)
        problems.push(
          `${c.label} at ${options.rate}/s: ${result.failed} failed, ` +
            `${result.transportErrors} transport errors; first: ${result.firstFailure ?? ''}`,
        );
      (rateRuns.get(c.id) ?? rateRuns.set(c.id, []).get(c.id)!).push(result);
      log(
        `run ${r + 1}/${options.runs} ${c.id} at ${options.rate}/s: p50 ` +
          `${result.latency.p50.toFixed(2)} ms, p99 ${result.latency.p99.toFixed(2)} ms`,
      );
    }
  }

  // ---- paired ratios: every figure that divides one server by another ----------------------------
  // The two servers of a ratio alternate in short closed-loop runs (ABBA order), and the figure is
  // the median of the pairs' ratios. This machine's speed moves by a third from one 5 s run to the
  // next (the floor: 104–155 µs CPU per call within one bench), so two servers measured a run apart
  // differ by the machine as much as by themselves; a pair one second apart does not.
  const pairSec = options.quick ? 0.5 : 1;
  const pairCount = options.quick ? 2 : 10;
  const byId = (id: string) => cases.find((c) => c.id === id);
  const paired = async (aId: string, bId: string): Promise<{ rps: Spread; cpu: Spread } | undefined> => {
    const a = byId(aId);
    const b = byId(bId);
    if (!a || !b) return undefined;
    const rpsRatios: number[] = [];
    const cpuRatios: number[] = [];
    for (let i = 0; i < pairCount; i++) {
      const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
      // Each measured run follows half as long of the same load on the same server, not measured:
      // the other server's second in between leaves this one's caches cold, and with 1 s runs that
      // restart cost weighed on the larger working set (the 100,000-tenant gateway ÷ 1 account:
      // median 1.28× over 10 pairs of 1 s runs, 1.07× over 14 pairs of ~3 s runs, one build and machine).
      await runClosed(first, (estimate.get(first.id)! * pairSec) / 2);
      const one = await runClosed(first, estimate.get(first.id)! * pairSec);
      await runClosed(second, (estimate.get(second.id)! * pairSec) / 2);
      const two = await runClosed(second, estimate.get(second.id)! * pairSec);
      const [ra, rb] = first === a ? [one, two] : [two, one];
      rpsRatios.push(ra.result.rps / rb.result.rps);
      cpuRatios.push(ra.cpuUsPerCall / rb.cpuUsPerCall);
    }
    log(
      `paired ${aId} ÷ ${bId}: calls/s ratio ${spread(rpsRatios).median.toFixed(2)} ` +
        `(${rpsRatios.map((v) => v.toFixed(2)).join(' ')}), CPU per call ratio ` +
        `${spread(cpuRatios).median.toFixed(2)}`,
    );
    return { rps: spread(rpsRatios), cpu: spread(cpuRatios) };
  };
  const pairedFloor = await paired('gateway-1', 'floor');
  const pairedPeer = await paired('gateway-1', 'peer');
  const pairedPeerSession = await paired('gateway-1', 'peer-session');
  const pairedList = await paired('gateway-list', 'list-floor');
  const pairedListSelected = await paired('gateway-list-selected', 'list-floor-selected');
  const pairedPg = await paired('gateway-pg', 'floor');
  const pairedLarge = await paired('gateway-large', 'gateway-1');

  const gatewayDelay = await gateway.job<{ delayMaxMs: number; delayP99Ms: number; delayMeanMs: number }>({
    op: 'delay',
  });
  log(
    'gateway event-loop delay during the measured runs: p99 ' +
      `${gatewayDelay.delayP99Ms.toFixed(1)} ms, max ${gatewayDelay.delayMaxMs.toFixed(1)} ms`,
  );
  // The profile covers the measured runs only, not the usage reads below.
  if (profileFile) await gateway.job({ op: 'stop-profile' });
  // What a call allocates, in a window of its own (the sampler slows the process it samples).
  const allocation: AllocationRow[] = [];
  for (const c of [byId('floor')!, byId('gateway-1')!]) {
    await c.server.job({ op: 'allocation-start' });
    const sampled = await runClosed(c, options.quick ? 2_000 : 10_000);
    const sample = await c.server.job<AllocationSample>({ op: 'allocation-stop' });
    const calls = sampled.result.ok;
    const row: AllocationRow = {
      label: c.label,
      floor: c.id === 'floor',
      calls,
      kibPerCall: sample.bytes / calls / 1024,
      top: sample.top.map((t) => ({ name: t.name, at: t.at, bytesPerCall: t.bytes / calls })),
    };
    allocation.push(row);
    log(`${c.id} allocated ${row.kibPerCall.toFixed(1)} KiB per call (${calls} calls sampled)`);
  }
  const refreshCost = await gateway.job<RefreshCost>({ op: 'refresh-cost', userId: userIds[1] ?? userIds[0] });
  log(
    `a write's snapshot catch-up with ${maxAccounts} tenants: ` +
      `${refreshCost.writeMs.map((v) => v.toFixed(1)).join(', ')} ms; a full load ` +
      `${refreshCost.fullMs.map((v) => v.toFixed(0)).join(', ')} ms`,
  );
  const refreshCostLarge = await large.job<RefreshCost>({
    op: 'refresh-cost',
    userId: largeUserIds[1] ?? largeUserIds[0],
    fullLoads: 1,
  });
  log(
    `the same with ${options.largeAccounts} tenants: ` +
      `${refreshCostLarge.writeMs.map((v) => v.toFixed(1)).join(', ')} ms; a full load ` +
      `${refreshCostLarge.fullMs.map((v) => v.toFixed(0)).join(', ')} ms`,
  );
  for (const [name, cost] of [
    ['gateway', refreshCost],
    ['gateway-large', refreshCostLarge],
  ] as const) {
    if (cost.fullLoadsDuringWrites > 0)
      problems.push(
        `${name}: ${cost.fullLoadsDuringWrites} full snapshot load(s) during single writes (expected none)`,
      );
  }

  // ---- metering must be exact ------------------------------------------------------------------
  const metering: Array<Report['metering'][number]> = [];
  for (const [server, expected] of okCounted) {
    const serverTokens = meteredTokens.get(server) ?? [];
    let total = 0;
    for (let i = 0; i < serverTokens.length; i += 16) {
      const batch = await Promise.all(
        serverTokens.slice(i, i + 16).map(async (token) => {
          const res = await request(`${String(server.info['url'])}/api/usage`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const body = (await res.body.json()) as { usage?: { totalCalls?: number } };
          if (res.statusCode !== 200 || typeof body.usage?.totalCalls !== 'number')
            throw new Error(`GET /api/usage answered ${res.statusCode}`);
          return body.usage.totalCalls;
        }),
      );
      for (const n of batch) total += n;
    }
    metering.push({ gateway: server.name, expected, totalCalls: total, accounts: serverTokens.length });
    log(
      `metering ${server.name}: usage totalCalls ${total}, successful calls counted ` +
        `${expected} ${total === expected ? '(exact)' : '(MISMATCH)'}`,
    );
  }

  // ---- memory over a long load: its own gateway, RSS after 1, 5 and 10 minutes ---------------
  const soak =
    options.soakMinutes > 0
      ? await measureSoak({
          bench: BENCH,
          tmp,
          load,
          upstreamUrl,
          body: CALL_BODY,
          connections: options.connections,
          minutes: options.soakMinutes,
          env: () => childEnv(GATEWAY_PROCESS_ENV),
          execArgv: GATEWAY_NODE_FLAGS,
          logLevel: options.logLevel,
          log,
        }).catch((error: unknown) => {
          problems.push(`soak: ${(error as Error).message.split('\n')[0]!}`);
          return undefined;
        })
      : undefined;
  if (soak && soak.failed > 0) problems.push(`soak: ${soak.failed} of ${soak.calls + soak.failed} calls failed`);

  // ---- 1,000 calls in flight against an upstream answering after 2 s (its own upstream and gateway)
  const slow = await measureSlowUpstream({
    bench: BENCH,
    tmp,
    load,
    body: CALL_BODY,
    env: () => childEnv(GATEWAY_PROCESS_ENV),
    execArgv: GATEWAY_NODE_FLAGS,
    logLevel: options.logLevel,
    log,
  }).catch((error: unknown) => {
    problems.push(`slow upstream: ${(error as Error).message.split('\n')[0]!}`);
    return undefined;
  });
  if (slow && (slow.result.failed > 0 || slow.result.transportErrors > 0))
    problems.push(
      `slow upstream: ${slow.result.failed} failed and ${slow.result.transportErrors} transport errors of ` +
        `${slow.result.sent}; first: ${slow.result.firstFailure ?? ''}`,
    );

  log('stopping the servers');
  await load.stop();
  await Promise.all([
    floor.stop(),
    peer.stop(),
    peerSession.stop(),
    listFloor.stop(),
    selectedFloor.stop(),
    gateway.stop(30_000),
    large.stop(30_000),
    pgGateway?.stop(30_000),
  ]);

  // ---- a write reaching every replica: two replicas on PostgreSQL + Redis with the large tenant count
  const replicas =
    options.databaseUrl && options.redisUrl
      ? await measureReplicas(options, upstreamUrl, problems).catch((error: unknown) => ({
          skipped: (error as Error).message.split('\n')[0]!,
        }))
      : { skipped: options.databaseUrl ? 'skipped with --no-redis' : 'skipped with --no-postgres' };
  if ('skipped' in replicas) log(`replicas: ${replicas.skipped}`);
  else
    log(
      `a write reaches the other replica in ${replicas.reachMs.median.toFixed(1)} ms (median of ` +
        `${replicas.reachMs.values.length}); full loads during the writes: ${replicas.fullLoads}`,
    );

  // ---- start-up of `node bin/start.mjs` on a prepared data directory -------------------------
  const startupDir = join(tmp, 'startup');
  const seeded = await startChild(
    'seed',
    join(BENCH, 'servers/gateway.ts'),
    ['--store', 'embedded', '--data-dir', startupDir, '--accounts', '1', '--upstream', upstreamUrl, '--seed-only'],
    {
      env: childEnv(),
    },
  );
  const startupToken = (seeded.info['tokens'] as string[])[0]!;
  await seeded.stop();
  // `warmups` starts first, not in the figure: the first start of a fresh checkout also fills
  // Node's compile cache (the gateway's modules compiled and type-stripped once); a restart of
  // the same installation finds it filled. The first start's time is reported beside the figure.
  const measureStartup = async (label: string, dataDir: string, token: string, runs: number, warmups = 0) => {
    const ms: number[] = [];
    const rss: number[] = [];
    const createApp: number[] = [];
    const cold: number[] = [];
    for (let i = -warmups; i < runs; i++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/register/mcp`;
      const t0 = performance.now();
      const proc = startProcess(
        'gateway-main',
        process.execPath,
        [...GATEWAY_NODE_FLAGS, join(ROOT, 'bin/start.mjs')],
        {
          env: childEnv({
            ...GATEWAY_PROCESS_ENV,
            // A cache of its own, empty before the first start: the cold start stays a first start.
            NODE_COMPILE_CACHE: join(tmp, 'compile-cache'),
            ...gatewayEnv({ upstream: upstreamUrl, dataDir, logLevel: 'info', port }),
          }),
          cwd: ROOT,
          captureStdout: true,
        },
      );
      let exited = false;
      void proc.exited.then(() => (exited = true));
      let elapsed = Number.NaN;
      while (!exited && performance.now() - t0 < 120_000) {
        try {
          const r = await once(url, CALL_BODY, token);
          if (isSuccess(r.status, r.text)) {
            elapsed = performance.now() - t0;
            break;
          }
        } catch {
          // not listening yet
        }
        await sleep(5);
      }
      if (Number.isNaN(elapsed))
        problems.push(
          `start-up (${label}) run ${i + 1}: no successful tools/call within 120 ` +
            `s${exited ? ' (the process exited)' : ''}: ${proc.stderr().slice(-500)}`,
        );
      if (i < 0) {
        cold.push(elapsed);
        await proc.stop();
        log(`start-up (${label}) first start, not counted: ${elapsed.toFixed(0)} ms to the first served call`);
        continue;
      }
      ms.push(elapsed);
      // bin/start.mjs logs `startupMs`: createApp (store open, snapshot, connectors) and listen.
      const listening = /"startupMs":(\d+)/.exec(proc.stdout());
      if (listening) createApp.push(Number(listening[1]));
      rss.push(rssMiB(proc.pid));
      await proc.stop();
      log(`start-up (${label}) ${i + 1}/${runs}: ${elapsed.toFixed(0)} ms to the first served call`);
    }
    return { ms, rss, createApp, cold };
  };
  const small = await measureStartup('1 tenant', startupDir, startupToken, options.startupRuns, 1);
  const startupMs = small.ms;
  const startupRss = small.rss;
  const createAppMs = small.createApp;
  const startupLarge = await measureStartup(
    `${options.largeAccounts} tenants`,
    join(tmp, 'gateway-large'),
    largeTokens[0]!,
    1,
  );
  await upstream.stop();

  // ---- full code generation --------------------------------------------------------------------
  const codegenMs: number[] = [];
  for (let i = 0; i < options.codegenRuns; i++) {
    const outDir = join(tmp, `codegen-${i}`);
    const t0 = performance.now();
    const proc = startProcess(
      'codegen',
      process.execPath,
      [join(ROOT, 'codegen/main.ts'), '--out', outDir, '--no-stubs'],
      { env: childEnv(), cwd: ROOT },
    );
    const code = await proc.exited;
    const ms = performance.now() - t0;
    if (code !== 0) problems.push(`code generation exited ${String(code)}: ${proc.stderr().slice(-500)}`);
    codegenMs.push(ms);
    log(`code generation ${i + 1}/${options.codegenRuns}: ${ms.toFixed(0)} ms`);
  }

  // ---- aggregate fold ----------------------------------------------------------------------------
  const folder = await startChild('fold', join(BENCH, 'fold.ts'), [], { env: childEnv(), execArgv: ['--expose-gc'] });
  const fold = await folder.job<FoldResult>({ sizes: [5_000, 50_000], repeats: options.foldRepeats });
  await folder.stop();
  log(
    'skipped' in fold
      ? `fold: skipped (${fold.skipped})`
      : `fold: ${fold.figures.map((f) => `${f.rows} rows ${f.cpuMs.median.toFixed(1)} ms CPU`).join(', ')}`,
  );

  // ---- young generation per call ----------------------------------------------------------------
  const youngChild = await startChild('young-generation', join(BENCH, 'young-generation.ts'), [], { env: childEnv() });
  const young = await youngChild.job<YoungGenerationResult>({ calls: options.quick ? 2_000 : 5_000 });
  await youngChild.stop();
  log(
    `young generation: call context ${(young.contextSurvival * 100).toFixed(2)} % survived; ` +
      `whole call ${(young.callSurvival * 100).toFixed(3)} % survived, ` +
      `${young.callPromotedBytesPerCall.toFixed(0)} B/call promoted (${young.callScavenges} scavenges)`,
  );

  // ---- figures ------------------------------------------------------------------------------------
  const perRun = <T>(id: string, f: (r: CaseRun) => T): T[] => (runs.get(id) ?? []).map(f);
  const rps = (id: string) => perRun(id, (r) => r.result.rps);
  const ratio = (a: string, b: string): Spread => {
    const x = rps(a);
    const y = rps(b);
    return spread(x.map((v, i) => v / y[i]!));
  };
  const rateFloor = rateRuns.get('floor') ?? [];
  const rateGateway = rateRuns.get('gateway-1') ?? [];
  const addedP99 = spread(rateGateway.map((g, i) => g.latency.p99 - rateFloor[i]!.latency.p99));
  const cpuRatio = (a: string, b: string): Spread => {
    const x = perRun(a, (r) => r.cpuUsPerCall);
    const y = perRun(b, (r) => r.cpuUsPerCall);
    return spread(x.map((v, i) => v / y[i]!));
  };
  const foldFigure = (rows: number) => ('skipped' in fold ? undefined : fold.figures.find((f) => f.rows === rows));

  const figures: Figure[] = [
    {
      figure: '`tools/call` throughput, gateway ÷ floor, same concurrency',
      spread: pairedFloor!.rps,
      unit: '×',
      target: { op: '>=', value: 0.8 },
      method:
        `Closed loop, ${options.connections} keep-alive connections (autocannon in its own process), successful ` +
        `calls per second of the gateway (1 account) divided by the floor's: the median of ${pairCount} pairs of ` +
        `~${pairSec} s runs, the two servers alternating (ABBA), each run following ~${pairSec / 2} s of the ` +
        `same load that is not measured, so both sides of a pair see the same machine. In the ${options.runs} ` +
        `runs of ~${options.durationSec} s below (each following 1 s of the same load that is not measured; the ` +
        `two servers ~10 s apart): ${ratio('gateway-1', 'floor').median.toFixed(2)}×.`,
    },
    {
      figure: '`tools/call` throughput, gateway ÷ SDK stateless pattern',
      spread: pairedPeer!.rps,
      unit: '×',
      target: { op: '>=', value: 2.5 },
      method:
        `As above (paired runs), divided by the MCP SDK ${sdkVersion} stateless server (express, new McpServer ` +
        'and transport per request; the same upstream request and the same answer bytes). In the ' +
        `${options.runs} runs below: ${ratio('gateway-1', 'peer').median.toFixed(2)}×.`,
    },
    {
      figure: '`tools/call` throughput, gateway ÷ SDK session pattern',
      spread: pairedPeerSession!.rps,
      unit: '×',
      target: { op: '>=', value: 2.5 },
      method:
        `As above, divided by the MCP SDK ${sdkVersion} session server its README shows (a transport per ` +
        `session kept in a map, one McpServer per session; ${options.connections} sessions opened before the ` +
        'runs, one per connection, each request carrying its `mcp-session-id`). The stronger of the two peers ' +
        `is the one to beat by 2.5×. In the ${options.runs} runs below: ` +
        `${ratio('gateway-1', 'peer-session').median.toFixed(2)}×.`,
    },
    {
      figure: `p99 latency added over the floor at a fixed ${options.rate.toLocaleString('en-US')} calls/s`,
      spread: addedP99,
      unit: 'ms',
      target: { op: '<=', value: 2 },
      method:
        `Open loop: an undici generator (own process, up to ${options.connections} connections) sends evenly ` +
        `spaced requests at ${options.rate}/s for ~${options.durationSec} s; each measured run follows 1 s at ` +
        `the same rate on the same server (not measured), so it starts from a steady ${options.rate}/s rather ` +
        'than from the closed-loop run before it; per-call latency from send to last byte; gateway p99 minus ' +
        `floor p99 of the same run. The gateway's main-thread garbage-collection pauses over these runs: ` +
        `${describeGc(rateGc)}.`,
    },
    {
      figure: `Event-loop delay p99 of the gateway at a fixed ${options.rate.toLocaleString('en-US')} calls/s`,
      spread: spread(rateDelay.map((d) => d.p99Ms)),
      unit: 'ms',
      target: { op: '<=', value: 5 },
      method:
        `\`monitorEventLoopDelay\` at 1 ms resolution in the gateway process over each fixed-rate run above ` +
        '(the same runs as the p99 figure): p99 of how late the 1 ms timer fired beyond its interval, i.e. ' +
        'what a call arriving at a random moment waits for the loop. Highest delay seen: ' +
        `${rateDelay.length ? Math.max(...rateDelay.map((d) => d.maxMs)).toFixed(1) : '—'} ms.`,
    },
    {
      figure: '`tools/list` throughput ÷ floor serving the same bytes',
      spread: pairedList!.rps,
      unit: '×',
      target: { op: '>=', value: 0.8 },
      method:
        `Closed loop as above: the gateway answering \`tools/list\` on the register endpoint (authenticated, ` +
        `rate-limited) against a node:http server that parses the same body and answers the gateway's own ` +
        `list result (${Buffer.byteLength(listed.text).toLocaleString('en-US')} bytes, checked equal in ` +
        `length before the runs) with the request's id; paired runs as the first figure. In the ` +
        `${options.runs} runs below: ${ratio('gateway-list', 'list-floor').median.toFixed(2)}×.`,
    },
    {
      figure: '`tools/list` throughput with a toolset selected ÷ floor serving the same bytes',
      spread: pairedListSelected!.rps,
      unit: '×',
      target: { op: '>=', value: 0.8 },
      method:
        `As the row above on \`${SELECTED_LIST_PATH}\` (the register endpoint narrowed to one toolset by ` +
        `the path form; its list is precomputed and cached apart from the whole list): ` +
        `${Buffer.byteLength(selectedListed.text).toLocaleString('en-US')} bytes against ` +
        `${Buffer.byteLength(listed.text).toLocaleString('en-US')} unselected. In the ${options.runs} runs ` +
        `below: ${ratio('gateway-list-selected', 'list-floor-selected').median.toFixed(2)}×.`,
    },
    {
      figure: '`tools/call` throughput with PostgreSQL, gateway ÷ floor',
      spread: pairedPg?.rps ?? spread([]),
      unit: '×',
      target: { op: '>=', value: 0.5 },
      method:
        'The gateway on the PostgreSQL store (a fresh schema, dropped afterwards) instead of the ' +
        `embedded one; otherwise as the first figure (paired runs). In the ${options.runs} runs ` +
        `below: ${pgGateway ? ratio('gateway-pg', 'floor').median.toFixed(2) : '—'}×.`,
      ...(pgSkip ? { note: pgSkip } : {}),
    },
    {
      figure: 'Start-up to the first served call (embedded store)',
      spread: spread(startupMs.map((v) => v / 1000)),
      unit: 's',
      target: { op: '<', value: 1 },
      method:
        `\`MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node ${GATEWAY_NODE_FLAGS.join(' ')} bin/start.mjs\` ` +
        '(as `npm run serve`) ' +
        'on a prepared (warm) data directory (embedded PostgreSQL with one tenant): time from spawning the process ' +
        `until the first \`tools/call\` answered successfully (polled every 5 ms); includes Node ` +
        'start-up and loading all seven connectors. Measured after one start that is not counted (the ' +
        `first start of this checkout, which also fills Node's compile cache: ` +
        `${small.cold.map((v) => `${(v / 1000).toFixed(2)} s`).join(', ')}), as ` +
        'any restart of an installation finds the cache filled.' +
        (createAppMs.length
          ? ` Of this, \`createApp\` and listen took ${spread(createAppMs).median.toFixed(0)} ms (median, from ` +
            `bin/start.mjs's \`startupMs\` log field); the rest is Node start-up and module loading.`
          : ''),
    },
    {
      figure: `CPU per \`tools/call\` with ${options.largeAccounts.toLocaleString('en-US')} accounts ÷ with 1 account`,
      spread: pairedLarge!.cpu,
      unit: '×',
      target: { op: '<=', value: 1.1 },
      method:
        'Server CPU per successful call of a second embedded gateway holding ' +
        `${options.largeAccounts.toLocaleString('en-US')} tenants (each with its user, token, subscription and ` +
        `seat, all in its snapshot), called with ${largeActive.length.toLocaleString('en-US')} of their tokens ` +
        `spread evenly over all of them (after a warm-up three times as long as the others', so one-time ` +
        `start-up work is not counted), divided by the 1,000-tenant gateway's with 1 active account: the median ` +
        `of ${pairCount} pairs of ~${pairSec} s runs, the two gateways alternating, as the first figure. In the ` +
        `${options.runs} runs below: ${cpuRatio('gateway-large', 'gateway-1').median.toFixed(2)}×; against the ` +
        '1,000-tenant gateway with as many active accounts there: ' +
        `${cpuRatio('gateway-large', `gateway-${maxAccounts}`).median.toFixed(2)}×.`,
    },
    {
      figure:
        'A write reaching every replica ' +
        `(${options.largeAccounts.toLocaleString('en-US')} accounts, PostgreSQL + Redis)`,
      spread: 'skipped' in replicas ? spread([]) : replicas.reachMs,
      unit: 'ms',
      target: { op: '<=', value: 100 },
      method:
        'Two gateway replicas on one PostgreSQL schema seeded with ' +
        `${options.largeAccounts.toLocaleString('en-US')} tenants, sharing Redis. Through replica A, ` +
        'alternately a token revoke and a seat change of tenants spread over the table (the store write, ' +
        `then A's catch-up, which broadcasts the change version); measured from the start of the write on A ` +
        `until replica B's snapshot holds it (B polled every 1 ms, clocks of one machine). Every revoked ` +
        'token is then refused by B (HTTP 401). Full snapshot loads on either replica during the writes: ' +
        `${'skipped' in replicas ? '—' : replicas.fullLoads} (every write is applied by the keys it changed).`,
      ...('skipped' in replicas ? { note: replicas.skipped } : {}),
    },
    {
      figure: 'Resident memory, idle (all connectors loaded)',
      spread: spread([rssIdle]),
      unit: 'MiB',
      target: { op: '<', value: 200 },
      method:
        `VmRSS of the gateway process 1 s after it was ready (${maxAccounts} tenants, all seven connectors, ` +
        `embedded store on a warm data directory, Node flags ${GATEWAY_NODE_FLAGS.join(' ')}, ` +
        'MALLOC_ARENA_MAX=2, MALLOC_MMAP_THRESHOLD_=131072 and a filled compile cache as `npm run serve` restarts), ' +
        'before any load. Of it: V8 heap ' +
        `${mib(memoryIdle.heapTotal)} MiB (${mib(memoryIdle.heapUsed)} used), external memory ` +
        `${mib(memoryIdle.external)} MiB (buffers), the rest (the embedded engine's ` +
        'thread with its WebAssembly memory, code, Node itself) ' +
        `${mib(memoryIdle.rss - memoryIdle.heapTotal - memoryIdle.external)} MiB. A fresh \`bin/start.mjs\` (one ` +
        `tenant) after its first call: ${spread(startupRss).median.toFixed(0)} MiB. With ` +
        `${options.largeAccounts.toLocaleString('en-US')} tenants: ${rssIdleLarge.toFixed(0)} MiB (V8 heap ` +
        `${mib(memoryIdleLarge.heapTotal)} MiB).`,
    },
    {
      figure: 'Resident memory, idle, on PostgreSQL (all connectors loaded)',
      spread: spread(pgGateway ? [rssIdlePg] : []),
      unit: 'MiB',
      target: { op: '<', value: 150 },
      method:
        'The same gateway on the PostgreSQL store (no embedded database in ' +
        'the process; no special Node flags), 1 s after ready.' +
        (memoryIdlePg
          ? ` V8 heap ${mib(memoryIdlePg.heapTotal)} MiB (${mib(memoryIdlePg.heapUsed)} used), external ` +
            `${mib(memoryIdlePg.external)} MiB; ${rssLoadPg.toFixed(0)} MiB at most under load.`
          : ''),
      ...(pgSkip ? { note: pgSkip } : {}),
    },
    {
      figure: 'Resident memory under load',
      spread: spread([rssLoad]),
      unit: 'MiB',
      target: { op: '<', value: 260 },
      method: 'Highest VmRSS of the gateway process sampled every 200 ms during all its measured runs.',
    },
    {
      figure: 'Resident memory under load, on PostgreSQL',
      spread: spread(pgGateway ? [rssLoadPg] : []),
      unit: 'MiB',
      target: { op: '<', value: 200 },
      method: 'The same for the gateway on the PostgreSQL store (no embedded engine in the process).',
      ...(pgSkip ? { note: pgSkip } : {}),
    },
    {
      figure: 'Resident memory growth over a long load (last mark ÷ first)',
      spread: spread(soak ? [soak.marks.at(-1)![1] / soak.marks[0]![1]] : []),
      unit: '×',
      target: { op: '<=', value: 1.1 },
      method:
        `Its own embedded gateway (one tenant) under the closed-loop load above for ${options.soakMinutes} minutes ` +
        '(chunks of 20,000 calls); VmRSS read between chunks at each mark' +
        (soak
          ? `: ${soak.marks.map(([m, v]) => `${v.toFixed(0)} MiB after ${m} min`).join(', ')}; ` +
            `${soak.calls.toLocaleString('en-US')} calls, ${soak.cpuUsPerCall.toFixed(0)} µs CPU per call ` +
            'over the soak.'
          : '.'),
      ...(options.soakMinutes > 0 ? {} : { note: 'skipped with --soak-minutes 0' }),
    },
    {
      figure: `${SLOW_CALLS.toLocaleString('en-US')} calls in flight against a ${SLOW_DELAY_MS / 1000} s upstream, p99`,
      spread: spread(slow ? [slow.result.latency.p99] : []),
      unit: 'ms',
      target: { op: '<', value: 2 * SLOW_DELAY_MS },
      method:
        `An upstream that answers every request after ${SLOW_DELAY_MS} ms, its own embedded gateway (one tenant, the ` +
        `register's concurrency cap raised to ${SLOW_CALLS * 2}, connections per upstream origin at the default ` +
        `${DEFAULT_UPSTREAM_CONNECTIONS.toLocaleString('en-US')}); an open-loop generator sends ` +
        `${SLOW_CALLS.toLocaleString('en-US')} calls within ~0.1 s on as many connections and waits for every ` +
        'answer; latency from send to last byte. ' +
        (slow
          ? `${slow.result.ok.toLocaleString('en-US')} of ${slow.result.sent.toLocaleString('en-US')} answered ` +
            `(p50 ${slow.result.latency.p50.toFixed(0)} ms, max ${slow.result.latency.max.toFixed(0)} ms).`
          : ''),
    },
    {
      figure: 'Memory per call in flight (the row above)',
      spread: spread(slow ? [slow.perCallKiB] : []),
      unit: 'KiB',
      target: { op: '<', value: 128 },
      method:
        '(Highest VmRSS of the slow-upstream gateway sampled every 50 ms while the calls were in flight − its VmRSS ' +
        'before) ÷ calls' +
        (slow ? `: ${slow.idleMiB.toFixed(0)} → ${slow.peakMiB.toFixed(0)} MiB.` : '.'),
    },
    {
      figure: 'Full code generation of all specs',
      spread: spread(codegenMs.map((v) => v / 1000)),
      unit: 's',
      target: { op: '<', value: 5 },
      method:
        '`node codegen/main.ts --out <temp dir> --no-stubs`: load, validate, IR and every emitter for all ' +
        'specs, written to an empty directory; wall time of the whole process including Node start-up.',
    },
    {
      figure: '`aggregate` fold of 50,000 rows, CPU',
      spread: foldFigure(50_000)?.cpuMs ?? spread([]),
      unit: 'ms',
      target: { op: '<', value: 100 },
      method:
        'process.cpuUsage() (user + system) around one fold of 50,000 synthetic GLTransClient-like rows ' +
        '(group by 2 properties, sum 2; about 1% unparseable values) in a process of its own, after a ' +
        `warm-up; median of ${options.foldRepeats}. Rows are made before the clock starts, so this is the ` +
        `CPU beyond upstream time.${'skipped' in fold ? '' : ` Called as ${fold.how}.`}`,
      ...('skipped' in fold ? { note: `skipped: ${fold.skipped}` } : {}),
    },
    {
      figure: 'Young generation surviving a whole `tools/call`',
      spread: spread([young.callSurvival * 100]),
      unit: '%',
      target: { op: '<', value: 0.6 },
      method:
        `v8.GCProfiler around ${young.calls.toLocaleString('en')} register calls one after another (after ` +
        '1,000 not measured) through a gateway in a process of its own: HTTP in on node:http, the ' +
        'handler, HTTP out to a fixed upstream answer, info logs to a sink. Of what the young generation ' +
        `held at each of ${young.callScavenges} scavenges, the share that survived ` +
        '(test/bench/young-generation.ts). Anything per call that outlives its call shows here.',
    },
    {
      figure: 'Promoted to the old generation per whole `tools/call`',
      spread: spread([young.callPromotedBytesPerCall]),
      unit: 'B',
      target: { op: '<', value: 600 },
      method: 'The same run: growth of old space across its scavenges, divided by the calls.',
    },
    {
      figure: 'Young generation surviving call contexts made and dropped',
      spread: spread([young.contextSurvival * 100]),
      unit: '%',
      target: { op: '<', value: 20 },
      method:
        `v8.GCProfiler around ${young.contextCalls.toLocaleString('en')} tool-call contexts, each ` +
        'reaching ~8 KB of its own, used (ctx.log, ctx.describeFailure) and dropped. An object literal ' +
        'with an accessor of its own kept half of it alive (51 %); as a class, 0.2 %.',
    },
  ];

  const meteringExact = metering.length > 0 && metering.every((m) => m.expected === m.totalCalls);
  const report: Report = {
    date,
    machine,
    options: {
      runs: options.runs,
      durationSec: options.durationSec,
      connections: options.connections,
      rate: options.rate,
      quick: options.quick,
      logLevel: options.logLevel,
      cpuProf: options.cpuProf,
    },
    figures,
    throughput: cases.map((c) => {
      const list = runs.get(c.id) ?? [];
      return {
        id: c.id,
        label: c.label,
        request: c.body === LIST_BODY ? 'tools/list' : 'tools/call',
        rps: spread(list.map((r) => r.result.rps)),
        p50: spread(list.map((r) => r.result.latency.p50)),
        p99: spread(list.map((r) => r.result.latency.p99)),
        cpuUsPerCall: spread(list.map((r) => r.cpuUsPerCall)),
      };
    }),
    fixedRate: rateCases.map((c) => {
      const list = rateRuns.get(c.id) ?? [];
      return {
        label: c.label,
        p50: spread(list.map((r) => r.latency.p50)),
        p99: spread(list.map((r) => r.latency.p99)),
        achieved: spread(list.map((r) => r.rps)),
      };
    }),
    growth: options.growth.map((n) => ({
      accounts: n,
      rps: spread(rps(`gateway-${n}`)),
      ratio: ratio(`gateway-${n}`, 'floor'),
      cpuUsPerCall: spread(perRun(`gateway-${n}`, (r) => r.cpuUsPerCall)),
    })),
    fold:
      'skipped' in fold
        ? { skipped: fold.skipped }
        : { figures: fold.figures, ...(fold.memory ? { memory: fold.memory } : {}) },
    metering,
    gatewayDelay,
    snapshot: {
      tenants: maxAccounts,
      writeMs: spread(refreshCost.writeMs),
      fullMs: spread(refreshCost.fullMs),
      largeTenants: options.largeAccounts,
      largeWriteMs: spread(refreshCostLarge.writeMs),
      largeFullMs: spread(refreshCostLarge.fullMs),
      everyMs: refreshCost.refreshEveryMs,
    },
    rateDelay: { p99: spread(rateDelay.map((d) => d.p99Ms)), max: spread(rateDelay.map((d) => d.maxMs)) },
    large: {
      accounts: options.largeAccounts,
      active: largeActive.length,
      rps: spread(rps('gateway-large')),
      cpuUsPerCall: spread(perRun('gateway-large', (r) => r.cpuUsPerCall)),
      cpuRatio: pairedLarge!.cpu,
      rssIdle: rssIdleLarge,
      startup: spread(startupLarge.ms),
      startupCreateApp: spread(startupLarge.createApp),
      replicas: 'skipped' in replicas ? undefined : replicas,
    },
    memory: {
      idle: rssIdle,
      load: rssLoad,
      idlePostgres: rssIdlePg,
      loadPostgres: pgGateway ? rssLoadPg : Number.NaN,
      freshMain: spread(startupRss).median,
    },
    startup: { total: spread(startupMs), createApp: spread(createAppMs) },
    problems,
    ...(profileFile ? { profileFile: relative(ROOT, profileFile) } : {}),
    allocation,
  };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, renderReport(report));
  log(`wrote ${relative(ROOT, options.out) || options.out}`);
  for (const f of figures) log(`  ${f.figure}: ${f.spread.median.toFixed(2)} ${f.unit}${f.note ? ` (${f.note})` : ''}`);

  if (!meteringExact) {
    console.error(
      '\n[bench] METERING WAS NOT EXACT: usage totalCalls differs from ' +
        'the successful calls the load generator counted.',
    );
    for (const m of metering) console.error(`  ${m.gateway}: totalCalls ${m.totalCalls}, counted ${m.expected}`);
    process.exitCode = 1;
  }
  if (problems.length > 0) {
    console.error(`\n[bench] ${problems.length} problem(s) during the runs:`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  }
}

const HELP = `Usage: npm run bench -- [options]   (about 20 minutes; writes BENCHMARKS.md)

  --quick                 1 short run each (development; writes .bench/BENCHMARKS-quick.md)
  --runs N --duration S   runs per figure (5) and seconds per run (5); --warmup S (2)
  --connections N         load-generator connections (32); --rate N requests per second (1000)
  --cpu-prof              also write a CPU profile of the gateway while it serves (.bench/profiles/)
  --out FILE              write the table elsewhere (default BENCHMARKS.md)
  --no-postgres           skip the PostgreSQL figure (else --database-url URL or BENCH_DATABASE_URL)
  --no-redis              skip the replica figure (else --redis-url URL or BENCH_REDIS_URL)
  --large-accounts N      tenants of the growth gateway and the replica figure (100000)
  --soak-minutes N        minutes of the memory-over-time row (10; quick: 1; 0 skips it)
  --startup-runs N, --codegen-runs N, --fold-repeats N, --log-level LEVEL
  --help                  print this help and start nothing

Exit code 1 when metering was not exact or a run failed; a missed target alone does not fail.`;

if (process.argv.includes('--help') || process.argv.includes('-h')) console.log(HELP);
else
  main()
    .catch((error: unknown) => {
      console.error(`[bench] failed: ${(error as Error)?.stack ?? String(error)}`);
      process.exitCode = 1;
    })
    .finally(async () => {
      const left = liveChildren();
      if (left.length > 0) console.error(`[bench] killing leftover children: ${left.join(', ')}`);
      await cleanup();
    });

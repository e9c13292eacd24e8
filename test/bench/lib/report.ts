// Renders BENCHMARKS.md from one harness run: machine, settings, the targets table, every
// measured figure with its method, and "What misses and why" (filled from the figures; a marked
// place is left for profiling notes).
import { existsSync, readFileSync } from 'node:fs';
import type { MachineInfo } from './machine.ts';
import type { Spread } from './stats.ts';

export interface Target {
  readonly op: '>=' | '<=' | '<';
  readonly value: number;
}

export interface Figure {
  readonly figure: string;
  readonly spread: Spread;
  readonly unit: string;
  readonly target: Target;
  readonly method: string;
  /** Why the figure is missing or what limits it. */
  readonly note?: string;
}

export interface ThroughputRow {
  readonly id: string;
  readonly label: string;
  readonly request: string;
  readonly rps: Spread;
  readonly p50: Spread;
  readonly p99: Spread;
  readonly cpuUsPerCall: Spread;
}

export interface ReplicaFigures {
  /** From the start of a write on replica A to replica B holding it, ms. */
  readonly reachMs: Spread;
  /** The same for token revokes and seat changes alone. */
  readonly revokeMs: Spread;
  readonly seatMs: Spread;
  /** Write plus catch-up on the replica that made it, ms. */
  readonly localMs: Spread;
  /** Full snapshot loads on either replica during the writes (expected 0). */
  readonly fullLoads: number;
  readonly accounts: number;
  /** Start of a replica process to ready (seeded PostgreSQL, full snapshot load), ms. */
  readonly replicaReadyMs: number;
}

export interface Report {
  readonly date: Date;
  readonly machine: MachineInfo;
  readonly options: {
    readonly runs: number;
    readonly durationSec: number;
    readonly connections: number;
    readonly rate: number;
    readonly quick: boolean;
    readonly logLevel: string;
    readonly cpuProf: boolean;
  };
  readonly figures: readonly Figure[];
  readonly throughput: readonly ThroughputRow[];
  readonly fixedRate: readonly {
    readonly label: string;
    readonly achieved: Spread;
    readonly p50: Spread;
    readonly p99: Spread;
  }[];
  readonly growth: readonly {
    readonly accounts: number;
    readonly rps: Spread;
    readonly ratio: Spread;
    readonly cpuUsPerCall: Spread;
  }[];
  readonly fold:
    | { readonly skipped: string }
    | {
        readonly figures: readonly { readonly rows: number; readonly cpuMs: Spread; readonly wallMs: Spread }[];
        readonly memory?: {
          readonly rows: number;
          readonly retainedKiB: number;
          readonly peakKiB: number;
          readonly onePageKiB: number;
        };
      };
  readonly metering: readonly {
    readonly gateway: string;
    readonly accounts: number;
    readonly expected: number;
    readonly totalCalls: number;
  }[];
  /** Event-loop delay of the embedded gateway over its measured runs. */
  readonly gatewayDelay: { readonly delayMaxMs: number; readonly delayP99Ms: number; readonly delayMeanMs: number };
  /** What a write costs the in-memory snapshot (catch-up by the keys it changed), and a full load for comparison. */
  readonly snapshot: {
    readonly tenants: number;
    readonly writeMs: Spread;
    readonly fullMs: Spread;
    readonly largeTenants: number;
    readonly largeWriteMs: Spread;
    readonly largeFullMs: Spread;
    readonly everyMs: number;
  };
  /** Event-loop delay beyond the 1 ms sampling interval during the fixed-rate runs, ms. */
  readonly rateDelay: { readonly p99: Spread; readonly max: Spread };
  /** The growth gateway with many tenants. */
  readonly large: {
    readonly accounts: number;
    readonly active: number;
    readonly rps: Spread;
    readonly cpuUsPerCall: Spread;
    readonly cpuRatio: Spread;
    readonly rssIdle: number;
    readonly startup: Spread;
    readonly startupCreateApp: Spread;
    readonly replicas: ReplicaFigures | undefined;
  };
  /** MiB. */
  readonly memory: {
    readonly idle: number;
    readonly load: number;
    readonly idlePostgres: number;
    readonly loadPostgres: number;
    readonly freshMain: number;
  };
  /** ms. */
  readonly startup: { readonly total: Spread; readonly createApp: Spread };
  readonly problems: readonly string[];
  readonly profileFile?: string;
  /** What one `tools/call` allocates, sampled in a window of its own (lib/allocation.ts). */
  readonly allocation: readonly AllocationRow[];
}

export interface AllocationRow {
  readonly label: string;
  /** The floor's row: the others are divided by it. */
  readonly floor: boolean;
  readonly calls: number;
  readonly kibPerCall: number;
  /** The functions that allocated most, bytes per call each. */
  readonly top: readonly { readonly name: string; readonly at: string; readonly bytesPerCall: number }[];
}

const OP_TEXT: Record<Target['op'], string> = { '>=': '≥', '<=': '≤', '<': '<' };

function fmt(value: number, unit: string): string {
  if (!Number.isFinite(value)) return '—';
  const digits =
    unit === 'calls/s' || unit === 'µs' || unit === 'MiB'
      ? 0
      : Math.abs(value) >= 100
        ? 0
        : Math.abs(value) >= 10
          ? 1
          : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function withUnit(value: number, unit: string): string {
  const text = fmt(value, unit);
  if (text === '—') return text;
  return unit === '×' ? `${text}×` : `${text} ${unit}`;
}

function range(s: Spread, unit: string): string {
  if (!Number.isFinite(s.median)) return '—';
  if (s.values.length <= 1) return 'one run';
  return `${fmt(s.min, unit)}–${fmt(s.max, unit)}`;
}

export function met(f: Figure): boolean | undefined {
  const v = f.spread.median;
  if (!Number.isFinite(v)) return undefined;
  if (f.target.op === '>=') return v >= f.target.value;
  if (f.target.op === '<=') return v <= f.target.value;
  return v < f.target.value;
}

function metText(f: Figure): string {
  const m = met(f);
  return m === undefined ? 'not measured' : m ? 'yes' : '**no**';
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function dateText(d: Date): string {
  return (
    `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-` +
    `${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())} UTC`
  );
}

function misses(report: Report): string[] {
  const out: string[] = [];
  const row = (id: string) => report.throughput.find((t) => t.id === id);
  const floor = row('floor');
  const gateway = row('gateway-1');
  const cpuLine = () => {
    if (!floor || !gateway) return '';
    const g = gateway.cpuUsPerCall.median;
    const f = floor.cpuUsPerCall.median;
    return (
      ` The gateway process used ${fmt(g, 'µs')} µs of CPU per call against ${fmt(f, 'µs')} µs for the floor ` +
      `(${fmt(g - f, 'µs')} µs more per call, ${fmt(g / f, '×')}×); with ${report.machine.cores} cores shared by ` +
      'the load generator, the upstream and the server, throughput ratios follow CPU per call only roughly.'
    );
  };
  for (const f of report.figures) {
    const m = met(f);
    if (m === undefined) {
      out.push(`- **${f.figure}**: not measured${f.note ? ` — ${f.note}` : ''}.`);
      continue;
    }
    if (m) continue;
    let why = '';
    if (f.figure.includes('gateway ÷ floor') || f.figure.includes('PostgreSQL')) why = cpuLine();
    else if (f.figure.includes('peer')) {
      const p = row('peer');
      why =
        p && gateway
          ? ` The peer pattern used ${fmt(p.cpuUsPerCall.median, 'µs')} µs of CPU per ` +
            `call, the gateway ${fmt(gateway.cpuUsPerCall.median, 'µs')} µs.`
          : '';
    } else if (f.figure.includes('p99 latency')) {
      const fr = report.fixedRate;
      why =
        fr.length === 2
          ? ` p99 at the fixed rate: floor ${fmt(fr[0]!.p99.median, 'ms')} ms, gateway ` +
            `${fmt(fr[1]!.p99.median, 'ms')} ms (p50 ${fmt(fr[0]!.p50.median, 'ms')} / ` +
            `${fmt(fr[1]!.p50.median, 'ms')} ms). During those runs the gateway's event loop was late by ` +
            `${fmt(report.rateDelay.p99.median, 'ms')} ms at p99 and at most ` +
            `${fmt(report.rateDelay.max.median, 'ms')} ms; the embedded database executes on the gateway's own ` +
            'thread, so its work (usage flushes, version polls) and garbage collection set the tail.'
          : '';
    } else if (f.figure.includes('Resident memory')) {
      const m = report.memory;
      why = Number.isFinite(m.idlePostgres)
        ? ` The same gateway on the PostgreSQL store used ${fmt(m.idlePostgres, 'MiB')} MiB idle and ` +
          `${fmt(m.loadPostgres, 'MiB')} MiB under load: the embedded database (PGlite, PostgreSQL compiled to ` +
          `WebAssembly, in the gateway process) accounts for about ${fmt(m.idle - m.idlePostgres, 'MiB')} MiB.`
        : '';
    } else if (f.figure.includes('Start-up')) {
      const s = report.startup;
      why = Number.isFinite(s.createApp.median)
        ? ` \`createApp\` and listen (opening the embedded database, migrations, snapshot, ` +
          `connectors) took ${fmt(s.createApp.median, 'ms')} ms of it; the rest, about ` +
          `${fmt(s.total.median - s.createApp.median, 'ms')} ms, is Node start-up and loading the ` +
          'modules (runtime, generated validators and descriptors of all connectors, PGlite).'
        : '';
    } else if (f.figure.includes('tools/list')) {
      const e = row('list-floor');
      const l = row('gateway-list');
      why =
        e && l
          ? ` CPU per answer: floor ${fmt(e.cpuUsPerCall.median, 'µs')} µs, gateway tools/list ` +
            `${fmt(l.cpuUsPerCall.median, 'µs')} µs (the same bytes; the list is precomputed, the ` +
            'difference is authentication, rate limit, routing and logging).'
          : '';
    } else if (f.figure.includes('accounts ÷')) {
      why =
        ` CPU per call: ${fmt(report.large.cpuUsPerCall.median, 'µs')} µs with ` +
        `${report.large.accounts.toLocaleString('en-US')} accounts, ` +
        `${fmt(gateway?.cpuUsPerCall.median ?? Number.NaN, 'µs')} µs with 1.`;
    }
    out.push(
      `- **${f.figure}**: ${withUnit(f.spread.median, f.unit)} (median; ${range(f.spread, f.unit)}) ` +
        `against a target of ${OP_TEXT[f.target.op]} ${withUnit(f.target.value, f.unit)}.${why}`,
    );
  }
  return out;
}

export function renderReport(report: Report): string {
  const { machine, options } = report;
  const lines: string[] = [];
  lines.push('# Benchmarks', '');
  lines.push(
    `Written by \`npm run bench\` on ${dateText(report.date)}. Re-run it after every change ` +
      'that touches a hot path; the figures are only comparable on the same machine.',
    '',
  );
  if (options.quick)
    lines.push(
      '> **Development run (`--quick`)**: one short run per figure, not for ' +
        'publication. Run `npm run bench` on a quiet machine for the published table.',
      '',
    );
  lines.push(
    table(
      ['Machine', ''],
      [
        ['CPU', `${machine.cpuModel}`],
        ['Cores', String(machine.cores)],
        ['RAM', `${machine.ramGiB} GiB`],
        ['OS', machine.os],
        ['Node', machine.node],
        ['Load average at start', machine.loadAverage || '—'],
        [
          'Runs',
          `${options.runs} run(s) per figure, ~${options.durationSec} s each, after a warm-up; medians with min–max`,
        ],
        [
          'Concurrency',
          `${options.connections} keep-alive connections (throughput); ${options.rate} calls/s open loop (latency)`,
        ],
        ['Gateway log level', `${options.logLevel} (JSON logs to /dev/null)`],
        ...(options.cpuProf
          ? [['CPU profiler', "on in the embedded gateway: its figures include the profiler's overhead"]]
          : []),
      ],
    ),
    '',
  );

  lines.push('## Targets', '');
  lines.push(
    table(
      ['Figure', 'Median', 'Min–max', 'Target', 'Met'],
      report.figures.map((f) => [
        f.figure,
        withUnit(f.spread.median, f.unit),
        range(f.spread, f.unit),
        `${OP_TEXT[f.target.op]} ${withUnit(f.target.value, f.unit)}`,
        metText(f),
      ]),
    ),
    '',
  );

  lines.push('### Metering stays exact', '');
  if (report.metering.length === 0) lines.push('No gateway run was metered.', '');
  else {
    lines.push(
      table(
        [
          'Gateway process',
          'Accounts',
          'Successful calls counted by the load generator',
          'Usage `totalCalls` (sum of `GET /api/usage`)',
          'Exact',
        ],
        report.metering.map((m) => [
          m.gateway,
          String(m.accounts),
          m.expected.toLocaleString('en-US'),
          m.totalCalls.toLocaleString('en-US'),
          m.expected === m.totalCalls ? 'yes' : '**NO**',
        ]),
      ),
      '',
      'Counted over every call the harness sent to that gateway process (sanity call, ' +
        'warm-up and measured runs, closed and open loop). Usage is read through the API ' +
        'before the gateway stops, which includes counts not yet flushed.',
      '',
    );
  }

  lines.push(`## Throughput and latency at ${options.connections} connections`, '');
  lines.push(
    table(
      ['Server', 'Request', 'Calls/s (median)', 'Min–max', 'p50', 'p99', 'Server CPU per call'],
      report.throughput.map((t) => [
        t.label,
        `\`${t.request}\``,
        fmt(t.rps.median, 'calls/s'),
        range(t.rps, 'calls/s'),
        withUnit(t.p50.median, 'ms'),
        withUnit(t.p99.median, 'ms'),
        withUnit(t.cpuUsPerCall.median, 'µs'),
      ]),
    ),
    '',
  );

  if (report.allocation.length > 0) lines.push(...allocationSection(report.allocation));

  lines.push(`## Latency at a fixed ${options.rate.toLocaleString('en-US')} calls/s`, '');
  lines.push(
    table(
      ['Server', 'Achieved calls/s', 'p50', 'p99'],
      report.fixedRate.map((r) => [
        r.label,
        fmt(r.achieved.median, 'calls/s'),
        withUnit(r.p50.median, 'ms'),
        `${withUnit(r.p99.median, 'ms')} (${range(r.p99, 'ms')})`,
      ]),
    ),
    '',
    `A write and the snapshot catch-up after it (a seat change, then \`state.refresh()\`: the keys changed ` +
      `since the snapshot's change version are read back, nothing else), embedded store: ` +
      `${withUnit(report.snapshot.writeMs.median, 'ms')} (${range(report.snapshot.writeMs, 'ms')}) with ` +
      `${report.snapshot.tenants.toLocaleString('en-US')} tenants, ` +
      `${withUnit(report.snapshot.largeWriteMs.median, 'ms')} (${range(report.snapshot.largeWriteMs, 'ms')}) ` +
      `with ${report.snapshot.largeTenants.toLocaleString('en-US')}. A full load of the snapshot, which now runs ` +
      'only at start (or when a replica fell behind the pruned change log), takes ' +
      `${withUnit(report.snapshot.fullMs.median, 'ms')} and ` +
      `${withUnit(report.snapshot.largeFullMs.median, 'ms')}. Other replicas' writes are caught up the same way, ` +
      `on their broadcast or at the latest by the change version polled every ${report.snapshot.everyMs} ms.`,
    '',
    'Event-loop delay of the gateway process over all its measured runs, closed loop at full load included ' +
      `(\`monitorEventLoopDelay\`, 5 ms resolution, which the figures include): mean ` +
      `${withUnit(report.gatewayDelay.delayMeanMs, 'ms')}, p99 ` +
      `${withUnit(report.gatewayDelay.delayP99Ms, 'ms')}, max ${withUnit(report.gatewayDelay.delayMaxMs, 'ms')}. ` +
      'During the fixed-rate runs alone (1 ms resolution, beyond the interval): p99 ' +
      `${withUnit(report.rateDelay.p99.median, 'ms')}, max ${withUnit(report.rateDelay.max.median, 'ms')}. A ` +
      'call that arrives during a stall waits for it, so the stalls set the latency tail.',
    '',
  );

  lines.push('## Growth', '');
  lines.push(
    'Entitlements come from the in-memory snapshot, so spreading the same load ' +
      'over more accounts should cost (almost) nothing per call:',
    '',
  );
  lines.push(
    table(
      ['Active accounts', 'Gateway calls/s', 'Min–max', '÷ floor (same run)', 'Gateway CPU per call'],
      report.growth.map((g) => [
        g.accounts.toLocaleString('en-US'),
        fmt(g.rps.median, 'calls/s'),
        range(g.rps, 'calls/s'),
        withUnit(g.ratio.median, '×'),
        withUnit(g.cpuUsPerCall.median, 'µs'),
      ]),
    ),
    '',
  );
  const L = report.large;
  const reps = L.replicas;
  lines.push(
    `### ${L.accounts.toLocaleString('en-US')} accounts`,
    '',
    table(
      ['Figure', 'Value'],
      [
        [
          `\`tools/call\` with ${L.active.toLocaleString('en-US')} of them active, calls/s`,
          `${fmt(L.rps.median, 'calls/s')} (${range(L.rps, 'calls/s')})`,
        ],
        [
          'CPU per call',
          `${withUnit(L.cpuUsPerCall.median, 'µs')}, ${withUnit(L.cpuRatio.median, '×')} of 1 account's (paired runs)`,
        ],
        ['Resident memory, idle', `${fmt(L.rssIdle, 'MiB')} MiB`],
        [
          'Start-up to the first served call (`bin/start.mjs`, warm data directory)',
          withUnit(L.startup.median / 1000, 's') +
            (Number.isFinite(L.startupCreateApp.median)
              ? ` (createApp and listen ${withUnit(L.startupCreateApp.median, 'ms')}: ` +
                'opening the database and one full snapshot load)'
              : ''),
        ],
        [
          'A write and its catch-up, embedded store (one replica)',
          `${withUnit(report.snapshot.largeWriteMs.median, 'ms')} (${range(report.snapshot.largeWriteMs, 'ms')})`,
        ],
        ...(reps
          ? [
              [
                'A write reaching the other replica (PostgreSQL + Redis): token revoke',
                `${withUnit(reps.revokeMs.median, 'ms')} (${range(reps.revokeMs, 'ms')})`,
              ],
              ['… seat change', `${withUnit(reps.seatMs.median, 'ms')} (${range(reps.seatMs, 'ms')})`],
              [
                '… on the writing replica (write, catch-up, broadcast)',
                `${withUnit(reps.localMs.median, 'ms')} (${range(reps.localMs, 'ms')})`,
              ],
              ['Full snapshot loads during those writes', String(reps.fullLoads)],
              ['A replica process from start to ready (PostgreSQL)', withUnit(reps.replicaReadyMs, 'ms')],
            ]
          : [['A write reaching the other replica', 'not measured']]),
      ],
    ),
    '',
  );
  if ('skipped' in report.fold) lines.push(`\`aggregate\` fold: **skipped** — ${report.fold.skipped}`, '');
  else {
    lines.push(
      table(
        ['`aggregate` fold', 'CPU (median)', 'Min–max', 'Wall (median)'],
        report.fold.figures.map((f) => [
          `${f.rows.toLocaleString('en-US')} rows`,
          withUnit(f.cpuMs.median, 'ms'),
          range(f.cpuMs, 'ms'),
          withUnit(f.wallMs.median, 'ms'),
        ]),
      ),
      '',
    );
    const m = report.fold.memory;
    if (m) {
      lines.push(
        `Memory of the fold (pages of 1,000 rows made one at a time and dropped after \`add\`, as the handler ` +
          `reads them; heap measured with \`--expose-gc\` after a full GC): folding ` +
          `${m.rows.toLocaleString('en-US')} rows retained ${m.retainedKiB.toLocaleString('en-US')} KiB (the ` +
          `groups) and at most ${m.peakKiB.toLocaleString('en-US')} KiB were live while a page was held, against ` +
          `${m.onePageKiB.toLocaleString('en-US')} KiB for one page of rows: memory stays bounded by about one ` +
          'page, not by the rows read.',
        '',
      );
    }
  }

  lines.push('## Method', '');
  lines.push(
    '- Every server is a process of its own, started by the harness (`test/bench/run.ts`) and stopped by ' +
      'it: the zero-latency upstream (a node:http server answering every request with one fixed ' +
      'Elasticsearch `_search` hit), the floor, the peer pattern, the `tools/list` floor and the gateways. ' +
      'The load generator is another process. On this machine they all share the same cores.',
    "- **Floor**: node:http, one `JSON.parse`, one undici request (keep-alive pool, through undici's " +
      'handler API as the gateway makes its upstream calls: `test/bench/lib/post.ts`) to the upstream, the ' +
      'upstream JSON returned as the text of a JSON-RPC result. No checks of any kind.',
    "- **Load generator** (fixed rate): undici's handler API too (`lib/post.ts`), so its own " +
      "garbage collections stay short: with undici's `request()` its scavenges took ~15 ms and " +
      'delayed the reading of answers from whichever server was measured.',
    "- **Peer pattern**: the MCP TypeScript SDK's documented stateless Streamable HTTP server " +
      '(`createMcpExpressApp()`, a new `McpServer` and `StreamableHTTPServerTransport({ ' +
      'sessionIdGenerator: undefined })` per request, SSE response as in the example), one ' +
      'zod-typed tool making the same undici call as the floor (`lib/post.ts`).',
    '- **Gateway**: `createApp` from `runtime/app.ts` with all seven connectors loaded, the embedded ' +
      'store (PGlite) seeded with 1,000 tenants (admin user, accepted terms, subscription and seat on the ' +
      'register, fair use in soft mode, one token each), calling `register__hent_virksomhed` through the ' +
      'real register handler with the managed HTTP Basic credential. Caller authentication, the rate limit ' +
      '(per second and burst 1,000,000, so the limit is applied but never refuses), tool lookup, ' +
      'subscription, seat, connection, fair use, argument validation, the register concurrency gate ' +
      '(raised to 256), metering, metrics and structured logs are all on.',
    '- A call counts as successful when it is answered HTTP 2xx with a JSON-RPC result that is ' +
      'not an error and not `isError`. Closed-loop runs send a fixed number of requests (the ' +
      'warm-up rate × the run length), so nothing is left in flight when a run ends.',
    '- Each run measures every server once, one after the other; ratios are taken within a run, then ' +
      "the median (and min–max) over runs is reported. Server CPU per call is the server process's user " +
      '+ system time (from `/proc`) over the run divided by its successful calls.',
    '',
  );
  for (const f of report.figures) lines.push(`- **${f.figure}**: ${f.method}${f.note ? ` _${f.note}_` : ''}`);
  lines.push('');

  lines.push('## What misses and why', '');
  const missed = misses(report);
  if (missed.length === 0) lines.push('Every target was met in this run.', '');
  else lines.push(...missed, '');
  if (report.problems.length > 0) {
    lines.push('Problems during the runs:', '');
    for (const p of report.problems) lines.push(`- ${p.replace(/\n/g, ' ')}`);
    lines.push('');
  }
  lines.push('### Profiling notes', '');
  const notes = new URL('../profiling-notes.md', import.meta.url);
  if (existsSync(notes)) lines.push(readFileSync(notes, 'utf8').trim(), '');
  if (report.profileFile) lines.push(`CPU profile of this run's gateway: \`${report.profileFile}\`.`, '');
  return `${lines.join('\n')}\n`;
}

/** What a call allocates: per server, and the functions that allocated most. */
function allocationSection(rows: readonly AllocationRow[]): string[] {
  const floor = rows.find((r) => r.floor);
  return [
    '### What a call allocates',
    '',
    table(
      ['Server', 'Calls sampled', 'Allocated per call', floor ? '÷ floor' : '', 'Most by'],
      rows.map((r) => [
        r.label,
        r.calls.toLocaleString('en-US'),
        `${r.kibPerCall.toFixed(1)} KiB`,
        floor ? `${(r.kibPerCall / floor.kibPerCall).toFixed(2)}×` : '',
        r.top
          .slice(0, 4)
          .map((t) => `\`${t.name}\` (${t.at}) ${(t.bytesPerCall / 1024).toFixed(1)} KiB`)
          .join('; '),
      ]),
    ),
    '',
    "V8's sampling heap profiler (one sample per 4 KiB on average) with the objects that collections freed " +
      'kept in its profile, so the total is what was allocated, not what stayed alive; a window of calls of its ' +
      "own after the measured runs (the sampler slows the process it samples), at the load's concurrency. " +
      'Allocation does not move with the machine as CPU per call does; what the young generation costs follows it.',
    '',
  ];
}

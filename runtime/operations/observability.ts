// Structured logs (pino) and Prometheus metrics (prom-client). Neither ever carries a credential,
// a caller token or an upstream token: log fields are chosen explicitly, never whole requests, and
// every line is scrubbed of the current call's secrets and of bearer-shaped tokens (redact.ts).
import pino, { type Logger } from 'pino';
import { currentRedactor } from '../redact.ts';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { lineBatches } from './log-batches.ts';
import { CellCounter, CellHistogram } from './metric-cells.ts';

/** Log lines are handed to the kernel in batches of at least this many characters… */
export const LOG_BATCH_BYTES = 16_384;
/** …or this often when fewer are queued (docs/decisions/operations.md, 'Logs are written asynchronously'). */
export const LOG_FLUSH_MS = 200;

/**
 * JSON logs to stdout through an asynchronous destination that batches lines (log-batches.ts): one
 * write system call per LOG_BATCH_BYTES under load instead of one per line (measured: the per-line
 * writes were ~10 % of the gateway's busy time at ~12,000 calls/s), and every LOG_FLUSH_MS
 * otherwise, so an operator watching the output sees a line within a fifth of a second;
 * `flushLogger` on shutdown (and an exit hook) writes what is still queued.
 */
export function createLogger(
  level: string,
  destination: pino.DestinationStream = lineBatches(1, { batchChars: LOG_BATCH_BYTES, flushMs: LOG_FLUSH_MS }),
): Logger {
  const logger = pino(
    {
      level,
      base: { service: 'connector-gateway' },
      // Belt and braces: log lines carry chosen fields only and never these; they are masked if
      // one ever does. Exact paths only: wildcard redaction costs every log line.
      redact: {
        paths: [
          'authorization',
          'token',
          'password',
          'apiKey',
          'credential',
          'headers.authorization',
          'err.password',
          'err.token',
        ],
        censor: '[redacted]',
      },
      hooks: {
        // Every line of this logger and its children: each string of its fields and message goes
        // through the redactor of the call it is written in (redact.ts), so a secret an upstream
        // echoed cannot reach a log line by any path.
        logMethod(args, method) {
          const redactor = currentRedactor();
          const scrubbed = args.map((arg) => redactor.value(arg));
          // pino's own shape for `log.error(error)`: the error under `err`, its message as `msg`.
          if (args[0] instanceof Error)
            scrubbed.splice(
              0,
              1,
              { err: scrubbed[0] },
              ...(typeof args[1] === 'string' ? [] : [redactor.text(args[0].message)]),
            );
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  madeHere.add(logger);
  return logger;
}

/** Loggers made by createLogger: pino's defaults plus the options above, so `callLine` can write their lines itself. */
const madeHere = new WeakSet<Logger>();
const { chindingsSym, streamSym } = pino.symbols;

/**
 * The `tool call` line of one call: what `logger.info({ ...fields, tool, outcome, durationMs },
 * 'tool call')` writes, byte for byte (test/call-line.test.ts), made without pino's generic path
 * (the hook's walk of the fields, the argument handling, the per-key serializer lookups): ~2.5 µs
 * less per call (docs/decisions/performance.md, 'The per-call line is written directly'). The
 * fields' strings go through the current call's redactor as every line's do; a logger not made by
 * createLogger (a child, or one a test passes) takes pino's path.
 */
export function callLine(logger: Logger, fields: object, tool: string, outcome: string, durationMs: number): void {
  if (!madeHere.has(logger)) {
    logger.info({ ...(fields as Record<string, unknown>), tool, outcome, durationMs }, 'tool call');
    return;
  }
  if (logger.levelVal > INFO) return;
  const redactor = currentRedactor();
  const bound = logger as unknown as Record<symbol, unknown>;
  let line = `{"level":30,"time":${Date.now()}${bound[chindingsSym] as string}`;
  // The call's log fields (runtime/pipeline/call-types.ts): plain names, string values.
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    if (typeof value === 'string') line += `,"${key}":${JSON.stringify(redactor.text(value))}`;
    else if (value !== undefined) line += `,"${key}":${JSON.stringify(value)}`;
  }
  line +=
    `,"tool":${JSON.stringify(redactor.text(tool))},"outcome":${JSON.stringify(redactor.text(outcome))}` +
    `,"durationMs":${Number.isFinite(durationMs) ? durationMs : null},"msg":"tool call"}\n`;
  (bound[streamSym] as pino.DestinationStream).write(line);
}

const INFO = 30;

export class Metrics {
  readonly registry = new Registry();
  /** Counted per call: `inc(connector, tool, outcome)`. */
  readonly toolCalls = new CellCounter({
    name: 'gateway_tool_calls_total',
    help: 'tools/call requests that reached the upstream stage, by outcome',
    labelNames: ['connector', 'tool', 'outcome'] as const,
    registers: [this.registry],
  });
  /**
   * The same calls as `toolCalls`, of tools the spec marks deprecated only: who still calls a tool before its sunset
   * (docs/decisions/operations.md, 'Calls of deprecated tools are counted apart').
   */
  readonly deprecatedToolCalls = new CellCounter({
    name: 'gateway_deprecated_tool_calls_total',
    help: 'tools/call requests of deprecated tools (spec `deprecated:`) that reached the upstream stage, by outcome',
    labelNames: ['connector', 'tool', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'gateway_refusals_total',
    help: 'Requests refused before the upstream stage, by reason',
    labelNames: ['connector', 'reason'] as const,
    registers: [this.registry],
  });
  /** Counted per request: `inc(era, method, status)`. */
  readonly mcpRequests = new CellCounter({
    name: 'gateway_mcp_requests_total',
    help:
      'MCP requests by protocol era (2025 handshake or 2026-07-28 stateless), method and HTTP status; the method of ' +
      'a request refused before its body was read comes from its Mcp-Method header',
    labelNames: ['era', 'method', 'status'] as const,
    registers: [this.registry],
  });
  /** Counted per request: `inc(route, status)`. */
  readonly requests = new CellCounter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });
  /** Observed per upstream request: `observeIn(seconds, connector, outcome)`. */
  readonly upstreamDuration = new CellHistogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Upstream request latency by connector and outcome',
    labelNames: ['connector', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  /** Observed per call: `observeIn(seconds, connector)`. */
  readonly callDuration = new CellHistogram({
    name: 'gateway_tool_call_duration_seconds',
    help: 'Whole tools/call latency by connector',
    labelNames: ['connector'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly failOpen = new Counter({
    name: 'gateway_fail_open_total',
    help: 'Times a limiter or counter store was unavailable and the gateway failed open',
    labelNames: ['component'] as const,
    registers: [this.registry],
  });

  /** Set by the app: counted calls not yet written to the store (see UsageMeter.backlog). */
  usageBacklog: () => { rows: number; calls: number } = () => ({ rows: 0, calls: 0 });
  /** Set by the app: evaluates readiness and sets `ready` (run at every scrape). */
  readinessProbe: (() => Promise<unknown>) | undefined;
  readonly usageBacklogCalls: Gauge = new Gauge({
    name: 'gateway_usage_backlog_calls',
    help: 'Metered calls counted in memory and not yet written to the database (grows during a database outage)',
    registers: [this.registry],
    collect: (): void => this.usageBacklogCalls.set(this.usageBacklog().calls),
  });
  readonly usageBacklogRows: Gauge = new Gauge({
    name: 'gateway_usage_backlog_rows',
    help: 'Usage rows (account, month, connector, tool) waiting in memory to be written to the database',
    registers: [this.registry],
    collect: (): void => this.usageBacklogRows.set(this.usageBacklog().rows),
  });
  /** Set by the app: the upstream body budget's bytes reserved now and bodies waiting for room. */
  upstreamBodies: () => { reserved: number; waiting: number } = () => ({ reserved: 0, waiting: 0 });
  readonly upstreamBodyBytesReserved: Gauge = new Gauge({
    name: 'gateway_upstream_body_bytes_reserved',
    help: 'Bytes of the upstream body budget (UPSTREAM_BODY_BUDGET_BYTES) held by response bodies being read or parsed',
    registers: [this.registry],
    collect: (): void => this.upstreamBodyBytesReserved.set(this.upstreamBodies().reserved),
  });
  readonly upstreamBodiesWaiting: Gauge = new Gauge({
    name: 'gateway_upstream_bodies_waiting',
    help: 'Upstream response bodies waiting for room in the body budget',
    registers: [this.registry],
    collect: (): void => this.upstreamBodiesWaiting.set(this.upstreamBodies().waiting),
  });
  readonly degraded = new Gauge({
    name: 'gateway_degraded',
    help: 'A dependency the replica serves without (failing open): 1 while it does not answer, 0 when it does',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  readonly ready = new Gauge({
    name: 'gateway_ready',
    help: 'Readiness by check (store, shared_store, migrations, snapshot) and overall (all): 1 ready, 0 not',
    labelNames: ['check'] as const,
    registers: [this.registry],
    collect: async () => {
      await this.readinessProbe?.().catch(() => {});
    },
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}

/** Writes buffered log lines (no-op for destinations without a buffer). */
export function flushLogger(log: Logger): void {
  try {
    log.flush();
  } catch {
    // a destination without flush support
  }
}

// The OpenTelemetry SDK, loaded only by `startTelemetry` (telemetry.ts) when an OTLP endpoint is
// configured (docs/decisions/telemetry.md, 'OpenTelemetry only when the OTLP variables are set').
// Spans go out through the OTLP/HTTP JSON trace exporter in batches, metrics through the OTLP/HTTP
// metric exporter from the Prometheus registry (prom-bridge.ts); both read the standard OTEL_*
// variables themselves (endpoints, headers, timeouts). Shutdown exports what is still buffered.
import {
  type Attributes,
  DiagLogLevel,
  diag,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace as otelTrace,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type IdGenerator, RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { Metrics } from '../operations/observability.ts';
import type { TraceContext } from '../trace-context.ts';
import {
  type CallRecord,
  type SpanSink,
  Telemetry,
  type TelemetryEnv,
  type TelemetrySignals,
  type UpstreamAttempt,
} from './call-telemetry.ts';
import { prometheusProducer } from './prom-bridge.ts';

const SCOPE = 'connector-gateway';
const DEFAULT_SERVICE_NAME = 'connector-gateway';
/** How long a stop waits for the last span and metric exports (docs/decisions/telemetry.md). */
const SHUTDOWN_WAIT_MS = 5000;

/**
 * Span ids chosen by the gateway: the tools/call span is the `spanId` its log lines carry, an
 * upstream span the one its request's `traceparent` carried, and a trace the gateway started keeps
 * the id it logged. `next` is set just before `startSpan`, which asks for the ids synchronously.
 */
class PresetIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  next: { traceId?: string; spanId: string } | undefined;
  generateTraceId(): string {
    return this.next?.traceId ?? this.#random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.#random.generateSpanId();
  }
}

const flagsOf = (trace: TraceContext): number => Number.parseInt(trace.flags, 16) & 1;

function positive(env: TelemetryEnv, name: string): number | undefined {
  const n = Number(env[name]);
  return env[name] !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** `scheme://host[:port]` into the semantic-convention attributes; nothing of a path or query. */
function serverAttributes(origin: string): Attributes {
  try {
    const url = new URL(origin);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return { 'server.address': url.hostname, 'server.port': port, 'url.scheme': url.protocol.slice(0, -1) };
  } catch {
    return {};
  }
}

class SdkSpans implements SpanSink {
  readonly #tracer: Tracer;
  readonly #ids: PresetIds;
  readonly #provider: TracerProvider;

  constructor(tracer: Tracer, ids: PresetIds, provider: TracerProvider) {
    this.#tracer = tracer;
    this.#ids = ids;
    this.#provider = provider;
  }

  #emit(
    name: string,
    kind: SpanKind,
    parent: SpanContext | undefined,
    ids: { traceId?: string; spanId: string },
    startMs: number,
    endMs: number,
    attributes: Attributes,
    error: string | undefined,
  ): void {
    const context = parent ? otelTrace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    this.#ids.next = ids;
    let span: ReturnType<Tracer['startSpan']>;
    try {
      span = this.#tracer.startSpan(
        name,
        { kind, startTime: startMs, attributes, root: parent === undefined },
        context,
      );
    } finally {
      this.#ids.next = undefined;
    }
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    span.end(endMs);
  }

  call(record: CallRecord, endMs: number, isError: boolean): void {
    const { trace } = record;
    const outcome = record.outcome ?? (isError ? 'error' : 'ok');
    const attributes: Attributes = {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gateway.connector.id': record.connectorId,
      'gateway.connector.instance': record.instanceId,
      'gateway.call.outcome': outcome,
    };
    if (record.tool !== undefined) attributes['gen_ai.tool.name'] = record.tool;
    if (record.reason !== undefined) attributes['gateway.refusal.reason'] = record.reason;
    if (isError) attributes['error.type'] = record.reason ?? outcome;
    // The caller's span is the parent; a call that brought no trace is the root of the one it started.
    const parent: SpanContext | undefined =
      trace.parentId === undefined
        ? undefined
        : { traceId: trace.traceId, spanId: trace.parentId, traceFlags: flagsOf(trace), isRemote: true };
    const ids = parent ? { spanId: record.spanId } : { traceId: trace.traceId, spanId: record.spanId };
    const name = record.tool === undefined ? 'tools/call' : `tools/call ${record.tool}`;
    this.#emit(name, SpanKind.SERVER, parent, ids, record.startMs, endMs, attributes, isError ? outcome : undefined);
  }

  upstream(trace: TraceContext, parentSpanId: string, connectorId: string, attempt: UpstreamAttempt): void {
    const attributes: Attributes = {
      'http.request.method': attempt.method,
      ...serverAttributes(attempt.origin),
      'gateway.connector.id': connectorId,
    };
    if (attempt.status !== undefined) attributes['http.response.status_code'] = attempt.status;
    if (attempt.resend) attributes['http.request.resend_count'] = 1;
    const failed = attempt.outcome !== 'ok';
    if (failed) attributes['error.type'] = attempt.outcome;
    const parent: SpanContext = {
      traceId: trace.traceId,
      spanId: parentSpanId,
      traceFlags: flagsOf(trace),
      isRemote: false,
    };
    this.#emit(
      attempt.method,
      SpanKind.CLIENT,
      parent,
      { spanId: attempt.spanId },
      attempt.startMs,
      attempt.endMs,
      attributes,
      failed ? attempt.outcome : undefined,
    );
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

export async function startOpenTelemetry(
  env: TelemetryEnv,
  signals: TelemetrySignals,
  deps: { readonly metrics: Metrics; readonly log: Logger },
): Promise<Telemetry> {
  const { log } = deps;
  // The SDK's own warnings (an export that failed, a collector that refused) go to the gateway's log.
  diag.setLogger(
    {
      error: (message) => log.warn({ component: 'opentelemetry' }, message),
      warn: (message) => log.warn({ component: 'opentelemetry' }, message),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const detected = detectResources({ detectors: [envDetector] });
  await detected.waitForAsyncAttributes?.();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detected);

  let spans: SdkSpans | undefined;
  if (signals.traces) {
    const ids = new PresetIds();
    const scheduledDelayMillis = positive(env, 'OTEL_BSP_SCHEDULE_DELAY');
    const provider = new TracerProvider({
      resource,
      idGenerator: ids,
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter(),
          ...(scheduledDelayMillis === undefined ? {} : { scheduledDelayMillis }),
        }),
      ],
    });
    spans = new SdkSpans(provider.getTracer(SCOPE), ids, provider);
  }
  let meters: MeterProvider | undefined;
  if (signals.metrics) {
    const exportIntervalMillis = positive(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000;
    const exportTimeoutMillis = Math.min(positive(env, 'OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000, exportIntervalMillis);
    const reader = new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter(),
      exportIntervalMillis,
      exportTimeoutMillis,
      metricProducers: [prometheusProducer(deps.metrics.registry, SCOPE)],
    });
    meters = new MeterProvider({ resource, readers: [reader] });
  }
  log.info({ traces: signals.traces, metrics: signals.metrics }, 'OpenTelemetry export on (OTLP/HTTP)');
  // A collector that does not answer must not hold up a stop: the last export gets a bounded wait.
  const shutdown = async () => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), SHUTDOWN_WAIT_MS);
    });
    const done = Promise.allSettled([spans?.shutdown(), meters?.shutdown()]);
    const results = await Promise.race([done, timedOut]);
    clearTimeout(timer);
    if (results === 'timeout') {
      log.warn(
        { component: 'opentelemetry', waitedMs: SHUTDOWN_WAIT_MS },
        'OpenTelemetry export at shutdown did not finish; stopping without it',
      );
      return;
    }
    for (const r of results)
      if (r.status === 'rejected')
        log.warn(
          { component: 'opentelemetry', err: { message: (r.reason as Error)?.message } },
          'OpenTelemetry shutdown failed',
        );
  };
  return new Telemetry(spans, shutdown);
}

// The call path's side of OpenTelemetry (docs/decisions/telemetry.md, 'Spans are made when a call
// ends, with the ids already logged and sent'): plain records and hooks, nothing of the SDK. The
// SDK side (otel.ts) turns finished records into spans.
//
// What a span may carry is fixed here, never taken from a request: the connector id and instance,
// a tool name the spec declares, the outcome or refusal code, and of an upstream request its
// method, host, port and status. No arguments, results, tokens, credentials, headers or paths.
import { newSpanId, type TraceContext } from '../trace-context.ts';

/** Epoch milliseconds with the monotonic clock's sub-millisecond precision. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export type TelemetryEnv = Readonly<Record<string, string | undefined>>;

/** Which signals the standard variables ask for (OTEL_SDK_DISABLED and `*_EXPORTER=none` switch one off). */
export interface TelemetrySignals {
  readonly traces: boolean;
  readonly metrics: boolean;
}

/** One upstream HTTP request as sent (a throttle retry is another), reported when it ended. */
export interface UpstreamAttempt {
  /** The span id its `traceparent` carried: the upstream's own spans are children of it. */
  readonly spanId: string;
  readonly method: string;
  /** `scheme://host[:port]` only: a path or query string may carry identifiers or secrets. */
  readonly origin: string;
  readonly status: number | undefined;
  /** `ok` or the failure kind (runtime/handler-api/upstream-types.ts). */
  readonly outcome: string;
  /** true for the throttle retry. */
  readonly resend: boolean;
  /** Epoch milliseconds. */
  readonly startMs: number;
  readonly endMs: number;
}

/** The upstream client's hook for one call (UpstreamClientOptions.spans): made per call only when tracing. */
export interface UpstreamSpans {
  attempt(attempt: UpstreamAttempt): void;
}

/** What a finished tools/call span is made from: plain data, filled in along the call. */
export interface CallRecord {
  readonly trace: TraceContext;
  /** The gateway's span of the call: the `spanId` of every log line of the call. */
  readonly spanId: string;
  readonly connectorId: string;
  readonly instanceId: string;
  readonly startMs: number;
  tool: string | undefined;
  outcome: string | undefined;
  reason: string | undefined;
}

/** Turns finished calls and upstream requests into exported spans (otel.ts). */
export interface SpanSink {
  call(record: CallRecord, endMs: number, isError: boolean): void;
  upstream(trace: TraceContext, parentSpanId: string, connectorId: string, attempt: UpstreamAttempt): void;
  shutdown(): Promise<void>;
}

/**
 * The call path's side of telemetry. A call is recorded as plain data while it runs and becomes a
 * span when it ends, with the ids it already logged and sent upstream, so nothing of the SDK is
 * touched before the answer and no context has to flow through async hooks.
 */
export class Telemetry {
  readonly #sink: SpanSink | undefined;
  readonly #shutdown: () => Promise<void>;
  /** Calls in flight by span id: refusals and outcomes are reported with the call's `spanId`. */
  readonly #open = new Map<string, CallRecord>();

  constructor(sink: SpanSink | undefined, shutdown: () => Promise<void>) {
    this.#sink = sink;
    this.#shutdown = shutdown;
  }

  /** Whether spans are exported (metrics may be exported alone). */
  get tracing(): boolean {
    return this.#sink !== undefined;
  }

  /** Opens the record of one tools/call; undefined when only metrics are exported. */
  startCall(trace: TraceContext, connectorId: string, instanceId: string): CallRecord | undefined {
    if (this.#sink === undefined) return undefined;
    const record: CallRecord = {
      trace,
      spanId: newSpanId(),
      connectorId,
      instanceId,
      startMs: epochMs(),
      tool: undefined,
      outcome: undefined,
      reason: undefined,
    };
    this.#open.set(record.spanId, record);
    return record;
  }

  /** Ends the call's record when its answer is ready and exports its span; the answer is passed on as it is. */
  async endCall<R extends { readonly isError?: boolean }>(record: CallRecord, answer: Promise<R>): Promise<R> {
    const result = await answer;
    this.#open.delete(record.spanId);
    try {
      this.#sink!.call(record, epochMs(), result.isError === true);
    } catch {
      // Telemetry never changes an answer.
    }
    return result;
  }

  /**
   * The outcome of the call whose log lines carry `spanId` (the pipeline's `tool call` and `call
   * refused` lines). A tool refused as unknown is not named: the name is the caller's input.
   */
  outcome(spanId: string, tool: string, outcome: string, reason?: string): void {
    const record = this.#open.get(spanId);
    if (record === undefined) return;
    record.outcome = outcome;
    if (reason !== undefined) record.reason = reason;
    record.tool = reason === 'unknown_tool' ? undefined : tool;
  }

  /** The upstream client's hook for the call whose span is `parentSpanId`; undefined when not tracing. */
  upstreamSpans(
    trace: TraceContext | undefined,
    parentSpanId: string | undefined,
    connectorId: string,
  ): UpstreamSpans | undefined {
    const sink = this.#sink;
    if (sink === undefined || trace === undefined || parentSpanId === undefined) return undefined;
    return {
      attempt: (attempt) => {
        try {
          sink.upstream(trace, parentSpanId, connectorId, attempt);
        } catch {
          // Telemetry never changes an upstream answer.
        }
      },
    };
  }

  /** Exports what is still buffered (spans and a last metrics collection) and stops the exporters. */
  shutdown(): Promise<void> {
    return this.#shutdown();
  }
}

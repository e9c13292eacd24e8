// The one place that opens a tool call: the upstream client under the connector's policy (counted,
// read-only for a write tool, writes through the guard), the handler's `ctx` and its request log.
// The pipeline (`Pipeline.#run`), the connect form's credential check (`Pipeline.checkCredential`)
// and the handler tests (test/support/tool-context.ts) all open their calls here, so the three
// cannot drift apart. No object literal with closures per call beyond the upstream client's
// `onCall` (docs/decisions/typed-platform-contract.md).
import type { Dispatcher } from 'undici';
import type { GatewayContext } from '../gateway-context.ts';
import type { Logger } from 'pino';
import type { ConnectorDescriptor, ToolDescriptor, UpstreamPolicy } from '../handler-api/descriptor-types.ts';
import type { CallInput } from '../handler-api/input-requests.ts';
import type { Credential, DataLayer } from '../handler-api/tool-context.ts';
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from '../handler-api/upstream-types.ts';
import type { UpstreamQuotas } from '../metering/rate-limit.ts';
import { handlerTokens, type Vault } from '../secrets/vault.ts';
import type { Redactor } from '../redact.ts';
import type { TraceContext } from '../trace-context.ts';
import type { Telemetry } from '../telemetry/call-telemetry.ts';
import type { BodyBudget } from '../upstream/body-budget.ts';
import {
  type ConcurrencyGate,
  createUpstreamClient,
  type UpstreamCallInfo,
  type UpstreamClientOptions,
} from '../upstream/client.ts';
import { type CallContext, type ConnectorTexts, createToolContext, toolLimits } from './call-context.ts';
import type { CallProgress } from './progress.ts';
import { createWriteGuard, noWrites, readOnlyClient } from './write-guard.ts';

/** What opening a call needs from the deployment: made once (the gateway's, or a test's). */
export interface CallServices {
  readonly vault: Vault;
  readonly upstreamQuotas: UpstreamQuotas;
  readonly now: () => Date;
  readonly timeZone: string;
  readonly gates?: ReadonlyMap<string, ConcurrencyGate>;
  /** Each connector's upstream Agent by connector key (its connections per origin); absent: the shared one. */
  readonly dispatchers?: ReadonlyMap<string, Dispatcher>;
  readonly bodyBudget?: BodyBudget;
  readonly upstreamSleep?: UpstreamClientOptions['sleep'];
  /** Each upstream request's outcome and duration (the gateway's metric). */
  readonly observeUpstream?: (connectorId: string, info: UpstreamCallInfo) => void;
  /** OpenTelemetry, when configured: each upstream request becomes a span under the call's. */
  readonly telemetry?: Telemetry | undefined;
}

/** What opening a call needs from the gateway, made once (the pipeline's constructor). */
export function callServices(gateway: GatewayContext): CallServices {
  const { upstreamDuration } = gateway.metrics;
  return {
    vault: gateway.vault,
    upstreamQuotas: gateway.upstreamQuotas,
    now: gateway.now,
    timeZone: gateway.config.timeZone,
    gates: gateway.gates,
    ...(gateway.dispatchers ? { dispatchers: gateway.dispatchers } : {}),
    bodyBudget: gateway.bodyBudget,
    upstreamSleep: gateway.upstreamSleep,
    telemetry: gateway.telemetry,
    observeUpstream: (connector, info) => upstreamDuration.observeIn(info.durationMs / 1000, connector, info.outcome),
  };
}

/** One call to open: plain data, no closures. */
export interface CallOpening {
  readonly descriptor: ConnectorDescriptor;
  /** The connector id as served, the deployment's base URL for it (the spec's when absent). */
  readonly connectorId: string;
  readonly baseUrl: string | undefined;
  readonly instanceId: string;
  readonly accountId: string;
  readonly tool: ToolDescriptor;
  readonly credential: Credential | null;
  readonly signal: AbortSignal;
  readonly trace: TraceContext | undefined;
  /** The call's span (its log lines' `spanId`): the parent of its upstream requests' spans. */
  readonly spanId?: string;
  /** `confirm === true` on a write tool's call (runtime/pipeline/write-guard.ts); false otherwise. */
  readonly confirmed: boolean;
  /** The digest of the preview the person accepted (runtime/pipeline/person-confirm.ts), when they did. */
  readonly expectPreview?: string | undefined;
  /** false for the connect form's check: its verify tool never writes. */
  readonly mayWrite: boolean;
  readonly dataLayer: DataLayer | undefined;
  readonly texts: ConnectorTexts;
  readonly redactor: Redactor;
  /** The request log: a child of `logger` with `logFields` and the tool is made on the handler's first line. */
  readonly logger: Logger;
  readonly logFields: object | undefined;
  /** Test hooks: the connector policy replaced, the client made by hand, or wrapped to record requests. */
  readonly policy?: UpstreamPolicy;
  /** The call's progress, when its client asked for it: upstream answers count until the handler reports. */
  readonly progress?: CallProgress | undefined;
  /** What the client answered to the handler's previous round of input requests (call-input.ts). */
  readonly input?: CallInput | undefined;
  readonly upstream?: UpstreamClient;
  readonly wrapUpstream?: (client: UpstreamClient) => UpstreamClient;
}

/**
 * The upstream client as the handler holds it, counting its requests: a refusal of the arguments
 * before any request is not metered. A class, so a call allocates one object, not a closure pair.
 */
export class CountingClient implements UpstreamClient {
  readonly baseUrl: string;
  readonly #inner: UpstreamClient;
  readonly #progress: CallProgress | undefined;
  requests = 0;
  #answered = 0;
  constructor(inner: UpstreamClient, progress?: CallProgress) {
    this.#inner = inner;
    this.baseUrl = inner.baseUrl;
    this.#progress = progress;
  }
  request<T = unknown>(request: UpstreamRequest): Promise<UpstreamResponse<T>> {
    this.requests++;
    const answer = this.#inner.request<T>(request);
    if (this.#progress === undefined) return answer;
    return answer.then((response) => {
      this.#progress!.upstreamAnswered(++this.#answered);
      return response;
    });
  }
}

/** An opened call: the handler's context and the counted upstream client behind it. */
export interface OpenedCall {
  readonly ctx: CallContext;
  readonly upstream: CountingClient;
}

export function openCall(services: CallServices, call: CallOpening): OpenedCall {
  const { descriptor, connectorId, tool } = call;
  const observe = services.observeUpstream;
  const spans = services.telemetry?.upstreamSpans(call.trace, call.spanId, connectorId);
  const upstream = new CountingClient(
    call.upstream ??
      createUpstreamClient({
        policy: call.policy ?? descriptor.upstream,
        baseUrl: call.baseUrl,
        signal: call.signal,
        gate: services.gates?.get(descriptor.key),
        dispatcher: services.dispatchers?.get(descriptor.key),
        bodyBudget: services.bodyBudget,
        sleep: services.upstreamSleep,
        trace: call.trace,
        ...(spans ? { spans } : {}),
        ...(observe ? { onCall: (info: UpstreamCallInfo) => observe(connectorId, info) } : {}),
      }),
    call.progress,
  );
  const write = call.mayWrite && tool.write;
  // A write tool reads through ctx.upstream and writes only through ctx.write (preview unless confirmed).
  const handlerUpstream = write ? readOnlyClient(upstream) : upstream;
  const ctx = createToolContext({
    connectorId,
    instanceId: call.instanceId,
    accountId: call.accountId,
    credential: call.credential,
    upstream: call.wrapUpstream ? call.wrapUpstream(handlerUpstream) : handlerUpstream,
    write: write ? createWriteGuard(tool.name, call.confirmed, upstream, call.expectPreview) : noWrites,
    limits: toolLimits(descriptor, tool),
    logger: call.logger,
    logFields: call.logFields,
    tool: tool.name,
    signal: call.signal,
    now: services.now,
    timeZone: services.timeZone,
    // Platform data only where the spec declares it (`dataLayer: true`), bound to this connection.
    ...(call.dataLayer ? { dataLayer: call.dataLayer } : {}),
    tokens: handlerTokens(services.vault, call.accountId, call.instanceId),
    upstreamQuota: services.upstreamQuotas.forCall(descriptor.key, call.signal),
    texts: call.texts,
    redactor: call.redactor,
    progress: call.progress,
    input: call.input,
  });
  return { ctx, upstream };
}

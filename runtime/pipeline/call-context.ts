// The `ctx` of one tool call, built in one place for the pipeline and for handler tests: the
// handler API (handler-api/tool-context.ts) bound to the call's connector, instance, credential,
// upstream client and limits, with the connector's spec texts behind `fail`, `refuseArguments`
// and `describeFailure`. Handlers never render a spec text themselves.
import type { Logger } from 'pino';
import type {
  ConnectorDescriptor,
  ErrorEntry,
  PlatformDescriptor,
  ToolDescriptor,
} from '../handler-api/descriptor-types.ts';
import type {
  Credential,
  DataLayer,
  FailureSummary,
  SealedTokens,
  ToolContext,
  UpstreamQuota,
  WriteGuard,
} from '../handler-api/tool-context.ts';
import { type CallInput, type InputRequest, InputRequired, NO_INPUT } from '../handler-api/input-requests.ts';
import { ArgumentRefusal, formatText, ToolError, type ErrorParams } from '../handler-api/tool-error.ts';
import { UpstreamError, type UpstreamClient } from '../handler-api/upstream-types.ts';
import type { Redactor } from '../redact.ts';
import type { CallProgress } from './progress.ts';
import { renderToolReferences } from '../gateway-context.ts';

/**
 * The spec texts of one endpoint instance: the connector's own codes first, then the platform's.
 * The connector's texts are prepared once per instance, their tool references rendered with its id
 * (`cases-2__describe_type`); platform texts name no connector tool (the generator resolved them).
 */
export class ConnectorTexts {
  readonly #descriptor: ConnectorDescriptor;
  readonly #platform: PlatformDescriptor;
  readonly #errors: Readonly<Record<string, ErrorEntry>>;
  readonly #notes: Readonly<Record<string, string>>;
  /** Per tool: upstream failure kind → the code that answers it. */
  readonly #answers = new WeakMap<ToolDescriptor, Map<string, string>>();
  constructor(
    descriptor: ConnectorDescriptor,
    platform: PlatformDescriptor,
    instanceId: string = descriptor.defaultId,
  ) {
    this.#descriptor = descriptor;
    this.#platform = platform;
    const errors: Record<string, ErrorEntry> = { ...descriptor.errors };
    for (const [code, entry] of Object.entries(errors)) {
      const text = renderToolReferences(entry.text, instanceId);
      if (text !== entry.text) errors[code] = { ...entry, text };
    }
    this.#errors = errors;
    this.#notes = Object.fromEntries(
      Object.entries(descriptor.texts).map(([name, text]) => [name, renderToolReferences(text, instanceId)]),
    );
  }

  entry(code: string): ErrorEntry | undefined {
    return this.#errors[code] ?? this.#platform.errors[code];
  }

  /** The text of `code` with its parameters (and `{upstream}`) filled in; an unknown code is the generic text. */
  render(code: string, params: ErrorParams = {}): string {
    const entry = this.entry(code);
    if (!entry) return this.#platform.errors.generic!.text;
    return formatText(entry.text, { upstream: this.#descriptor.upstream.name, ...params });
  }

  /**
   * The code a tool answers an upstream failure with when its handler lets it through: the first
   * of the tool's codes whose spec declares `upstream: [<kind>]`, or undefined (the generic text).
   */
  forUpstream(tool: ToolDescriptor, kind: UpstreamError['kind']): string | undefined {
    let byKind = this.#answers.get(tool);
    if (!byKind) {
      byKind = new Map();
      for (const code of [...tool.errors].reverse())
        for (const k of this.entry(code)?.upstream ?? []) byKind.set(k, code);
      this.#answers.set(tool, byKind);
    }
    return byKind.get(kind);
  }

  /** One of the connector's other texts (result notes), parameters filled in; an unknown name is refused loudly. */
  note(name: string, params: ErrorParams = {}): string {
    const text = this.#notes[name];
    if (text === undefined) throw new Error(`${this.#descriptor.key} has no text \`${name}\``);
    return formatText(text, { upstream: this.#descriptor.upstream.name, ...params });
  }

  /**
   * Name and words of a failure a handler caught (a failed section of a summary). Only a code the
   * spec names is answered with its text; any other failure (an upstream failure, an Error a handler
   * or its client threw) with the generic text, never with its own message: the words a user reads
   * are the spec's. The name says what kind of failure it was.
   */
  describe(error: unknown): FailureSummary {
    if (error instanceof ToolError) {
      const entry = this.entry(error.code);
      if (entry) return { name: entry.name ?? 'ToolError', message: this.render(error.code, error.params) };
      return { name: 'ToolError', message: this.render('generic') };
    }
    if (error instanceof UpstreamError) {
      return {
        name:
          `Upstream${error.kind[0]!.toUpperCase()}` +
          `${error.kind.slice(1).replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}` +
          'Error',
        message: this.render('generic'),
      };
    }
    return { name: error instanceof Error ? error.name : 'Error', message: this.render('generic') };
  }
}

export interface CallScope {
  readonly connectorId: string;
  readonly instanceId: string;
  readonly accountId: string;
  readonly credential: Credential | null;
  readonly upstream: UpstreamClient;
  /** The connector's and the tool's limits, merged (tool wins). */
  readonly limits: Readonly<Record<string, number>>;
  /**
   * The request log: on the handler's first log line, a child of `logger` with `logFields` and the
   * tool (`logger` itself without fields: a test's). Made at most once per call.
   */
  readonly logger: Logger;
  readonly logFields: object | undefined;
  readonly tool: string;
  readonly signal: AbortSignal;
  readonly now: () => Date;
  readonly timeZone: string;
  readonly dataLayer?: DataLayer;
  /** The handler's opaque tokens, already bound to this account and instance. */
  readonly tokens: SealedTokens;
  /** The connector's per-key upstream budgets (runtime/metering/rate-limit.ts UpstreamQuotas). */
  readonly upstreamQuota: UpstreamQuota;
  readonly texts: ConnectorTexts;
  /** The call's secrets: failure summaries are scrubbed before the handler can cut them short. */
  readonly redactor: Redactor;
  /** Writes of a `write: true` tool (runtime/pipeline/write-guard.ts); read tools get one that refuses. */
  readonly write: WriteGuard;
  /** The call's progress, when its client asked for it (runtime/pipeline/progress.ts). */
  readonly progress?: CallProgress | undefined;
  /** What the client answered to the previous round (runtime/pipeline/call-input.ts); absent: nothing. */
  readonly input?: CallInput | undefined;
}

/** A context for any tool: the runtime holds handlers with their spec types erased (ErasedHandler). */
export type CallContext = ToolContext<
  Readonly<Record<string, ErrorParams>>,
  Readonly<Record<string, number>>,
  Readonly<Record<string, ErrorParams>>
>;

/**
 * The context of one call. A class, not an object literal: a literal with a getter of its own (the
 * lazy `log`) kept everything its closure reached, the whole call, alive through every
 * young-generation collection until the next full one (measured in the gateway: 1.9 MB of each
 * 54 MB young generation survived and was promoted; docs/decisions/performance.md, 'A call's context
 * is a class: no accessor on a per-call object literal'). Its methods are on the
 * prototype too: closures assigned per instance in a constructor also outlived scavenges (11 % in a
 * micro-benchmark). `fail` and `refuseArguments` use no `this` and work unbound; `text` and
 * `describeFailure` are methods, and the handler API's types refuse them unbound.
 */
class CallToolContext implements CallContext {
  readonly connectorId: string;
  readonly instanceId: string;
  readonly accountId: string;
  readonly credential: Credential | null;
  readonly upstream: UpstreamClient;
  readonly limits: Readonly<Record<string, number>>;
  readonly signal: AbortSignal;
  readonly now: () => Date;
  readonly timeZone: string;
  declare readonly dataLayer?: DataLayer;
  readonly tokens: SealedTokens;
  readonly upstreamQuota: UpstreamQuota;
  readonly write: WriteGuard;
  readonly input: CallInput;
  readonly #scope: CallScope;
  #log: Logger | undefined;

  constructor(scope: CallScope) {
    this.#scope = scope;
    this.connectorId = scope.connectorId;
    this.instanceId = scope.instanceId;
    this.accountId = scope.accountId;
    this.credential = scope.credential;
    this.upstream = scope.upstream;
    this.limits = scope.limits;
    this.signal = scope.signal;
    this.now = scope.now;
    this.timeZone = scope.timeZone;
    // Present only where the spec declares it, as handlers test with `ctx.dataLayer`.
    if (scope.dataLayer) (this as { dataLayer?: DataLayer }).dataLayer = scope.dataLayer;
    this.tokens = scope.tokens;
    this.upstreamQuota = scope.upstreamQuota;
    this.write = scope.write;
    this.input = scope.input ?? NO_INPUT;
  }

  progress(done: number, total?: number, message?: string): void {
    this.#scope.progress?.report(done, total, message);
  }

  /** Made on the handler's first log line (a child logger costs a call that never logs). */
  get log(): Logger {
    if (this.#log === undefined) {
      const { logger, logFields, tool } = this.#scope;
      this.#log = logFields ? logger.child({ ...logFields, tool }) : logger;
    }
    return this.#log;
  }

  fail(code: string, params: ErrorParams = {}): never {
    throw new ToolError(code, params);
  }

  refuseArguments(code: string, params: ErrorParams = {}): never {
    throw new ArgumentRefusal(code, params);
  }

  /** Whether the client may be asked is the pipeline's to judge (runtime/pipeline/call-input.ts, checkKinds). */
  requireInput(this: CallToolContext, requests: Readonly<Record<string, InputRequest>>, state?: string): never {
    throw new InputRequired(requests, state);
  }

  text(this: CallToolContext, name: string, params: ErrorParams = {}): string {
    return this.#scope.texts.note(name, params);
  }

  describeFailure(this: CallToolContext, error: unknown): FailureSummary {
    const { name, message } = this.#scope.texts.describe(error);
    return { name, message: this.#scope.redactor.text(message) };
  }
}

export function createToolContext(scope: CallScope): CallContext {
  return new CallToolContext(scope);
}

/**
 * A tenant's credential as its handlers see it: the stored (or submitted) fields, the connector's
 * credential kind, and the integrator's application secret where the spec declares `appSecret`.
 */
export function tenantCredential(
  connector: { readonly descriptor: ConnectorDescriptor; readonly config: { readonly appSecret?: string } },
  stored: object,
): Credential {
  const appSecret = connector.descriptor.appSecret ? connector.config.appSecret : undefined;
  return {
    ...stored,
    kind: connector.descriptor.credential,
    ...(appSecret !== undefined ? { appSecret } : {}),
  } as Credential;
}

/** Connector and tool limits merged once per tool, not per call. */
const merged = new WeakMap<ToolDescriptor, Readonly<Record<string, number>>>();
export function toolLimits(connector: ConnectorDescriptor, tool: ToolDescriptor): Readonly<Record<string, number>> {
  let limits = merged.get(tool);
  if (!limits) {
    limits = Object.freeze({ ...connector.limits, ...tool.limits });
    merged.set(tool, limits);
  }
  return limits;
}

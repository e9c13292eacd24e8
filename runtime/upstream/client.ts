// The upstream HTTP layer on undici: keep-alive pools per origin (one shared Agent), one deadline
// per tool call (the connector's timeout, counted from the client's creation when the call enters
// the upstream stage: every request, queue wait, throttle retry and body of the call gets only
// what is left of it), redirects never followed, bodies size-capped while streaming and read only
// within the process's body budget, the single throttle retry of DECISIONS §11, and a typed
// classification of failures.
import { Agent, type Dispatcher } from 'undici';
import { type AbortHook, type DispatchedResponse, dispatchRequest } from './dispatch.ts';
import type { UpstreamPolicy } from '../handler-api/descriptor-types.ts';
import type { BodyBudget } from './body-budget.ts';
import { abortableSleep } from '../sleep.ts';
import {
  UpstreamError,
  type UpstreamClient,
  type UpstreamFailureKind,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../handler-api/upstream-types.ts';
import { newSpanId, type TraceContext } from '../trace-context.ts';
import {
  ERROR_BODY_LIMIT,
  classifyStatus,
  flattenHeaders,
  isAbortError,
  joinUrl,
  parseErrorBody,
  requestHeaders,
  retryAfterMs,
  tooLarge,
} from './http-parts.ts';
import { epochMs, type UpstreamSpans } from '../telemetry/call-telemetry.ts';

/** A request's URL as joinUrl gives it. */
type RequestUrl = { readonly href: string; readonly origin: string };

export interface ConcurrencyGate {
  /** Resolves with a release function once a slot is free; rejects when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
  /** A free slot's release function at once, without a promise; undefined when the caller must `acquire`. */
  tryAcquire?(signal: AbortSignal): (() => void) | undefined;
}

export interface UpstreamCallInfo {
  readonly method: string;
  readonly origin: string;
  readonly status: number | undefined;
  readonly outcome: 'ok' | UpstreamFailureKind;
  readonly durationMs: number;
  readonly retried: boolean;
}

export interface UpstreamClientOptions {
  readonly policy: UpstreamPolicy;
  /** Base URL override from deployment configuration (the spec's is the default). */
  readonly baseUrl?: string;
  /** Aborts every request of the call (client gone). The call's deadline is the client's own. */
  readonly signal?: AbortSignal;
  readonly dispatcher?: Dispatcher;
  readonly gate?: ConcurrencyGate;
  /** The process's byte budget for response bodies being read and parsed (none: unbounded). */
  readonly bodyBudget?: Pick<BodyBudget, 'tryReserve' | 'reserve'>;
  readonly onCall?: (info: UpstreamCallInfo) => void;
  /** Injected in tests to skip real waiting. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly userAgent?: string;
  /**
   * The call's trace: every request sent (each attempt, a retry too) carries a `traceparent` of
   * this trace with a fresh span id, and its `tracestate` unchanged; they replace a handler's own.
   */
  readonly trace?: TraceContext;
  /** OpenTelemetry, when configured: each request sent is reported as a span with the id its `traceparent` carried. */
  readonly spans?: UpstreamSpans;
}

/**
 * An Agent for one connector's upstream (undici keeps a keep-alive pool per origin inside it):
 * `connections` per origin, the deployment's CONNECTOR_<KEY>_MAX_CONNECTIONS (runtime/app.ts makes
 * one per connector and closes them on stop).
 */
export function upstreamAgent(connections: number): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections, pipelining: 1 });
}

let sharedAgent: Agent | undefined;
/** The Agent of requests made without a connector's own (tests, tools used outside a gateway). */
export function sharedDispatcher(): Agent {
  sharedAgent ??= upstreamAgent(64);
  return sharedAgent;
}

export async function closeSharedDispatcher(): Promise<void> {
  const agent = sharedAgent;
  sharedAgent = undefined;
  await agent?.close();
}

/** What one request sent came back with: a response, or a throttle answer the retry rule reads. */
type Attempt<T> = {
  response?: UpstreamResponse<T>;
  throttled?: { status: number; headers: Record<string, string>; body: unknown };
};

/**
 * One request's abort state: the deadline flag, the exchange's abort hook (dispatch.ts) and the
 * controller whose signal the gate, the body budget and the retry's wait see. One object per request
 * with its methods on the prototype: the deadline timer gets it as its argument and the call's
 * signal as a listener object (`handleEvent`), so no closure is made per request.
 */
class RequestAbortState implements AbortHook {
  aborted = false;
  onAbort: AbortHook['onAbort'] = undefined;
  readonly controller = new AbortController();

  abort(): void {
    this.controller.abort();
    this.onAbort?.handleEvent();
  }

  /** The call's signal aborted (EventTarget listener object). */
  handleEvent(): void {
    this.abort();
  }
}

/** The deadline timer's callback, shared by all requests (the state is its argument). */
function expireRequest(state: RequestAbortState): void {
  state.aborted = true;
  state.abort();
}

/**
 * One call's upstream client: the connector's policy, gate, body budget and the call's deadline,
 * made once per call. A class rather than a closure over them: the per-call object carries its
 * methods on the prototype (docs/decisions/upstream-calls.md, 'No function made per call or per request').
 */
class CallUpstreamClient implements UpstreamClient {
  readonly baseUrl: string;
  readonly #options: UpstreamClientOptions;
  readonly #policy: UpstreamPolicy;
  readonly #dispatcher: Dispatcher;
  readonly #outer: AbortSignal | undefined;
  readonly #spans: UpstreamSpans | undefined;
  /** The call's deadline: an absolute time, fixed when the call enters the upstream stage. */
  readonly #deadlineAt: number;

  constructor(options: UpstreamClientOptions) {
    this.#options = options;
    this.#policy = options.policy;
    this.baseUrl = options.baseUrl ?? options.policy.baseUrl;
    this.#dispatcher = options.dispatcher ?? sharedDispatcher();
    this.#outer = options.signal;
    this.#spans = options.trace ? options.spans : undefined;
    this.#deadlineAt = performance.now() + options.policy.timeoutMs;
  }

  get #deadlineText(): string {
    return `the call's ${this.#policy.timeoutMs} ms deadline passed`;
  }

  #outerAborted(): boolean {
    return this.#outer?.aborted === true;
  }

  async request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
    const policy = this.#policy;
    const options = this.#options;
    const url = joinUrl(this.baseUrl, req.path, req.query);
    const started = performance.now();
    // One controller per request, aborted by what is left of the call's deadline or by the
    // call's signal (cheaper on the hot path than AbortSignal.timeout + AbortSignal.any). It
    // covers the queue for a slot, both attempts, the wait between them and the body budget.
    // The state is also the exchange's abort hook (dispatch.ts): aborting calls the running
    // exchange directly, with no listener on the signal.
    const state = new RequestAbortState();
    const signal = state.controller.signal;
    const remaining = this.#deadlineAt - started;
    let timer: NodeJS.Timeout | undefined;
    if (remaining > 0) timer = setTimeout(expireRequest, remaining, state);
    else expireRequest(state);
    const outer = this.#outer;
    if (outer?.aborted) state.controller.abort();
    else outer?.addEventListener('abort', state, { once: true });
    let release: (() => void) | undefined;
    let retried = false;
    let status: number | undefined;
    let outcome: UpstreamCallInfo['outcome'] = 'ok';
    try {
      if (state.aborted) throw new UpstreamError('timeout', `${this.#deadlineText} before this request`);
      try {
        const gate = options.gate;
        release = gate ? (gate.tryAcquire?.(signal) ?? (await gate.acquire(signal))) : undefined;
      } catch (error) {
        if (state.aborted)
          throw new UpstreamError('timeout', `${this.#deadlineText} while waiting for a free upstream slot`);
        throw error;
      }
      let result = await this.#attempt<T>(req, url, state, false);
      const mayRetry = policy.retry.onThrottle === 'once' && req.write !== true;
      if (result.throttled && mayRetry) {
        retried = true;
        const wait = retryAfterMs(
          result.throttled.headers['retry-after'],
          policy.retry.defaultWaitMs,
          policy.retry.maxWaitMs,
        );
        try {
          await (options.sleep ?? abortableSleep)(wait, signal);
        } catch {
          throw new UpstreamError(
            'timeout',
            state.aborted
              ? `${this.#deadlineText} while waiting to retry`
              : 'the call was aborted while waiting to retry',
          );
        }
        result = await this.#attempt<T>(req, url, state, true);
      }
      if (result.throttled) {
        status = 429;
        throw new UpstreamError('throttled', `upstream answered HTTP 429${retried ? ' again after one retry' : ''}`, {
          status: 429,
          body: result.throttled.body,
          headers: result.throttled.headers,
        });
      }
      status = result.response!.status;
      return result.response!;
    } catch (error) {
      if (error instanceof UpstreamError) {
        outcome = error.kind;
        status ??= error.status;
      } else outcome = 'network';
      throw error;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', state);
      release?.();
      options.onCall?.({
        method: req.method,
        origin: url.origin,
        status,
        outcome,
        durationMs: performance.now() - started,
        retried,
      });
    }
  }

  /**
   * One request sent (`resend`: the throttle retry). With telemetry it is reported when it ends,
   * under the span id its `traceparent` carried: method, origin, status and outcome only.
   */
  #attempt<T>(req: UpstreamRequest, url: RequestUrl, state: RequestAbortState, resend: boolean): Promise<Attempt<T>> {
    const spans = this.#spans;
    return spans === undefined ? this.#once<T>(req, url, state) : this.#traced<T>(spans, req, url, state, resend);
  }

  async #traced<T>(
    hook: UpstreamSpans,
    req: UpstreamRequest,
    url: RequestUrl,
    state: RequestAbortState,
    resend: boolean,
  ): Promise<Attempt<T>> {
    const spanId = newSpanId();
    const startMs = epochMs();
    let status: number | undefined;
    let outcome = 'ok';
    try {
      const result = await this.#once<T>(req, url, state, spanId);
      status = result.response?.status ?? result.throttled?.status;
      if (result.throttled) outcome = 'throttled';
      return result;
    } catch (error) {
      outcome = error instanceof UpstreamError ? error.kind : 'network';
      status = error instanceof UpstreamError ? error.status : undefined;
      throw error;
    } finally {
      hook.attempt({
        spanId,
        method: req.method,
        origin: url.origin,
        status,
        outcome,
        resend,
        startMs,
        endMs: epochMs(),
      });
    }
  }

  async #once<T>(
    req: UpstreamRequest,
    url: RequestUrl,
    state: RequestAbortState,
    spanId?: string,
  ): Promise<Attempt<T>> {
    const signal = state.controller.signal;
    const options = this.#options;
    const policy = this.#policy;
    const headers = requestHeaders(req, options.userAgent, options.trace, spanId);
    let body: string | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    let res: DispatchedResponse;
    try {
      res = await dispatchRequest(this.#dispatcher, url, {
        method: req.method,
        headers,
        body,
        signal,
        abortHook: state,
      });
    } catch (error) {
      if (state.aborted) throw new UpstreamError('timeout', `${this.#deadlineText} before the upstream answered`);
      if (this.#outerAborted() || isAbortError(error)) throw new UpstreamError('timeout', 'the call was aborted');
      throw new UpstreamError(
        'network',
        `upstream unreachable: ${(error as { code?: string }).code ?? (error as Error).name}`,
      );
    }
    const responseHeaders = flattenHeaders(res.headers);
    const cap =
      req.maxBytes !== undefined && req.maxBytes < policy.maxResponseBytes ? req.maxBytes : policy.maxResponseBytes;
    const contentLength = responseHeaders['content-length'];
    const declared = Number(contentLength);
    const length =
      contentLength !== undefined && Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
    if (length !== undefined && length > cap) {
      res.body.destroy(); // declared over the cap: not a byte of it is read
      throw tooLarge(cap);
    }
    // Room in the process's body budget first (the declared size, else the cap), so the bodies of
    // all calls together never hold more than the budget; given back once the body is parsed.
    let release: (() => void) | undefined;
    const budget = options.bodyBudget;
    if (budget && length !== 0) {
      try {
        release = budget.tryReserve(length ?? cap) ?? (await budget.reserve(length ?? cap, signal));
      } catch (error) {
        res.body.destroy();
        if (state.aborted)
          throw new UpstreamError(
            'timeout',
            `${this.#deadlineText} while the response body waited for the body budget`,
          );
        throw error instanceof UpstreamError ? error : new UpstreamError('timeout', 'the call was aborted');
      }
    }
    try {
      const got = this.#bytes(res, cap, length, state);
      return this.#parse<T>(req, res.statusCode, responseHeaders, got instanceof Promise ? await got : got);
    } finally {
      release?.();
    }
  }

  /**
   * The body's bytes: at hand, with no promise, when the whole answer came with its head (a small
   * answer does); otherwise read as they come.
   */
  #bytes(
    res: DispatchedResponse,
    cap: number,
    length: number | undefined,
    state: RequestAbortState,
  ): Buffer | Promise<Buffer> {
    const overflow = () => tooLarge(cap);
    let now: Buffer | undefined;
    try {
      now = res.body.readNow(cap, overflow, length);
    } catch (error) {
      throw this.#bodyFailure(error, state);
    }
    return (
      now ??
      res.body.read(cap, overflow, length).catch((error: unknown) => Promise.reject(this.#bodyFailure(error, state)))
    );
  }

  /** What a failed body read is to the handler. */
  #bodyFailure(error: unknown, state: RequestAbortState): UpstreamError {
    if (error instanceof UpstreamError) return error;
    if (state.aborted)
      return new UpstreamError('timeout', `${this.#deadlineText} before the upstream finished its answer`);
    // As before the head: a call its caller ended is aborted, not cut off by the upstream.
    if (this.#outerAborted()) return new UpstreamError('timeout', 'the call was aborted');
    return new UpstreamError('network', 'upstream response was cut off');
  }

  /** The answer as the handler gets it: a 2xx (or accepted status) parsed as asked, a 429 to retry, or an error. */
  #parse<T>(req: UpstreamRequest, status: number, responseHeaders: Record<string, string>, bytes: Buffer): Attempt<T> {
    const accepted = status >= 200 && status < 300 ? true : (req.acceptStatus ?? []).includes(status);
    if (!accepted) {
      const errorBody = parseErrorBody(bytes);
      if (status === 429) return { throttled: { status, headers: responseHeaders, body: errorBody } };
      throw new UpstreamError(classifyStatus(status), `upstream answered HTTP ${status}`, {
        status,
        body: errorBody,
        headers: responseHeaders,
      });
    }
    let parsed: unknown;
    if (req.expect === 'bytes') parsed = bytes;
    else if (req.expect === 'text') parsed = bytes.toString('utf8');
    else if (bytes.length === 0) parsed = null;
    else {
      const text = bytes.toString('utf8');
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new UpstreamError('bad_body', `upstream answered HTTP ${status} with a body that is not JSON`, {
          status,
          body: text.slice(0, ERROR_BODY_LIMIT),
          headers: responseHeaders,
        });
      }
    }
    if (req.throttledBody?.(parsed)) return { throttled: { status, headers: responseHeaders, body: parsed } };
    return { response: { status, headers: responseHeaders, body: parsed as T } };
  }
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  return new CallUpstreamClient(options);
}

// The upstream HTTP layer on undici: keep-alive pools per origin (one shared Agent), a whole-
// request deadline per call, redirects never followed, bodies size-capped while streaming, the
// single throttle retry of DECISIONS §11, and a typed classification of failures.
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { UpstreamPolicy } from '../handler-api/descriptor-types.ts';
import { readCapped } from './read-capped.ts';
import { UpstreamError, type UpstreamClient, type UpstreamFailureKind, type UpstreamRequest, type UpstreamResponse } from '../handler-api/upstream-types.ts';

export interface ConcurrencyGate {
  /** Resolves with a release function once a slot is free; rejects when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
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
  /** Aborts every request of the call (client gone, call deadline). */
  readonly signal?: AbortSignal;
  readonly dispatcher?: Dispatcher;
  readonly gate?: ConcurrencyGate;
  readonly onCall?: (info: UpstreamCallInfo) => void;
  /** Injected in tests to skip real waiting. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly userAgent?: string;
}

let sharedAgent: Agent | undefined;
/** One Agent: undici keeps a keep-alive pool per origin inside it. */
export function sharedDispatcher(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections: 64, pipelining: 1 });
  return sharedAgent;
}

export async function closeSharedDispatcher(): Promise<void> {
  const agent = sharedAgent;
  sharedAgent = undefined;
  await agent?.close();
}

const ERROR_BODY_LIMIT = 2048;

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The three HTTP-date forms (RFC 9110 §5.6.7: IMF-fixdate, RFC 850, asctime) all begin with a day
 * name. Only those reach Date.parse, which reads almost anything ("-1", " 5") as some year.
 */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? [ \w:,-]+$/;

/** Retry-After in seconds or as an HTTP date, clamped to [0, max]; `fallback` when absent or neither. */
export function retryAfterMs(header: string | undefined, fallback: number, max: number, now = Date.now()): number {
  if (header === undefined || header.trim() === '') return Math.min(fallback, max);
  const value = header.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) ms = Number(value) * 1000;
  else {
    const at = HTTP_DATE.test(value) ? Date.parse(value) : Number.NaN;
    ms = Number.isNaN(at) ? fallback : at - now;
  }
  return Math.max(0, Math.min(ms, max));
}

export function classifyStatus(status: number): UpstreamFailureKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'throttled';
  if (status === 400 || status === 422) return 'validation';
  if (status === 404) return 'not_found';
  if (status === 408 || status >= 500) return 'server';
  return 'client';
}

const baseOrigins = new Map<string, { origin: string; trimmed: string }>();

/** The request URL as a string (URL objects are parsed only when a query or absolute path needs it). */
function joinUrl(base: string, path: string, query?: UpstreamRequest['query']): { href: string; origin: string } {
  let b = baseOrigins.get(base);
  if (!b) {
    b = { origin: new URL(base).origin, trimmed: base.replace(/\/+$/, '') };
    baseOrigins.set(base, b);
  }
  let href: string;
  if (/^https?:\/\//i.test(path)) {
    const url = new URL(path);
    if (url.origin !== b.origin) throw new UpstreamError('client', `refusing a request outside the connector's origin (${url.origin})`);
    href = url.href;
  } else {
    href = path === '' ? base : `${b.trimmed}/${path.replace(/^\/+/, '')}`;
  }
  if (query) {
    const url = new URL(href);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    href = url.href;
  }
  return { href, origin: b.origin };
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

function parseErrorBody(bytes: Buffer): unknown {
  const text = bytes.subarray(0, 64 * 1024).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, ERROR_BODY_LIMIT);
  }
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError' || (error as { code?: string }).code === 'UND_ERR_ABORTED');
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const { policy } = options;
  const base = options.baseUrl ?? policy.baseUrl;
  const dispatcher = options.dispatcher ?? sharedDispatcher();
  const sleep = options.sleep ?? abortableSleep;
  const outer = options.signal ?? new AbortController().signal;

  async function once<T>(req: UpstreamRequest, url: { href: string; origin: string }): Promise<{ response?: UpstreamResponse<T>; throttled?: { headers: Record<string, string>; body: unknown } }> {
    // One controller per request, aborted by the connector's deadline or by the call's signal
    // (cheaper on the hot path than AbortSignal.timeout + AbortSignal.any).
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, policy.timeoutMs);
    const onOuterAbort = () => controller.abort();
    if (outer.aborted) controller.abort();
    else outer.addEventListener('abort', onOuterAbort, { once: true });
    const deadline = {
      get aborted() {
        return timedOut;
      },
    };
    try {
      return await onceWithSignal<T>(req, url, signal, deadline);
    } finally {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuterAbort);
    }
  }

  async function onceWithSignal<T>(
    req: UpstreamRequest,
    url: { href: string; origin: string },
    signal: AbortSignal,
    deadline: { readonly aborted: boolean },
  ): Promise<{ response?: UpstreamResponse<T>; throttled?: { headers: Record<string, string>; body: unknown } }> {
    const headers: Record<string, string> = { accept: req.expect === 'bytes' ? '*/*' : 'application/json', 'user-agent': options.userAgent ?? 'connector-gateway', ...req.headers };
    let body: string | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await undiciRequest(url.href, { method: req.method, headers, body, signal, dispatcher });
    } catch (error) {
      if (deadline.aborted) throw new UpstreamError('timeout', `upstream did not answer within ${policy.timeoutMs} ms`);
      if (outer.aborted || isAbortError(error)) throw new UpstreamError('timeout', 'the call was aborted');
      throw new UpstreamError('network', `upstream unreachable: ${(error as { code?: string }).code ?? (error as Error).name}`);
    }
    const responseHeaders = flattenHeaders(res.headers);
    let bytes: Buffer;
    try {
      bytes = await readCapped(res.body, policy.maxResponseBytes, () => new UpstreamError('too_large', `upstream response passed the ${policy.maxResponseBytes}-byte cap`), 'destroy');
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      if (deadline.aborted) throw new UpstreamError('timeout', `upstream did not finish within ${policy.timeoutMs} ms`);
      throw new UpstreamError('network', 'upstream response was cut off');
    }
    const status = res.statusCode;
    const accepted = status >= 200 && status < 300 ? true : (req.acceptStatus ?? []).includes(status);
    if (!accepted) {
      const errorBody = parseErrorBody(bytes);
      if (status === 429) return { throttled: { headers: responseHeaders, body: errorBody } };
      throw new UpstreamError(classifyStatus(status), `upstream answered HTTP ${status}`, { status, body: errorBody, headers: responseHeaders });
    }
    let parsed: unknown;
    if (req.expect === 'bytes') parsed = bytes;
    else if (req.expect === 'text') parsed = bytes.toString('utf8');
    else if (bytes.length === 0) parsed = null;
    else {
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch {
        throw new UpstreamError('bad_body', `upstream answered HTTP ${status} with a body that is not JSON`, {
          status,
          body: bytes.subarray(0, ERROR_BODY_LIMIT).toString('utf8'),
          headers: responseHeaders,
        });
      }
    }
    if (req.throttledBody?.(parsed)) return { throttled: { headers: responseHeaders, body: parsed } };
    return { response: { status, headers: responseHeaders, body: parsed as T } };
  }

  return {
    async request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      const url = joinUrl(base, req.path, req.query);
      const started = performance.now();
      const release = options.gate ? await options.gate.acquire(outer) : undefined;
      let retried = false;
      let status: number | undefined;
      let outcome: UpstreamCallInfo['outcome'] = 'ok';
      try {
        let result = await once<T>(req, url);
        const mayRetry = policy.retry.onThrottle === 'once' && req.write !== true;
        if (result.throttled && mayRetry) {
          retried = true;
          const wait = retryAfterMs(result.throttled.headers['retry-after'], policy.retry.defaultWaitMs, policy.retry.maxWaitMs);
          try {
            await sleep(wait, outer);
          } catch {
            throw new UpstreamError('timeout', 'the call was aborted while waiting to retry');
          }
          result = await once<T>(req, url);
        }
        if (result.throttled) {
          status = 429;
          throw new UpstreamError('throttled', `upstream answered HTTP 429${retried ? ' again after one retry' : ''}`, { status: 429, body: result.throttled.body, headers: result.throttled.headers });
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
        release?.();
        options.onCall?.({ method: req.method, origin: url.origin, status, outcome, durationMs: performance.now() - started, retried });
      }
    },
  };
}

// The HTTP parts of one upstream request and its answer, apart from the client that sends it
// (client.ts): the request's URL and headers, the response's headers flattened, the failure kind of a
// status, Retry-After, an error body kept for the handler, and the errors of a body over its cap.
import { UpstreamError, type UpstreamFailureKind, type UpstreamRequest } from '../handler-api/upstream-types.ts';
import { putTraceHeaders, type TraceContext } from '../trace-context.ts';
import type { DispatchedResponse } from './dispatch.ts';

/** How much of an upstream's error body is kept (as text, when it is not JSON). */
export const ERROR_BODY_LIMIT = 2048;

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
export function joinUrl(
  base: string,
  path: string,
  query?: UpstreamRequest['query'],
): { href: string; origin: string } {
  let b = baseOrigins.get(base);
  if (!b) {
    b = { origin: new URL(base).origin, trimmed: base.replace(/\/+$/, '') };
    baseOrigins.set(base, b);
  }
  let href: string;
  if (/^https?:\/\//i.test(path)) {
    const url = new URL(path);
    if (url.origin !== b.origin)
      throw new UpstreamError('client', `refusing a request outside the connector's origin (${url.origin})`);
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

export function flattenHeaders(headers: DispatchedResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in headers) {
    const v = headers[k];
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

export function parseErrorBody(bytes: Buffer): unknown {
  const text = bytes.subarray(0, 64 * 1024).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, ERROR_BODY_LIMIT);
  }
}

export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'AbortError' ||
      error.name === 'TimeoutError' ||
      (error as { code?: string }).code === 'UND_ERR_ABORTED')
  );
}

/** A body over the cap (declared, or counted while read: `ResponseBody.read`'s overflow). */
export function tooLarge(cap: number): UpstreamError {
  return new UpstreamError('too_large', `upstream response passed the ${cap}-byte cap`);
}

/**
 * The headers of one request: accept and user-agent, the handler's own over them, and the call's
 * `traceparent` (and `tracestate`) over those. One object, written key by key.
 */
export function requestHeaders(
  req: UpstreamRequest,
  userAgent: string | undefined,
  trace: TraceContext | undefined,
  spanId: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: req.expect === 'bytes' ? '*/*' : 'application/json',
    'user-agent': userAgent ?? 'connector-gateway',
  };
  const own = req.headers;
  if (own) for (const name in own) headers[name] = own[name]!;
  return trace ? putTraceHeaders(headers, trace, spanId) : headers;
}

// W3C Trace Context for one tools/call (docs/decisions/mcp-surface.md, 'Trace context: every call
// has a trace, continued upstream'). MCP 2026-07-28
// reserves the `_meta` keys `traceparent`, `tracestate` and `baggage` on every request; HTTP
// clients may send `traceparent`/`tracestate` headers too. The gateway reads a caller's trace
// (the `_meta` keys win over the headers), starts one when none came in, logs its trace id and
// its own span id with every line of the call, and sends each upstream request a `traceparent`
// of the same trace with a fresh span id (the sampled flag kept) and the caller's `tracestate`
// unchanged. Invalid input is ignored, never echoed. Baggage is not read and not passed on.
import { randomFillSync } from 'node:crypto';

/** The trace a call belongs to: validated, lowercase hex, safe to log and to send upstream. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span (the parent-id it sent), absent when the gateway started the trace. */
  readonly parentId?: string;
  /** trace-flags, 2 lowercase hex digits: the sampled and random bits as received, the others zero. */
  readonly flags: string;
  /** The caller's tracestate, as received (only with a valid traceparent; at most 512 characters). */
  readonly tracestate?: string;
}

/** Loose header bag, as node:http's `IncomingHttpHeaders` (names lowercase). */
export type TraceHeaders = Readonly<Record<string, string | string[] | undefined>>;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;
/** Bits of trace-flags passed on: sampled (01) and, from Trace Context Level 2, random (02). */
const KNOWN_FLAGS = 0x03;
/** W3C: a tracestate of at most 512 characters must be propagated; longer ones are dropped here. */
export const TRACESTATE_MAX = 512;
const TRACESTATE_MAX_MEMBERS = 32;
const KEY = /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** Flags of a trace the gateway starts: sampled, since every call is recorded in the gateway's log. */
export const STARTED_TRACE_FLAGS = '01';

/**
 * A `traceparent` of version 00, exactly `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`
 * in lowercase, neither id all zero; anything else (another version, including the invalid ff,
 * uppercase hex, other lengths, extra fields) is undefined.
 */
export function parseTraceparent(value: unknown): { traceId: string; parentId: string; flags: string } | undefined {
  if (typeof value !== 'string' || value.length !== 55) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const traceId = match[1]!;
  const parentId = match[2]!;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return undefined;
  const flags = (Number.parseInt(match[3]!, 16) & KNOWN_FLAGS).toString(16).padStart(2, '0');
  return { traceId, parentId, flags };
}

/**
 * A `tracestate` to pass on as it is, or undefined: at most 512 characters and 32 list members,
 * each `key=value` in the W3C grammar (empty members and optional spaces or tabs around them
 * allowed), no key twice. Anything else is dropped whole, so nothing unparsable goes upstream.
 */
export function parseTracestate(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > TRACESTATE_MAX) return undefined;
  const keys = new Set<string>();
  for (const raw of value.split(',')) {
    const member = raw.replace(/^[ \t]+|[ \t]+$/g, '');
    if (member === '') continue;
    const eq = member.indexOf('=');
    if (eq <= 0) return undefined;
    const key = member.slice(0, eq);
    if (!KEY.test(key) || !VALUE.test(member.slice(eq + 1)) || keys.has(key)) return undefined;
    keys.add(key);
    if (keys.size > TRACESTATE_MAX_MEMBERS) return undefined;
  }
  return keys.size > 0 ? value : undefined;
}

/** A header's single value: a repeated `traceparent` is not one. Repeated tracestate headers combine. */
function single(value: string | string[] | undefined, combine: boolean): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && (combine || value.length === 1)) return value.join(',');
  return undefined;
}

function fromPair(traceparent: unknown, tracestate: unknown): TraceContext | undefined {
  const parent = parseTraceparent(traceparent);
  if (!parent) return undefined;
  const state = parseTracestate(tracestate);
  return state === undefined ? parent : { ...parent, tracestate: state };
}

/**
 * The caller's trace: `_meta.traceparent` (with `_meta.tracestate`) when valid, else the
 * `traceparent` header (with the `tracestate` header), else undefined — the pipeline then starts
 * one (`startTrace`). A tracestate is taken only from the source whose traceparent is used.
 */
export function traceContextFrom(meta: unknown, headers: TraceHeaders | undefined): TraceContext | undefined {
  if (meta !== null && typeof meta === 'object' && 'traceparent' in meta) {
    const m = meta as { traceparent?: unknown; tracestate?: unknown };
    const fromMeta = fromPair(m.traceparent, m.tracestate);
    if (fromMeta) return fromMeta;
  }
  const header = headers ? single(headers.traceparent, false) : undefined;
  if (header === undefined) return undefined;
  return fromPair(header, single(headers!.tracestate, true));
}

// Random ids from a pooled buffer: one randomFillSync per 4 KB instead of one call per id.
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;
function randomHex(bytes: number): string {
  for (;;) {
    if (poolOffset + bytes > POOL.length) {
      randomFillSync(POOL);
      poolOffset = 0;
    }
    const hex = POOL.toString('hex', poolOffset, poolOffset + bytes);
    poolOffset += bytes;
    if (!ALL_ZERO.test(hex)) return hex;
  }
}

/** A fresh span id: 16 lowercase hex digits, not all zero. */
export function newSpanId(): string {
  return randomHex(8);
}

/** A new trace for a call that brought none (W3C: a service MAY start one): random trace id, sampled. */
export function startTrace(): TraceContext {
  return { traceId: randomHex(16), flags: STARTED_TRACE_FLAGS };
}

/** The `traceparent` of one outgoing request: the same trace and flags, a fresh span id. */
export function childTraceparent(trace: TraceContext, spanId: string = newSpanId()): string {
  return `00-${trace.traceId}-${spanId}-${trace.flags}`;
}

/**
 * Writes the headers one upstream request of the call carries into `headers` (over any of the same
 * name): a child `traceparent` (with `spanId`, the request's span when it is exported, else a fresh
 * one), and `tracestate` as received.
 */
export function putTraceHeaders(
  headers: Record<string, string>,
  trace: TraceContext,
  spanId: string = newSpanId(),
): Record<string, string> {
  headers['traceparent'] = childTraceparent(trace, spanId);
  if (trace.tracestate !== undefined) headers['tracestate'] = trace.tracestate;
  return headers;
}

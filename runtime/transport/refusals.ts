// How the MCP endpoint refuses a request before any method runs (the refusal's status, JSON-RPC
// error and headers, in the code range of the request's protocol era), the refusal reasons of a
// caller check, bounded method labels for metrics, and failed authentication per client address.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../io/http-io.ts';
import { errorJson, type JsonRpcId } from '../mcp/protocol.ts';
import { modernCode } from '../mcp/revision.ts';
import type { MemoryRateLimiter } from '../metering/rate-limit.ts';
import type { AuthFailures, Refusal } from './checks.ts';

/** The refusal reasons of a caller check, by HTTP status. */
export const CALLER_REFUSALS: Readonly<Record<number, string>> = {
  401: 'unauthorized',
  429: 'auth_rate_limited',
  503: 'caller_unverifiable',
};

/** Method names a metric label may take (the rest is `other`: a label set must stay bounded). */
export const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'server/discover',
  'notifications/initialized',
  'notifications/cancelled',
]);
export const methodLabel = (method: string | undefined) =>
  method === undefined ? 'unknown' : KNOWN_METHODS.has(method) ? method : 'other';

/** Bodies of the refusals that carry no request id, rendered once. */
const refusalBodies = new WeakMap<Refusal, string>();
const modernRefusalBodies = new WeakMap<Refusal, string>();

/**
 * Sends a refusal as it is: its status, its JSON-RPC error (with the request id when known) and
 * headers. To a request of the 2026 era (known from its MCP-Protocol-Version header, before the
 * body is read) the gateway's own codes are given from the application range instead: 2026-07-28
 * forbids undefined codes in -32020…-32099 (rate limited was -32029) and discourages -32000…-32019.
 */
export function refuse(res: ServerResponse, refusal: Refusal, id: JsonRpcId = null, modern = false): number {
  const cache = modern ? modernRefusalBodies : refusalBodies;
  let body = id === null ? cache.get(refusal) : undefined;
  if (body === undefined) {
    body = errorJson(id, modern ? modernCode(refusal.code) : refusal.code, refusal.message, refusal.data);
    if (id === null) cache.set(refusal, body);
  }
  sendJson(res, refusal.status, body, refusal.headers);
  return refusal.status;
}

/** Failed authentication of one request's client address (AuthFailures over the address buckets). */
export class AddressFailures implements AuthFailures {
  readonly #buckets: MemoryRateLimiter;
  readonly #req: IncomingMessage;
  constructor(buckets: MemoryRateLimiter, req: IncomingMessage) {
    this.#buckets = buckets;
    this.#req = req;
  }
  exhausted(): boolean {
    return !this.#buckets.available(this.#req.socket.remoteAddress ?? 'unknown');
  }
  failed(): void {
    this.#buckets.take(this.#req.socket.remoteAddress ?? 'unknown');
  }
}

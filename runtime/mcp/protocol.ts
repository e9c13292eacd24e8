// The JSON-RPC envelope of MCP over streamable HTTP, stateless with JSON responses
// (DECISIONS §4–5). Types come from the MCP SDK; the envelope is handled here so that the hot path
// costs one JSON.parse and one string concatenation around precomputed results. Only the SDK's
// types are imported: its runtime module loads every zod schema (~140 ms of start-up), so the
// constants below are kept here and test/mcp-protocol.test.ts checks them against the SDK.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { protocolText } from '../protocol-text.ts';

/** JSON-RPC error codes (the SDK's `ErrorCode` values). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** The versions this gateway serves (DECISIONS §5). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
export const LATEST = SERVED_PROTOCOL_VERSIONS[0]!;

/** Error codes of this gateway beyond JSON-RPC's own (the implementation-defined server range). */
export const UNAUTHORIZED = -32001;
export const RATE_LIMITED = -32029;

/** The gateway's version, as `initialize` (serverInfo) and /healthz report it. */
export const SERVER_VERSION = '0.1.0';

export type JsonRpcId = string | number | null;

export type Incoming =
  | {
      readonly kind: 'request';
      readonly id: string | number;
      readonly method: string;
      readonly params: Record<string, unknown>;
    }
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown }
  | { readonly kind: 'response' }
  | { readonly kind: 'invalid'; readonly id: JsonRpcId; readonly code: number; readonly message: string };

export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && SERVED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST;
}

/** Classifies one parsed body. Batches are refused: one JSON-RPC message per POST. */
export function classify(body: unknown): Incoming {
  if (Array.isArray(body))
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: protocolText('batch_not_supported') };
  if (typeof body !== 'object' || body === null)
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: protocolText('not_a_message') };
  const msg = body as Record<string, unknown>;
  const rawId = msg.id;
  const id: JsonRpcId = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
  if (msg.jsonrpc !== '2.0')
    return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: protocolText('jsonrpc_version') };
  if (typeof msg.method !== 'string') {
    if ('result' in msg || 'error' in msg) return { kind: 'response' };
    return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: protocolText('method_missing') };
  }
  if (!('id' in msg)) return { kind: 'notification', method: msg.method, params: msg.params };
  if (typeof rawId !== 'string' && typeof rawId !== 'number')
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: protocolText('invalid_id') };
  if (
    msg.params !== undefined &&
    (typeof msg.params !== 'object' || msg.params === null || Array.isArray(msg.params))
  ) {
    return { kind: 'invalid', id: rawId, code: ErrorCode.InvalidParams, message: protocolText('params_not_object') };
  }
  return { kind: 'request', id: rawId, method: msg.method, params: (msg.params as Record<string, unknown>) ?? {} };
}

/** The id of a parsed body that has not been classified yet (a refusal echoes it when it can). */
export function requestIdOf(body: unknown): JsonRpcId {
  return body &&
    typeof body === 'object' &&
    'id' in body &&
    (typeof body.id === 'string' || typeof body.id === 'number')
    ? body.id
    : null;
}

export function resultJson(id: string | number, resultJsonText: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJsonText}}`;
}

/**
 * A method's answer with its own HTTP status (2026-07-28 refusals after dispatch: HTTP 400 with
 * the JSON-RPC error), thrown by the method and sent by the transport as it is.
 */
export class RefusedReply extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string) {
    super('refused');
    this.name = 'RefusedReply';
    this.status = status;
    this.body = body;
  }
}

export function errorJson(id: JsonRpcId, code: number, message: string, data?: unknown): string {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return JSON.stringify({ jsonrpc: '2.0', id, error } satisfies JSONRPCMessage | Record<string, unknown>);
}

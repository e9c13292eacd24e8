// The MCP methods an endpoint serves, as a map from method name to handler: initialize, ping,
// tools/list (precomputed bytes) and tools/call (the pipeline). The transport hands every
// well-formed request to `dispatch`; a method not in the map is "method not found". A handler
// answers with the whole JSON-RPC response body (always HTTP 200).
import type { Endpoint, GatewayContext } from '../gateway-context.ts';
import { formatText } from '../handler-api/tool-error.ts';
import type { Pipeline } from '../pipeline/pipeline.ts';
import type { LinkIssuer } from '../platform/links.ts';
import type { Identity } from '../platform/state.ts';
import { ErrorCode, errorJson, negotiateVersion, protocolText, resultJson, SERVER_VERSION } from './protocol.ts';
import { toolsListBytes } from './tools-list.ts';

/** One JSON-RPC request to one endpoint instance, from an authenticated caller. */
export interface McpRequest {
  readonly endpoint: Endpoint;
  readonly identity: Identity;
  readonly id: string | number;
  readonly params: Record<string, unknown>;
  /** Request id for the logs. */
  readonly reqId: string;
  /** Aborted when the client goes away; made on first use (only tools/call asks for it). */
  readonly signal: () => AbortSignal;
}

/** The JSON-RPC response body. */
export type McpReply = string | Buffer;

export type MethodHandler = (request: McpRequest) => McpReply | Promise<McpReply>;

export type McpMethods = ReadonlyMap<string, MethodHandler>;

const CLOSE_BRACE = Buffer.from('}');

export function createMethods(gateway: GatewayContext, pipeline: Pipeline, links: LinkIssuer): McpMethods {
  const subscribed = ({ identity, endpoint }: McpRequest) => gateway.state.isSubscribed(identity.account.id, endpoint.connector.config.key);

  async function initialize(request: McpRequest): Promise<McpReply> {
    const { endpoint, identity } = request;
    const { descriptor, config } = endpoint.connector;
    const instructions = subscribed(request)
      ? descriptor.instructions
      : formatText(gateway.platform.instructions[descriptor.connectAccount ? 'not_subscribed' : 'not_subscribed_tools_listed'] ?? descriptor.instructions, {
          connector_id: config.id,
          connector_title: descriptor.title,
          purchase_url: await links.issue('purchase', identity, config.key, endpoint.instanceId),
        });
    const result = {
      protocolVersion: negotiateVersion(request.params.protocolVersion),
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: `connector-gateway/${endpoint.instanceId}`, title: descriptor.title, version: SERVER_VERSION },
      instructions,
    };
    return resultJson(request.id, JSON.stringify(result));
  }

  function toolsList(request: McpRequest): McpReply {
    const full = subscribed(request) || !request.endpoint.connector.descriptor.connectAccount;
    // The list is precomputed as bytes; only the envelope around it is built per request.
    const list = toolsListBytes(request.endpoint, gateway.platform, full);
    const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":`);
    return Buffer.concat([head, list, CLOSE_BRACE], head.length + list.length + 1);
  }

  async function toolsCall(request: McpRequest): Promise<McpReply> {
    const { name, arguments: args } = request.params;
    const result = await pipeline.call(request.endpoint, request.identity, name, args, request.signal(), request.reqId);
    return resultJson(request.id, JSON.stringify(result));
  }

  return new Map<string, MethodHandler>([
    ['initialize', initialize],
    ['ping', (request) => resultJson(request.id, '{}')],
    ['tools/list', toolsList],
    ['tools/call', toolsCall],
  ]);
}

export function dispatch(methods: McpMethods, method: string, request: McpRequest): McpReply | Promise<McpReply> {
  const handler = methods.get(method);
  return handler ? handler(request) : errorJson(request.id, ErrorCode.MethodNotFound, protocolText('method_not_found', { method }));
}

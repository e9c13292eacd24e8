// The MCP methods an endpoint serves, one map per protocol era: for the 2025 revisions initialize,
// ping, tools/list (precomputed bytes) and tools/call (the pipeline); for 2026-07-28
// server/discover, tools/list and tools/call, whose results also carry `resultType`, the server's
// identity in `_meta` and, on lists, cache hints. The transport hands every well-formed request to
// `dispatch`; a method not in its era's map is "method not found". A handler answers with the
// whole JSON-RPC response body (HTTP 200).
import { renderToolReferences, type Endpoint, type GatewayContext } from '../gateway-context.ts';
import type { PlatformDescriptor } from '../handler-api/descriptor-types.ts';
import { formatText } from '../handler-api/tool-error.ts';
import type { Pipeline } from '../pipeline/pipeline.ts';
import type { LinkIssuer } from '../secrets/signed-links.ts';
import type { Identity } from '../store/state.ts';
import { protocolText } from '../protocol-text.ts';
import { ErrorCode, errorJson, negotiateVersion, RefusedReply, resultJson, SERVER_VERSION } from './protocol.ts';
import {
  ALL_PROTOCOL_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_SERVER_INFO,
  MISSING_CLIENT_CAPABILITY,
} from './revision.ts';
import type { AskPerson, PersonConfirmRequest } from '../pipeline/person-confirm.ts';
import { InputRefused } from '../pipeline/call-input.ts';
import type { CallToolResult } from '../pipeline/call-types.ts';
import { toolsListOpen } from './tools-list.ts';
import { traceContextFrom, type TraceHeaders } from '../trace-context.ts';
import type { ToolSelection } from '../tool-selection.ts';
import type { CallProgress } from '../pipeline/progress.ts';

/** One JSON-RPC request to one endpoint instance, from an authenticated caller. */
export interface McpRequest {
  readonly endpoint: Endpoint;
  readonly identity: Identity;
  readonly id: string | number;
  readonly params: Record<string, unknown>;
  /** Request id for the logs. */
  readonly reqId: string;
  /** The HTTP request's headers (a `traceparent` header when `_meta` carries none). */
  readonly headers?: TraceHeaders;
  /** Which tools the client selected (client-selection.ts): tools/list and tools/call read the same value. */
  readonly selection: ToolSelection;
  /** Aborted when the client goes away; made on first use (only tools/call asks for it). */
  readonly signal: () => AbortSignal;
  /** tools/call's progress, when the client asked for it and can receive it (an event stream). */
  readonly progress?: CallProgress | undefined;
  /** 2025 revisions: asks the person on the call's event stream (`elicitation/create`), when the client can show it. */
  readonly askPerson?: ((question: unknown, signal: AbortSignal) => Promise<unknown>) | undefined;
}

/** The methods of both protocol eras. */
export interface McpMethodSets {
  /** 2025-03-26, 2025-06-18, 2025-11-25: the initialize handshake. */
  readonly legacy: McpMethods;
  /** 2026-07-28: stateless, server/discover. */
  readonly modern: McpMethods;
}

/** The JSON-RPC response body. */
export type McpReply = string | Buffer;

export type MethodHandler = (request: McpRequest) => McpReply | Promise<McpReply>;

export type McpMethods = ReadonlyMap<string, MethodHandler>;

/** The server's identity on an endpoint instance (initialize's serverInfo; 2026 results' `_meta`). */
function serverInfo(endpoint: Endpoint): { name: string; title: string; version: string } {
  return {
    name: `connector-gateway/${endpoint.instanceId}`,
    title: endpoint.connector.descriptor.title,
    version: SERVER_VERSION,
  };
}

/** `,"resultType":"complete","_meta":{…serverInfo…}` of an instance's 2026 results, made once. */
const modernTails = new WeakMap<Endpoint, string>();
function modernTail(endpoint: Endpoint): string {
  let tail = modernTails.get(endpoint);
  if (tail === undefined) {
    tail = `,"resultType":"complete","_meta":${JSON.stringify({ [META_SERVER_INFO]: serverInfo(endpoint) })}`;
    modernTails.set(endpoint, tail);
  }
  return tail;
}

/** The connector's instructions as an instance serves them (tool references rendered), made once. */
const instructionTexts = new WeakMap<Endpoint, string>();
function instructionsOf(endpoint: Endpoint, platform: PlatformDescriptor): string {
  let text = instructionTexts.get(endpoint);
  if (text === undefined) {
    text = renderToolReferences(endpoint.connector.descriptor.instructions, endpoint.instanceId);
    const { toolsets } = endpoint.connector.descriptor;
    const template = platform.instructions.toolsets;
    // How to load only some of the tools (docs/decisions/mcp-surface.md, 'Toolsets and read-only
    // chosen by the client, by header or path'), where there is more than one toolset.
    if (toolsets.length > 1 && template !== undefined) {
      const names = toolsets.map((set) => `${set.id} (${set.title})`).join(', ');
      text = `${text}\n\n${formatText(template, { toolsets: names, instance_id: endpoint.instanceId })}`;
    }
    instructionTexts.set(endpoint, text);
  }
  return text;
}

export function createMethods(gateway: GatewayContext, pipeline: Pipeline, links: LinkIssuer): McpMethodSets {
  const subscribed = ({ identity, endpoint }: McpRequest) =>
    gateway.state.isSubscribed(identity.account.id, endpoint.connector.config.key);
  /** Whether the caller sees the connector's tools (else only connect_account). */
  const listsAll = (request: McpRequest) =>
    subscribed(request) || !request.endpoint.connector.descriptor.connectAccount;
  /**
   * The 2026 cache hint of a list or discover result. Always "private": the answer depends on the
   * caller's account, so no cache may serve it to another authorization. The time to live is the
   * spec's `listCacheTtlMs` for a subscribed account and 0 otherwise: an account's list changes
   * the moment it subscribes, so a list without the tools must not be kept.
   */
  const cacheHint = (request: McpRequest) =>
    `,"ttlMs":${subscribed(request) ? gateway.platform.limits.listCacheTtlMs : 0},"cacheScope":"private"`;

  async function instructionsFor(request: McpRequest): Promise<string | undefined> {
    const { endpoint, identity } = request;
    const { descriptor, config } = endpoint.connector;
    if (subscribed(request)) return instructionsOf(endpoint, gateway.platform);
    return formatText(
      gateway.platform.instructions[descriptor.connectAccount ? 'not_subscribed' : 'not_subscribed_tools_listed'] ??
        instructionsOf(endpoint, gateway.platform),
      {
        connector_id: config.id,
        connector_title: descriptor.title,
        purchase_url: await links.issue('purchase', identity, config.key, endpoint.instanceId),
      },
    );
  }

  async function initialize(request: McpRequest): Promise<McpReply> {
    const result = {
      protocolVersion: negotiateVersion(request.params.protocolVersion),
      capabilities: { tools: { listChanged: false } },
      serverInfo: serverInfo(request.endpoint),
      instructions: await instructionsFor(request),
    };
    return resultJson(request.id, JSON.stringify(result));
  }

  /** 2026-07-28: what initialize answered, without a handshake (no listChanged: no subscriptions/listen). */
  async function discover(request: McpRequest): Promise<McpReply> {
    const instructions = await instructionsFor(request);
    const body = JSON.stringify({
      supportedVersions: ALL_PROTOCOL_VERSIONS,
      capabilities: { tools: {} },
      ...(instructions === undefined ? {} : { instructions }),
    });
    return resultJson(request.id, `${body.slice(0, -1)}${cacheHint(request)}${modernTail(request.endpoint)}}`);
  }

  /** The precomputed `{"tools":[…]` (no closing brace), then the 2026 fields when `tail` has them. */
  const envelope = (request: McpRequest, listOpen: string, tail: string): string =>
    `{"jsonrpc":"2.0","id":${typeof request.id === 'number' ? request.id : JSON.stringify(request.id)},"result":` +
    `${listOpen}` +
    `${tail}}}`;

  // The list is precomputed as text; only the envelope around it is built per request.
  const listOpen = (request: McpRequest) =>
    toolsListOpen(request.endpoint, gateway.platform, listsAll(request), request.selection);
  const toolsList = (request: McpRequest): McpReply => envelope(request, listOpen(request), '');
  const modernToolsList = (request: McpRequest): McpReply =>
    envelope(request, listOpen(request), `${cacheHint(request)}${modernTail(request.endpoint)}`);

  /** The pipeline's call for this request, with no reaction of its own (each method adds the one it needs). */
  function callResult(request: McpRequest, personConfirm?: PersonConfirmRequest): Promise<CallToolResult> {
    const { name, arguments: args } = request.params;
    return pipeline.call({
      personConfirm,
      endpoint: request.endpoint,
      identity: request.identity,
      name,
      rawArgs: args,
      selection: request.selection,
      signal: request.signal(),
      reqId: request.reqId,
      trace: traceContextFrom(request.params._meta, request.headers),
      progress: request.progress,
    });
  }

  return {
    legacy: new Map<string, MethodHandler>([
      ['initialize', initialize],
      ['ping', (request) => resultJson(request.id, '{}')],
      ['tools/list', toolsList],
      [
        'tools/call',
        (request) =>
          callResult(
            request,
            request.askPerson ? { elicitation: true, askPerson: request.askPerson as AskPerson } : undefined,
          ).then((result) => resultJson(request.id, JSON.stringify(result))),
      ],
    ]),
    modern: new Map<string, MethodHandler>([
      ['server/discover', discover],
      ['tools/list', modernToolsList],
      [
        'tools/call',
        async (request) => {
          let result: string;
          try {
            result = JSON.stringify(await callResult(request, modernPersonConfirm(request.params)));
          } catch (error) {
            return refusedRetry(request.id, error);
          }
          // An input_required result carries its own resultType (runtime/pipeline/person-confirm.ts).
          const tail = modernTail(request.endpoint);
          const own = result.includes('"resultType":"input_required"') ? tail.slice(tail.indexOf(',"_meta"')) : tail;
          return resultJson(request.id, `${result.slice(0, -1)}${own}}`);
        },
      ],
    ]),
  };
}

/**
 * A 2026 tools/call refused by runtime/pipeline/call-input.ts answers HTTP 400 with the JSON-RPC error:
 * -32021 and `data.requiredCapabilities` for a capability the client did not declare, -32602 for a
 * retry whose requestState or inputResponses must not reach the handler. Any other failure is thrown on.
 */
function refusedRetry(id: McpRequest['id'], error: unknown): never {
  if (!(error instanceof InputRefused)) throw error;
  const { code, requiredCapabilities } = error;
  const body =
    code === 'missing_client_capability'
      ? errorJson(
          id,
          MISSING_CLIENT_CAPABILITY,
          protocolText(code, { capabilities: Object.keys(requiredCapabilities ?? {}).join(', ') }),
          {
            requiredCapabilities,
          },
        )
      : errorJson(id, ErrorCode.InvalidParams, protocolText(code));
  throw new RefusedReply(400, body);
}

/**
 * 2026-07-28: the client's capabilities come with every request (`_meta`); a form-mode elicitation
 * capability (`elicitation: {}` or `{ form: {} }`) lets the person confirm writes, and a retry
 * carries `inputResponses` and `requestState`.
 */
export function modernPersonConfirm(params: Record<string, unknown>): PersonConfirmRequest {
  const meta = params._meta as Record<string, unknown> | undefined;
  const capabilities = meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown> | undefined;
  const elicitation = capabilities?.elicitation;
  const form =
    !!elicitation &&
    typeof elicitation === 'object' &&
    (Object.keys(elicitation).length === 0 || 'form' in (elicitation as Record<string, unknown>));
  const client = { elicitation: form, sampling: !!capabilities?.sampling, roots: !!capabilities?.roots };
  return { elicitation: form, client, inputResponses: params.inputResponses, requestState: params.requestState };
}

export function dispatch(methods: McpMethods, method: string, request: McpRequest): McpReply | Promise<McpReply> {
  const handler = methods.get(method);
  return handler
    ? handler(request)
    : errorJson(request.id, ErrorCode.MethodNotFound, protocolText('method_not_found', { method }));
}

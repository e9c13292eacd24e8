// The HTTP surface on node:http: MCP endpoints, the usage API, health, metrics and portal pages.
// A thin adapter: the checks are functions in checks.ts, the JSON-RPC envelope is mcp/protocol.ts
// and the methods are mcp/methods.ts; here they are made in order and their verdicts sent.
// node:http rather than express on the hot path: the benchmark compares against a bare node:http
// floor, and routing here is four prefixes.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { RefusalLog } from '../operations/refusal-log.ts';
import type { AuthorizationServer } from '../auth/authorization-server.ts';
import { McpAccessTokens, type TokenLookup } from '../auth/access-tokens.ts';
import type { Endpoint, GatewayContext } from '../gateway-context.ts';
import { dispatch, type McpMethodSets, type McpReply, type McpRequest } from '../mcp/methods.ts';
import { clientSelection, mcpTarget, type McpTarget } from '../mcp/client-selection.ts';
import { headersSayModern, requestRevision } from '../mcp/revision.ts';
import { classify, errorJson, ErrorCode, RefusedReply, requestIdOf, SERVER_VERSION } from '../mcp/protocol.ts';
import { protocolText } from '../protocol-text.ts';
import { ACCESS_TOKEN_PREFIX, resourceMetadataUrlOf } from '../auth/mcp-authorization.ts';
import { MemoryRateLimiter } from '../metering/rate-limit.ts';
import {
  type AuthFailures,
  bearerToken,
  checkBodySize,
  checkCaller,
  checkHttpMethod,
  checkOrigin,
  checkProtocolVersion,
  checkRate,
  parseBody,
  checkTokenScope,
  type IdentityLookup,
  unauthorizedAt,
} from './checks.ts';
import { corsPolicy } from './cors.ts';
import { metricsPage, readyz, usage } from './service-routes.ts';
import { AddressFailures, CALLER_REFUSALS, methodLabel, refuse } from './refusals.ts';
import type { Identity } from '../store/state.ts';
import { accountSelection, narrow } from '../tool-selection.ts';
import {
  abortOnClose,
  ClientAnswers,
  ElicitingCallers,
  hasProgressToken,
  InFlightCalls,
  type ProgressStream,
  progressStream,
} from './call-stream.ts';
import { BodyTooLarge, readBody, sendJson } from '../io/http-io.ts';

// node:http through getBuiltinModule, not an ESM import: importing it as a module makes Node fill
// in every export of its ESM facade, and the getters of WebSocket, CloseEvent and MessageEvent load
// Node's bundled undici (~45 ms of each start-up, measured here), which the gateway never uses.
const { createServer } = process.getBuiltinModule('node:http');

/** Request ids: a per-process random prefix and a counter (unique, and cheaper than a UUID). */
const REQ_PREFIX = randomUUID().slice(0, 8);
let requestSeq = 0;

/**
 * What the server knows of one request while it is handled, for its log lines and its counts: its
 * id, the route it took and, on an MCP endpoint, the protocol era and the JSON-RPC method.
 */
class RequestRecord {
  readonly reqId: string;
  route = 'other';
  /** Set on an MCP endpoint: the request speaks the 2026 revision (headers), else the 2025 one. */
  modern: boolean | undefined = undefined;
  /** The JSON-RPC method: the Mcp-Method header's until the body's is read. */
  method: string | undefined = undefined;
  constructor(reqId: string) {
    this.reqId = reqId;
  }
}

/** Server-rendered pages under `/` and `/portal/…` (runtime/portal): the server only routes to them. */
export interface PageRoutes {
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
}

export interface HttpApp {
  readonly server: Server;
  /** Requests being handled right now (graceful shutdown waits for them). */
  inFlight(): number;
  /** Refusals before a call, counted and logged per reason and interval. */
  readonly refusals: RefusalLog;
}

// Long because: the router and its MCP, usage and CORS handlers share the server's state (requests in
// flight, the allowed origins, the failure buckets, per-endpoint OAuth metadata) as one closure.
// Candidate for splitting into route modules like the portal's.
export function createHttpApp(
  gateway: GatewayContext,
  methods: McpMethodSets,
  portal: PageRoutes,
  authorization: AuthorizationServer,
): HttpApp {
  let inFlight = 0;
  const refusals = new RefusalLog(gateway.log, gateway.metrics);
  const callsInFlight = new InFlightCalls();
  const clientAnswers = new ClientAnswers();
  const eliciting = new ElicitingCallers();
  // Browser origins allowed on the MCP endpoints: the public origin and ALLOWED_ORIGINS. Built again
  // when the public base URL changes: without PUBLIC_BASE_URL it is the listening address, known
  // only once listening (a port 0 is chosen then).
  let origins = { base: '', allowed: new Set<string>() as ReadonlySet<string>, cors: corsPolicy(new Set()) };
  const originsNow = () => {
    if (origins.base !== gateway.config.publicBaseUrl) {
      const allowed = new Set([new URL(gateway.config.publicBaseUrl).origin, ...gateway.config.allowedOrigins]);
      origins = { base: gateway.config.publicBaseUrl, allowed, cors: corsPolicy(allowed) };
    }
    return origins;
  };
  const identify: IdentityLookup = {
    known: (hash) => gateway.state.known(hash),
    identify: (hash) => gateway.state.identify(hash),
  };
  // Failed authentication per client address, in this process (the socket's address: a proxy in
  // front makes its clients share one bucket, which only ever delays tokens this replica does not know).
  const failureBuckets = new MemoryRateLimiter(gateway.config.authFailures);
  // One small object per request (no closures): the address is read only when a check needs it,
  // which a token the gateway knows never does.
  const failuresOf = (req: IncomingMessage): AuthFailures => new AddressFailures(failureBuckets, req);
  // OAuth access tokens (docs/decisions/mcp-authorization.md): each endpoint accepts only those issued for it.
  const accessTokens = new McpAccessTokens(gateway.store, gateway.state, gateway.now);
  const oauthLookups = new Map<string, { readonly prefix: string; readonly lookup: TokenLookup }>();
  const oauthOf = (endpoint: Endpoint) => {
    let entry = oauthLookups.get(endpoint.instanceId);
    if (!entry) {
      entry = { prefix: ACCESS_TOKEN_PREFIX, lookup: accessTokens.forEndpoint(endpoint.instanceId) };
      oauthLookups.set(endpoint.instanceId, entry);
    }
    return entry;
  };

  /** An MCP request: its era and method go on the request's record, counted when it is answered. */
  function mcp(req: IncomingMessage, res: ServerResponse, target: McpTarget, at: RequestRecord): Promise<number> {
    const modern = headersSayModern(req.headers);
    at.modern = modern;
    // The method as the 2026 Mcp-Method header names it, until the body (checked against it) tells.
    if (modern && typeof req.headers['mcp-method'] === 'string') at.method = req.headers['mcp-method'].trim();
    return mcpRequest(req, res, target, at);
  }

  /** The caller behind the bearer token, or the status of the refusal already answered. */
  function callerOf(
    req: IncomingMessage,
    res: ServerResponse,
    target: McpTarget,
    modern: boolean,
  ): Identity | number | Promise<Identity | number> {
    const checked = checkCaller(req.headers.authorization, identify, failuresOf(req), oauthOf(target.endpoint));
    // A token known to the snapshot is checked without a promise: no await on the hot path.
    return checked instanceof Promise
      ? checked.then((caller) => callerVerdict(req, res, target, modern, caller))
      : callerVerdict(req, res, target, modern, checked);
  }

  function callerVerdict(
    req: IncomingMessage,
    res: ServerResponse,
    target: McpTarget,
    modern: boolean,
    caller: Awaited<ReturnType<typeof checkCaller>>,
  ): Identity | number {
    const { endpoint } = target;
    if (!caller.ok) {
      req.resume();
      refusals.refused(
        CALLER_REFUSALS[caller.status] ?? `status_${caller.status}`,
        endpoint.connector.config.id,
        req.socket.remoteAddress,
      );
      // MCP authorization: a 401 names the endpoint's protected-resource metadata (RFC 9728 §5.1).
      if (caller.status === 401) {
        const challenge = unauthorizedAt(
          resourceMetadataUrlOf(gateway.config.publicBaseUrl, target.inner),
          bearerToken(req.headers.authorization) !== undefined,
        );
        return refuse(res, challenge, null, modern);
      }
      return refuse(res, caller, null, modern);
    }
    return caller.identity;
  }

  /**
   * The client's selection of tools (path segments and headers; an unknown toolset is refused),
   * narrowed by the token's scope and the account's settings of this instance: the narrowest applies.
   */
  function selectionOf(target: McpTarget, headers: IncomingMessage['headers'], identity: Identity) {
    const { endpoint } = target;
    const chosen = clientSelection(target, headers);
    if (!chosen.ok) return chosen;
    const account = accountSelection(
      gateway.state.toolSettings(identity.account.id, endpoint.instanceId),
      endpoint.connector.descriptor.toolsets,
    );
    return checkTokenScope(identity, endpoint.connector.config.key, narrow(chosen.selection, account));
  }

  // Long because: the checks run in the spec's order and the method is dispatched and answered in this
  // one async frame: each async function more on the path of every call is a promise and a hop more
  // (docs/decisions/performance.md, 'One async frame per layer of a call').
  async function mcpRequest(
    req: IncomingMessage,
    res: ServerResponse,
    target: McpTarget,
    at: RequestRecord,
  ): Promise<number> {
    const { endpoint } = target;
    const { reqId } = at;
    const modern = at.modern === true;
    const method = checkHttpMethod(req.method);
    if (!method.ok) {
      req.resume();
      return refuse(res, method, null, modern);
    }
    const origin = checkOrigin(req.headers.origin, originsNow().allowed);
    if (!origin.ok) return refuse(res, origin, null, modern);
    const found = callerOf(req, res, target, modern);
    const identity = found instanceof Promise ? await found : found;
    if (typeof identity === 'number') return identity;
    const selected = selectionOf(target, req.headers, identity);
    if (!selected.ok) {
      req.resume();
      return refuse(res, selected, null, modern);
    }
    const maxBytes = gateway.config.maxBodyBytes;
    let raw: Buffer;
    try {
      raw = await readBody(req, maxBytes);
    } catch (error) {
      const size = error instanceof BodyTooLarge ? checkBodySize(error.bytes, maxBytes) : undefined;
      if (size && !size.ok) return refuse(res, size, null, modern);
      throw error;
    }
    const parsed = parseBody(raw);
    // The rate limit comes before the parse verdict: an unparsable body still spends a token.
    const connector = endpoint.connector.config;
    const taken = gateway.rateLimiter.take(`${identity.account.id}|${connector.id}`);
    const decision = taken instanceof Promise ? await taken : taken;
    if (decision.failOpen) gateway.metrics.failOpen.inc({ component: 'rate_limit' });
    const rate = checkRate(decision);
    if (!rate.ok) {
      refusals.refused('rate_limited', connector.id, req.socket.remoteAddress);
      return refuse(res, rate, requestIdOf(parsed.ok ? parsed.body : undefined), modern);
    }
    if (!parsed.ok) return refuse(res, parsed, null, modern);
    const message = classify(parsed.body);
    if (message.kind === 'invalid') {
      sendJson(res, 400, errorJson(message.id, message.code, message.message));
      return 400;
    }
    if (message.kind !== 'request') {
      // A notification or a response (neither era answers one). A cancellation of one of this
      // caller's calls in flight on this process aborts it (docs/decisions/progress-and-cancellation.md).
      if (message.kind === 'notification' && message.method === 'notifications/cancelled')
        callsInFlight.cancel(identity.tokenId, message.params);
      // A client's answer to a question the gateway asked on a call's stream (elicitation/create).
      else if (message.kind === 'response' && parsed.ok) clientAnswers.settle(identity.tokenId, parsed.body);
      res.writeHead(202).end();
      return 202;
    }
    at.method = message.method;
    // Which revision the request speaks: the 2026 envelope and headers, or the 2025 handshake.
    const revision = requestRevision(message.method, message.params, req.headers);
    if (!revision.ok) {
      sendJson(res, revision.status, errorJson(message.id, revision.code, revision.message, revision.data));
      return revision.status;
    }
    if (revision.era === 'legacy') {
      const version = checkProtocolVersion(req.headers['mcp-protocol-version']);
      if (!version.ok) return refuse(res, version, message.id);
    }
    const served = revision.era === 'modern' ? methods.modern : methods.legacy;
    if (revision.era === 'modern' && !served.has(message.method)) {
      // 2026-07-28: a method not served (initialize and ping included) is HTTP 404.
      sendJson(
        res,
        404,
        errorJson(
          message.id,
          ErrorCode.MethodNotFound,
          protocolText('method_not_found', { method: message.method.slice(0, 200) }),
        ),
      );
      return 404;
    }
    if (revision.era === 'legacy' && message.method === 'initialize')
      eliciting.initialized(identity.tokenId, message.params);
    const aborted = abortOnClose(res);
    // The person can be asked on a 2025 call's stream when its client said it shows elicitations.
    const askable = revision.era === 'legacy' && eliciting.has(identity.tokenId);
    const stream =
      message.method === 'tools/call' && (hasProgressToken(message.params) || askable)
        ? progressStream(res, message.params, req.headers.accept, clientAnswers, identity.tokenId)
        : undefined;
    const tracked = message.method === 'tools/call';
    if (tracked) callsInFlight.track(identity.tokenId, message.id, aborted);
    const request: McpRequest = {
      endpoint,
      identity,
      id: message.id,
      params: message.params,
      reqId,
      headers: req.headers,
      signal: aborted.signal,
      selection: selected.selection,
      progress: stream?.progress,
      askPerson:
        askable && stream ? (question, signal) => stream.request('elicitation/create', question, signal) : undefined,
    };
    try {
      let reply: McpReply;
      try {
        const replied = dispatch(served, message.method, request);
        reply = replied instanceof Promise ? await replied : replied;
      } catch (error) {
        aborted.release();
        return failed(res, message.method, request, error, stream);
      }
      aborted.release();
      // Progress already went out as an event stream: the result is its last event.
      if (stream?.started) return stream.end(reply);
      sendJson(res, 200, reply);
      return 200;
    } finally {
      if (tracked) callsInFlight.untrack(identity.tokenId, message.id, aborted);
    }
  }

  /**
   * A request that passed every check but whose method failed: a refusal's own answer, or (a method
   * that failed; tools/call answers every fault as a tool result itself) the JSON-RPC error echoing
   * the request's id, with a log line naming who asked for what.
   */
  function failed(
    res: ServerResponse,
    method: string,
    request: McpRequest,
    error: unknown,
    stream: ProgressStream | undefined,
  ): number {
    if (error instanceof RefusedReply) {
      if (stream?.started) return stream.end(error.body);
      sendJson(res, error.status, error.body);
      return error.status;
    }
    const tool =
      method === 'tools/call' && typeof request.params.name === 'string'
        ? { tool: request.params.name.slice(0, 100) }
        : {};
    gateway.log.error(
      {
        reqId: request.reqId,
        accountId: request.identity.account.id,
        connector: request.endpoint.connector.config.id,
        instance: request.endpoint.instanceId,
        method,
        ...tool,
        err: { message: (error as Error)?.message, name: (error as Error)?.name },
      },
      'request failed',
    );
    const failure = errorJson(request.id, ErrorCode.InternalError, protocolText('internal_error'));
    if (stream?.started) return stream.end(failure);
    sendJson(res, 500, failure);
    return 500;
  }

  /**
   * CORS on an MCP endpoint (cors.ts): answers an allowed origin's preflight (204) or a foreign
   * one's (403, no allow header) and gives its status; otherwise puts the CORS headers on the
   * answer to come, whatever it will be, and gives undefined.
   */
  function cors(req: IncomingMessage, res: ServerResponse, origin: string): number | undefined {
    const { allowed, cors: policy } = originsNow();
    const verdict = policy(req.method, origin, req.headers['access-control-request-method']);
    if (verdict.kind === 'none') return undefined;
    if (verdict.kind === 'preflight') {
      req.resume();
      res.writeHead(204, verdict.headers).end();
      return 204;
    }
    for (const name in verdict.headers) res.setHeader(name, verdict.headers[name]!);
    const refused = verdict.kind === 'foreign' && verdict.preflight ? checkOrigin(origin, allowed) : undefined;
    if (refused === undefined || refused.ok) return undefined;
    req.resume();
    return refuse(res, refused);
  }

  /**
   * Answers a request, or gives the promise of its status: not an async function, so an MCP request's
   * promise is its own and not awaited once more here. The route's name goes on the record.
   */
  function route(req: IncomingMessage, res: ServerResponse, at: RequestRecord): number | Promise<number> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    // The authorization server and the metadata documents (some of whose paths end in /mcp too).
    if (path.startsWith('/.well-known/') || path.startsWith('/oauth/')) {
      if (authorization.owns(path)) {
        at.route = 'oauth';
        return authorization.handle(req, res, path);
      }
      req.resume();
      // Public like the metadata documents beside it: a browser client probing for one reads the 404.
      sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }), { 'access-control-allow-origin': '*' });
      return 404;
    }
    if (path.endsWith('/mcp')) {
      at.route = 'mcp';
      // CORS for browser clients on allowed origins; a request without Origin (not a browser) skips it.
      const answered = req.headers.origin ? cors(req, res, req.headers.origin) : undefined;
      if (answered !== undefined) return answered;
      const target = mcpTarget(gateway.endpoints, path.slice(1, -4));
      if (target) return mcp(req, res, target, at);
      req.resume();
      sendJson(res, 404, JSON.stringify({ error: protocolText('endpoint_not_found', { path }) }));
      return 404;
    }
    if (path === '/api/usage' && req.method === 'GET') {
      at.route = 'usage';
      return usage(gateway, req, res, identify, failuresOf(req));
    }
    if (path === '/healthz') {
      at.route = 'healthz';
      sendJson(res, 200, JSON.stringify({ status: 'ok', version: SERVER_VERSION, store: gateway.store.kind }));
      return 200;
    }
    if (path === '/readyz') {
      at.route = 'readyz';
      return readyz(gateway, req, res);
    }
    if (path === '/metrics' && req.method === 'GET') {
      at.route = 'metrics';
      return metricsPage(gateway, res);
    }
    if (path.startsWith('/portal/') || path === '/portal' || path === '/') {
      at.route = 'portal';
      return portal.handle(req, res, path);
    }
    req.resume();
    sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }));
    return 404;
  }

  /** A request answered: counted by route, and an MCP request by era, method and status. */
  function done(at: RequestRecord, status: number): void {
    inFlight--;
    gateway.metrics.requests.inc(at.route, status);
    if (at.modern !== undefined)
      gateway.metrics.mcpRequests.inc(at.modern ? '2026' : '2025', methodLabel(at.method), status);
  }

  /** A request whose handling failed: logged, answered 500 if nothing was sent yet, counted as an error. */
  function crashed(at: RequestRecord, res: ServerResponse, error: unknown): void {
    inFlight--;
    gateway.log.error(
      { reqId: at.reqId, err: { message: (error as Error)?.message, name: (error as Error)?.name } },
      'request failed',
    );
    if (!res.headersSent) sendJson(res, 500, errorJson(null, ErrorCode.InternalError, protocolText('internal_error')));
    else res.destroy();
    gateway.metrics.requests.inc('error', 500);
  }

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 }, (req, res) => {
    inFlight++;
    const at = new RequestRecord(
      (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 64)) ||
        `${REQ_PREFIX}-${(++requestSeq).toString(36)}`,
    );
    let answered: number | Promise<number>;
    try {
      answered = route(req, res, at);
    } catch (error) {
      crashed(at, res, error);
      return;
    }
    // One reaction for both outcomes (not then/catch/finally: two promises and hops fewer per request).
    if (typeof answered === 'number') done(at, answered);
    else
      answered.then(
        (status) => done(at, status),
        (error: unknown) => crashed(at, res, error),
      );
  });
  return { server, inFlight: () => inFlight, refusals };
}

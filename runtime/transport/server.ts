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
import { dispatch, type McpMethodSets, type McpMethods, type McpReply, type McpRequest } from '../mcp/methods.ts';
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

  async function mcp(req: IncomingMessage, res: ServerResponse, target: McpTarget, reqId: string): Promise<number> {
    const modern = headersSayModern(req.headers);
    // The method as the 2026 Mcp-Method header names it, until the body (checked against it) tells.
    const seen: { method?: string } =
      modern && typeof req.headers['mcp-method'] === 'string' ? { method: req.headers['mcp-method'].trim() } : {};
    const status = await mcpRequest(req, res, target, reqId, modern, seen);
    gateway.metrics.mcpRequests.inc(modern ? '2026' : '2025', methodLabel(seen.method), status);
    return status;
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

  async function mcpRequest(
    req: IncomingMessage,
    res: ServerResponse,
    target: McpTarget,
    reqId: string,
    modern: boolean,
    seen: { method?: string },
  ): Promise<number> {
    const { endpoint } = target;
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
    seen.method = message.method;
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
      return await answer(res, served, message.method, request, aborted.release, stream);
    } finally {
      if (tracked) callsInFlight.untrack(identity.tokenId, message.id, aborted);
    }
  }

  /**
   * Runs one JSON-RPC request that passed every check and sends its answer.
   */
  async function answer(
    res: ServerResponse,
    served: McpMethods,
    method: string,
    request: McpRequest,
    release: () => void,
    stream?: ProgressStream,
  ): Promise<number> {
    let reply: McpReply;
    try {
      reply = await dispatch(served, method, request);
    } catch (error) {
      if (error instanceof RefusedReply) {
        release();
        if (stream?.started) return stream.end(error.body);
        sendJson(res, error.status, error.body);
        return error.status;
      }
      // A method that failed (tools/call answers every fault as a tool result itself): the body was
      // parsed, so the JSON-RPC error echoes the request's id; the log names who asked for what.
      release();
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
    release();
    // Progress already went out as an event stream: the result is its last event.
    if (stream?.started) return stream.end(reply);
    sendJson(res, 200, reply);
    return 200;
  }

  async function usage(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const caller = await checkCaller(req.headers.authorization, identify, failuresOf(req));
    if (!caller.ok) {
      // The usage API answers plain JSON, not JSON-RPC.
      const text =
        caller.status === 503
          ? 'usage_unavailable'
          : caller.status === 429
            ? 'auth_rate_limited'
            : 'usage_unauthorized';
      sendJson(res, caller.status, JSON.stringify({ error: protocolText(text) }), caller.headers);
      return caller.status;
    }
    const account = gateway.state.account(caller.identity.account.id) ?? caller.identity.account;
    let record: unknown;
    try {
      record = await gateway.meter.usageRecord(account, gateway.now());
    } catch (error) {
      // The database is away or passed its deadline: an operator-facing plain JSON error.
      gateway.log.warn({ err: { message: (error as Error)?.message } }, 'usage record unavailable');
      sendJson(res, 503, JSON.stringify({ error: protocolText('usage_unavailable') }), { 'retry-after': '5' });
      return 503;
    }
    sendJson(res, 200, JSON.stringify(record));
    return 200;
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

  async function route(req: IncomingMessage, res: ServerResponse, reqId: string): Promise<[string, number]> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    // The authorization server and the metadata documents (some of whose paths end in /mcp too).
    if (path.startsWith('/.well-known/') || path.startsWith('/oauth/')) {
      if (authorization.owns(path)) return ['oauth', await authorization.handle(req, res, path)];
      req.resume();
      // Public like the metadata documents beside it: a browser client probing for one reads the 404.
      sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }), { 'access-control-allow-origin': '*' });
      return ['other', 404];
    }
    if (path.endsWith('/mcp')) {
      // CORS for browser clients on allowed origins; a request without Origin (not a browser) skips it.
      const answered = req.headers.origin ? cors(req, res, req.headers.origin) : undefined;
      if (answered !== undefined) return ['mcp', answered];
      const target = mcpTarget(gateway.endpoints, path.slice(1, -4));
      if (target) return ['mcp', await mcp(req, res, target, reqId)];
      req.resume();
      sendJson(res, 404, JSON.stringify({ error: protocolText('endpoint_not_found', { path }) }));
      return ['mcp', 404];
    }
    if (path === '/api/usage' && req.method === 'GET') return ['usage', await usage(req, res)];
    if (path === '/healthz') {
      sendJson(res, 200, JSON.stringify({ status: 'ok', version: SERVER_VERSION, store: gateway.store.kind }));
      return ['healthz', 200];
    }
    if (path === '/readyz') {
      req.resume();
      const report = gateway.readiness
        ? await gateway.readiness.evaluate()
        : { ready: true, checks: {}, failing: [], degraded: [] };
      const status = report.ready ? 200 : 503;
      sendJson(
        res,
        status,
        JSON.stringify(
          report.ready
            ? {
                status: 'ready',
                ...(report.degraded.length > 0 ? { degraded: report.degraded } : {}),
                checks: report.checks,
              }
            : { status: 'not_ready', failing: report.failing, checks: report.checks },
        ),
      );
      return ['readyz', status];
    }
    if (path === '/metrics' && req.method === 'GET') {
      const text = await gateway.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': gateway.metrics.registry.contentType });
      res.end(text);
      return ['metrics', 200];
    }
    if (path.startsWith('/portal/') || path === '/portal' || path === '/')
      return ['portal', await portal.handle(req, res, path)];
    req.resume();
    sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }));
    return ['other', 404];
  }

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 }, (req, res) => {
    inFlight++;
    const reqId =
      (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 64)) ||
      `${REQ_PREFIX}-${(++requestSeq).toString(36)}`;
    // One reaction for both outcomes (not then/catch/finally: two promises and hops fewer per request).
    route(req, res, reqId).then(
      ([name, status]) => {
        inFlight--;
        gateway.metrics.requests.inc(name, status);
      },
      (error: unknown) => {
        inFlight--;
        gateway.log.error(
          { reqId, err: { message: (error as Error)?.message, name: (error as Error)?.name } },
          'request failed',
        );
        if (!res.headersSent)
          sendJson(res, 500, errorJson(null, ErrorCode.InternalError, protocolText('internal_error')));
        else res.destroy();
        gateway.metrics.requests.inc('error', 500);
      },
    );
  });
  return { server, inFlight: () => inFlight, refusals };
}

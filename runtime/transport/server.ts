// The HTTP surface on node:http: MCP endpoints, the usage API, health, metrics and portal pages.
// node:http rather than express on the hot path: the benchmark compares against a bare node:http
// floor, and routing here is four prefixes.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { GatewayContext } from '../gateway-context.ts';
import { BodyTooLarge, readBody, sendJson } from './http-io.ts';
import { toolsListBytes, type Endpoint } from '../mcp/endpoints.ts';
import { classify, errorJson, ErrorCode, negotiateVersion, protocolText, RATE_LIMITED, resultJson, SERVED_PROTOCOL_VERSIONS } from '../mcp/protocol.ts';
import type { Pipeline } from '../pipeline/pipeline.ts';
import type { Identity } from '../platform/state.ts';
import { formatText } from '../handler-api/tool-error.ts';
import { tokenHash } from '../platform/tokens.ts';

export const SERVER_VERSION = '0.1.0';

/** Request ids: a per-process random prefix and a counter (unique, and cheaper than a UUID). */
const REQ_PREFIX = randomUUID().slice(0, 8);
let requestSeq = 0;

const CLOSE_BRACE = Buffer.from('}');

/** Hashes of recently presented tokens (bounded), so a busy client costs no SHA-256 per request. */
const recentHashes = new Map<string, string>();
function cachedTokenHash(token: string): string {
  let hash = recentHashes.get(token);
  if (hash === undefined) {
    hash = tokenHash(token);
    if (recentHashes.size >= 10_000) recentHashes.clear();
    recentHashes.set(token, hash);
  }
  return hash;
}

export async function authenticate(gateway: GatewayContext, req: IncomingMessage): Promise<Identity | undefined> {
  const header = req.headers.authorization;
  if (!header || !header.startsWith('Bearer ')) return undefined;
  const token = header.slice(7).trim();
  if (token.length < 16 || token.length > 512) return undefined;
  return gateway.state.identify(cachedTokenHash(token));
}

const UNAUTHORIZED = errorJson(null, -32001, protocolText('unauthorized'));

/** Server-rendered pages under `/` and `/portal/…` (runtime/portal): the server only routes to them. */
export interface PageRoutes {
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
}

export interface HttpApp {
  readonly server: Server;
  /** Requests being handled right now (graceful shutdown waits for them). */
  inFlight(): number;
}

export function createHttpApp(gateway: GatewayContext, pipeline: Pipeline, portal: PageRoutes): HttpApp {
  let inFlight = 0;
  const publicOrigin = new URL(gateway.config.publicBaseUrl).origin;
  const allowedOrigins = new Set([publicOrigin, ...gateway.config.allowedOrigins]);

  async function mcp(req: IncomingMessage, res: ServerResponse, endpoint: Endpoint, reqId: string): Promise<number> {
    const origin = req.headers.origin;
    if (origin && !allowedOrigins.has(origin)) {
      sendJson(res, 403, errorJson(null, ErrorCode.InvalidRequest, protocolText('origin_not_allowed')));
      return 403;
    }
    const identity = await authenticate(gateway, req);
    if (!identity) {
      req.resume();
      sendJson(res, 401, UNAUTHORIZED, { 'www-authenticate': 'Bearer realm="connector-gateway"' });
      return 401;
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, gateway.config.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendJson(res, 413, errorJson(null, ErrorCode.InvalidRequest, protocolText('body_too_large', { max_bytes: gateway.config.maxBodyBytes })), { connection: 'close' });
        return 413;
      }
      throw error;
    }
    let body: unknown;
    let parseFailed = false;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      parseFailed = true;
    }
    const connector = endpoint.connector.config;
    const decision = await gateway.rateLimiter.take(`${identity.account.id}|${connector.id}`);
    if (decision.failOpen) gateway.metrics.failOpen.inc({ component: 'rate_limit' });
    if (!decision.allowed) {
      const id = body && typeof body === 'object' && 'id' in body && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
      gateway.metrics.refusals.inc({ connector: connector.id, reason: 'rate_limited' });
      sendJson(res, 429, errorJson(id, RATE_LIMITED, protocolText('rate_limited'), { retryAfterSeconds: 1 }), { 'retry-after': '1' });
      return 429;
    }
    if (parseFailed) {
      sendJson(res, 400, errorJson(null, ErrorCode.ParseError, protocolText('parse_error')));
      return 400;
    }
    const versionHeader = req.headers['mcp-protocol-version'];
    if (typeof versionHeader === 'string' && !SERVED_PROTOCOL_VERSIONS.includes(versionHeader)) {
      sendJson(res, 400, errorJson(null, ErrorCode.InvalidRequest, protocolText('unsupported_protocol_version', { version: versionHeader, served: SERVED_PROTOCOL_VERSIONS.join(', ') })));
      return 400;
    }
    const message = classify(body);
    if (message.kind === 'invalid') {
      sendJson(res, 400, errorJson(message.id, message.code, message.message));
      return 400;
    }
    if (message.kind !== 'request') {
      res.writeHead(202).end();
      return 202;
    }
    const subscribed = gateway.state.isSubscribed(identity.account.id, connector.key);
    switch (message.method) {
      case 'tools/call': {
        const controller = new AbortController();
        const onClose = () => {
          if (!res.writableFinished) controller.abort();
        };
        res.once('close', onClose);
        const result = await pipeline.call(endpoint, identity, message.params.name, message.params.arguments, controller.signal, reqId);
        res.off('close', onClose);
        sendJson(res, 200, resultJson(message.id, JSON.stringify(result)));
        return 200;
      }
      case 'tools/list': {
        const full = subscribed || !endpoint.connector.descriptor.connectAccount;
        // The list is precomputed as bytes; only the envelope around it is built per request.
        const list = toolsListBytes(endpoint, gateway.platform, full);
        const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":`);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': head.length + list.length + 1 });
        res.end(Buffer.concat([head, list, CLOSE_BRACE], head.length + list.length + 1));
        return 200;
      }
      case 'initialize': {
        const { descriptor } = endpoint.connector;
        const instructions = subscribed
          ? descriptor.instructions
          : formatText(gateway.platform.instructions[descriptor.connectAccount ? 'not_subscribed' : 'not_subscribed_tools_listed'] ?? descriptor.instructions, {
              connector_id: connector.id,
              connector_title: descriptor.title,
              purchase_url: await pipeline.link('purchase', identity, endpoint),
            });
        const result = {
          protocolVersion: negotiateVersion(message.params.protocolVersion),
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: `connector-gateway/${endpoint.instanceId}`, title: descriptor.title, version: SERVER_VERSION },
          instructions,
        };
        sendJson(res, 200, resultJson(message.id, JSON.stringify(result)));
        return 200;
      }
      case 'ping':
        sendJson(res, 200, resultJson(message.id, '{}'));
        return 200;
      default:
        sendJson(res, 200, errorJson(message.id, ErrorCode.MethodNotFound, protocolText('method_not_found', { method: message.method })));
        return 200;
    }
  }

  async function usage(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const identity = await authenticate(gateway, req);
    if (!identity) {
      sendJson(res, 401, JSON.stringify({ error: protocolText('usage_unauthorized') }), { 'www-authenticate': 'Bearer realm="connector-gateway"' });
      return 401;
    }
    const account = gateway.state.account(identity.account.id) ?? identity.account;
    sendJson(res, 200, JSON.stringify(await gateway.meter.usageRecord(account, gateway.now())));
    return 200;
  }

  async function route(req: IncomingMessage, res: ServerResponse, reqId: string): Promise<[string, number]> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    if (path.endsWith('/mcp')) {
      const instanceId = path.slice(1, -4);
      const endpoint = gateway.endpoints.get(instanceId);
      if (!endpoint) {
        req.resume();
        sendJson(res, 404, JSON.stringify({ error: protocolText('endpoint_not_found', { path }) }));
        return ['mcp', 404];
      }
      if (req.method === 'POST') return ['mcp', await mcp(req, res, endpoint, reqId)];
      req.resume();
      sendJson(res, 405, errorJson(null, ErrorCode.InvalidRequest, protocolText('method_not_allowed')), { allow: 'POST' });
      return ['mcp', 405];
    }
    if (path === '/api/usage' && req.method === 'GET') return ['usage', await usage(req, res)];
    if (path === '/healthz') {
      sendJson(res, 200, JSON.stringify({ status: 'ok', version: SERVER_VERSION, store: gateway.store.kind }));
      return ['healthz', 200];
    }
    if (path === '/metrics' && req.method === 'GET') {
      const text = await gateway.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': gateway.metrics.registry.contentType });
      res.end(text);
      return ['metrics', 200];
    }
    if (path.startsWith('/portal/') || path === '/portal' || path === '/') return ['portal', await portal.handle(req, res, path)];
    req.resume();
    sendJson(res, 404, JSON.stringify({ error: protocolText('not_found') }));
    return ['other', 404];
  }

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 }, (req, res) => {
    inFlight++;
    const reqId = (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].slice(0, 64)) || `${REQ_PREFIX}-${(++requestSeq).toString(36)}`;
    route(req, res, reqId)
      .then(([name, status]) => gateway.metrics.requests.inc({ route: name, status: String(status) }))
      .catch((error: unknown) => {
        gateway.log.error({ reqId, err: { message: (error as Error)?.message, name: (error as Error)?.name } }, 'request failed');
        if (!res.headersSent) sendJson(res, 500, errorJson(null, ErrorCode.InternalError, protocolText('internal_error')));
        else res.destroy();
        gateway.metrics.requests.inc({ route: 'error', status: '500' });
      })
      .finally(() => {
        inFlight--;
      });
  });
  return { server, inFlight: () => inFlight };
}

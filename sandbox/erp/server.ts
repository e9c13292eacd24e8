// Sandbox fake of the ERP upstream, Microsoft Dynamics 365 Business Central API v2.0 (OData v4),
// reached over HTTP exactly like the real one. Built from ../shared/upstreams/erp.md (§2 wire
// contract, §4 checklist); the fake Entra endpoints of §4's last item live in sandbox/identity/.
//
//   GET {url}/environments/v1.2                                       environments (+ a foreign family)
//   GET {url}/admin/v2.x/applications/BusinessCentral/environments    403 (ordinary users, §3)
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0                          service document
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/$metadata                EDMX
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/companies[({id})]        companies / one company
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/subscriptions[('{key}')] environment-level webhooks
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/companies({id})/{set}[({id})[/{navigation}]]
//   GET …/{set}/$count                                                plain-text count
//   anything but GET → 405, recorded in stats.writeLog (tests assert it stays empty)
//
// `{url}` is the configurable base (`basePath`, and `publicUrl` for the absolute links a proxy in
// front should see); the connector's cursor-origin check uses the same base. Every answer carries
// `OData-Version: 4.0`; errors are `{ "error": { "code", "message": "… CorrelationId: <guid>." } }`.
//
// Bearer tokens: a static token (ERP_SANDBOX_TOKEN, `accessToken` option) is accepted until the
// identity provider lands; an "unlicensed" static token answers 403; optionally a
// `verifyToken(token) → { valid, expired, licensed }` function (sandbox/identity/'s
// verifyAccessToken) decides for every other token.
//
// Sandbox-only controls (no auth; not recorded as upstream requests):
//   GET  /__sandbox/switches     current switches       POST /__sandbox/switches  a partial ErpSwitches
//   GET  /__sandbox/stats        counters and write log GET  /__sandbox/requests  the request log
//   POST /__sandbox/reset        stats, request log and switches back to their defaults
//
// Run as a script: `node sandbox/erp/server.ts` listens on 127.0.0.1:4105 (ERP_SANDBOX_PORT
// overrides; 0 picks a free port) and prints its URL, the static token and example requests.
//
// This file takes a request through the write refusal, faults, the bearer token and the sliding
// window to the route table below (environments, admin, API) and the API of api.ts, over the
// answers of answers.ts, the OData options of odata.ts, switches.ts and the state of state.ts.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  closeOnce,
  closeOnSignals,
  findRoute,
  findSegmentRoute,
  listen,
  PendingDelays,
  parseJsonLoose,
  type Route,
  readBody,
  sendText,
  switchError,
} from '../http-kit.ts';
import { BAD_GATEWAY_PAGE, NON_JSON_PAGE, sendError, sendHtml, sendODataJson } from './answers.ts';
import { serveApi } from './api.ts';
import { ERP_ENVIRONMENTS, ERP_TENANT_DOMAIN, ERP_TENANT_ID, erpDataset, erpEnvironmentsBody } from './data.ts';
import { ODataError } from './odata.ts';
import { type ErpState, HttpError, type ReadRequest } from './state.ts';
import {
  DEFAULT_SWITCHES,
  ERP_REQUEST_LOG_MAX,
  ERP_RETRY_AFTER_OVER_CAP_SECONDS,
  ERP_SANDBOX_TOKEN,
  ERP_SANDBOX_UNLICENSED_TOKEN,
  type ErpSwitches,
  type ErpTokenVerdict,
  type ErpTokenVerifier,
  SWITCH_CHECKS,
} from './switches.ts';
import type { ErpRecordedRequest, ErpSandboxStats } from './state.ts';

export type { ErpRecordedRequest, ErpSandboxStats, ErpWriteAttempt } from './state.ts';
export {
  ERP_DEFAULT_SLOW_DELAY_MS,
  ERP_FAULTS,
  ERP_MAX_PAGE_SIZE,
  ERP_REQUEST_LOG_MAX,
  ERP_RETRY_AFTER_FORMS,
  ERP_RETRY_AFTER_OVER_CAP_SECONDS,
  ERP_SANDBOX_TOKEN,
  ERP_SANDBOX_UNLICENSED_TOKEN,
} from './switches.ts';
export type { ErpFault, ErpRetryAfterForm, ErpSwitches, ErpTokenVerdict, ErpTokenVerifier } from './switches.ts';

export interface ErpSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Path prefix the API is served under (default '' — the real base has none), e.g. '/bc'. */
  basePath?: string;
  /**
   * Origin (scheme, host, port) put into `@odata.context`/`@odata.nextLink`, e.g. a proxy in front (default: the
   * sandbox's own).
   */
  publicUrl?: string;
  /** The static accepted token (default ERP_SANDBOX_TOKEN); null accepts no static token. */
  accessToken?: string | null;
  /** The static unlicensed token (default ERP_SANDBOX_UNLICENSED_TOKEN); null disables it. */
  unlicensedToken?: string | null;
  /** Decides every token that is not a static one (absent: such tokens get 401). */
  verifyToken?: ErpTokenVerifier;
  /** Initial (and reset) switches. */
  switches?: Partial<ErpSwitches>;
}

export interface ErpSandbox {
  /** Base URL (no trailing slash), the equivalent of https://api.businesscentral.dynamics.com. */
  readonly url: string;
  /** The base put into absolute links (`publicUrl` option, else `url`). */
  readonly publicUrl: string;
  readonly port: number;
  readonly token: string | null;
  readonly unlicensedToken: string | null;
  readonly switches: Readonly<ErpSwitches>;
  readonly stats: ErpSandboxStats;
  /** The request log, oldest first (at most ERP_REQUEST_LOG_MAX entries). */
  readonly requests: readonly ErpRecordedRequest[];
  setSwitches(partial: Partial<ErpSwitches>): void;
  resetSwitches(): void;
  /** Clears counters, the write log and the request log. */
  resetStats(): void;
  close(): Promise<void>;
}

function retryAfter429(s: ErpState): Record<string, string> {
  switch (s.switches.retryAfter429) {
    case 'absent':
      return {};
    case 'seconds':
      return { 'retry-after': String(s.switches.retryAfterSeconds) };
    case 'httpDate':
      return { 'retry-after': new Date(Date.now() + s.switches.retryAfterSeconds * 1000).toUTCString() };
    case 'overCap':
      return { 'retry-after': String(ERP_RETRY_AFTER_OVER_CAP_SECONDS) };
  }
}

function throttle(s: ErpState, res: ServerResponse): void {
  s.stats.throttled++;
  sendError(
    res,
    429,
    'Application_TooManyRequests',
    'The request was throttled: too many requests in the sliding window. Try again later.',
    retryAfter429(s),
  );
}

/** Answers the fault when one applies; 'continue' otherwise (also after a `slow` delay). */
async function injectFault(s: ErpState, res: ServerResponse, path: string): Promise<'answered' | 'continue' | 'gone'> {
  const fault = s.switches.fault;
  if (fault === 'none') return 'continue';
  if (s.switches.faultPath !== null && !path.toLowerCase().includes(s.switches.faultPath.toLowerCase()))
    return 'continue';
  if (s.switches.faultCount > 0)
    s.switches = {
      ...s.switches,
      faultCount: s.switches.faultCount - 1,
      ...(s.switches.faultCount === 1 ? { fault: 'none' as const } : {}),
    };
  switch (fault) {
    case 'slow':
      return (await s.delays.delay(s.switches.slowDelayMs, res)) ? 'continue' : 'gone';
    case 'throttled':
      throttle(s, res);
      return 'answered';
    case 'unavailable':
      sendError(res, 503, 'ServiceUnavailable', 'The service is temporarily unavailable.', {
        'retry-after': String(s.switches.retryAfterSeconds),
      });
      return 'answered';
    case 'requestTimeout':
      sendError(res, 408, 'RequestTimeout', 'The operation took longer than the allowed 8 minutes.');
      return 'answered';
    case 'gatewayTimeout':
      sendError(res, 504, 'GatewayTimeout', 'The request took longer than the allowed 10 minutes.');
      return 'answered';
    case 'badGatewayHtml':
      sendHtml(res, 502, BAD_GATEWAY_PAGE);
      return 'answered';
    case 'nonJson':
      sendHtml(res, 200, NON_JSON_PAGE);
      return 'answered';
  }
}

async function authenticate(s: ErpState, req: IncomingMessage): Promise<string> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const unauthorized = (why: string): HttpError => {
    s.stats.unauthorized++;
    return new HttpError(
      401,
      'Authentication_InvalidCredentials',
      `The server has rejected the client credentials (${why}).`,
      {
        'www-authenticate':
          'Bearer authorization_uri="https://login.microsoftonline.com/' +
          `${ERP_TENANT_ID}/oauth2/authorize", error="invalid_token"`,
      },
    );
  };
  const forbidden = (): HttpError => {
    s.stats.forbidden++;
    return new HttpError(
      403,
      'Authorization_InsufficientPermissions',
      'The user does not have a Dynamics 365 Business Central licence or the permission to access this resource.',
    );
  };
  if (match === null) throw unauthorized('no bearer token');
  const token = match[1]!;
  if (s.staticToken !== null && token === s.staticToken) {
    if (s.switches.tokenExpired) throw unauthorized('the token has expired');
    return token;
  }
  if (s.unlicensedToken !== null && token === s.unlicensedToken) throw forbidden();
  if (s.verifyToken === undefined) throw unauthorized('invalid token');
  let verdict: ErpTokenVerdict;
  try {
    verdict = await s.verifyToken(token);
  } catch {
    throw unauthorized('invalid token');
  }
  if (!verdict.valid) throw unauthorized('invalid token');
  if (verdict.expired === true) throw unauthorized('the token has expired');
  if (verdict.licensed === false) throw forbidden();
  return token;
}

/** Counts the request in the token's sliding window; throws 429 when the window is full. */
function countInWindow(s: ErpState, res: ServerResponse, token: string): boolean {
  if (s.switches.rateLimitRequests === 0) return true;
  const now = Date.now();
  const recent = (s.windows.get(token) ?? []).filter((t) => now - t < s.switches.rateLimitWindowMs);
  if (recent.length >= s.switches.rateLimitRequests) {
    s.windows.set(token, recent);
    throttle(s, res);
    return false;
  }
  recent.push(now);
  s.windows.set(token, recent);
  return true;
}

/** A top-level route: the read request, the decoded segments and the raw (still encoded) ones. */
type UpstreamHandler = (q: ReadRequest, segments: readonly string[], raw: readonly string[]) => void;

/** `{url}/v2.0[/{tenant}]/{env}/api/v2.0/…`: checks the tenant and environment, then serves the API. */
function serveVersioned(q: ReadRequest, segments: readonly string[], raw: readonly string[]): void {
  const { s } = q;
  const apiAt = segments[2] === 'api' ? 2 : segments[3] === 'api' ? 3 : -1;
  if (apiAt < 0 || segments[apiAt + 1] !== 'v2.0')
    throw new HttpError(404, 'BadRequest_NotFound', 'No HTTP resource was found that matches the request URI.');
  const tenant = apiAt === 3 ? segments[1]! : undefined;
  const environment = segments[apiAt - 1]!;
  if (tenant !== undefined && tenant.toLowerCase() !== ERP_TENANT_ID && tenant.toLowerCase() !== ERP_TENANT_DOMAIN) {
    s.stats.unauthorized++;
    throw new HttpError(401, 'Authentication_InvalidCredentials', `The token is not valid for the tenant '${tenant}'.`);
  }
  if (!(ERP_ENVIRONMENTS as readonly string[]).includes(environment))
    throw new HttpError(404, 'BadRequest_NotFound', `The environment '${environment}' does not exist.`);
  const base = `${s.publicUrl}${s.basePath}/${raw.slice(0, apiAt + 2).join('/')}`;
  serveApi(q, { base, environment }, segments.slice(apiAt + 2));
}

/** What is not below these answers 404 (the method is always GET here: anything else was answered 405). */
const UPSTREAM_ROUTES: readonly Route<UpstreamHandler>[] = [
  { method: 'GET', path: '/environments/v1.2', handle: (q) => sendODataJson(q.res, 200, erpEnvironmentsBody()) },
  {
    method: 'GET',
    path: '/admin/*',
    handle: (q) => {
      q.s.stats.forbidden++;
      throw new HttpError(
        403,
        'Authorization_InsufficientPermissions',
        'The admin center API requires the Dynamics 365 administrator or global administrator role.',
      );
    },
  },
  { method: 'GET', path: '/v2.0/*', handle: serveVersioned },
];

async function handleUpstream(s: ErpState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  const { text } = await readBody(req);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  s.stats.requests++;
  s.requestLog.push({ method, path: url.pathname, query, headers: { ...req.headers } });
  if (s.requestLog.length > ERP_REQUEST_LOG_MAX) s.requestLog.splice(0, s.requestLog.length - ERP_REQUEST_LOG_MAX);
  res.once('finish', () => {
    s.stats.byStatus[res.statusCode] = (s.stats.byStatus[res.statusCode] ?? 0) + 1;
  });

  if (method !== 'GET') {
    s.stats.writeLog.push({ method, path: `${url.pathname}${url.search}`, body: parseJsonLoose(text) });
    sendError(
      res,
      405,
      'BadRequest_MethodNotAllowed',
      `The HTTP method '${method}' is not allowed: this sandbox is read-only.`,
      { allow: 'GET' },
    );
    return;
  }
  const fault = await injectFault(s, res, url.pathname);
  if (fault !== 'continue') return;

  try {
    if (s.basePath !== '' && url.pathname !== s.basePath && !url.pathname.startsWith(`${s.basePath}/`))
      throw new HttpError(404, 'BadRequest_NotFound', 'No HTTP resource was found that matches the request URI.');
    const raw = url.pathname
      .slice(s.basePath.length)
      .split('/')
      .filter((part) => part !== '');
    const segments = raw.map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        throw new HttpError(400, 'BadRequest', 'The request URI is malformed.');
      }
    });
    const token = await authenticate(s, req);
    if (!countInWindow(s, res, token)) return;
    const q: ReadRequest = { s, req, res, url, query };

    const route = findSegmentRoute(UPSTREAM_ROUTES, method, segments);
    if (route === undefined)
      throw new HttpError(404, 'BadRequest_NotFound', 'No HTTP resource was found that matches the request URI.');
    route.handle(q, segments, raw);
  } catch (error) {
    if (error instanceof HttpError) sendError(res, error.status, error.code, error.message, error.headers);
    else if (error instanceof ODataError) sendError(res, error.status, error.code, error.message);
    else throw error;
  }
}

/** The `/__sandbox/` controls, answered with Business Central's JSON headers (not the kit's serveControls). */
const CONTROL_ROUTES: readonly Route<(s: ErpState, res: ServerResponse, text: string) => void>[] = [
  { method: 'GET', path: '/__sandbox/switches', handle: (s, res) => sendODataJson(res, 200, s.switches) },
  {
    method: 'POST',
    path: '/__sandbox/switches',
    handle: (s, res, text) => {
      const body = parseJsonLoose(text);
      const error = switchError(body, SWITCH_CHECKS);
      if (error !== undefined) {
        sendODataJson(res, 400, { error, switches: Object.keys(SWITCH_CHECKS) });
        return;
      }
      setSwitches(s, body as Partial<ErpSwitches>);
      sendODataJson(res, 200, s.switches);
    },
  },
  { method: 'GET', path: '/__sandbox/stats', handle: (s, res) => sendODataJson(res, 200, s.stats) },
  { method: 'GET', path: '/__sandbox/requests', handle: (s, res) => sendODataJson(res, 200, s.requestLog) },
  {
    method: 'POST',
    path: '/__sandbox/reset',
    handle: (s, res) => {
      resetStats(s);
      s.switches = { ...s.initialSwitches };
      sendODataJson(res, 200, { switches: s.switches, stats: s.stats });
    },
  },
];

function handleControl(s: ErpState, req: IncomingMessage, res: ServerResponse, path: string, text: string): void {
  const method = req.method ?? 'GET';
  const route = findRoute(CONTROL_ROUTES, method, path);
  if (route !== undefined) {
    route.handle(s, res, text);
    return;
  }
  sendODataJson(res, 404, {
    error: `no sandbox control at ${method} ${path}`,
    controls: [
      'GET /__sandbox/switches',
      'POST /__sandbox/switches',
      'GET /__sandbox/stats',
      'GET /__sandbox/requests',
      'POST /__sandbox/reset',
    ],
  });
}

function setSwitches(s: ErpState, partial: Partial<ErpSwitches>): void {
  const error = switchError(partial, SWITCH_CHECKS);
  if (error !== undefined) throw new TypeError(`erp sandbox: ${error}`);
  s.switches = { ...s.switches, ...partial };
}

function resetStats(s: ErpState): void {
  const { stats } = s;
  stats.requests = 0;
  stats.byStatus = {};
  stats.unauthorized = 0;
  stats.forbidden = 0;
  stats.throttled = 0;
  stats.readOnlyIntentRejections = 0;
  stats.writeLog = [];
  s.requestLog.length = 0;
  s.windows.clear();
}

/** Starts the ERP sandbox; resolves once it listens. */
export async function startErpSandbox(options: ErpSandboxOptions = {}): Promise<ErpSandbox> {
  const host = options.host ?? '127.0.0.1';
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath !== '' && !/^\/[\w./-]*$/.test(basePath)) throw new TypeError(`invalid basePath: ${basePath}`);
  const initialError = switchError(options.switches ?? {}, SWITCH_CHECKS);
  if (initialError !== undefined) throw new TypeError(`erp sandbox: ${initialError}`);
  const initialSwitches: ErpSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  const s: ErpState = {
    switches: { ...initialSwitches },
    initialSwitches,
    stats: {
      requests: 0,
      byStatus: {},
      unauthorized: 0,
      forbidden: 0,
      throttled: 0,
      readOnlyIntentRejections: 0,
      writeLog: [],
    },
    requestLog: [],
    windows: new Map(),
    delays: new PendingDelays(),
    data: erpDataset(),
    skipTokenKey: randomBytes(32),
    publicUrl: '',
    basePath,
    staticToken: options.accessToken === undefined ? ERP_SANDBOX_TOKEN : options.accessToken,
    unlicensedToken: options.unlicensedToken === undefined ? ERP_SANDBOX_UNLICENSED_TOKEN : options.unlicensedToken,
    verifyToken: options.verifyToken,
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const work = url.pathname.startsWith('/__sandbox/')
      ? readBody(req).then(({ text }) => handleControl(s, req, res, url.pathname, text))
      : handleUpstream(s, req, res, url);
    work.catch(() => {
      if (!res.headersSent) sendText(res, 500, 'sandbox error');
      else res.destroy();
    });
  });

  const listening = await listen(server, options.port ?? 0, host);
  const { origin } = listening;
  const url = `${origin}${basePath}`;
  // Absolute links are built as `${publicUrl}${path as received}`; the path already holds basePath.
  s.publicUrl = options.publicUrl === undefined ? origin : new URL(options.publicUrl).origin;
  return {
    url,
    publicUrl: `${s.publicUrl}${basePath}`,
    port: listening.port,
    token: s.staticToken,
    unlicensedToken: s.unlicensedToken,
    get switches() {
      return { ...s.switches };
    },
    stats: s.stats,
    requests: s.requestLog,
    setSwitches: (partial) => setSwitches(s, partial),
    resetSwitches() {
      s.switches = { ...s.initialSwitches };
    },
    resetStats: () => resetStats(s),
    close: closeOnce(server, s.delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.ERP_SANDBOX_PORT ?? 4105);
  const sandbox = await startErpSandbox({ port });
  const { ERP_DEMO_COMPANY_ID } = await import('./data.ts');
  const auth = `-H 'authorization: Bearer ${sandbox.token}'`;
  process.stdout.write(`${sandbox.url}\n`);
  process.stdout.write(
    `ERP (Business Central API v2.0) sandbox listening. Static bearer token: ${sandbox.token}\n` +
      `Try:\n` +
      `  curl -s ${auth} ${sandbox.url}/environments/v1.2\n` +
      `  curl -s ${auth} ${sandbox.url}/v2.0/Production/api/v2.0/companies\n` +
      `  curl -s ${auth} -H 'prefer: odata.maxpagesize=5' ` +
      `"${sandbox.url}/v2.0/Production/api/v2.0/companies(${ERP_DEMO_COMPANY_ID})/customers?` +
      '\\$select=number,displayName"\n' +
      `  curl -s -X POST -H 'content-type: application/json' -d ` +
      `'{"fault":"throttled","faultCount":1}' ${sandbox.url}/__sandbox/switches\n`,
  );
  closeOnSignals(() => sandbox.close());
}

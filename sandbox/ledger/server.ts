// Sandbox fake of the ledger upstream, the Uniconta WebAPI, reached over HTTP exactly like the real
// one. See ../shared/upstreams/ledger.md (§2 wire contract, §4 checklist).
//
//   POST {url}/login               {"Username":"00<companyId>/<user>","Password":"…"}
//                                  → { token, refreshToken, refreshTokenExpiry }, or a bare JSON
//                                    string ("NoCompanyId", "Invalid credentials",
//                                    "UserIsNotServerLogin") with a switchable status (200/400/401)
//   POST {url}/refresh             body: the refresh token as a JSON string → a new token set
//   POST {url}/Logout?refreshToken=…
//   POST {url}/Query/Get/{Entity}  Bearer JWT; JSON array of QueryFilter → bare JSON array of rows
//   *    {url}/Crud/*, /GLJournal/*, /Invoice/*   → 405, recorded in stats.writeLog
//
// The JWT is HS256, signed with a per-process random key, and carries the user, the company id and
// the expiry (default 1 h). Every query is answered from the token's company only. Paths are
// matched case-insensitively, as ASP.NET routes are.
//
// Sandbox-only controls (no auth; not counted as upstream requests):
//   GET  /__sandbox/switches        current switches
//   POST /__sandbox/switches        a partial LedgerSwitches object → the switches after the change
//   GET  /__sandbox/stats           counters, last request and write log
//   POST /__sandbox/reset           stats and switches back to their defaults
//
// Run as a script: `node sandbox/ledger/server.ts` listens on 127.0.0.1:4103 (LEDGER_SANDBOX_PORT
// overrides; 0 picks a free port) and prints its URL and the demo credentials.
//
// This file takes a request through the write refusal, the route table (login, refresh, logout,
// Query/Get), the method check and the injected faults to the endpoints of endpoints.ts, over the
// sessions of session.ts, the queries of query.ts, switches.ts and the state of state.ts.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkedSwitches,
  closeOnce,
  closeOnSignals,
  findRoute,
  listen,
  PendingDelays,
  parseJsonLoose,
  type Route,
  readBody,
  type SandboxControls,
  sendJson,
  sendText,
  serveControls,
  switchError,
} from '../http-kit.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from './data.ts';
import { handleLogin, handleQuery, handleRefresh, isJsonContentType } from './endpoints.ts';
import type { LedgerSandboxStats, LedgerState } from './state.ts';
import {
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  defaultSwitches,
  type LedgerSwitches,
  type LedgerUnknownProperties,
  SWITCH_CHECKS,
} from './switches.ts';

export type { LedgerSandboxStats, RecordedRequest, WriteAttempt } from './state.ts';
export { LEDGER_UNKNOWN_PROPERTY_MODES } from './switches.ts';
export type { LedgerFaultScope, LedgerSwitches, LedgerUnknownProperties } from './switches.ts';

/** Query/Get requests kept in `stats.queryLog` (the most recent ones). */
const QUERY_LOG_SIZE = 1000;

const WRITE_PREFIXES = ['/crud/', '/gljournal/', '/invoice/'];
const WRITE_ROOTS = ['/crud', '/gljournal', '/invoice'];

export interface LedgerSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Initial (and reset) value of the `tokenLifetimeSeconds` switch; default 3600. */
  tokenLifetimeSeconds?: number;
  /** Initial (and reset) value of the `unknownProperties` switch; default `ignore`. */
  unknownProperties?: LedgerUnknownProperties;
}

export interface LedgerSandboxCredentials {
  username: string;
  password: string;
  /** The company id as the gateway stores it (a string). */
  companyId: string;
  /** The login name sent upstream: `00<companyId>/<username>`. */
  loginUsername: string;
}

export interface LedgerSandbox {
  /** Base URL (no trailing slash): the gateway POSTs `${url}/login` and `${url}/Query/Get/X`. */
  readonly url: string;
  readonly port: number;
  /** The demo server-login user of the full demo company. */
  readonly credentials: LedgerSandboxCredentials;
  /** A copy of the current switches. */
  readonly switches: Readonly<LedgerSwitches>;
  /** Live counters (the same object is updated in place). */
  readonly stats: LedgerSandboxStats;
  setSwitches(partial: Partial<LedgerSwitches>): void;
  resetSwitches(): void;
  resetStats(): void;
  close(): Promise<void>;
}

/** One upstream request past the write refusal, the route and the method check. */
interface Exchange {
  readonly s: LedgerState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly text: string;
  readonly tooLarge: boolean;
  readonly body: unknown;
  /** The path as requested without trailing slashes (its case kept, still encoded). */
  readonly path: string;
}

interface LedgerRoute {
  /** Which requests latency and injected failures apply to (switch `faultScope`). */
  readonly kind: 'login' | 'query';
  readonly serve: (x: Exchange) => void;
}

const MAINTENANCE_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Uniconta - ' +
  'maintenance</title></head><body><h1>Uniconta is down for maintenance</h1><p>Please try ' +
  'again later.</p></body></html>\n';

function login({ s, req, res, body }: Exchange): void {
  if (s.switches.loginMaintenancePage !== 0) {
    res.writeHead(s.switches.loginMaintenancePage, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(MAINTENANCE_PAGE),
    });
    res.end(MAINTENANCE_PAGE);
    return;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    s.stats.failedLogins++;
    sendText(res, 415, 'Unsupported Media Type: the body must be application/json');
    return;
  }
  handleLogin(s, res, body);
}

/** /Logout?refreshToken=… */
function logout({ s, res, url }: Exchange): void {
  const refreshToken = url.searchParams.get('refreshToken') ?? url.searchParams.get('refreshtoken');
  if (refreshToken !== null) s.refreshTokens.delete(refreshToken);
  sendJson(res, 200, true);
}

/** Matched against the lower-cased path without trailing slashes; any method (a non-POST answers 405). */
const ROUTES: readonly Route<LedgerRoute>[] = [
  {
    path: /^\/query\/get\/([^/]+)$/,
    handle: { kind: 'query', serve: (x) => handleQuery(x.s, x.req, x.res, entityName(x.path), x.text, x.tooLarge) },
  },
  { path: '/login', handle: { kind: 'login', serve: login } },
  { path: '/refresh', handle: { kind: 'login', serve: (x) => handleRefresh(x.s, x.res, x.body) } },
  { path: '/logout', handle: { kind: 'login', serve: logout } },
];

/** The entity name of a Query/Get path as requested (decoded, its case kept). */
const entityName = (path: string): string => decodeURIComponent(path.slice('/query/get/'.length));

function logQuery(s: LedgerState, entity: string, body: unknown): void {
  const { stats } = s;
  stats.queries++;
  stats.queriesByEntity[entity] = (stats.queriesByEntity[entity] ?? 0) + 1;
  stats.queryLog.push({ entity, body });
  if (stats.queryLog.length > QUERY_LOG_SIZE) stats.queryLog.splice(0, stats.queryLog.length - QUERY_LOG_SIZE);
}

/** Latency and injected failures of the route's kind; false when the request is answered (or gone). */
async function passesFaults(s: LedgerState, res: ServerResponse, kind: LedgerRoute['kind']): Promise<boolean> {
  const inScope = s.switches.faultScope === 'all' || s.switches.faultScope === kind;
  if (inScope && s.switches.latencyMs > 0 && !(await s.delays.delay(s.switches.latencyMs, res))) return false;
  if (inScope && s.switches.failNextRequests > 0) {
    s.switches = { ...s.switches, failNextRequests: s.switches.failNextRequests - 1 };
    sendText(res, s.switches.failStatus, `Simulated upstream failure (HTTP ${s.switches.failStatus})`);
    return false;
  }
  return true;
}

async function handleUpstream(s: LedgerState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  const { text, tooLarge } = await readBody(req);
  const body = parseJsonLoose(text);
  s.stats.requests++;
  s.stats.lastRequest = { method, path: req.url ?? '', headers: { ...req.headers }, body };
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const lower = path.toLowerCase();

  if (WRITE_ROOTS.includes(lower) || WRITE_PREFIXES.some((p) => lower.startsWith(p))) {
    s.stats.writeLog.push({ method, path: req.url ?? path, body, at: new Date().toISOString() });
    sendText(res, 405, 'Method Not Allowed: the ledger sandbox is read-only', { allow: '' });
    return;
  }
  const route = findRoute(ROUTES, method, lower);
  if (route === undefined) {
    sendText(res, 404, 'Not Found');
    return;
  }
  if (method !== 'POST') {
    sendText(res, 405, 'Method Not Allowed', { allow: 'POST' });
    return;
  }
  if (route.handle.kind === 'query') logQuery(s, entityName(path), body);
  if (!(await passesFaults(s, res, route.handle.kind))) return;
  route.handle.serve({ s, req, res, url, text, tooLarge, body, path });
}

function setSwitches(s: LedgerState, partial: Partial<LedgerSwitches>): void {
  const error = switchError(partial, SWITCH_CHECKS);
  if (error !== undefined) throw new TypeError(`ledger sandbox: ${error}`);
  s.switches = { ...s.switches, ...partial };
}

const freshStats = (): LedgerSandboxStats => ({
  requests: 0,
  logins: 0,
  failedLogins: 0,
  queries: 0,
  queriesByEntity: {},
  queryLog: [],
  unauthorized: 0,
  callsByUser: {},
  lastRequest: null,
  writeLog: [],
});

function resetStats(s: LedgerState): void {
  Object.assign(s.stats, freshStats());
}

function controls(s: LedgerState): SandboxControls {
  return {
    switches: () => s.switches,
    ...checkedSwitches<LedgerSwitches>(SWITCH_CHECKS, (partial) => setSwitches(s, partial)),
    stats: () => s.stats,
    reset: () => {
      resetStats(s);
      s.switches = defaultSwitches(s.initialLifetime, s.initialUnknown);
      return { switches: s.switches, stats: s.stats };
    },
  };
}

/** Starts the ledger sandbox on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startLedgerSandbox(options: LedgerSandboxOptions = {}): Promise<LedgerSandbox> {
  const host = options.host ?? '127.0.0.1';
  const initialLifetime = options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  if (!SWITCH_CHECKS.tokenLifetimeSeconds(initialLifetime))
    throw new TypeError(`invalid tokenLifetimeSeconds: ${String(initialLifetime)}`);
  const initialUnknown: LedgerUnknownProperties = options.unknownProperties ?? 'ignore';
  if (!SWITCH_CHECKS.unknownProperties(initialUnknown))
    throw new TypeError(`invalid unknownProperties: ${String(initialUnknown)}`);
  const s: LedgerState = {
    secret: randomBytes(32),
    switches: defaultSwitches(initialLifetime, initialUnknown),
    initialLifetime,
    initialUnknown,
    stats: freshStats(),
    quotaDay: new Date().toISOString().slice(0, 10),
    refreshTokens: new Map(),
    delays: new PendingDelays(),
  };
  const sandboxControls = controls(s);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const handler = url.pathname.startsWith('/__sandbox/')
      ? readBody(req).then(({ text }) => serveControls(req.method ?? 'GET', url.pathname, text, res, sandboxControls))
      : handleUpstream(s, req, res, url);
    handler.catch(() => {
      if (!res.headersSent) sendText(res, 500, 'sandbox error');
      else res.destroy();
    });
  });

  const listening = await listen(server, options.port ?? 0, host);
  const url = listening.origin;

  return {
    url,
    port: listening.port,
    credentials: {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
      loginUsername: `00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`,
    },
    get switches() {
      return { ...s.switches };
    },
    stats: s.stats,
    setSwitches: (partial) => setSwitches(s, partial),
    resetSwitches() {
      s.switches = defaultSwitches(initialLifetime, initialUnknown);
    },
    resetStats: () => resetStats(s),
    close: closeOnce(server, s.delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.LEDGER_SANDBOX_PORT ?? 4103);
  // LEDGER_SANDBOX_UNKNOWN_PROPERTIES=reject answers a filter or sort on an unknown property with 400.
  const unknownProperties = process.env.LEDGER_SANDBOX_UNKNOWN_PROPERTIES === 'reject' ? 'reject' : 'ignore';
  const sandbox = await startLedgerSandbox({ port, unknownProperties });
  const { credentials: c } = sandbox;
  process.stdout.write(`${sandbox.url}\n`);
  process.stdout.write(
    `Ledger (Uniconta WebAPI) sandbox listening.\n` +
      `  user ${c.username}  password ${c.password}  company ${c.companyId}  (login name ${c.loginUsername})\n` +
      `Try:\n` +
      `  TOKEN=$(curl -s -H 'content-type: application/json' -d ` +
      `'{"Username":"${c.loginUsername}","Password":"${c.password}"}' ${sandbox.url}/login | node -pe ` +
      `'JSON.parse(require("fs").readFileSync(0)).token')\n` +
      `  curl -s -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d ` +
      `'[{"PropertyName":"Group","FilterValue":"EBIKES"},{"Take":5}]' ${sandbox.url}/Query/Get/InvItemClient\n` +
      `  curl -s -X POST -H 'content-type: application/json' -d ` +
      `'{"latencyMs":20000,"faultScope":"query"}' ${sandbox.url}/__sandbox/switches\n`,
  );
  closeOnSignals(() => sandbox.close());
}

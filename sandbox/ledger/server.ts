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

import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { LEDGER_COMPANY_ROWS, LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER, LEDGER_LOGIN_ERRORS, findLedgerUser, ledgerCompanyData, ledgerCompanyRow } from './data.ts';
import type { LedgerRow, LedgerUser } from './data.ts';
import { LedgerQueryError, ledgerEntitySchema, parseLedgerQuery, resolveLedgerEntity, runLedgerQuery } from './query.ts';
import { checkedSwitches, closeOnce, closeOnSignals, listen, PendingDelays, parseJsonLoose, readBody, type SandboxControls, sendText, serveControls, switchError } from '../http-kit.ts';

const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
const REFRESH_TOKEN_LIFETIME_SECONDS = 7 * 24 * 3600;

export type LedgerFaultScope = 'all' | 'login' | 'query';

export interface LedgerSwitches {
  /** HTTP status of a failed login; the body is always a bare JSON string. Default 200. */
  loginFailureStatus: 200 | 400 | 401;
  /** Lifetime of newly minted JWTs; 0 mints tokens that are already expired. Default 3600. */
  tokenLifetimeSeconds: number;
  /** `CompanyClient`: every company of the logged-in user (`all`, default) or only the token's company. */
  companyClientMode: 'all' | 'loggedIn';
  /** Also accept ISO `yyyy-MM-dd` date literals in FilterValue (default false: only `dd-MM-yyyy`). */
  acceptIsoDates: boolean;
  /** `DebtorInvoiceClient` rows carry `Paid` (default true; the real flag is unconfirmed). */
  invoicePaidFlag: boolean;
  /** Enforce the per-user daily call limit (default false; calls are counted either way). */
  quotaEnabled: boolean;
  /** Calls per user per UTC day (default 5000). */
  quotaPerDay: number;
  /** Status once the quota is used up (default 429, text body). */
  quotaStatus: number;
  /** Whether logins count against the quota (default true; unconfirmed upstream). */
  quotaCountsLogin: boolean;
  /** Delay before answering requests in `faultScope` (default 0; up to 600000). */
  latencyMs: number;
  /** The next N requests in `faultScope` fail with `failStatus` and a text body (default 0). */
  failNextRequests: number;
  /** Status of the injected failures (default 500). */
  failStatus: number;
  /** Which requests latency and injected failures apply to (default `all`). */
  faultScope: LedgerFaultScope;
  /**
   * `/login` answers an HTML maintenance page (`text/html`) with this status instead of logging in,
   * as a load balancer or maintenance proxy in front of the WebAPI does during an outage. Default 0: off.
   */
  loginMaintenancePage: 0 | 200 | 503;
  /**
   * Rows whose sort keys are equal come in a different order on every request (as a database plan
   * may return them), so Skip/Take pages over a sort that is not unique repeat and skip rows. Sort
   * entries that make the order unique (a documented key such as `GLTransClient` `Voucher` +
   * `VoucherLine`) make it stable again. Default false: ties keep the natural row order.
   */
  unstableTieOrder: boolean;
  /**
   * A filter or sort entry naming a property the entity does not have: silently ignored
   * (`ignore`, ledger.md §4 and §3 #13), or answered 400 with a text body naming it (`reject`, as
   * ledger.md §2 believes the real WebAPI does for an unknown property). Default: the sandbox
   * option `unknownProperties`, else `ignore`.
   */
  unknownProperties: LedgerUnknownProperties;
}

/** How `Query/Get` treats a PropertyName the entity does not have. */
export type LedgerUnknownProperties = 'ignore' | 'reject';

/** The two behaviours, for suites that run against both (`describe.each`). */
export const LEDGER_UNKNOWN_PROPERTY_MODES: readonly LedgerUnknownProperties[] = ['ignore', 'reject'];

/** Query/Get requests kept in `stats.queryLog` (the most recent ones). */
const QUERY_LOG_SIZE = 1000;

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

export interface RecordedRequest {
  method: string;
  /** Path and query string as received. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, otherwise the raw text (undefined when empty). */
  body: unknown;
}

export interface WriteAttempt {
  method: string;
  path: string;
  body: unknown;
  at: string;
}

export interface LedgerSandboxStats {
  /** Upstream requests received (sandbox control requests excluded). */
  requests: number;
  /** Successful logins (tokens minted by /login). */
  logins: number;
  /** Login attempts answered without a token. */
  failedLogins: number;
  /** `Query/Get` requests received (whatever their outcome). */
  queries: number;
  /** `Query/Get` requests per entity name as requested. */
  queriesByEntity: Record<string, number>;
  /** The most recent `Query/Get` requests (up to 1000, oldest first): entity as requested and parsed body. */
  queryLog: Array<{ entity: string; body: unknown }>;
  /** Requests answered 401 for a missing, invalid or expired token. */
  unauthorized: number;
  /** Calls counted against the quota today, per user name. */
  callsByUser: Record<string, number>;
  lastRequest: RecordedRequest | null;
  /** Every request to a write endpoint (/Crud/*, /GLJournal/*, /Invoice/*); must stay empty. */
  writeLog: WriteAttempt[];
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

// ---------------------------------------------------------------------------------------------
// Switch validation
// ---------------------------------------------------------------------------------------------

const isStatus = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599;
const isCount = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

const SWITCH_CHECKS: { readonly [K in keyof LedgerSwitches]: (value: unknown) => boolean } = {
  loginFailureStatus: (v) => v === 200 || v === 400 || v === 401,
  tokenLifetimeSeconds: (v) => isCount(v, 10 * 365 * 24 * 3600),
  companyClientMode: (v) => v === 'all' || v === 'loggedIn',
  acceptIsoDates: (v) => typeof v === 'boolean',
  invoicePaidFlag: (v) => typeof v === 'boolean',
  quotaEnabled: (v) => typeof v === 'boolean',
  quotaPerDay: (v) => isCount(v, 10_000_000),
  quotaStatus: isStatus,
  quotaCountsLogin: (v) => typeof v === 'boolean',
  latencyMs: (v) => isCount(v, 600_000),
  failNextRequests: (v) => isCount(v, 1_000_000),
  failStatus: isStatus,
  faultScope: (v) => v === 'all' || v === 'login' || v === 'query',
  loginMaintenancePage: (v) => v === 0 || v === 200 || v === 503,
  unstableTieOrder: (v) => typeof v === 'boolean',
  unknownProperties: (v) => v === 'ignore' || v === 'reject',
};

function defaultSwitches(tokenLifetimeSeconds: number, unknownProperties: LedgerUnknownProperties): LedgerSwitches {
  return {
    loginFailureStatus: 200,
    tokenLifetimeSeconds,
    companyClientMode: 'all',
    acceptIsoDates: false,
    invoicePaidFlag: true,
    quotaEnabled: false,
    quotaPerDay: 5000,
    quotaStatus: 429,
    quotaCountsLogin: true,
    latencyMs: 0,
    failNextRequests: 0,
    failStatus: 500,
    faultScope: 'all',
    loginMaintenancePage: 0,
    unstableTieOrder: false,
    unknownProperties,
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers
// ---------------------------------------------------------------------------------------------

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function isJsonContentType(header: string | undefined): boolean {
  const media = header?.split(';')[0]?.trim().toLowerCase();
  if (media === undefined) return false;
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/** Reads an object member case-insensitively (ASP.NET model binding). */
function member(body: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(body)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

interface TokenClaims {
  iss: string;
  sub: string;
  uid: number;
  cid: number;
  iat: number;
  exp: number;
  jti: string;
}

type TokenCheck = { ok: true; claims: TokenClaims; user: LedgerUser } | { ok: false; reason: string };

const WRITE_PREFIXES = ['/crud/', '/gljournal/', '/invoice/'];
const WRITE_ROOTS = ['/crud', '/gljournal', '/invoice'];

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

/** Starts the ledger sandbox on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startLedgerSandbox(options: LedgerSandboxOptions = {}): Promise<LedgerSandbox> {
  const host = options.host ?? '127.0.0.1';
  const initialLifetime = options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  if (!SWITCH_CHECKS.tokenLifetimeSeconds(initialLifetime)) throw new TypeError(`invalid tokenLifetimeSeconds: ${String(initialLifetime)}`);
  const initialUnknown = options.unknownProperties ?? 'ignore';
  if (!SWITCH_CHECKS.unknownProperties(initialUnknown)) throw new TypeError(`invalid unknownProperties: ${String(initialUnknown)}`);
  const secret = randomBytes(32);
  let switches = defaultSwitches(initialLifetime, initialUnknown);
  const stats: LedgerSandboxStats = {
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
  };
  let quotaDay = new Date().toISOString().slice(0, 10);
  const refreshTokens = new Map<string, { user: LedgerUser; companyId: number; expires: number }>();
  const delays = new PendingDelays();

  function setSwitches(partial: Partial<LedgerSwitches>): void {
    const error = switchError(partial, SWITCH_CHECKS);
    if (error !== undefined) throw new TypeError(`ledger sandbox: ${error}`);
    switches = { ...switches, ...partial };
  }

  // Tokens ------------------------------------------------------------------------------------

  function sign(input: string): string {
    return createHmac('sha256', secret).update(input).digest('base64url');
  }

  function mintTokens(user: LedgerUser, companyId: number): { token: string; refreshToken: string; refreshTokenExpiry: string } {
    const now = Math.floor(Date.now() / 1000);
    const claims: TokenClaims = {
      iss: 'ledger-sandbox',
      sub: user.username,
      uid: user.userId,
      cid: companyId,
      iat: now,
      exp: now + switches.tokenLifetimeSeconds,
      jti: randomUUID(),
    };
    const head = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
    const refreshToken = randomUUID();
    const expires = Date.now() + REFRESH_TOKEN_LIFETIME_SECONDS * 1000;
    refreshTokens.set(refreshToken, { user, companyId, expires });
    return { token: `${head}.${sign(head)}`, refreshToken, refreshTokenExpiry: new Date(expires).toISOString() };
  }

  function checkToken(header: string | undefined): TokenCheck {
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) return { ok: false, reason: 'missing bearer token' };
    const parts = match[1]!.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'invalid token' };
    const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid token' };
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      return { ok: false, reason: 'invalid token' };
    }
    if (typeof claims.exp !== 'number' || typeof claims.cid !== 'number' || typeof claims.sub !== 'string') return { ok: false, reason: 'invalid token' };
    if (Date.now() / 1000 >= claims.exp) return { ok: false, reason: 'token expired' };
    const user = findLedgerUser(claims.sub);
    if (user === undefined) return { ok: false, reason: 'invalid token' };
    return { ok: true, claims, user };
  }

  function unauthorized(res: ServerResponse, reason: string): void {
    stats.unauthorized++;
    sendText(res, 401, `Unauthorized: ${reason}`, { 'www-authenticate': `Bearer error="invalid_token", error_description="${reason}"` });
  }

  // Quota -------------------------------------------------------------------------------------

  /** Counts one call for `user`; false (and the reply sent) when the quota is used up. */
  function countCall(res: ServerResponse, user: LedgerUser): boolean {
    const today = new Date().toISOString().slice(0, 10);
    if (today !== quotaDay) {
      quotaDay = today;
      stats.callsByUser = {};
    }
    const used = stats.callsByUser[user.username] ?? 0;
    if (switches.quotaEnabled && used >= switches.quotaPerDay) {
      sendText(res, switches.quotaStatus, `The daily limit of ${switches.quotaPerDay} API calls for user ${user.username} has been reached.`);
      return false;
    }
    stats.callsByUser[user.username] = used + 1;
    return true;
  }

  // Handlers ----------------------------------------------------------------------------------

  function loginFailure(res: ServerResponse, message: string): void {
    stats.failedLogins++;
    sendJson(res, switches.loginFailureStatus, message);
  }

  function handleLogin(res: ServerResponse, body: unknown): void {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      stats.failedLogins++;
      sendText(res, 400, 'The login request body must be a JSON object with Username and Password.');
      return;
    }
    const username = member(body as Record<string, unknown>, 'Username');
    const password = member(body as Record<string, unknown>, 'Password');
    if (typeof username !== 'string' || typeof password !== 'string') {
      loginFailure(res, LEDGER_LOGIN_ERRORS.invalidCredentials);
      return;
    }
    const prefixed = /^00(\d+)\/(.+)$/.exec(username.trim());
    const companyId = prefixed === null ? undefined : Number(prefixed[1]);
    const name = prefixed !== null ? prefixed[2]! : username.includes('/') ? username.slice(username.lastIndexOf('/') + 1) : username;
    const user = findLedgerUser(name.trim());
    if (user !== undefined && switches.quotaCountsLogin && !countCall(res, user)) return;
    if (user === undefined || user.password !== password) {
      loginFailure(res, LEDGER_LOGIN_ERRORS.invalidCredentials);
      return;
    }
    if (!user.serverLogin) {
      loginFailure(res, LEDGER_LOGIN_ERRORS.notServerLogin);
      return;
    }
    if (companyId === undefined || !user.companies.includes(companyId) || ledgerCompanyRow(companyId) === undefined) {
      loginFailure(res, LEDGER_LOGIN_ERRORS.noCompanyId);
      return;
    }
    stats.logins++;
    sendJson(res, 200, mintTokens(user, companyId));
  }

  function handleRefresh(res: ServerResponse, body: unknown): void {
    const entry = typeof body === 'string' ? refreshTokens.get(body) : undefined;
    if (entry === undefined || entry.expires <= Date.now()) {
      sendJson(res, 401, 'Invalid refresh token');
      return;
    }
    refreshTokens.delete(body as string);
    sendJson(res, 200, mintTokens(entry.user, entry.companyId));
  }

  function handleQuery(req: IncomingMessage, res: ServerResponse, entityName: string, text: string, tooLarge: boolean): void {
    const check = checkToken(req.headers.authorization);
    if (!check.ok) {
      unauthorized(res, check.reason);
      return;
    }
    if (!countCall(res, check.user)) return;
    const entity = resolveLedgerEntity(entityName);
    if (entity === undefined) {
      sendText(res, 400, `Unknown entity: ${entityName}`);
      return;
    }
    if (tooLarge) {
      sendText(res, 413, 'Request body too large');
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      sendText(res, 415, 'Unsupported Media Type: the body must be application/json');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      sendText(res, 400, 'The request body is not valid JSON.');
      return;
    }
    const companyId = check.claims.cid;
    let rows: readonly LedgerRow[];
    if (entity === 'CompanyClient') {
      rows =
        switches.companyClientMode === 'loggedIn'
          ? LEDGER_COMPANY_ROWS.filter((row) => row.PrimaryKeyId === companyId)
          : LEDGER_COMPANY_ROWS.filter((row) => check.user.companies.includes(row.PrimaryKeyId as number));
    } else {
      rows = ledgerCompanyData(companyId)?.entities[entity] ?? [];
    }
    const omit = entity === 'DebtorInvoiceClient' && !switches.invoicePaidFlag ? new Set(['Paid']) : undefined;
    try {
      const query = parseLedgerQuery(ledgerEntitySchema(entity), body, { acceptIsoDates: switches.acceptIsoDates, ...(omit === undefined ? {} : { omit }) });
      const unknown = query.ignoredProperties[0];
      if (switches.unknownProperties === 'reject' && unknown !== undefined) {
        sendText(res, 400, `Unknown property: ${unknown} is not a property of ${entity}`);
        return;
      }
      const tieSeed = switches.unstableTieOrder ? randomBytes(4).readUInt32LE(0) : undefined;
      sendJson(res, 200, runLedgerQuery(rows, query, omit, tieSeed));
    } catch (error) {
      if (error instanceof LedgerQueryError) sendText(res, error.status, error.message);
      else throw error;
    }
  }

  const controls: SandboxControls = {
    switches: () => switches,
    ...checkedSwitches(SWITCH_CHECKS, setSwitches),
    stats: () => stats,
    reset: () => {
      resetStats();
      switches = defaultSwitches(initialLifetime, initialUnknown);
      return { switches, stats };
    },
  };

  async function handleUpstream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const { text, tooLarge } = await readBody(req);
    const body = parseJsonLoose(text);
    stats.requests++;
    stats.lastRequest = { method, path: req.url ?? '', headers: { ...req.headers }, body };
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const lower = path.toLowerCase();

    if (WRITE_ROOTS.includes(lower) || WRITE_PREFIXES.some((p) => lower.startsWith(p))) {
      stats.writeLog.push({ method, path: req.url ?? path, body, at: new Date().toISOString() });
      sendText(res, 405, 'Method Not Allowed: the ledger sandbox is read-only', { allow: '' });
      return;
    }

    const queryMatch = /^\/query\/get\/([^/]+)$/.exec(lower);
    const kind: 'login' | 'query' | undefined = queryMatch !== null ? 'query' : ['/login', '/refresh', '/logout'].includes(lower) ? 'login' : undefined;
    if (kind === undefined) {
      sendText(res, 404, 'Not Found');
      return;
    }
    if (method !== 'POST') {
      sendText(res, 405, 'Method Not Allowed', { allow: 'POST' });
      return;
    }
    if (kind === 'query') {
      const entityName = decodeURIComponent(path.slice('/query/get/'.length));
      stats.queries++;
      stats.queriesByEntity[entityName] = (stats.queriesByEntity[entityName] ?? 0) + 1;
      stats.queryLog.push({ entity: entityName, body });
      if (stats.queryLog.length > QUERY_LOG_SIZE) stats.queryLog.splice(0, stats.queryLog.length - QUERY_LOG_SIZE);
    }

    const inScope = switches.faultScope === 'all' || switches.faultScope === kind;
    if (inScope && switches.latencyMs > 0 && !(await delays.delay(switches.latencyMs, res))) return;
    if (inScope && switches.failNextRequests > 0) {
      switches = { ...switches, failNextRequests: switches.failNextRequests - 1 };
      sendText(res, switches.failStatus, `Simulated upstream failure (HTTP ${switches.failStatus})`);
      return;
    }

    if (kind === 'query') {
      handleQuery(req, res, decodeURIComponent(path.slice('/query/get/'.length)), text, tooLarge);
      return;
    }
    if (lower === '/login') {
      if (switches.loginMaintenancePage !== 0) {
        const page = '<!DOCTYPE html>\n<html><head><title>Uniconta - maintenance</title></head><body><h1>Uniconta is down for maintenance</h1><p>Please try again later.</p></body></html>\n';
        res.writeHead(switches.loginMaintenancePage, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
        res.end(page);
        return;
      }
      if (!isJsonContentType(req.headers['content-type'])) {
        stats.failedLogins++;
        sendText(res, 415, 'Unsupported Media Type: the body must be application/json');
        return;
      }
      handleLogin(res, body);
      return;
    }
    if (lower === '/refresh') {
      handleRefresh(res, body);
      return;
    }
    // /Logout?refreshToken=…
    const refreshToken = url.searchParams.get('refreshToken') ?? url.searchParams.get('refreshtoken');
    if (refreshToken !== null) refreshTokens.delete(refreshToken);
    sendJson(res, 200, true);
  }

  function resetStats(): void {
    stats.requests = 0;
    stats.logins = 0;
    stats.failedLogins = 0;
    stats.queries = 0;
    stats.queriesByEntity = {};
    stats.queryLog = [];
    stats.unauthorized = 0;
    stats.callsByUser = {};
    stats.lastRequest = null;
    stats.writeLog = [];
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const handler = url.pathname.startsWith('/__sandbox/') ? readBody(req).then(({ text }) => serveControls(req.method ?? 'GET', url.pathname, text, res, controls)) : handleUpstream(req, res, url);
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
      return { ...switches };
    },
    stats,
    setSwitches,
    resetSwitches() {
      switches = defaultSwitches(initialLifetime, initialUnknown);
    },
    resetStats,
    close: closeOnce(server, delays),
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
      `  TOKEN=$(curl -s -H 'content-type: application/json' -d '{"Username":"${c.loginUsername}","Password":"${c.password}"}' ${sandbox.url}/login | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')\n` +
      `  curl -s -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '[{"PropertyName":"Group","FilterValue":"EBIKES"},{"Take":5}]' ${sandbox.url}/Query/Get/InvItemClient\n` +
      `  curl -s -X POST -H 'content-type: application/json' -d '{"latencyMs":20000,"faultScope":"query"}' ${sandbox.url}/__sandbox/switches\n`,
  );
  closeOnSignals(() => sandbox.close());
}

// Sandbox fake of the bookkeeping-reports upstream, the Dinero API (https://api.dinero.dk), reached
// over HTTP exactly like the real one. Built from ../shared/upstreams/books.md (§2 wire contract,
// §4 checklist); the Visma Connect token endpoints live in sandbox/identity/.
//
//   GET  /v1/organizations                                  bare array; `fields` echo (lower-case defaults)
//   GET  /v1/countries                                      bare array, no organisation
//   GET  /v1/{o}/accountingyears | vatTypes | sales/settings
//   GET  /v1/{o}/accounts/entry | accounts/deposit          bare arrays; `fields`, `categoryFilter`
//   GET  /v1/{o}/{year}/reports/{saldo|result|balance|primo}
//   GET  /v1/{o}/entries | entries/changes                  bare arrays
//   GET  /v1/{o}/contacts[/{guid}[/notes]], /v2/{o}/contacts  envelope (lists, notes); `fields` checked
//        against sandbox/books/documented-fields.ts (unknown names → 400, or left out by switch)
//   GET  /v1/{o}/state-of-account/{guid}[/pdf]
//   GET  /v1/{o}/invoices[/{guid}[/mailouts|/reminders[/next|/{id}]]]   envelope; JSON or PDF by Accept
//   POST /v1/{o}/invoices/fetch, /v1/{o}/invoices/{guid}/reminders/fetch   calculators (persist nothing)
//   GET  /v2/{o}/invoices/{guid}/payments
//   GET  /v1/{o}/sales | sales/creditnotes[/{guid}[/pdf|/payments|/mailouts]]
//   GET  /v1/{o}/tradeoffers[/{guid}[/mailouts]]
//   GET  /v1/{o}/vouchers/purchase/{guid} | vouchers/purchase/fileguid/{fileGuid}
//        | vouchers/purchase/creditnotes/{guid} | vouchers/manuel/{guid} | purchase-vouchers/{guid}/payments
//   GET  /v1/{o}/products[/{guid}] | files[/{fileGuid}] | attachments/{documentGuid}
//   any other POST/PUT/DELETE → 405, recorded in stats.writeLog (tests assert it stays empty)
//
// Errors are Dinero's JSON `{ code, message, validationErrors?, languageSpecificMessages? }`
// (40 not found, 41 unauthorized, 42 validation, 90 no Pro plan); a 429 is plain text beginning
// "API calls quota exceeded!" without Retry-After (a switch adds one); 480 is the brownout of a
// deprecated endpoint.
//
// Sandbox-only controls (no auth; not recorded as upstream requests):
//   GET/POST /__sandbox/switches   GET /__sandbox/stats   GET /__sandbox/requests   POST /__sandbox/reset
//
// Run as a script: `node sandbox/books/server.ts` listens on 127.0.0.1:4107 (BOOKS_SANDBOX_PORT).
//
// This file takes a request through the write refusal, faults, the bearer token, brownouts and the
// per-organisation quota to the route tables of routes.ts, over query.ts (fields, filters, paging),
// documents.ts (PDFs, files, reports, calculators), switches.ts and the state of state.ts.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkedSwitches,
  closeOnce,
  closeOnSignals,
  listen,
  PendingDelays,
  parseJsonLoose,
  readBody,
  type SandboxControls,
  sendJson,
  sendText,
  serveControls,
} from '../http-kit.ts';
import {
  BOOKS_DEMO_ORG_ID,
  BOOKS_FREE_ORG_ID,
  BOOKS_THROTTLED_ORG_ID,
  type BooksDataset,
  booksDataset,
  type OrganizationData,
} from './data.ts';
import { project } from './query.ts';
import { serveOrganization } from './routes.ts';
import {
  type BooksRecordedRequest,
  type BooksSandboxStats,
  type BooksState,
  DineroError,
  notFound,
  type Req,
  sendDineroError,
  validation,
} from './state.ts';
import {
  BOOKS_REQUEST_LOG_MAX,
  BOOKS_SANDBOX_OTHER_USER_TOKEN,
  BOOKS_SANDBOX_TOKEN,
  type BooksSwitches,
  type BooksTokenVerifier,
  DEFAULT_SWITCHES,
  SWITCH_CHECKS,
  switchProblem,
} from './switches.ts';

export type { BooksRecordedRequest, BooksSandboxStats } from './state.ts';
export {
  BOOKS_DEFAULT_PAGE_SIZE,
  BOOKS_FAULTS,
  BOOKS_FILES_DEFAULT_PAGE_SIZE,
  BOOKS_MAX_PAGE_SIZE,
  BOOKS_RATE_LIMIT_PER_MINUTE,
  BOOKS_REQUEST_LOG_MAX,
  BOOKS_SANDBOX_OTHER_USER_TOKEN,
  BOOKS_SANDBOX_TOKEN,
} from './switches.ts';
export type { BooksFault, BooksSwitches, BooksTokenVerdict, BooksTokenVerifier } from './switches.ts';

export interface BooksSandboxOptions {
  port?: number;
  host?: string;
  /** Decides every token that is not a static one (the identity provider's verifyAccessToken plugs in). */
  verifyToken?: BooksTokenVerifier;
  switches?: Partial<BooksSwitches>;
}

export interface BooksSandbox {
  readonly url: string;
  readonly port: number;
  readonly switches: Readonly<BooksSwitches>;
  readonly stats: BooksSandboxStats;
  readonly requests: readonly BooksRecordedRequest[];
  readonly data: BooksDataset;
  setSwitches(partial: Partial<BooksSwitches>): void;
  resetSwitches(): void;
  resetStats(): void;
  close(): Promise<void>;
}

function throttle(s: BooksState, res: ServerResponse): void {
  s.stats.throttled++;
  sendText(
    res,
    429,
    'API calls quota exceeded! maximum admitted 100 per 1m.',
    s.switches.retryAfterSeconds === null ? {} : { 'retry-after': String(s.switches.retryAfterSeconds) },
  );
}

/** The organisations the bearer token reaches and its client id; throws 401. */
function authenticate(s: BooksState, req: IncomingMessage): { organizations: readonly number[]; clientId: string } {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const unauthorized = (message: string) => {
    s.stats.unauthorized++;
    return new DineroError(401, 41, message);
  };
  if (match === null) throw unauthorized('Authorization has been denied for this request.');
  if (s.switches.tokenExpired) throw unauthorized('The access token has expired.');
  const token = match[1]!;
  if (token === BOOKS_SANDBOX_TOKEN)
    return { organizations: [BOOKS_DEMO_ORG_ID, BOOKS_FREE_ORG_ID, BOOKS_THROTTLED_ORG_ID], clientId: 'static' };
  if (token === BOOKS_SANDBOX_OTHER_USER_TOKEN) return { organizations: [BOOKS_FREE_ORG_ID], clientId: 'static' };
  const verdict = s.verifyToken?.(token);
  if (verdict === undefined || !verdict.valid)
    throw unauthorized(
      verdict?.expired ? 'The access token has expired.' : 'Authorization has been denied for this request.',
    );
  return {
    organizations: verdict.organizations ?? [BOOKS_DEMO_ORG_ID, BOOKS_FREE_ORG_ID, BOOKS_THROTTLED_ORG_ID],
    clientId: verdict.clientId ?? 'oauth',
  };
}

/** Counts the request in the organisation's one-minute window; false when it answered 429. */
function withinQuota(s: BooksState, res: ServerResponse, orgId: number, clientId: string): boolean {
  if (s.switches.throttledOrganizations.includes(orgId)) {
    throttle(s, res);
    return false;
  }
  if (s.switches.rateLimitPerMinute === 0) return true;
  const key = `${orgId}:${clientId}`;
  const now = Date.now();
  const recent = (s.windows.get(key) ?? []).filter((t) => now - t < 60_000);
  if (recent.length >= s.switches.rateLimitPerMinute) {
    s.windows.set(key, recent);
    throttle(s, res);
    return false;
  }
  recent.push(now);
  s.windows.set(key, recent);
  return true;
}

function organizationFor(s: BooksState, orgId: string, reach: readonly number[]): OrganizationData {
  if (!/^\d+$/.test(orgId)) throw validation('organizationId', `'${orgId}' is not a valid organization id.`);
  const id = Number(orgId);
  const org = s.data.organizations.get(id);
  if (org === undefined || !reach.includes(id)) {
    s.stats.forbidden++;
    throw new DineroError(403, 41, 'You do not have access to this organization.');
  }
  if (!org.pro) {
    s.stats.forbidden++;
    throw new DineroError(403, s.switches.proPlanCode, 'This feature requires an active Dinero Pro subscription.');
  }
  return org;
}

async function handleUpstream(s: BooksState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  const { text } = await readBody(req);
  const body = parseJsonLoose(text);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  s.stats.requests++;
  s.requestLog.push({ method, path: url.pathname, query, headers: { ...req.headers }, body });
  if (s.requestLog.length > BOOKS_REQUEST_LOG_MAX) s.requestLog.splice(0, s.requestLog.length - BOOKS_REQUEST_LOG_MAX);
  res.once('finish', () => {
    s.stats.byStatus[res.statusCode] = (s.stats.byStatus[res.statusCode] ?? 0) + 1;
  });
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const isCalculator = method === 'POST' && segments.at(-1) === 'fetch';
  if (method !== 'GET' && !isCalculator) {
    s.stats.writeLog.push({ method, path: `${url.pathname}${url.search}`, body });
    sendJson(res, 405, { code: 42, message: `The method ${method} is not allowed: this sandbox is read-only.` });
    return;
  }
  if (s.switches.latencyMs > 0 && !(await s.delays.delay(s.switches.latencyMs, res))) return;
  if (
    s.switches.fault !== 'none' &&
    (s.switches.faultPath === null || url.pathname.toLowerCase().includes(s.switches.faultPath.toLowerCase()))
  ) {
    const fault = s.switches.fault;
    if (s.switches.faultCount > 0)
      s.switches = {
        ...s.switches,
        faultCount: s.switches.faultCount - 1,
        ...(s.switches.faultCount === 1 ? { fault: 'none' as const } : {}),
      };
    if (fault === 'serverError') return sendJson(res, 500, { code: 500, message: 'An unexpected error occurred.' });
    if (fault === 'throttled') return throttle(s, res);
    if (fault === 'nonJson')
      return sendText(res, 200, '<!DOCTYPE html><html><body>Dinero maintenance</body></html>', {
        'content-type': 'text/html',
      });
    if (fault === 'badGateway')
      return sendText(res, 502, '<html><body>502 Bad Gateway</body></html>', { 'content-type': 'text/html' });
    if (fault === 'slow' && !(await s.delays.delay(s.switches.slowDelayMs, res))) return;
  }
  try {
    const segs = segments.map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw validation('path', 'The request path is malformed.');
      }
    });
    const { organizations, clientId } = authenticate(s, req);
    if (
      s.switches.brownoutPath !== null &&
      url.pathname.toLowerCase().includes(s.switches.brownoutPath.toLowerCase())
    ) {
      s.stats.brownouts++;
      throw new DineroError(
        480,
        480,
        'This endpoint is deprecated and is being browned out before ' +
          'its removal. See https://developer.dinero.dk/news.',
      );
    }
    const accept = String(req.headers.accept ?? '');
    const r: Req = {
      s,
      req,
      res,
      method,
      path: url.pathname,
      query: url.searchParams,
      body,
      wantsBytes: /application\/octet-stream/i.test(accept) && !/application\/json/i.test(accept),
    };
    const [version, second, ...rest] = segs;
    if (!version || !['v1', 'v1.1', 'v1.2', 'v2'].includes(version)) throw notFound(s, 'The resource');
    if (second === 'organizations' && rest.length === 0 && method === 'GET') {
      const rows = [...s.data.organizations.values()]
        .filter((o) => organizations.includes(o.org.Id as number))
        .map((o) => o.org);
      return sendJson(
        res,
        200,
        project(s, url.pathname, rows, url.searchParams.get('fields') ?? undefined, 'organizations'),
      );
    }
    if (second === 'countries' && rest.length === 0 && method === 'GET') return sendJson(res, 200, s.data.countries);
    if (second === undefined) throw notFound(s, 'The resource');
    const org = organizationFor(s, second, organizations);
    if (!withinQuota(s, res, org.org.Id as number, clientId)) return;
    serveOrganization(r, version, org, rest);
  } catch (error) {
    if (error instanceof DineroError) sendDineroError(res, error);
    else throw error;
  }
}

const freshStats = (): BooksSandboxStats => ({
  requests: 0,
  byStatus: {},
  unauthorized: 0,
  forbidden: 0,
  throttled: 0,
  brownouts: 0,
  calculations: 0,
  writeLog: [],
  undocumentedFields: [],
});
const copySwitches = (switches: BooksSwitches): BooksSwitches => ({
  ...switches,
  throttledOrganizations: [...switches.throttledOrganizations],
});

function setSwitches(s: BooksState, partial: Partial<BooksSwitches>): void {
  const error = switchProblem(partial);
  if (error !== undefined) throw new TypeError(`books sandbox: ${error}`);
  s.switches = { ...s.switches, ...partial };
}

function resetStats(s: BooksState): void {
  Object.assign(s.stats, freshStats());
  s.requestLog.length = 0;
  s.windows.clear();
}

/** The `/__sandbox/` controls; a reset answers the new switches and stats. */
function controls(s: BooksState): SandboxControls {
  return {
    switches: () => s.switches,
    ...checkedSwitches<BooksSwitches>(SWITCH_CHECKS, (partial) => setSwitches(s, partial)),
    stats: () => s.stats,
    requests: () => s.requestLog,
    reset: () => {
      resetStats(s);
      s.switches = copySwitches(s.initialSwitches);
      return { switches: s.switches, stats: s.stats };
    },
  };
}

export async function startBooksSandbox(options: BooksSandboxOptions = {}): Promise<BooksSandbox> {
  const host = options.host ?? '127.0.0.1';
  const initialError = switchProblem(options.switches ?? {});
  if (initialError !== undefined) throw new TypeError(`books sandbox: ${initialError}`);
  const initialSwitches: BooksSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  const s: BooksState = {
    switches: copySwitches(initialSwitches),
    initialSwitches,
    data: booksDataset(),
    stats: freshStats(),
    requestLog: [],
    windows: new Map(),
    delays: new PendingDelays(),
    verifyToken: options.verifyToken,
  };
  const sandboxControls = controls(s);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const work = url.pathname.startsWith('/__sandbox/')
      ? readBody(req).then(({ text }) => serveControls(req.method ?? 'GET', url.pathname, text, res, sandboxControls))
      : handleUpstream(s, req, res, url);
    work.catch(() => {
      if (!res.headersSent) sendText(res, 500, 'sandbox error');
      else res.destroy();
    });
  });
  const listening = await listen(server, options.port ?? 0, host);
  return {
    url: listening.origin,
    port: listening.port,
    get switches() {
      return { ...s.switches };
    },
    stats: s.stats,
    requests: s.requestLog,
    data: s.data,
    setSwitches: (partial) => setSwitches(s, partial),
    resetSwitches() {
      s.switches = copySwitches(s.initialSwitches);
    },
    resetStats: () => resetStats(s),
    close: closeOnce(server, s.delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.BOOKS_SANDBOX_PORT ?? 4107);
  const sandbox = await startBooksSandbox({ port });
  const auth = `-H 'authorization: Bearer ${BOOKS_SANDBOX_TOKEN}'`;
  process.stdout.write(
    `Dinero API sandbox listening on ${sandbox.url}. Static bearer token: ${BOOKS_SANDBOX_TOKEN}\nTry:\n` +
      `  curl -s ${auth} '${sandbox.url}/v1/organizations?fields=Id,Name,IsPro'\n` +
      `  curl -s ${auth} '${sandbox.url}/v1/${BOOKS_DEMO_ORG_ID}/invoices?statusFilter=Overdue&pageSize=5'\n` +
      `  curl -s ${auth} '${sandbox.url}/v1/${BOOKS_DEMO_ORG_ID}/2025/reports/result'\n`,
  );
  closeOnSignals(() => sandbox.close());
}

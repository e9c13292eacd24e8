// Sandbox fake of the invoicing upstream, the classic Visma e-conomic REST API, reached over HTTP
// like the real one. Built from ../shared/upstreams/invoicing.md (§2 wire contract, §4 checklist):
//
//   GET  /  and  /self                                   endpoint list, agreement info
//   GET  /customers[/{n}]  /products[/{id}]  /suppliers[/{n}]  /vat-accounts[/{code}]
//   GET  /customer-groups /payment-terms /vat-zones /layouts /units  (and /{n})
//   GET  /invoices/booked[/{n}[/pdf]]  /invoices/drafts[/{n}]  /invoices/totals
//   GET  /invoices/overdue /paid /unpaid /not-due /sent  (computed against an injectable "today")
//   GET  /accounts[/{n}]  /accounts/{n}/accounting-years/{year}/totals|entries
//   GET  /accounting-years[/{year}[/periods[/{n}]|/totals|/entries]]
//   POST /customers  PUT /customers/{n}  POST /invoices/drafts
//   DELETE anything, POST /invoices/booked (booking), any other method → 405, recorded in
//   `forbidden` (tests assert it stays empty)
//
// Identifiers in paths use the §2 encoding (`2023/2024` → `2023_6_2024`); `%2F` or a raw `/` in a
// year is 404. Both token headers are required (X-AppSecretToken, X-AgreementGrantToken); `demo`/
// `demo` (or `?demo=true`) reads only; the read-only grant answers 403 to POST/PUT.
//
// Sandbox-only controls (no auth; not recorded as upstream requests):
//   GET  /__sandbox/switches   POST /__sandbox/switches (a partial InvoicingSwitches)
//   GET  /__sandbox/stats      counters, write log, forbidden log
//   GET  /__sandbox/requests   the request log        POST /__sandbox/reset
//
// Run as a script: `node sandbox/invoicing/server.ts` listens on 127.0.0.1:4115
// (INVOICING_SANDBOX_PORT overrides; 0 picks a free port).
//
// This file takes a request through faults, tokens, query parameters and path decoding to the
// route tables: reads.ts (GET), writes.ts (POST/PUT and body validation), over collections.ts,
// errors.ts, switches.ts and the state of state.ts.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkedSwitches,
  closeOnce,
  closeOnSignals,
  findSegmentRoute,
  listen,
  PendingDelays,
  parseJsonLoose,
  readBody,
  type SandboxControls,
  sendJson,
  serveControls,
  switchError,
} from '../http-kit.ts';
import { absolutize, decodeIdentifier } from './collections.ts';
import { buildInvoicingData, type InvoicingData, type Row } from './data.ts';
import { errorBody, fail, HttpError, notFound } from './errors.ts';
import { read } from './reads.ts';
import type { InvoicingRecordedRequest, InvoicingSandboxStats, InvoicingState } from './state.ts';
import {
  DEFAULT_SWITCHES,
  INVOICING_QUERY_PARAMETERS,
  INVOICING_REQUEST_LOG_MAX,
  INVOICING_SANDBOX_APP_SECRET,
  INVOICING_SANDBOX_GRANT,
  INVOICING_SANDBOX_READONLY_GRANT,
  type InvoicingSwitches,
  SWITCH_CHECKS,
} from './switches.ts';
import { WRITE_ROUTES, write } from './writes.ts';

export { decodeIdentifier } from './collections.ts';
export type { InvoicingRecordedRequest, InvoicingSandboxStats, InvoicingWrite } from './state.ts';
export {
  INVOICING_AGREEMENT_NUMBER,
  INVOICING_CUSTOMER_READ_ONLY,
  INVOICING_DEFAULT_PAGE_SIZE,
  INVOICING_DEFAULT_SLOW_DELAY_MS,
  INVOICING_DOCUMENTED_PROPERTIES,
  INVOICING_ERROR_CODES,
  INVOICING_FAULTS,
  INVOICING_MAX_PAGE_SIZE,
  INVOICING_QUERY_PARAMETERS,
  INVOICING_REQUEST_LOG_MAX,
  INVOICING_SANDBOX_APP_SECRET,
  INVOICING_SANDBOX_GRANT,
  INVOICING_SANDBOX_READONLY_GRANT,
} from './switches.ts';
export type { InvoicingFault, InvoicingSwitches } from './switches.ts';

export interface InvoicingSandboxOptions {
  port?: number;
  host?: string;
  /** Origin put into absolute links (`self`, paging links, `Location`), e.g. a proxy in front. */
  publicUrl?: string;
  /** Accepted app secrets (default [INVOICING_SANDBOX_APP_SECRET]). */
  appSecrets?: readonly string[];
  /**
   * Grant tokens and their role (default: INVOICING_SANDBOX_GRANT read-write, INVOICING_SANDBOX_READONLY_GRANT
   * read-only).
   */
  grants?: Readonly<Record<string, 'readWrite' | 'readOnly'>>;
  seed?: number;
  switches?: Partial<InvoicingSwitches>;
}

export interface InvoicingSandbox {
  readonly url: string;
  readonly publicUrl: string;
  readonly port: number;
  readonly switches: Readonly<InvoicingSwitches>;
  readonly stats: InvoicingSandboxStats;
  readonly requests: readonly InvoicingRecordedRequest[];
  /** The live data (writes change it); tests may read it. */
  readonly data: InvoicingData;
  setSwitches(partial: Partial<InvoicingSwitches>): void;
  resetSwitches(): void;
  resetStats(): void;
  /** Revokes a grant: it answers 401 from now on. */
  revokeGrant(token: string): void;
  close(): Promise<void>;
}

function resetStats(s: InvoicingState): void {
  s.stats.requests = 0;
  s.stats.byStatus = {};
  s.stats.writeLog = [];
  s.stats.forbidden = [];
  s.stats.undocumentedQuery = [];
  s.stats.undocumentedProperties = [];
  s.requests.length = 0;
}

/** The `/__sandbox/` controls; a reset answers `{ reset: true }`. */
function controls(s: InvoicingState): SandboxControls {
  return {
    switches: () => s.switches,
    ...checkedSwitches<InvoicingSwitches>(SWITCH_CHECKS, (partial) => {
      s.switches = { ...s.switches, ...partial };
    }),
    stats: () => s.stats,
    requests: () => s.requests,
    reset: () => {
      s.switches = { ...s.initialSwitches };
      resetStats(s);
      return { reset: true };
    },
  };
}

/** One upstream request: what the handlers need to answer it and log it. */
interface Exchange {
  readonly s: InvoicingState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly method: string;
  /** Path as received (still encoded). */
  readonly rawPath: string;
  readonly bodyText: string;
  /** Counts the status and logs a write (or a forbidden DELETE/booking). */
  readonly logWrite: (status: number) => void;
}

const count = (s: InvoicingState, status: number): void => {
  s.stats.byStatus[status] = (s.stats.byStatus[status] ?? 0) + 1;
};

/**
 * The switched-on fault for this path: an error thrown, a non-JSON body sent (true), or the `slow`
 * delay waited (true when the client went away meanwhile).
 */
async function answerFault({ s, res, rawPath, logWrite }: Exchange): Promise<boolean> {
  if (
    s.switches.fault === 'none' ||
    (s.switches.faultPath !== null && !rawPath.toLowerCase().includes(s.switches.faultPath.toLowerCase()))
  )
    return false;
  const fault = s.switches.fault;
  if (s.switches.faultCount > 0 && --s.switches.faultCount === 0) s.switches = { ...s.switches, fault: 'none' };
  if (fault === 'throttled')
    throw fail(
      429,
      'Too many requests.',
      'The request was throttled; try again later.',
      {},
      s.switches.retryAfterSeconds === null ? {} : { 'retry-after': String(s.switches.retryAfterSeconds) },
    );
  if (fault === 'serverError') throw fail(500, 'An error occurred.', 'Internal server error.');
  if (fault === 'notImplemented') throw fail(501, 'Not implemented.', 'This operation is not implemented.');
  if (fault === 'forbidden')
    throw fail(403, 'Access denied.', 'The agreement grant role has no access to this resource.');
  if (fault === 'htmlError' || fault === 'notJson') {
    const status = fault === 'htmlError' ? 502 : 200;
    const text =
      fault === 'htmlError'
        ? '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>'
        : 'OK, but not JSON';
    count(s, status);
    logWrite(status);
    res.writeHead(status, {
      'content-type': fault === 'htmlError' ? 'text/html' : 'text/plain',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
    return true;
  }
  return !(await s.delays.delay(s.switches.slowDelayMs, res));
}

/** Both tokens (or the demo): the grant's role; a 401 naming the demo link otherwise. */
function role({ s, req, url, rawPath }: Exchange): 'readWrite' | 'readOnly' | 'demo' {
  const secret = req.headers['x-appsecrettoken'];
  const grant = req.headers['x-agreementgranttoken'];
  if ((secret === 'demo' && grant === 'demo') || url.searchParams.get('demo') === 'true') return 'demo';
  const demoLink = `${s.publicUrl}${rawPath}?demo=true`;
  if (typeof secret !== 'string' || !s.appSecrets.has(secret))
    throw fail(
      401,
      'The app secret token is missing or not valid.',
      `Send a valid X-AppSecretToken header. Try the demo: ${demoLink}`,
    );
  const r = typeof grant === 'string' ? s.grants.get(grant) : undefined;
  if (r === undefined)
    throw fail(
      401,
      'The agreement grant token is missing, not valid or has been revoked.',
      `Send a valid X-AgreementGrantToken header. Try the demo: ${demoLink}`,
    );
  return r;
}

/** Query parameters the docs do not describe: recorded, and a 400 unless `unknownQuery: 'ignore'`. */
function checkQuery(s: InvoicingState, url: URL): void {
  const unknown = [...new Set(url.searchParams.keys())].filter(
    (k) => !(INVOICING_QUERY_PARAMETERS as readonly string[]).includes(k),
  );
  if (unknown.length === 0) return;
  s.stats.undocumentedQuery.push(...unknown);
  if (s.switches.unknownQuery === 'reject')
    throw fail(
      400,
      'Could not parse query string.',
      `Query parameters are ${INVOICING_QUERY_PARAMETERS.join(', ')} (lower-case).`,
      {
        errors: unknown.map((k) => `The query parameter '${k}' is not supported.`),
      },
    );
}

function answerRead(x: Exchange, seg: string[]): void {
  const result = read(x.s, seg, x.rawPath, x.url.searchParams);
  if (Buffer.isBuffer(result)) {
    count(x.s, 200);
    x.res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': result.length });
    x.res.end(result);
    return;
  }
  count(x.s, 200);
  sendJson(x.res, 200, result);
}

function answerWrite(x: Exchange, seg: string[], grantRole: 'readWrite' | 'readOnly' | 'demo'): void {
  const { s, req, res, method, rawPath, bodyText, logWrite } = x;
  const route = findSegmentRoute(WRITE_ROUTES, method, seg);
  if (route === undefined)
    throw fail(405, 'Method not allowed.', `${method} is not supported on ${rawPath}.`, {}, { allow: 'GET' });
  if (grantRole !== 'readWrite')
    throw fail(
      403,
      'Access denied.',
      grantRole === 'demo' ? 'The demo agreement is read-only.' : 'The agreement grant role does not allow writes.',
    );
  const type = String(req.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(type))
    throw fail(415, 'Unsupported media type.', 'Send Content-Type: application/json.');
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    throw fail(400, 'Could not parse the request body.', 'The body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw fail(400, 'Could not parse the request body.', 'The body must be a JSON object.');
  const out = write(s, route.handle, route.params, body as Row);
  if (s.switches.writeAnswer === 'empty') {
    // The statuses the docs list include 204: a PUT answered 204, a POST 201 + Location, no body.
    const status = out.status === 200 ? 204 : out.status;
    logWrite(status);
    count(s, status);
    res.writeHead(status, out.location ? { location: out.location } : {});
    res.end();
    return;
  }
  logWrite(out.status);
  count(s, out.status);
  sendJson(res, out.status, absolutize(out.body, s.publicUrl), out.location ? { location: out.location } : {});
}

async function handle(s: InvoicingState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const rawPath = url.pathname;
  if (rawPath.startsWith('/__sandbox/'))
    return serveControls(req.method ?? 'GET', rawPath, (await readBody(req)).text, res, controls(s));
  const method = (req.method ?? 'GET').toUpperCase();
  s.stats.requests++;
  s.requests.push({ method, path: rawPath, query: Object.fromEntries(url.searchParams), headers: req.headers });
  if (s.requests.length > INVOICING_REQUEST_LOG_MAX) s.requests.shift();
  const bodyText = method === 'GET' || method === 'HEAD' ? '' : (await readBody(req)).text;
  const rawSegments = rawPath.split('/').filter((segment) => segment !== '');
  const forbidden =
    method === 'DELETE' || (method === 'POST' && rawSegments[0] === 'invoices' && rawSegments[1] === 'booked');
  const logWrite = (status: number): void => {
    const entry = { method, path: rawPath, body: parseJsonLoose(bodyText), status };
    if (forbidden) s.stats.forbidden.push(entry);
    else if (method !== 'GET' && method !== 'HEAD') s.stats.writeLog.push(entry);
  };
  const x: Exchange = { s, req, res, url, method, rawPath, bodyText, logWrite };
  try {
    if (await answerFault(x)) return;
    const grantRole = role(x);
    checkQuery(s, url);
    const seg: string[] = [];
    for (const raw of rawSegments) {
      const decoded = decodeIdentifier(raw);
      if (decoded === null) throw notFound();
      seg.push(decoded);
    }
    if (method === 'GET') answerRead(x, seg);
    else answerWrite(x, seg, grantRole);
  } catch (error) {
    const e =
      error instanceof HttpError
        ? error
        : fail(500, 'An error occurred.', error instanceof Error ? error.message : String(error));
    logWrite(e.status);
    count(s, e.status);
    sendJson(res, e.status, e.body, e.headers);
  }
}

export async function startInvoicingSandbox(options: InvoicingSandboxOptions = {}): Promise<InvoicingSandbox> {
  const initialSwitches: InvoicingSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  const s: InvoicingState = {
    data: buildInvoicingData(options.seed),
    initialSwitches,
    switches: { ...initialSwitches },
    stats: {
      requests: 0,
      byStatus: {},
      writeLog: [],
      forbidden: [],
      undocumentedQuery: [],
      undocumentedProperties: [],
    },
    requests: [],
    delays: new PendingDelays(),
    appSecrets: new Set(options.appSecrets ?? [INVOICING_SANDBOX_APP_SECRET]),
    grants: new Map(
      Object.entries(
        options.grants ?? { [INVOICING_SANDBOX_GRANT]: 'readWrite', [INVOICING_SANDBOX_READONLY_GRANT]: 'readOnly' },
      ),
    ),
    publicUrl: '',
  };
  const server = createServer((req, res) => {
    handle(s, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(500, 'An error occurred.', String(error)));
    });
  });
  const { origin: url, port } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  s.publicUrl = (options.publicUrl ?? url).replace(/\/$/, '');

  return {
    url,
    publicUrl: s.publicUrl,
    port,
    get switches() {
      return s.switches;
    },
    stats: s.stats,
    requests: s.requests,
    data: s.data,
    setSwitches(partial) {
      const problem = switchError(partial, SWITCH_CHECKS);
      if (problem !== undefined) throw new Error(problem);
      s.switches = { ...s.switches, ...partial };
    },
    resetSwitches() {
      s.switches = { ...s.initialSwitches };
    },
    resetStats: () => resetStats(s),
    revokeGrant(token) {
      s.grants.delete(token);
    },
    close: closeOnce(server, s.delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.INVOICING_SANDBOX_PORT ?? 4115);
  const sandbox = await startInvoicingSandbox({ port });
  process.stdout.write(
    `e-conomic sandbox listening on ${sandbox.url}\n` +
      `  curl -H 'X-AppSecretToken: ${INVOICING_SANDBOX_APP_SECRET}' -H ` +
      `'X-AgreementGrantToken: ${INVOICING_SANDBOX_GRANT}' ${sandbox.url}/customers?pagesize=5\n` +
      `  curl '${sandbox.url}/accounting-years/2023_6_2024/periods?demo=true'\n`,
  );
  closeOnSignals(() => sandbox.close());
}

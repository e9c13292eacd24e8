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
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { closeOnce, closeOnSignals, listen, PendingDelays, parseJsonLoose, readBody, type SandboxControls, sendText, serveControls, switchError } from '../http-kit.ts';
import {
  BOOKS_DEMO_ORG_ID,
  BOOKS_FREE_ORG_ID,
  BOOKS_THROTTLED_ORG_ID,
  BOOKS_TODAY,
  type BooksDataset,
  type OrganizationData,
  type Row,
  addDays,
  booksDataset,
  booksPdf,
  summaryRange,
} from './data.ts';
import { BOOKS_FIELDS, type BooksFieldsEndpoint, isDocumentedField } from './documented-fields.ts';

/** A static bearer token reaching the three demo organisations (tests, before the identity provider). */
export const BOOKS_SANDBOX_TOKEN = 'dinero-sandbox-token-Qm8v3Tz6';
/** A static bearer token of another user who reaches only the free organisation (the Pro one answers 403: no access). */
export const BOOKS_SANDBOX_OTHER_USER_TOKEN = 'dinero-sandbox-other-Lp2x9Wc4';
/** The documented per-organisation quota: requests per minute (per client id). */
export const BOOKS_RATE_LIMIT_PER_MINUTE = 100;
export const BOOKS_MAX_PAGE_SIZE = 1000;
export const BOOKS_DEFAULT_PAGE_SIZE = 100;
export const BOOKS_FILES_DEFAULT_PAGE_SIZE = 1000;
export const BOOKS_REQUEST_LOG_MAX = 5_000;
const SMALL_FILE_CHUNK = 64 * 1024;

export interface BooksTokenVerdict {
  readonly valid: boolean;
  readonly expired?: boolean;
  /** The organisations the token's user reaches (absent: the three demo organisations). */
  readonly organizations?: readonly number[];
  /** The token's client id: the quota is per organisation and client id. */
  readonly clientId?: string;
}
export type BooksTokenVerifier = (token: string) => BooksTokenVerdict;

export const BOOKS_FAULTS = ['none', 'serverError', 'throttled', 'slow', 'nonJson', 'badGateway'] as const;
/** `serverError` 500 JSON `{code,message}`; `throttled` 429; `slow` answers after `slowDelayMs`; `nonJson` 200 HTML; `badGateway` 502 HTML. */
export type BooksFault = (typeof BOOKS_FAULTS)[number];

export interface BooksSwitches {
  /** Requests per minute per organisation and client id; 0 = off. Default 100. */
  rateLimitPerMinute: number;
  /** Organisations whose quota is always spent (429). Default the throttled demo organisation. */
  throttledOrganizations: number[];
  /** Seconds of a Retry-After on every 429; null (the documented normal) sends none. */
  retryAfterSeconds: number | null;
  /** Path substring (case-insensitive) of an endpoint in brownout: answers 480. Default null. */
  brownoutPath: string | null;
  /** Injected fault for `faultCount` requests (0 = until cleared), optionally only where the path contains `faultPath`. */
  fault: BooksFault;
  faultCount: number;
  faultPath: string | null;
  /** Delay of the `slow` fault (default 20000, over the connector's 15 s). */
  slowDelayMs: number;
  /** Added to every answer (latency injection). Default 0. */
  latencyMs: number;
  /** The body code of a no-Pro 403: 90 (current docs) or 48 (older docs). */
  proPlanCode: 90 | 48;
  /** What `ResultWithoutFilter` counts: rows matching the filters before paging (the OpenAPI reading, default) or all rows ignoring filters. */
  resultWithoutFilter: 'beforePaging' | 'ignoringFilters';
  /** `pageSize` over 1000: 400 (default) or clamped. */
  pageSizeOverMax: 'reject' | 'clamp';
  /** PDF answers carry `Content-Disposition` with a file name. Default true. */
  pdfContentDisposition: boolean;
  /** File downloads are streamed without Content-Length (the cap must trip while streaming). Default false. */
  streamFilesWithoutLength: boolean;
  /** An unknown guid answers 404 code 40 (default) or 400 code 40. */
  notFoundStatus: 404 | 400;
  /** Every token counts as expired (401). */
  tokenExpired: boolean;
  /** "Today" for the changes window and overdue lists. */
  today: string;
  /**
   * A `fields` name the endpoint does not document (sandbox/books/documented-fields.ts): 400 code 42
   * (default, so drift shows in tests) or left out of the answer. Recorded in stats either way.
   */
  unknownFields: 'reject' | 'ignore';
}

const DEFAULT_SWITCHES: BooksSwitches = {
  rateLimitPerMinute: BOOKS_RATE_LIMIT_PER_MINUTE,
  throttledOrganizations: [BOOKS_THROTTLED_ORG_ID],
  retryAfterSeconds: null,
  brownoutPath: null,
  fault: 'none',
  faultCount: 0,
  faultPath: null,
  slowDelayMs: 20_000,
  latencyMs: 0,
  proPlanCode: 90,
  resultWithoutFilter: 'beforePaging',
  pageSizeOverMax: 'reject',
  pdfContentDisposition: true,
  streamFilesWithoutLength: false,
  notFoundStatus: 404,
  tokenExpired: false,
  today: BOOKS_TODAY,
  unknownFields: 'reject',
};

const isCount = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
const SWITCH_CHECKS: { readonly [K in keyof BooksSwitches]: (value: unknown) => boolean } = {
  rateLimitPerMinute: (v) => isCount(v, 1_000_000),
  throttledOrganizations: (v) => Array.isArray(v) && v.every((x) => Number.isInteger(x)),
  retryAfterSeconds: (v) => v === null || isCount(v, 86_400),
  brownoutPath: (v) => v === null || (typeof v === 'string' && v.length > 0),
  fault: (v) => (BOOKS_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  faultPath: (v) => v === null || (typeof v === 'string' && v.length > 0),
  slowDelayMs: (v) => isCount(v, 600_000),
  latencyMs: (v) => isCount(v, 600_000),
  proPlanCode: (v) => v === 90 || v === 48,
  resultWithoutFilter: (v) => v === 'beforePaging' || v === 'ignoringFilters',
  pageSizeOverMax: (v) => v === 'reject' || v === 'clamp',
  pdfContentDisposition: (v) => typeof v === 'boolean',
  streamFilesWithoutLength: (v) => typeof v === 'boolean',
  notFoundStatus: (v) => v === 404 || v === 400,
  tokenExpired: (v) => typeof v === 'boolean',
  today: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
  unknownFields: (v) => v === 'reject' || v === 'ignore',
};

const switchProblem = (partial: unknown): string | undefined => switchError(partial, SWITCH_CHECKS);

export interface BooksRecordedRequest {
  readonly method: string;
  /** Path as received (percent-encoded), without the query string. */
  readonly path: string;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface BooksSandboxStats {
  requests: number;
  byStatus: Record<string, number>;
  unauthorized: number;
  forbidden: number;
  throttled: number;
  brownouts: number;
  /** Calls of the two calculators (POST …/fetch): they persist nothing. */
  calculations: number;
  /** Every other POST/PUT/PATCH/DELETE (answered 405); must stay empty. */
  writeLog: { method: string; path: string; body: unknown }[];
  /** Every `fields` name an endpoint does not document (answered 400, or left out by switch); must stay empty. */
  undocumentedFields: { path: string; field: string }[];
}

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

// ---------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------

class DineroError extends Error {
  readonly status: number;
  readonly code: number;
  readonly validationErrors: Record<string, string> | undefined;
  constructor(status: number, code: number, message: string, validationErrors?: Record<string, string>) {
    super(message);
    this.status = status;
    this.code = code;
    this.validationErrors = validationErrors;
  }
}

const validation = (field: string, message: string) => new DineroError(400, 42, 'Validation failed', { [field]: message });

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendDineroError(res: ServerResponse, error: DineroError): void {
  const body: Row = { code: error.code, message: error.message };
  if (error.validationErrors) {
    body.validationErrors = error.validationErrors;
    body.languageSpecificMessages = Object.entries(error.validationErrors).map(([property, message]) => ({ property, message }));
  }
  sendJson(res, error.status, body);
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const FILE_GUID = /^[a-z0-9]{32}$/;
const CHANGES_SINCE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The row's value of a property named case-insensitively, and its real name. */
function lookup(row: Row, name: string): [string, unknown] | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(row)) if (!key.startsWith('__') && key.toLowerCase() === wanted) return [key, value];
  return undefined;
}

/** The `fields` names of a request: the comma list, or the endpoint's documented defaults without it. */
function fieldNames(fields: string | undefined, endpoint: BooksFieldsEndpoint): readonly string[] {
  if (fields === undefined || fields.trim() === '') return BOOKS_FIELDS[endpoint].defaults;
  const names = fields
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  for (const name of names) if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw validation('fields', `'${name}' is not a valid field name.`);
  return names;
}

/** Strips the sandbox's internal properties (`__…`). */
function publicRow(row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('__')));
}

interface Clause {
  readonly field: string;
  readonly op: 'eq' | 'contains';
  readonly value: string;
}

/** `queryFilter`: `<Field> <eq|contains> '<value>'` clauses joined by `;` (AND). */
function parseQueryFilter(text: string | undefined, allowed: readonly string[]): Clause[] {
  if (text === undefined || text.trim() === '') return [];
  const clauses: Clause[] = [];
  const pattern = /^\s*([A-Za-z]+)\s+(eq|contains)\s+'([^']*)'\s*(?:;|$)/i;
  let rest = text;
  while (rest.trim() !== '') {
    const m = pattern.exec(rest);
    if (m === null) throw validation('queryFilter', `The query filter could not be parsed near '${rest.slice(0, 40)}'. Use <Field> eq|contains '<value>' joined by ';'.`);
    const field = allowed.find((f) => f.toLowerCase() === m[1]!.toLowerCase());
    if (field === undefined) throw validation('queryFilter', `The field '${m[1]}' cannot be filtered on. Allowed: ${allowed.join(', ')}.`);
    clauses.push({ field, op: m[2]!.toLowerCase() as Clause['op'], value: m[3]! });
    rest = rest.slice(m[0].length);
  }
  return clauses;
}

function matches(row: Row, clauses: readonly Clause[]): boolean {
  return clauses.every((c) => {
    const value = row[c.field];
    const text = value === null || value === undefined ? '' : String(value).toLowerCase();
    return c.op === 'eq' ? text === c.value.toLowerCase() : text.includes(c.value.toLowerCase());
  });
}

function boolParam(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null) return fallback;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  throw validation(name, `'${value}' is not a boolean.`);
}

function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const value = query.get(name);
  if (value === null) return fallback;
  if (!/^\d+$/.test(value)) throw validation(name, `'${value}' is not a non-negative integer.`);
  return Number(value);
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

interface Req {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path as received (percent-encoded). */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** The client wants bytes (`Accept: application/octet-stream`). */
  readonly wantsBytes: boolean;
}

const CONTACT_FILTER_FIELDS = ['Name', 'Email', 'Phone', 'VatNumber', 'EanNumber', 'ExternalReference', 'IsPerson'];
const SALES_FILTER_FIELDS = ['ContactGuid', 'ExternalReference', 'Description'];
const TRADE_OFFER_FILTER_FIELDS = ['ContactName', 'Description', 'ExternalReference', 'Currency', 'Number', 'Date', 'Address', 'Comment'];
const PRODUCT_FILTER_FIELDS = ['Name', 'ProductNumber', 'ExternalReference'];
const STATUSES = ['Draft', 'Booked', 'Paid', 'OverPaid', 'Overdue'];

export async function startBooksSandbox(options: BooksSandboxOptions = {}): Promise<BooksSandbox> {
  const host = options.host ?? '127.0.0.1';
  const initialError = switchProblem(options.switches ?? {});
  if (initialError !== undefined) throw new TypeError(`books sandbox: ${initialError}`);
  const initialSwitches: BooksSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  let switches: BooksSwitches = { ...initialSwitches, throttledOrganizations: [...initialSwitches.throttledOrganizations] };
  const data = booksDataset();
  const stats: BooksSandboxStats = { requests: 0, byStatus: {}, unauthorized: 0, forbidden: 0, throttled: 0, brownouts: 0, calculations: 0, writeLog: [], undocumentedFields: [] };
  const requestLog: BooksRecordedRequest[] = [];
  const windows = new Map<string, number[]>();
  const delays = new PendingDelays();

  function setSwitches(partial: Partial<BooksSwitches>): void {
    const error = switchProblem(partial);
    if (error !== undefined) throw new TypeError(`books sandbox: ${error}`);
    switches = { ...switches, ...partial };
  }
  function resetStats(): void {
    Object.assign(stats, { requests: 0, byStatus: {}, unauthorized: 0, forbidden: 0, throttled: 0, brownouts: 0, calculations: 0, writeLog: [], undocumentedFields: [] });
    requestLog.length = 0;
    windows.clear();
  }

  function throttle(res: ServerResponse): void {
    stats.throttled++;
    sendText(res, 429, 'API calls quota exceeded! maximum admitted 100 per 1m.', switches.retryAfterSeconds === null ? {} : { 'retry-after': String(switches.retryAfterSeconds) });
  }

  /** The organisations the bearer token reaches and its client id; throws 401. */
  function authenticate(req: IncomingMessage): { organizations: readonly number[]; clientId: string } {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const unauthorized = (message: string) => {
      stats.unauthorized++;
      return new DineroError(401, 41, message);
    };
    if (match === null) throw unauthorized('Authorization has been denied for this request.');
    if (switches.tokenExpired) throw unauthorized('The access token has expired.');
    const token = match[1]!;
    if (token === BOOKS_SANDBOX_TOKEN) return { organizations: [BOOKS_DEMO_ORG_ID, BOOKS_FREE_ORG_ID, BOOKS_THROTTLED_ORG_ID], clientId: 'static' };
    if (token === BOOKS_SANDBOX_OTHER_USER_TOKEN) return { organizations: [BOOKS_FREE_ORG_ID], clientId: 'static' };
    const verdict = options.verifyToken?.(token);
    if (verdict === undefined || !verdict.valid) throw unauthorized(verdict?.expired ? 'The access token has expired.' : 'Authorization has been denied for this request.');
    return { organizations: verdict.organizations ?? [BOOKS_DEMO_ORG_ID, BOOKS_FREE_ORG_ID, BOOKS_THROTTLED_ORG_ID], clientId: verdict.clientId ?? 'oauth' };
  }

  /** Counts the request in the organisation's one-minute window; false when it answered 429. */
  function withinQuota(res: ServerResponse, orgId: number, clientId: string): boolean {
    if (switches.throttledOrganizations.includes(orgId)) {
      throttle(res);
      return false;
    }
    if (switches.rateLimitPerMinute === 0) return true;
    const key = `${orgId}:${clientId}`;
    const now = Date.now();
    const recent = (windows.get(key) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= switches.rateLimitPerMinute) {
      windows.set(key, recent);
      throttle(res);
      return false;
    }
    recent.push(now);
    windows.set(key, recent);
    return true;
  }

  function organizationFor(orgId: string, reach: readonly number[]): OrganizationData {
    if (!/^\d+$/.test(orgId)) throw validation('organizationId', `'${orgId}' is not a valid organization id.`);
    const id = Number(orgId);
    const org = data.organizations.get(id);
    if (org === undefined || !reach.includes(id)) {
      stats.forbidden++;
      throw new DineroError(403, 41, 'You do not have access to this organization.');
    }
    if (!org.pro) {
      stats.forbidden++;
      throw new DineroError(403, switches.proPlanCode, 'This feature requires an active Dinero Pro subscription.');
    }
    return org;
  }

  const notFound = (what: string) => new DineroError(switches.notFoundStatus, 40, `${what} was not found.`);

  function byGuid(rows: readonly Row[], guid: string, what: string, key = 'Guid'): Row {
    if (!GUID.test(guid)) throw validation(key, `'${guid}' is not a valid guid.`);
    const row = rows.find((r) => String(r[key]).toLowerCase() === guid.toLowerCase());
    if (row === undefined) throw notFound(what);
    return row;
  }

  function paging(q: URLSearchParams, defaultSize: number): { page: number; pageSize: number } {
    const page = intParam(q, 'page', 0);
    let pageSize = intParam(q, 'pageSize', defaultSize);
    if (pageSize === 0) throw validation('pageSize', 'pageSize must be at least 1.');
    if (pageSize > BOOKS_MAX_PAGE_SIZE) {
      if (switches.pageSizeOverMax === 'reject') throw validation('pageSize', `pageSize must be at most ${BOOKS_MAX_PAGE_SIZE}.`);
      pageSize = BOOKS_MAX_PAGE_SIZE;
    }
    return { page, pageSize };
  }

  /**
   * `fields`: exactly the requested names in the requested casing (a documented name the row lacks
   * is null); without it the endpoint's documented defaults. A name the endpoint does not document
   * is recorded, then refused (400 code 42) or left out, as the `unknownFields` switch says.
   */
  function project(path: string, rows: readonly Row[], fields: string | undefined, endpoint: BooksFieldsEndpoint): Row[] {
    const names = fieldNames(fields, endpoint).filter((name) => {
      if (isDocumentedField(endpoint, name)) return true;
      stats.undocumentedFields.push({ path, field: name });
      if (switches.unknownFields === 'reject') throw validation('fields', `Unknown field '${name}'.`);
      return false;
    });
    return rows.map((row) => Object.fromEntries(names.map((name) => [name, lookup(row, name)?.[1] ?? null])));
  }

  /** The `{Collection, Pagination}` envelope. */
  function envelope(r: Req, all: readonly Row[], filtered: readonly Row[], endpoint: BooksFieldsEndpoint): void {
    const { page, pageSize } = paging(r.query, BOOKS_DEFAULT_PAGE_SIZE);
    const slice = filtered.slice(page * pageSize, page * pageSize + pageSize);
    const collection = project(r.path, slice.map(publicRow), r.query.get('fields') ?? undefined, endpoint);
    sendJson(r.res, 200, {
      Collection: collection,
      Pagination: {
        MaxPageSizeAllowed: BOOKS_MAX_PAGE_SIZE,
        PageSize: pageSize,
        Result: collection.length,
        ResultWithoutFilter: switches.resultWithoutFilter === 'beforePaging' ? filtered.length : all.length,
        Page: page,
      },
    });
  }

  function changesSince(q: URLSearchParams): string | undefined {
    const value = q.get('changesSince');
    if (value === null) return undefined;
    if (!CHANGES_SINCE.test(value)) throw validation('changesSince', `'${value}' is not a UTC timestamp of the form YYYY-MM-DDTHH:mm:ssZ.`);
    return value;
  }

  /** Live rows by default; `deletedOnly=true` only deleted ones; `changesSince` on UpdatedAt. */
  function lifecycle(rows: readonly Row[], q: URLSearchParams): Row[] {
    const deletedOnly = boolParam(q, 'deletedOnly', false);
    const since = changesSince(q);
    return rows.filter((r) => (deletedOnly ? r.DeletedAt !== null : r.DeletedAt === null) && (since === undefined || String(r.UpdatedAt ?? r.CreatedAt) >= since));
  }

  /** Invoices, sales and credit notes: the list filters of books.md §2 and §4 "Invoice filters". */
  function salesList(r: Req, all: readonly Row[], endpoint: BooksFieldsEndpoint): void {
    const q = r.query;
    const start = q.get('startDate');
    const end = q.get('endDate');
    if ((start === null) !== (end === null)) throw validation(start === null ? 'startDate' : 'endDate', 'startDate and endDate must be given together.');
    for (const [name, value] of [
      ['startDate', start],
      ['endDate', end],
    ] as const)
      if (value !== null && !DATE.test(value)) throw validation(name, `'${value}' is not a date (YYYY-MM-DD).`);
    const statusText = q.get('statusFilter');
    const statuses = statusText === null ? undefined : statusText.split(',').map((s) => s.trim());
    for (const s of statuses ?? []) if (!STATUSES.includes(s)) throw validation('statusFilter', `'${s}' is not a status. Allowed: ${STATUSES.join(', ')}.`);
    const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, SALES_FILTER_FIELDS);
    const free = q.get('freeTextSearch')?.toLowerCase();
    const sort = q.get('sort');
    const sortOrder = q.get('sortOrder') ?? 'descending';
    if (sort !== null && !['VoucherNumber', 'VoucherDate', 'Status', 'Contact'].includes(sort)) throw validation('sort', `'${sort}' is not a sort field.`);
    if (!['ascending', 'descending'].includes(sortOrder)) throw validation('sortOrder', `'${sortOrder}' must be ascending or descending.`);
    const filtered = lifecycle(all, q).filter(
      (row) =>
        // Drafts ignore the date filter.
        (start === null || row.Status === 'Draft' || (String(row.Date) >= start && String(row.Date) <= end!)) &&
        (statuses === undefined || statuses.includes(String(row.Status))) &&
        matches(row, clauses) &&
        (free === undefined || [row.Number, row.ContactName, row.Description, row.TotalInclVat].some((v) => v !== null && String(v).toLowerCase().includes(free))),
    );
    const keyOf = (row: Row): string | number =>
      sort === 'VoucherNumber' ? ((row.Number as number | null) ?? -1) : sort === 'Status' ? String(row.Status) : sort === 'Contact' ? String(row.ContactName) : String(row.Date);
    filtered.sort((a, b) => {
      const x = keyOf(a);
      const y = keyOf(b);
      const c = x < y ? -1 : x > y ? 1 : 0;
      return sortOrder === 'ascending' ? c : -c;
    });
    envelope(r, lifecycle(all, new URLSearchParams()), filtered, endpoint);
  }

  function sendPdf(r: Req, label: string, fileName: string): void {
    const bytes = booksPdf(label);
    r.res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': bytes.length,
      ...(switches.pdfContentDisposition ? { 'content-disposition': `attachment; filename="${fileName}"` } : {}),
    });
    r.res.end(bytes);
  }

  function sendFile(r: Req, file: Row): void {
    const size = file.__Bytes as number;
    const type = file.Extension === 'pdf' ? 'application/pdf' : file.Extension === 'jpg' ? 'image/jpeg' : file.Extension === 'png' ? 'image/png' : 'application/octet-stream';
    const head = file.Extension === 'pdf' ? Buffer.from('%PDF-1.4\n') : Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    r.res.writeHead(200, { 'content-type': type, ...(switches.streamFilesWithoutLength ? {} : { 'content-length': size }) });
    let sent = 0;
    const chunk = Buffer.alloc(SMALL_FILE_CHUNK, 0x20);
    const pump = (): void => {
      while (sent < size) {
        const piece = sent === 0 ? Buffer.concat([head, chunk]).subarray(0, Math.min(size, SMALL_FILE_CHUNK)) : chunk.subarray(0, Math.min(SMALL_FILE_CHUNK, size - sent));
        sent += piece.length;
        if (!r.res.write(piece)) {
          r.res.once('drain', pump);
          return;
        }
      }
      r.res.end();
    };
    r.res.on('close', () => {
      sent = size;
    });
    pump();
  }

  /** A state of account with running balance, from the contact's booked sales documents and payments. */
  function stateOfAccount(org: OrganizationData, contact: Row, q: URLSearchParams): Row {
    const from = q.get('from');
    const to = q.get('to');
    for (const [name, value] of [
      ['from', from],
      ['to', to],
    ] as const)
      if (value !== null && Number.isNaN(Date.parse(value))) throw validation(name, `'${value}' is not a date-time.`);
    const hideClosed = boolParam(q, 'hideClosed', false);
    const guid = contact.ContactGuid;
    const docs = [...org.invoices, ...org.creditNotes].filter((d) => d.ContactGuid === guid && d.Status !== 'Draft' && d.DeletedAt === null);
    const items: Row[] = [];
    for (const d of docs) {
      const paid = (org.payments.get(d.Guid as string) ?? []).reduce((s, p) => s + (p.Amount as number), 0);
      const open = Math.abs((d.TotalInclVat as number) - paid) > 0.005;
      items.push({
        RelatedVoucherGuid: d.Guid,
        RelatedVoucherNumber: d.Number,
        Date: d.Date,
        DecayDate: d.PaymentDate,
        Description: d.Description,
        Type: d.Type,
        Amount: d.TotalInclVat,
        Status: open ? 'open' : 'closed',
        Currency: d.Currency,
      });
      for (const p of org.payments.get(d.Guid as string) ?? [])
        items.push({
          RelatedVoucherGuid: d.Guid,
          RelatedVoucherNumber: d.Number,
          Date: p.PaymentDate,
          DecayDate: null,
          Description: p.Description,
          Type: 'Payment',
          Amount: -(p.Amount as number),
          Status: open ? 'open' : 'closed',
          Currency: p.Currency,
        });
    }
    const inRange = items
      .filter((e) => (from === null || String(e.Date) >= from.slice(0, 10)) && (to === null || String(e.Date) <= to.slice(0, 10)) && (!hideClosed || e.Status === 'open'))
      .sort((a, b) => String(a.Date).localeCompare(String(b.Date)));
    let balance = 0;
    const entries = inRange.map((e) => {
      balance = Math.round((balance + (e.Amount as number)) * 100) / 100;
      return { ...e, Balance: balance } as Row;
    });
    const income = entries.filter((e) => (e.Amount as number) > 0).reduce((s, e) => s + (e.Amount as number), 0);
    const expenses = entries.filter((e) => (e.Amount as number) < 0).reduce((s, e) => s + (e.Amount as number), 0);
    return { ContactGuid: guid, Income: Math.round(income * 100) / 100, Expenses: Math.round(expenses * 100) / 100, Entries: entries };
  }

  function reportRows(org: OrganizationData, year: string, kind: string, q: URLSearchParams): Row[] {
    const showZero = boolParam(q, 'showZeroAccount', false);
    const includeSummary = boolParam(q, 'includeSummaryAccount', true);
    if (kind !== 'primo') boolParam(q, 'includeLedgerEntries', false);
    boolParam(q, 'showAccountNo', true);
    boolParam(q, 'showVatType', false);
    const sums = new Map<number, number>();
    for (const e of org.entries) {
      if (!String(e.Date).startsWith(`${year}-`)) continue;
      if (kind === 'primo' && e.Type !== 'Primo') continue;
      sums.set(e.AccountNumber as number, (sums.get(e.AccountNumber as number) ?? 0) + (e.Amount as number));
    }
    const inKind = (n: number) => (kind === 'result' ? n < 5000 : kind === 'balance' ? n >= 5000 : true);
    const rows: Row[] = [];
    for (const account of org.accounts) {
      const n = account.AccountNumber as number;
      if (!inKind(n)) continue;
      const range = summaryRange(account);
      let amount: number;
      if (range) {
        if (!includeSummary) continue;
        amount = [...sums].filter(([k]) => k >= range[0] && k <= range[1]).reduce((s, [, v]) => s + v, 0);
      } else amount = sums.get(n) ?? 0;
      amount = Math.round(amount * 100) / 100;
      if (amount === 0 && !showZero) continue;
      rows.push({ AccountName: account.Name, AccountNumber: n, Amount: amount });
    }
    return rows;
  }

  function yearOf(org: OrganizationData, date: string): string | undefined {
    return org.years.find((y) => date >= String(y.FromDate) && date <= String(y.ToDate))?.Name as string | undefined;
  }

  /** The contact list (v1, or v2 where leaving `deletedOnly` out returns deleted and live rows together, books.md §2). */
  function contactList(r: Req, org: OrganizationData, version: 'v1' | 'v2'): void {
    const q = r.query;
    const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, CONTACT_FILTER_FIELDS);
    const bothKinds = version === 'v2' && q.get('deletedOnly') === null;
    const since = changesSince(q);
    const base = bothKinds ? org.contacts.filter((x) => since === undefined || String(x.UpdatedAt ?? x.CreatedAt) >= since) : lifecycle(org.contacts, q);
    envelope(
      r,
      bothKinds ? org.contacts : org.contacts.filter((x) => x.DeletedAt === null),
      base.filter((x) => matches(x, clauses)),
      version === 'v2' ? 'contactsV2' : 'contacts',
    );
  }

  /** The organisation-scoped routes below `/v1/{o}` (`/v2/{o}` for invoice payments and contacts). */
  function serveOrganization(r: Req, version: string, org: OrganizationData, rest: readonly string[]): void {
    const q = r.query;
    const [a, b, c, d] = rest;
    const n = rest.length;
    const get = r.method === 'GET';
    if (version === 'v2') {
      if (get && n === 3 && a === 'invoices' && c === 'payments') {
        payments(r, byGuid(org.invoices, b!, 'The invoice'), org);
        return;
      }
      if (get && n === 1 && a === 'contacts') {
        contactList(r, org, 'v2');
        return;
      }
      throw notFound('The resource');
    }
    if (version !== 'v1') throw notFound('The resource');
    if (get && n === 1 && a === 'accountingyears') {
      sendJson(r.res, 200, org.years);
      return;
    }
    if (get && n === 1 && a === 'vatTypes') {
      sendJson(r.res, 200, org.vatTypes);
      return;
    }
    if (get && n === 2 && a === 'sales' && b === 'settings') {
      sendJson(r.res, 200, org.salesSettings);
      return;
    }
    if (get && n === 2 && a === 'accounts' && (b === 'entry' || b === 'deposit')) {
      const category = q.get('categoryFilter');
      const rows =
        b === 'entry'
          ? org.accounts.filter((x) => category === null || String(x.Category).toLowerCase() === category.toLowerCase() || String(x.CategoryName).toLowerCase() === category.toLowerCase())
          : org.depositAccounts;
      sendJson(r.res, 200, project(r.path, rows.map(publicRow), q.get('fields') ?? undefined, b === 'entry' ? 'entryAccounts' : 'depositAccounts'));
      return;
    }
    if (get && n === 3 && b === 'reports' && ['saldo', 'result', 'balance', 'primo'].includes(c!)) {
      const year = a!;
      if (!org.years.some((y) => y.Name === year)) throw validation('accountingYear', `The accounting year '${year}' does not exist.`);
      sendJson(r.res, 200, reportRows(org, year, c!, q));
      return;
    }
    if (get && n === 1 && a === 'entries') {
      const from = q.get('fromDate');
      const to = q.get('toDate');
      if (from === null || to === null || !DATE.test(from) || !DATE.test(to))
        throw validation(from === null || !DATE.test(from) ? 'fromDate' : 'toDate', 'fromDate and toDate are required dates (YYYY-MM-DD).');
      if (from > to) throw validation('toDate', 'toDate must not be before fromDate.');
      const y1 = yearOf(org, from);
      if (y1 === undefined || y1 !== yearOf(org, to)) throw validation('toDate', 'fromDate and toDate must be within the same accounting year.');
      const primo = boolParam(q, 'includePrimo', true);
      sendJson(r.res, 200, org.entries.filter((x) => String(x.Date) >= from && String(x.Date) <= to && (primo || x.Type !== 'Primo')).map(publicRow));
      return;
    }
    if (get && n === 2 && a === 'entries' && b === 'changes') {
      const from = q.get('changesFrom');
      const to = q.get('changesTo');
      if (from === null || to === null || !CHANGES_SINCE.test(from) || !CHANGES_SINCE.test(to))
        throw validation('changesFrom', 'changesFrom and changesTo are required UTC timestamps (YYYY-MM-DDTHH:mm:ssZ).');
      if (Date.parse(to) < Date.parse(from)) throw validation('changesTo', 'changesTo must not be before changesFrom.');
      if (Date.parse(to) - Date.parse(from) > 31 * 86_400_000) throw validation('changesTo', 'The interval between changesFrom and changesTo must be 31 days or less.');
      const primo = boolParam(q, 'includePrimo', true);
      sendJson(r.res, 200, org.entries.filter((x) => String(x.__BookedAt) >= from && String(x.__BookedAt) <= to && (primo || x.Type !== 'Primo')).map(publicRow));
      return;
    }
    if (a === 'contacts' && get) {
      if (n === 1) {
        contactList(r, org, 'v1');
        return;
      }
      const contact = byGuid(org.contacts, b!, 'The contact', 'ContactGuid');
      if (n === 2) {
        sendJson(r.res, 200, publicRow(contact));
        return;
      }
      if (n === 3 && c === 'notes') {
        const all = org.notes.get(contact.ContactGuid as string) ?? [];
        const rows = lifecycle(all, q).sort((x, y) => String(x.NoteDate).localeCompare(String(y.NoteDate)));
        envelope(r, all, rows, 'contactNotes');
        return;
      }
    }
    if (a === 'state-of-account' && get && (n === 2 || (n === 3 && c === 'pdf'))) {
      const contact = byGuid(org.contacts, b!, 'The contact', 'ContactGuid');
      const body = stateOfAccount(org, contact, q);
      if (n === 3) {
        sendPdf(r, `State of account ${contact.Name}`, `kontoudtog-${String(contact.Name).replace(/[^\w]+/g, '-')}.pdf`);
        return;
      }
      sendJson(r.res, 200, body);
      return;
    }
    if (a === 'invoices') {
      if (n === 1 && get) {
        salesList(r, org.invoices, 'invoices');
        return;
      }
      if (n === 2 && b === 'fetch' && r.method === 'POST') {
        calculateInvoice(r, org);
        return;
      }
      if (b === 'fetch') throw notFound('The resource');
      const invoice = n >= 2 ? byGuid(org.invoices, b!, 'The invoice') : undefined;
      if (invoice && n === 2 && get) {
        if (r.wantsBytes) {
          if (invoice.Status === 'Draft') throw validation('invoice', 'A draft invoice has no PDF: book it first.');
          sendPdf(r, `Invoice ${invoice.Number}`, `Faktura-${invoice.Number}.pdf`);
          return;
        }
        sendJson(r.res, 200, publicRow(invoice));
        return;
      }
      if (invoice && n === 3 && c === 'mailouts' && get) {
        mailoutList(r, org.mailouts.get(invoice.Guid as string) ?? [], true);
        return;
      }
      if (invoice && c === 'reminders') {
        const list = org.reminders.get(invoice.Guid as string) ?? [];
        if (n === 3 && get) {
          const since = changesSince(q);
          sendJson(
            r.res,
            200,
            list.filter((x) => since === undefined || String(x.UpdatedAt) >= since),
          );
          return;
        }
        if (n === 4 && d === 'next' && get) {
          sendJson(
            r.res,
            200,
            nextReminder(invoice, list, switches.today, { WithFee: true, WithInterestFee: true, WithCompensationFee: list.length === 0, WithDebtCollectionWarning: list.length >= 2 }),
          );
          return;
        }
        if (n === 4 && d === 'fetch' && r.method === 'POST') {
          previewReminder(r, invoice, list);
          return;
        }
        if (n === 4 && get && d !== 'fetch') {
          if (!/^\d+$/.test(d!)) throw validation('id', `'${d}' is not a reminder id.`);
          const reminder = list.find((x) => x.Id === Number(d));
          if (reminder === undefined) throw notFound('The reminder');
          if (r.wantsBytes) {
            sendPdf(r, `Reminder ${reminder.Number} of invoice ${invoice.Number}`, `Rykker-${reminder.Number}-Faktura-${invoice.Number}.pdf`);
            return;
          }
          sendJson(r.res, 200, reminder);
          return;
        }
      }
      if (invoice && n === 3 && c === 'payments' && get) throw new DineroError(480, 480, 'This endpoint is deprecated: use /v2/{organizationId}/invoices/{guid}/payments.');
    }
    if (a === 'sales' && get) {
      if (n === 1) {
        salesList(r, [...org.invoices, ...org.creditNotes], 'sales');
        return;
      }
      if (b === 'creditnotes') {
        if (n === 2) {
          salesList(r, org.creditNotes, 'creditNotes');
          return;
        }
        const note = byGuid(org.creditNotes, c!, 'The credit note');
        if (n === 3) {
          sendJson(r.res, 200, publicRow(note));
          return;
        }
        if (n === 4 && d === 'pdf') {
          if (note.Status === 'Draft') throw validation('creditNote', 'A draft credit note has no PDF: book it first.');
          sendPdf(r, `Credit note ${note.Number}`, `Kreditnota-${note.Number}.pdf`);
          return;
        }
        if (n === 4 && d === 'payments') {
          payments(r, note, org);
          return;
        }
        if (n === 4 && d === 'mailouts') {
          mailoutList(r, org.mailouts.get(note.Guid as string) ?? [], false);
          return;
        }
      }
    }
    if (a === 'tradeoffers' && get) {
      if (n === 1) {
        const sort = q.get('sort');
        const sortOrder = q.get('sortOrder') ?? 'descending';
        if (sort !== null && !['TradeOfferNumber', 'TradeOfferDate', 'Status', 'ContactName'].includes(sort)) throw validation('sort', `'${sort}' is not a sort field.`);
        if (!['ascending', 'descending'].includes(sortOrder)) throw validation('sortOrder', `'${sortOrder}' must be ascending or descending.`);
        const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, TRADE_OFFER_FILTER_FIELDS);
        const free = q.get('freeTextSearch')?.toLowerCase();
        const rows = lifecycle(org.tradeOffers, q).filter(
          (x) => matches(x, clauses) && (free === undefined || [x.Number, x.ContactName, x.Description].some((v) => v !== null && String(v).toLowerCase().includes(free))),
        );
        const keyOf = (x: Row): string | number =>
          sort === 'TradeOfferNumber' ? (x.Number as number) : sort === 'Status' ? String(x.Status) : sort === 'ContactName' ? String(x.ContactName) : String(x.Date);
        rows.sort((x, y) => {
          const k1 = keyOf(x);
          const k2 = keyOf(y);
          const cmp = k1 < k2 ? -1 : k1 > k2 ? 1 : 0;
          return sortOrder === 'ascending' ? cmp : -cmp;
        });
        envelope(
          r,
          org.tradeOffers.filter((x) => x.DeletedAt === null),
          rows,
          'tradeOffers',
        );
        return;
      }
      const offer = byGuid(org.tradeOffers, b!, 'The trade offer');
      if (n === 2) {
        if (r.wantsBytes) sendPdf(r, `Trade offer ${offer.Number}`, `Tilbud-${offer.Number}.pdf`);
        else sendJson(r.res, 200, publicRow(offer));
        return;
      }
      if (n === 3 && c === 'mailouts') {
        mailoutList(r, org.mailouts.get(offer.Guid as string) ?? [], true);
        return;
      }
    }
    if (a === 'vouchers' && get) {
      if (b === 'purchase' && n === 3) {
        sendJson(r.res, 200, publicRow(byGuid(org.purchaseVouchers, c!, 'The purchase voucher')));
        return;
      }
      if (b === 'purchase' && n === 4 && c === 'fileguid') {
        if (!FILE_GUID.test(d!)) throw validation('fileGuid', `'${d}' is not a file guid.`);
        sendJson(
          r.res,
          200,
          org.purchaseVouchers.filter((x) => x.FileGuid === d).map((x) => x.Guid),
        );
        return;
      }
      if (b === 'purchase' && n === 4 && c === 'creditnotes') {
        sendJson(r.res, 200, publicRow(byGuid(org.purchaseCreditNotes, d!, 'The purchase credit note')));
        return;
      }
      if (b === 'manuel' && n === 3) {
        sendJson(r.res, 200, publicRow(byGuid(org.manualVouchers, c!, 'The manual voucher')));
        return;
      }
    }
    if (a === 'purchase-vouchers' && get && n === 3 && c === 'payments') {
      const voucher = byGuid(org.purchaseVouchers, b!, 'The purchase voucher');
      sendJson(r.res, 200, org.purchasePayments.get(voucher.Guid as string) ?? []);
      return;
    }
    if (a === 'products' && get) {
      if (n === 1) {
        const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, PRODUCT_FILTER_FIELDS);
        const free = q.get('freeTextSearch')?.toLowerCase();
        const rows = lifecycle(org.products, q)
          .filter((x) => matches(x, clauses) && (free === undefined || [x.Name, x.ProductNumber].some((v) => String(v).toLowerCase().includes(free))))
          .sort((x, y) => String(y.UpdatedAt).localeCompare(String(x.UpdatedAt)));
        envelope(
          r,
          org.products.filter((x) => x.DeletedAt === null),
          rows.map((x) => ({ ...x, Comment: undefined })),
          'products',
        );
        return;
      }
      if (n === 2) {
        sendJson(r.res, 200, publicRow(byGuid(org.products, b!, 'The product', 'ProductGuid')));
        return;
      }
    }
    if (a === 'files' && get) {
      if (n === 1) {
        const { page, pageSize } = paging(q, BOOKS_FILES_DEFAULT_PAGE_SIZE);
        const extensions = q
          .get('extensions')
          ?.toLowerCase()
          .split(',')
          .map((x) => x.trim().replace(/^\./, ''));
        const bound = (name: string): string | undefined => {
          const v = q.get(name);
          if (v === null) return undefined;
          if (!/^\d{4}\/\d{2}\/\d{2}$/.test(v)) throw validation(name, `'${v}' must be written yyyy/MM/dd.`);
          return v.replace(/\//g, '-');
        };
        const after = bound('uploadedAfter');
        const before = bound('uploadedBefore');
        const status = q.get('fileStatus') ?? 'All';
        if (!['All', 'Used', 'Unused'].includes(status)) throw validation('fileStatus', `'${status}' must be All, Used or Unused.`);
        const rows = org.files
          .filter(
            (f) =>
              (extensions === undefined || extensions.includes(String(f.Extension))) &&
              (after === undefined || String(f.UploadedAt).slice(0, 10) > after) &&
              (before === undefined || String(f.UploadedAt).slice(0, 10) < before) &&
              (status === 'All' || (status === 'Used') === (f.Linked as Row[]).length > 0),
          )
          .sort((x, y) => String(y.UploadedAt).localeCompare(String(x.UploadedAt)));
        sendJson(r.res, 200, rows.slice(page * pageSize, page * pageSize + pageSize).map(publicRow));
        return;
      }
      if (n === 2) {
        if (!FILE_GUID.test(b!)) throw validation('fileGuid', `'${b}' is not a file guid.`);
        const file = org.files.find((f) => f.FileGuid === b);
        if (file === undefined) throw notFound('The file');
        sendFile(r, file);
        return;
      }
    }
    if (a === 'attachments' && get && n === 2) {
      if (!GUID.test(b!)) throw validation('documentGuid', `'${b}' is not a valid guid.`);
      const known = [...org.invoices, ...org.creditNotes, ...org.tradeOffers].some((x) => String(x.Guid).toLowerCase() === b!.toLowerCase());
      if (!known) throw notFound('The sales document');
      sendJson(r.res, 200, org.attachments.get(b!.toLowerCase()) ?? org.attachments.get(b!) ?? []);
      return;
    }
    throw notFound('The resource');
  }

  function payments(r: Req, doc: Row, org: OrganizationData): void {
    const list = org.payments.get(doc.Guid as string) ?? [];
    const paid = Math.round(list.reduce((s, p) => s + (p.Amount as number), 0) * 100) / 100;
    const total = doc.TotalInclVat as number;
    const fees = (org.reminders.get(doc.Guid as string) ?? []).reduce((m, x) => Math.max(m, x.AccumulatedFeesAndInterestAmount as number), 0);
    sendJson(r.res, 200, {
      Payments: list,
      RemainingAmount: Math.round((total + fees - paid) * 100) / 100,
      PaidAmount: paid,
      InvoiceTotalIncludingReminderExpenses: Math.round((total + fees) * 100) / 100,
      RemainderAsFeeAvailable: fees > 0 && paid < total + fees,
    });
  }

  function mailoutList(r: Req, list: readonly Row[], smsParam: boolean): void {
    const since = changesSince(r.query);
    // The credit-note endpoint has no `includeSms`: it is ignored there, like any unknown parameter.
    const includeSms = smsParam ? boolParam(r.query, 'includeSms', true) : true;
    sendJson(
      r.res,
      200,
      list.filter((m) => (includeSms || m.IsSmsMessage !== true) && (since === undefined || String(m.Date) >= since)),
    );
  }

  function nextReminder(invoice: Row, list: readonly Row[], date: string, flags: Record<string, boolean>): Row {
    const paid = -((list[0]?.PaidAmount as number | undefined) ?? 0);
    const n = list.length + 1;
    const fee = flags.WithFee ? 100 : 0;
    const interest = flags.WithInterestFee ? Math.round((invoice.TotalInclVat as number) * 0.008 * n * 100) / 100 : 0;
    const compensation = flags.WithCompensationFee ? 310 : 0;
    const accumulated = Math.round(((list.at(-1)?.AccumulatedFeesAndInterestAmount as number | undefined) ?? 0) * 100 + (fee + interest + compensation) * 100) / 100;
    return {
      Id: 0,
      IsDraft: true,
      Number: n,
      Date: date,
      Title: `${n}. rykker for faktura ${invoice.Number}`,
      Description: 'Vi har endnu ikke modtaget betaling for nedenstående faktura.',
      DebtCollectionNotificationText: flags.WithDebtCollectionWarning ? 'Betales beløbet ikke inden 10 dage, overgår sagen til inkasso.' : null,
      FeeAmount: fee,
      InterestAmount: interest,
      CompensationFeeAmount: compensation,
      AccumulatedFeesAndInterestAmount: accumulated,
      PaidAmount: -paid,
      ReminderTotalInclVatAmount: Math.round(((invoice.TotalInclVat as number) - paid + accumulated) * 100) / 100,
      ...flags,
    };
  }

  function previewReminder(r: Req, invoice: Row, list: readonly Row[]): void {
    stats.calculations++;
    const body = r.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validation('body', 'A JSON body is required.');
    const b = body as Row;
    if (typeof b.Date !== 'string' || !DATE.test(b.Date)) throw validation('Date', 'Date is required (YYYY-MM-DD).');
    const flags: Record<string, boolean> = {};
    for (const k of ['WithFee', 'WithInterestFee', 'WithCompensationFee', 'WithDebtCollectionWarning']) {
      if (typeof b[k] !== 'boolean') throw validation(k, `${k} is required (boolean).`);
      flags[k] = b[k] as boolean;
    }
    if (invoice.Status === 'Draft' || invoice.Status === 'Paid' || invoice.Status === 'OverPaid') throw validation('invoice', 'Reminders can only be made for booked, unpaid invoices.');
    if (list.length >= 3) throw validation('invoice', 'An invoice can have at most 3 reminders.');
    sendJson(r.res, 200, nextReminder(invoice, list, b.Date, flags));
  }

  function calculateInvoice(r: Req, org: OrganizationData): void {
    stats.calculations++;
    const body = r.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validation('body', 'A JSON body is required.');
    const b = body as Row;
    const lines = b.ProductLines;
    if (!Array.isArray(lines) || lines.length === 0) throw validation('ProductLines', 'At least one product line is required.');
    const inclVat = b.ShowLinesInclVat === true;
    const date = typeof b.Date === 'string' ? b.Date : switches.today;
    if (!DATE.test(date)) throw validation('Date', `'${date}' is not a date (YYYY-MM-DD).`);
    if (b.ContactGuid !== undefined && b.ContactGuid !== null) byGuid(org.contacts, String(b.ContactGuid), 'The contact', 'ContactGuid');
    const out: Row[] = [];
    let exclTotal = 0;
    let vatTotal = 0;
    for (const [i, raw] of lines.entries()) {
      if (typeof raw !== 'object' || raw === null) throw validation(`ProductLines[${i}]`, 'A product line must be an object.');
      const line = raw as Row;
      if (line.LineType === 'Text') {
        out.push({ ...line, TotalAmount: 0, TotalAmountInclVat: 0 });
        continue;
      }
      for (const k of ['Quantity', 'AccountNumber', 'BaseAmountValue']) if (typeof line[k] !== 'number') throw validation(`ProductLines[${i}].${k}`, `${k} is required (number).`);
      if (line.ProductGuid === undefined && (typeof line.Description !== 'string' || line.Description === ''))
        throw validation(`ProductLines[${i}].Description`, 'Description is required without a product.');
      const account = org.accounts.find((x) => x.AccountNumber === line.AccountNumber);
      if (account === undefined) throw validation(`ProductLines[${i}].AccountNumber`, `The account ${String(line.AccountNumber)} does not exist.`);
      const rate = org.vatTypes.find((v) => v.VatCode === account.VatCode)?.VatRate as number | undefined;
      const discount = typeof line.Discount === 'number' ? line.Discount : 0;
      const gross = (line.Quantity as number) * (line.BaseAmountValue as number) * (1 - discount / 100);
      const excl = Math.round((inclVat ? gross / (1 + (rate ?? 0)) : gross) * 100) / 100;
      const vat = Math.round(excl * (rate ?? 0) * 100) / 100;
      exclTotal += excl;
      vatTotal += vat;
      out.push({ ...line, Discount: discount, AccountName: account.Name, TotalAmount: excl, TotalAmountInclVat: Math.round((excl + vat) * 100) / 100 });
    }
    exclTotal = Math.round(exclTotal * 100) / 100;
    vatTotal = Math.round(vatTotal * 100) / 100;
    const days = typeof b.PaymentConditionNumberOfDays === 'number' ? b.PaymentConditionNumberOfDays : 8;
    sendJson(r.res, 200, {
      ContactGuid: b.ContactGuid ?? null,
      Date: date,
      PaymentDate: addDays(date, days),
      Currency: typeof b.Currency === 'string' ? b.Currency : 'DKK',
      Language: typeof b.Language === 'string' ? b.Language : 'da-DK',
      PaymentConditionType: typeof b.PaymentConditionType === 'string' ? b.PaymentConditionType : 'Netto',
      PaymentConditionNumberOfDays: days,
      ShowLinesInclVat: inclVat,
      TotalExclVat: exclTotal,
      TotalVat: vatTotal,
      TotalInclVat: Math.round((exclTotal + vatTotal) * 100) / 100,
      TotalLines: [
        { Type: 'Subtotal', TotalAmount: exclTotal, Position: 0, Label: 'Subtotal' },
        { Type: 'Vat', TotalAmount: vatTotal, Position: 1, Label: 'Moms' },
        { Type: 'Total', TotalAmount: Math.round((exclTotal + vatTotal) * 100) / 100, Position: 2, Label: 'Total' },
      ],
      ProductLines: out,
    });
  }

  async function handleUpstream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const { text } = await readBody(req);
    const body = parseJsonLoose(text);
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    stats.requests++;
    requestLog.push({ method, path: url.pathname, query, headers: { ...req.headers }, body });
    if (requestLog.length > BOOKS_REQUEST_LOG_MAX) requestLog.splice(0, requestLog.length - BOOKS_REQUEST_LOG_MAX);
    res.once('finish', () => {
      stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
    });
    const segments = url.pathname.split('/').filter((s) => s !== '');
    const isCalculator = method === 'POST' && segments.at(-1) === 'fetch';
    if (method !== 'GET' && !isCalculator) {
      stats.writeLog.push({ method, path: `${url.pathname}${url.search}`, body });
      sendJson(res, 405, { code: 42, message: `The method ${method} is not allowed: this sandbox is read-only.` });
      return;
    }
    if (switches.latencyMs > 0 && !(await delays.delay(switches.latencyMs, res))) return;
    if (switches.fault !== 'none' && (switches.faultPath === null || url.pathname.toLowerCase().includes(switches.faultPath.toLowerCase()))) {
      const fault = switches.fault;
      if (switches.faultCount > 0) switches = { ...switches, faultCount: switches.faultCount - 1, ...(switches.faultCount === 1 ? { fault: 'none' as const } : {}) };
      if (fault === 'serverError') return sendJson(res, 500, { code: 500, message: 'An unexpected error occurred.' });
      if (fault === 'throttled') return throttle(res);
      if (fault === 'nonJson') return sendText(res, 200, '<!DOCTYPE html><html><body>Dinero maintenance</body></html>', { 'content-type': 'text/html' });
      if (fault === 'badGateway') return sendText(res, 502, '<html><body>502 Bad Gateway</body></html>', { 'content-type': 'text/html' });
      if (fault === 'slow' && !(await delays.delay(switches.slowDelayMs, res))) return;
    }
    try {
      const segs = segments.map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          throw validation('path', 'The request path is malformed.');
        }
      });
      const { organizations, clientId } = authenticate(req);
      if (switches.brownoutPath !== null && url.pathname.toLowerCase().includes(switches.brownoutPath.toLowerCase())) {
        stats.brownouts++;
        throw new DineroError(480, 480, 'This endpoint is deprecated and is being browned out before its removal. See https://developer.dinero.dk/news.');
      }
      const accept = String(req.headers.accept ?? '');
      const r: Req = { req, res, method, path: url.pathname, query: url.searchParams, body, wantsBytes: /application\/octet-stream/i.test(accept) && !/application\/json/i.test(accept) };
      const [version, second, ...rest] = segs;
      if (!version || !['v1', 'v1.1', 'v1.2', 'v2'].includes(version)) throw notFound('The resource');
      if (second === 'organizations' && rest.length === 0 && method === 'GET') {
        const rows = [...data.organizations.values()].filter((o) => organizations.includes(o.org.Id as number)).map((o) => o.org);
        return sendJson(res, 200, project(url.pathname, rows, url.searchParams.get('fields') ?? undefined, 'organizations'));
      }
      if (second === 'countries' && rest.length === 0 && method === 'GET') return sendJson(res, 200, data.countries);
      if (second === undefined) throw notFound('The resource');
      const org = organizationFor(second, organizations);
      if (!withinQuota(res, org.org.Id as number, clientId)) return;
      serveOrganization(r, version, org, rest);
    } catch (error) {
      if (error instanceof DineroError) sendDineroError(res, error);
      else throw error;
    }
  }

  const controls: SandboxControls = {
    switches: () => switches,
    setSwitches: (partial) => {
      const error = switchProblem(partial);
      if (error === undefined) setSwitches(partial as Partial<BooksSwitches>);
      return error;
    },
    switchNames: Object.keys(SWITCH_CHECKS),
    stats: () => stats,
    requests: () => requestLog,
    reset: () => {
      resetStats();
      switches = { ...initialSwitches, throttledOrganizations: [...initialSwitches.throttledOrganizations] };
      return { switches, stats };
    },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const work = url.pathname.startsWith('/__sandbox/') ? readBody(req).then(({ text }) => serveControls(req.method ?? 'GET', url.pathname, text, res, controls)) : handleUpstream(req, res, url);
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
      return { ...switches };
    },
    stats,
    requests: requestLog,
    data,
    setSwitches,
    resetSwitches() {
      switches = { ...initialSwitches, throttledOrganizations: [...initialSwitches.throttledOrganizations] };
    },
    resetStats,
    close: closeOnce(server, delays),
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

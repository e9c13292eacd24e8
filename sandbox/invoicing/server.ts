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
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { checkedSwitches, closeOnce, closeOnSignals, listen, PendingDelays, parseJsonLoose, readBody, type SandboxControls, serveControls, switchError } from '../http-kit.ts';
import {
  addDays,
  buildInvoicingData,
  customerLinks,
  DECODE_TABLE,
  INVOICING_BASE_CURRENCY,
  INVOICING_CURRENCIES,
  INVOICING_DEFAULT_TODAY,
  type InvoicingData,
  invoiceAmounts,
  type Json,
  lineTotal,
  paymentTermsRef,
  type Row,
  round2,
  yearPath,
} from './data.ts';
import { matches, parseFilter, parseSort, QueryError, sortRows } from './query.ts';

/** The application's secret token (X-AppSecretToken) the sandbox accepts by default. */
export const INVOICING_SANDBOX_APP_SECRET = 'inv-app-secret-Lr9c2Vx6';
/** The demo agreement's grant token (X-AgreementGrantToken): reads and writes. */
export const INVOICING_SANDBOX_GRANT = 'inv-grant-Qm4t8Zp2';
/** A grant whose role may only read: POST/PUT answer 403. */
export const INVOICING_SANDBOX_READONLY_GRANT = 'inv-readonly-grant-Wd7k3Hs5';
/** Largest `pagesize` (`maxPageSizeAllowed`). */
export const INVOICING_MAX_PAGE_SIZE = 1000;
export const INVOICING_DEFAULT_PAGE_SIZE = 20;
/** Default delay of the `slow` fault: over the connector's 15 s timeout. */
export const INVOICING_DEFAULT_SLOW_DELAY_MS = 20_000;
export const INVOICING_REQUEST_LOG_MAX = 5_000;
export const INVOICING_AGREEMENT_NUMBER = 686_868;

/**
 * Error codes of the annotated 400. E06000, E04740, E04730 and E04500 are the documented ones;
 * the others are the sandbox's own (the docs publish no code for them).
 */
export const INVOICING_ERROR_CODES = {
  unknownReference: 'E06000',
  tooManyDecimals: 'E04740',
  productWithoutQuantity: 'E04730',
  productWithoutId: 'E04500',
  required: 'E00100',
  nullValue: 'E00200',
  invalid: 'E00300',
  tooLong: 'E00400',
  duplicateNumber: 'E00500',
  readOnly: 'E00600',
  unknownProperty: 'E00700',
} as const;

/**
 * `throttled` 429, `serverError` 500 (JSON), `notImplemented` 501, `forbidden` 403 to any method
 * (a grant role without access to the resource, also on reads), `htmlError` a 502 whose body is an
 * HTML page (a proxy in front), `notJson` a 200 whose body is not JSON, `slow` past the timeout.
 */
export const INVOICING_FAULTS = ['none', 'throttled', 'serverError', 'notImplemented', 'forbidden', 'htmlError', 'notJson', 'slow'] as const;
/** Query parameters the docs describe on a collection (and `demo`). */
export const INVOICING_QUERY_PARAMETERS = ['skippages', 'pagesize', 'filter', 'sort', 'demo'] as const;
/**
 * The documented properties of the write bodies (upstreams/invoicing.md §2 "Resource fields" and
 * the resources' schemas): writable and read-only ones (a PUT may carry read-only fields back).
 */
export const INVOICING_DOCUMENTED_PROPERTIES = {
  customer: new Set([
    'customerNumber',
    'name',
    'currency',
    'balance',
    'dueAmount',
    'address',
    'city',
    'zip',
    'country',
    'email',
    'telephoneAndFaxNumber',
    'mobilePhone',
    'corporateIdentificationNumber',
    'vatNumber',
    'ean',
    'publicEntryNumber',
    'website',
    'creditLimit',
    'barred',
    'eInvoicingDisabledByDefault',
    'lastUpdated',
    'customerGroup',
    'paymentTerms',
    'vatZone',
    'layout',
    'salesPerson',
    'attention',
    'customerContact',
    'defaultDeliveryLocation',
    'priceGroup',
    'contacts',
    'deliveryLocations',
    'invoices',
    'totals',
    'templates',
    'metaData',
    'self',
  ]),
  draft: new Set([
    'draftInvoiceNumber',
    'date',
    'dueDate',
    'currency',
    'exchangeRate',
    'netAmount',
    'netAmountInBaseCurrency',
    'grossAmount',
    'grossAmountInBaseCurrency',
    'vatAmount',
    'roundingAmount',
    'costPriceInBaseCurrency',
    'marginInBaseCurrency',
    'marginPercentage',
    'customer',
    'recipient',
    'delivery',
    'deliveryLocation',
    'notes',
    'references',
    'paymentTerms',
    'layout',
    'project',
    'lines',
    'pdf',
    'soap',
    'templates',
    'attachment',
    'self',
  ]),
  line: new Set([
    'lineNumber',
    'sortKey',
    'description',
    'product',
    'quantity',
    'unit',
    'unitNetPrice',
    'discountPercentage',
    'unitCostPrice',
    'totalNetAmount',
    'marginInBaseCurrency',
    'marginPercentage',
    'departmentalDistribution',
    'accrual',
  ]),
} as const;
/** Customer fields a PUT must not carry under `readOnlyOnPut: 'reject'` (server-owned and link properties). */
export const INVOICING_CUSTOMER_READ_ONLY = ['balance', 'dueAmount', 'lastUpdated', 'self', 'contacts', 'deliveryLocations', 'invoices', 'totals', 'templates'] as const;
export type InvoicingFault = (typeof INVOICING_FAULTS)[number];

export interface InvoicingSwitches {
  /** `throttled` 429 (Retry-After per `retryAfterSeconds`), `serverError` 500, `slow` answers after `slowDelayMs`. */
  fault: InvoicingFault;
  /** 0: every matching request; N: the next N, then back to `none`. */
  faultCount: number;
  /** Case-insensitive substring of the path the fault is limited to (null: all). */
  faultPath: string | null;
  /** Retry-After of a 429 in seconds; null sends none (the docs publish no header). */
  retryAfterSeconds: number | null;
  slowDelayMs: number;
  /** `pagesize` above 1000: clamp to 1000 (default) or answer 400 (§5: unconfirmed). */
  pageSizeOverMax: 'clamp' | 'reject';
  /** The date overdue lists and totals are computed against (YYYY-MM-DD). */
  today: string;
  /** A draft line naming a product needs `description` (§3 #8). Default true. */
  lineDescriptionRequired: boolean;
  /**
   * A query parameter the docs do not describe (anything but `skippages pagesize filter sort demo`,
   * e.g. `pageSize` or `page`): 400 (default, so a client sending one fails in tests) or ignored as
   * the real API may do. Either way it is recorded in `stats.undocumentedQuery`.
   */
  unknownQuery: 'reject' | 'ignore';
  /** Read-only fields on a customer PUT (§5: ignored or rejected upstream): ignored (default) or 400. */
  readOnlyOnPut: 'ignore' | 'reject';
  /**
   * Where a booked invoice's PDF is: `documented` at /invoices/booked/{n}/pdf (the §2 table), or
   * `linkOnly` at another address named only by the invoice's `pdf.download`/`pdf.self` (§5: the
   * PDF path is not a documented heading), the documented path then 404.
   */
  pdfPath: 'documented' | 'linkOnly';
  /**
   * A property the docs do not describe in a write body (top level of a customer or draft, or a
   * draft line): 400 naming it (default) or ignored. Either way it is recorded in
   * `stats.undocumentedProperties` as `customer.x`, `draft.x` or `line.x`.
   */
  unknownProperties: 'reject' | 'ignore';
  /** `vatNumber` on a customer write: accepted (default) or 400 as on a Danish agreement (§3 #4, §5). */
  vatNumberPolicy: 'accept' | 'reject';
  /**
   * The answer to an accepted write: the record (`body`, the docs' 201 + Location + body and 200 +
   * body) or none (`empty`: 201 + Location, a PUT 204) — the docs list 204 among the statuses.
   */
  writeAnswer: 'body' | 'empty';
}

const DEFAULT_SWITCHES: InvoicingSwitches = {
  fault: 'none',
  faultCount: 0,
  faultPath: null,
  retryAfterSeconds: null,
  slowDelayMs: INVOICING_DEFAULT_SLOW_DELAY_MS,
  pageSizeOverMax: 'clamp',
  today: INVOICING_DEFAULT_TODAY,
  lineDescriptionRequired: true,
  unknownQuery: 'reject',
  readOnlyOnPut: 'ignore',
  pdfPath: 'documented',
  unknownProperties: 'reject',
  vatNumberPolicy: 'accept',
  writeAnswer: 'body',
};

const isCount = (v: unknown, max: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
const SWITCH_CHECKS: { readonly [K in keyof InvoicingSwitches]: (v: unknown) => boolean } = {
  fault: (v) => (INVOICING_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  faultPath: (v) => v === null || (typeof v === 'string' && v !== ''),
  retryAfterSeconds: (v) => v === null || isCount(v, 86_400),
  slowDelayMs: (v) => isCount(v, 600_000),
  pageSizeOverMax: (v) => v === 'clamp' || v === 'reject',
  today: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
  lineDescriptionRequired: (v) => typeof v === 'boolean',
  unknownQuery: (v) => v === 'reject' || v === 'ignore',
  readOnlyOnPut: (v) => v === 'ignore' || v === 'reject',
  pdfPath: (v) => v === 'documented' || v === 'linkOnly',
  unknownProperties: (v) => v === 'reject' || v === 'ignore',
  vatNumberPolicy: (v) => v === 'accept' || v === 'reject',
  writeAnswer: (v) => v === 'body' || v === 'empty',
};

export interface InvoicingSandboxOptions {
  port?: number;
  host?: string;
  /** Origin put into absolute links (`self`, paging links, `Location`), e.g. a proxy in front. */
  publicUrl?: string;
  /** Accepted app secrets (default [INVOICING_SANDBOX_APP_SECRET]). */
  appSecrets?: readonly string[];
  /** Grant tokens and their role (default: INVOICING_SANDBOX_GRANT read-write, INVOICING_SANDBOX_READONLY_GRANT read-only). */
  grants?: Readonly<Record<string, 'readWrite' | 'readOnly'>>;
  seed?: number;
  switches?: Partial<InvoicingSwitches>;
}

export interface InvoicingRecordedRequest {
  readonly method: string;
  /** Path as received (still encoded), without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
}

export interface InvoicingWrite {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
}

export interface InvoicingSandboxStats {
  requests: number;
  byStatus: Record<string, number>;
  /** Every POST and PUT that reached the API (accepted or refused), in order. */
  writeLog: InvoicingWrite[];
  /** DELETEs and booking attempts (`POST /invoices/booked…`): must stay empty. */
  forbidden: InvoicingWrite[];
  /** Query parameters the docs do not describe, as `name` per request (see `unknownQuery`). */
  undocumentedQuery: string[];
  /** Write-body properties the docs do not describe (see `unknownProperties`). */
  undocumentedProperties: string[];
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

// ---------------------------------------------------------------------------------------------
// Errors and responses
// ---------------------------------------------------------------------------------------------

class HttpError extends Error {
  readonly status: number;
  readonly body: Row;
  readonly headers: Record<string, string>;
  constructor(status: number, body: Row, headers: Record<string, string> = {}) {
    super(String(body.message));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

const errorBody = (status: number, message: string, developerHint: string, extra: Row = {}): Row => ({
  message,
  developerHint,
  logId: randomUUID(),
  httpStatusCode: status,
  logTime: new Date().toISOString().slice(0, 19),
  ...extra,
});
const fail = (status: number, message: string, hint: string, extra: Row = {}, headers: Record<string, string> = {}): HttpError =>
  new HttpError(status, errorBody(status, message, hint, extra), headers);
const notFound = (): HttpError => fail(404, 'Not found.', 'The requested resource does not exist.');

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Annotated validation errors mirroring the request body (§2 "Errors"). */
class Validation {
  readonly tree: Row = {};
  count = 0;
  add(path: readonly (string | number)[], errorCode: string, message: string, value?: Json): void {
    this.count++;
    let node: Row = this.tree;
    for (let k = 0; k < path.length; k++) {
      const key = path[k]!;
      if (typeof key === 'number') continue;
      const next = path[k + 1];
      if (typeof next === 'number') {
        if (node[key] === undefined) node[key] = [];
        const list = node[key] as Row[];
        let item = list.find((x) => x.arrayIndex === next);
        if (!item) {
          item = { arrayIndex: next };
          list.push(item);
        }
        node = item;
        continue;
      }
      if (node[key] === undefined) node[key] = {};
      node = node[key] as Row;
    }
    if (node.errors === undefined) node.errors = [];
    (node.errors as Json[]).push({ errorCode, message, ...(value === undefined ? {} : { value }), developerHint: message });
  }
  throwIfAny(): void {
    if (this.count > 0) throw fail(400, 'Validation error.', 'The request body did not validate; see errors for each property.', { errors: this.tree });
  }
}

function queryError(e: QueryError): HttpError {
  return e.kind === 'filter'
    ? fail(400, 'Could not parse query string filter.', 'See the filtering section of the documentation.', { errors: [e.message], allowedFilteringFields: [...e.allowed] })
    : fail(400, 'Could not parse query string sort.', 'See the sorting section of the documentation.', { errors: [e.message], allowedSortingFields: [...e.allowed] });
}

// ---------------------------------------------------------------------------------------------
// Collections
// ---------------------------------------------------------------------------------------------

interface CollectionSpec {
  readonly filterable: readonly string[];
  readonly sortable?: readonly string[];
  readonly defaultSort: string;
  readonly booleans?: readonly string[];
}

const INVOICE_FIELDS = [
  'currency',
  'customer.customerNumber',
  'date',
  'dueDate',
  'notes.heading',
  'notes.textLine1',
  'notes.textLine2',
  'recipient.name',
  'recipient.city',
  'references.other',
  'netAmount',
  'grossAmount',
];
const SPECS: Readonly<Record<string, CollectionSpec>> = {
  customers: {
    filterable: [
      'address',
      'balance',
      'barred',
      'city',
      'corporateIdentificationNumber',
      'country',
      'creditLimit',
      'currency',
      'customerNumber',
      'dueAmount',
      'ean',
      'email',
      'lastUpdated',
      'name',
      'telephoneAndFaxNumber',
      'vatNumber',
      'zip',
    ],
    defaultSort: 'customerNumber',
    booleans: ['barred'],
  },
  booked: { filterable: ['bookedInvoiceNumber', ...INVOICE_FIELDS, 'remainder'], defaultSort: 'bookedInvoiceNumber' },
  drafts: { filterable: ['draftInvoiceNumber', ...INVOICE_FIELDS], defaultSort: 'draftInvoiceNumber' },
  accounts: { filterable: ['accountNumber', 'accountType', 'balance', 'debitCredit', 'name', 'barred'], defaultSort: 'accountNumber', booleans: ['barred'] },
  products: { filterable: ['productNumber', 'name', 'salesPrice', 'costPrice', 'barred'], defaultSort: 'productNumber', booleans: ['barred'] },
  suppliers: { filterable: ['supplierNumber', 'name', 'currency'], defaultSort: 'supplierNumber' },
  'vat-accounts': { filterable: ['vatCode', 'name', 'ratePercentage'], defaultSort: 'vatCode' },
  'customer-groups': { filterable: ['customerGroupNumber', 'name'], defaultSort: 'customerGroupNumber' },
  'payment-terms': { filterable: ['paymentTermsNumber', 'name', 'paymentTermsType', 'daysOfCredit'], defaultSort: 'paymentTermsNumber' },
  'vat-zones': { filterable: ['vatZoneNumber', 'name'], defaultSort: 'vatZoneNumber' },
  layouts: { filterable: ['layoutNumber', 'name'], defaultSort: 'layoutNumber', booleans: ['deleted'] },
  units: { filterable: ['unitNumber', 'name'], defaultSort: 'unitNumber' },
  'accounting-years': { filterable: ['year', 'fromDate', 'toDate', 'closed'], defaultSort: 'fromDate', booleans: ['closed'] },
  periods: { filterable: ['periodNumber', 'fromDate', 'toDate', 'closed'], defaultSort: 'periodNumber', booleans: ['closed'] },
  entries: { filterable: ['entryNumber', 'entryType', 'date', 'amount', 'text', 'voucherNumber', 'account.accountNumber', 'customer.customerNumber'], defaultSort: 'entryNumber' },
  'year-totals': { filterable: ['account.accountNumber', 'totalInBaseCurrency'], defaultSort: 'account.accountNumber' },
};

const LINK_KEYS = new Set([
  'self',
  'contacts',
  'deliveryLocations',
  'templates',
  'totals',
  'drafts',
  'booked',
  'periods',
  'entries',
  'vouchers',
  'accountingYears',
  'sent',
  'bookingInstructions',
  'href',
  'download',
]);

/** Relative links (`/customers/1`) made absolute against the public base. */
function absolutize(value: Json, base: string): Json {
  if (Array.isArray(value)) return value.map((v) => absolutize(v, base));
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'string' && LINK_KEYS.has(k) && v.startsWith('/') ? base + v : absolutize(v, base);
  return out;
}

function intParam(query: URLSearchParams, name: string, fallback: number, min: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw fail(400, `Could not parse query string ${name}.`, `${name} must be an integer of at least ${min}.`, { errors: [`The value '${raw}' is not valid for ${name}.`] });
  return Number(raw);
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

/** Percent-decodes then applies the §2 table; null when the segment cannot be an identifier. */
export function decodeIdentifier(segment: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return null;
  }
  // Characters of the table must arrive in their `_n_` form (`%2F` is not a slash).
  if (/[<>*%:&/\\ ?.#+]/.test(decoded) || decoded.replace(/_\d{1,2}_/g, '').includes('_')) return null;
  let bad = false;
  const out = decoded.replace(/_(\d{1,2})_/g, (m) => {
    const c = DECODE_TABLE[m];
    if (c === undefined) bad = true;
    return c ?? m;
  });
  return bad ? null : out;
}

const PDF_BYTES = (n: number): Buffer =>
  Buffer.from(
    `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj\n% Invoice ${n}\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
    'latin1',
  );

export async function startInvoicingSandbox(options: InvoicingSandboxOptions = {}): Promise<InvoicingSandbox> {
  const host = options.host ?? '127.0.0.1';
  const appSecrets = new Set(options.appSecrets ?? [INVOICING_SANDBOX_APP_SECRET]);
  const grants = new Map<string, 'readWrite' | 'readOnly'>(Object.entries(options.grants ?? { [INVOICING_SANDBOX_GRANT]: 'readWrite', [INVOICING_SANDBOX_READONLY_GRANT]: 'readOnly' }));
  const initialSwitches: InvoicingSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  let switches: InvoicingSwitches = { ...initialSwitches };
  const data = buildInvoicingData(options.seed);
  const stats: InvoicingSandboxStats = { requests: 0, byStatus: {}, writeLog: [], forbidden: [], undocumentedQuery: [], undocumentedProperties: [] };
  const requests: InvoicingRecordedRequest[] = [];
  const delays = new PendingDelays();
  let publicUrl = '';

  const collection = (rows: readonly Row[], spec: CollectionSpec, path: string, query: URLSearchParams, metaData?: Row): Row => {
    let pageSize = intParam(query, 'pagesize', INVOICING_DEFAULT_PAGE_SIZE, 1);
    if (pageSize > INVOICING_MAX_PAGE_SIZE) {
      if (switches.pageSizeOverMax === 'reject')
        throw fail(400, 'Could not parse query string pagesize.', `pagesize may be at most ${INVOICING_MAX_PAGE_SIZE}.`, {
          errors: [`The pagesize ${pageSize} exceeds the maximum of ${INVOICING_MAX_PAGE_SIZE}.`],
        });
      pageSize = INVOICING_MAX_PAGE_SIZE;
    }
    const skipPages = intParam(query, 'skippages', 0, 0);
    const filter = query.get('filter');
    const sort = query.get('sort');
    let selected: Row[] = [...rows];
    try {
      if (filter !== null) {
        const tree = parseFilter(filter, spec.filterable);
        const booleans = new Set(spec.booleans ?? []);
        selected = selected.filter((r) => matches(tree, r, booleans));
      }
      selected = sortRows(selected, parseSort(sort ?? spec.defaultSort, spec.sortable ?? spec.filterable));
    } catch (e) {
      if (e instanceof QueryError) throw queryError(e);
      throw e;
    }
    const results = selected.length;
    const lastIndex = Math.max(0, Math.ceil(results / pageSize) - 1);
    const link = (page: number): string => {
      const q = new URLSearchParams({ skippages: String(page), pagesize: String(pageSize) });
      if (filter !== null) q.set('filter', filter);
      if (sort !== null) q.set('sort', sort);
      return `${publicUrl}${path}?${q.toString()}`;
    };
    const page = selected.slice(skipPages * pageSize, (skipPages + 1) * pageSize);
    return {
      collection: page.map((r) => absolutize(r, publicUrl)),
      ...(metaData ? { metaData: absolutize(metaData, publicUrl) } : {}),
      pagination: {
        maxPageSizeAllowed: INVOICING_MAX_PAGE_SIZE,
        skipPages,
        pageSize,
        results,
        resultsWithoutFilter: rows.length,
        firstPage: link(0),
        ...(skipPages > 0 ? { previousPage: link(Math.min(skipPages - 1, lastIndex)) } : {}),
        ...(skipPages < lastIndex ? { nextPage: link(skipPages + 1) } : {}),
        lastPage: link(lastIndex),
      },
      self: link(skipPages),
    };
  };

  const today = (): string => switches.today;
  const overdue = (b: Row): boolean => (b.remainder as number) !== 0 && (b.dueDate as string) < today();
  const withoutLines = (b: Row): Row => {
    const { lines: _lines, ...rest } = b;
    return rest;
  };
  const base = (amount: number, b: Row): number => round2((amount * (b.exchangeRate as number)) / 100);
  const sum = (rows: readonly Row[], f: (r: Row) => number): number => round2(rows.reduce((s, r) => s + f(r), 0));

  const totals = (): Row => {
    const paid = data.booked.filter((b) => (b.remainder as number) === 0);
    const unpaid = data.booked.filter((b) => (b.remainder as number) !== 0);
    const part = (rows: Row[]): Row => ({
      invoiceCount: rows.length,
      netAmountInBaseCurrency: sum(rows, (r) => r.netAmountInBaseCurrency as number),
      grossRemainderInBaseCurrency: sum(rows, (r) => base(r.remainder as number, r)),
    });
    return {
      drafts: { invoiceCount: data.drafts.length, netAmountInBaseCurrency: sum(data.drafts, (r) => r.netAmountInBaseCurrency as number), self: '/invoices/totals/drafts' },
      booked: {
        invoiceCount: data.booked.length,
        netAmountInBaseCurrency: sum(data.booked, (r) => r.netAmountInBaseCurrency as number),
        paid: { invoiceCount: paid.length, netAmountInBaseCurrency: sum(paid, (r) => r.netAmountInBaseCurrency as number), self: '/invoices/totals/booked/paid' },
        unpaid: {
          ...part(unpaid),
          overdue: { ...part(unpaid.filter(overdue)), self: '/invoices/totals/booked/unpaid/overdue' },
          notOverdue: { ...part(unpaid.filter((b) => !overdue(b))), self: '/invoices/totals/booked/unpaid/not-overdue' },
          self: '/invoices/totals/booked/unpaid',
        },
        self: '/invoices/totals/booked',
      },
      self: '/invoices/totals',
    };
  };

  const yearTotals = (year: string): Row[] =>
    data.accounts
      .filter((a) => data.entries.has(a.accountNumber as number))
      .map((a) => {
        const y = data.years.find((x) => x.year === year)!;
        const list = data.entries.get(a.accountNumber as number)!.get(year) ?? [];
        return {
          account: { accountNumber: a.accountNumber as number, self: a.self as string },
          fromDate: y.fromDate as string,
          toDate: y.toDate as string,
          totalInBaseCurrency: sum(list, (e) => e.amountInBaseCurrency as number),
        };
      });

  const byKey = (rows: readonly Row[], key: string, id: string): Row => {
    const row = rows.find((r) => String(r[key]) === id);
    if (!row) throw notFound();
    return row;
  };
  const yearOf = (id: string): Row => byKey(data.years, 'year', id);

  const SIMPLE: Readonly<Record<string, readonly [rows: () => Row[], key: string]>> = {
    customers: [() => data.customers, 'customerNumber'],
    products: [() => data.products, 'productNumber'],
    suppliers: [() => data.suppliers, 'supplierNumber'],
    'vat-accounts': [() => data.vatAccounts, 'vatCode'],
    'customer-groups': [() => data.customerGroups, 'customerGroupNumber'],
    'payment-terms': [() => data.paymentTerms, 'paymentTermsNumber'],
    'vat-zones': [() => data.vatZones, 'vatZoneNumber'],
    layouts: [() => data.layouts, 'layoutNumber'],
    units: [() => data.units, 'unitNumber'],
    accounts: [() => data.accounts, 'accountNumber'],
  };

  /** GET: the body (JSON) or PDF bytes. */
  const read = (seg: string[], path: string, query: URLSearchParams): Row | Buffer => {
    const [head, a, b, c, d, e] = seg;
    const n = seg.length;
    if (n === 0)
      return {
        apiName: 'e-conomic REST API (sandbox)',
        resources: Object.keys(SIMPLE)
          .concat(['invoices', 'accounting-years', 'self'])
          .map((r) => ({ name: r, href: `${publicUrl}/${r}` })),
        self: `${publicUrl}/`,
      };
    if (head === 'self' && n === 1)
      return absolutize(
        {
          agreementNumber: INVOICING_AGREEMENT_NUMBER,
          agreementType: { agreementTypeNumber: 1, name: 'Small' },
          company: { name: 'Demo Bikes ApS', companyIdentificationNumber: '12345678', vatNumber: 'DK12345678' },
          user: { agreementNumber: INVOICING_AGREEMENT_NUMBER, loginId: 'demo', name: 'Demo User', email: 'demo@example.com' },
          bankInformation: {},
          settings: { baseCurrency: INVOICING_BASE_CURRENCY },
          canSendElectronicInvoice: false,
          self: '/self',
        },
        publicUrl,
      ) as Row;
    if (head === 'invoices') {
      const list = (rows: Row[], spec: CollectionSpec): Row => collection(rows.map(withoutLines), spec, path, query);
      if (n === 2) {
        const lists: Record<string, () => Row[]> = {
          booked: () => data.booked,
          overdue: () => data.booked.filter(overdue),
          paid: () => data.booked.filter((r) => (r.remainder as number) === 0),
          unpaid: () => data.booked.filter((r) => (r.remainder as number) !== 0),
          'not-due': () => data.booked.filter((r) => (r.remainder as number) !== 0 && !overdue(r)),
          sent: () => data.booked.filter((r) => (r.bookedInvoiceNumber as number) % 3 !== 0),
        };
        if (a === 'totals') return absolutize(totals(), publicUrl) as Row;
        if (a === 'drafts') return list(data.drafts, SPECS.drafts!);
        if (lists[a!]) return list(lists[a!]!(), SPECS.booked!);
      }
      if ((a === 'booked' || a === 'drafts') && n >= 3) {
        const row = byKey(a === 'booked' ? data.booked : data.drafts, a === 'booked' ? 'bookedInvoiceNumber' : 'draftInvoiceNumber', b!);
        const number = row[a === 'booked' ? 'bookedInvoiceNumber' : 'draftInvoiceNumber'] as number;
        const linkOnly = a === 'booked' && switches.pdfPath === 'linkOnly';
        if (n === 3) return absolutize(linkOnly ? { ...row, pdf: { download: `/invoices/booked/${number}/document` } } : row, publicUrl) as Row;
        if (n === 4 && c === (linkOnly ? 'document' : 'pdf')) return PDF_BYTES(number);
      }
      throw notFound();
    }
    if (head === 'accounting-years') {
      if (n === 1) return collection(data.years, SPECS['accounting-years']!, path, query);
      const y = yearOf(a!);
      const year = y.year as string;
      if (n === 2) return absolutize(y, publicUrl) as Row;
      if (b === 'periods' && n === 3) return collection(data.periods.get(year)!, SPECS.periods!, path, query);
      if (b === 'periods' && n === 4) return absolutize(byKey(data.periods.get(year)!, 'periodNumber', c!), publicUrl) as Row;
      if (b === 'totals' && n === 3) return collection(yearTotals(year), SPECS['year-totals']!, path, query);
      if (b === 'entries' && n === 3)
        return collection(
          [...data.entries.values()].flatMap((m) => m.get(year) ?? []),
          SPECS.entries!,
          path,
          query,
        );
      throw notFound();
    }
    if (head === 'accounts' && n >= 3) {
      const account = byKey(data.accounts, 'accountNumber', a!);
      const accountNumber = account.accountNumber as number;
      if (b !== 'accounting-years') throw notFound();
      if (n === 3) return collection(data.years, SPECS['accounting-years']!, path, query);
      const year = yearOf(c!).year as string;
      if (n === 5 && d === 'totals') {
        const t = yearTotals(year).find((x) => (x.account as Row).accountNumber === accountNumber);
        const y = yearOf(year);
        return absolutize(
          {
            ...(t ?? { account: { accountNumber, self: account.self as string }, fromDate: y.fromDate as string, toDate: y.toDate as string, totalInBaseCurrency: 0 }),
            self: `/accounts/${accountNumber}/accounting-years/${yearPath(year)}/totals`,
          },
          publicUrl,
        ) as Row;
      }
      if (n === 5 && d === 'entries') return collection(data.entries.get(accountNumber)?.get(year) ?? [], SPECS.entries!, path, query);
      void e;
      throw notFound();
    }
    const simple = SIMPLE[head!];
    if (simple && n === 1)
      return collection(simple[0](), SPECS[head!]!, path, query, head === 'customers' ? { create: { description: 'Create a new customer.', href: '/customers', httpMethod: 'post' } } : undefined);
    if (simple && n === 2) return absolutize(byKey(simple[0](), simple[1], a!), publicUrl) as Row;
    throw notFound();
  };

  // ----- writes -------------------------------------------------------------------------------

  const findNulls = (value: unknown, path: (string | number)[], v: Validation): void => {
    if (value === null) v.add(path, INVOICING_ERROR_CODES.nullValue, 'null is not a valid value; omit the property instead.', null);
    else if (Array.isArray(value)) {
      for (const [i, x] of value.entries()) findNulls(x, [...path, i], v);
    } else if (typeof value === 'object') for (const [k, x] of Object.entries(value as Row)) findNulls(x, [...path, k], v);
  };

  /** A reference given by number or `self`; the referenced number, or undefined after an error. */
  const reference = (body: Row, path: (string | number)[], field: string, key: string, rows: readonly Row[], v: Validation, required: boolean): Row | undefined => {
    let node: unknown = body;
    for (const p of path) node = node === undefined || node === null ? undefined : (node as Row)[p as string];
    const value = (node as Row | undefined)?.[field];
    if (value === undefined) {
      if (required) v.add([...path, field], INVOICING_ERROR_CODES.required, `Property ${field} is required.`);
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      v.add([...path, field], INVOICING_ERROR_CODES.invalid, `Property ${field} must be an object.`);
      return undefined;
    }
    const ref = value as Row;
    let id: string | undefined;
    if (ref[key] !== undefined) id = String(ref[key]);
    else if (typeof ref.self === 'string') id = decodeIdentifier(ref.self.split('/').pop() ?? '') ?? undefined;
    const row = id === undefined ? undefined : rows.find((r) => String(r[key]) === id);
    if (!row) {
      v.add([...path, field], INVOICING_ERROR_CODES.unknownReference, `${field} not found.`, (ref[key] ?? ref.self ?? null) as Json);
      return undefined;
    }
    return row;
  };

  const text = (body: Row, field: string, v: Validation, required: boolean, max = 255): string | undefined => {
    const value = body[field];
    if (value === undefined) {
      if (required) v.add([field], INVOICING_ERROR_CODES.required, `Property ${field} is required.`);
      return undefined;
    }
    if (typeof value !== 'string') {
      v.add([field], INVOICING_ERROR_CODES.invalid, `Property ${field} must be a string.`, value as Json);
      return undefined;
    }
    if (value.length > max) v.add([field], INVOICING_ERROR_CODES.tooLong, `Property ${field} may be at most ${max} characters.`, value);
    return value;
  };

  const currencyOf = (body: Row, v: Validation): string | undefined => {
    const c = text(body, 'currency', v, true, 3);
    if (c !== undefined && INVOICING_CURRENCIES[c] === undefined) v.add(['currency'], INVOICING_ERROR_CODES.unknownReference, `Currency '${c}' not found.`, c);
    return c;
  };

  const CUSTOMER_TEXT = ['address', 'city', 'zip', 'country', 'email', 'telephoneAndFaxNumber', 'mobilePhone', 'corporateIdentificationNumber', 'vatNumber', 'ean', 'website', 'publicEntryNumber'];

  /** Properties outside the documented set: recorded, and 400 unless `unknownProperties: 'ignore'`. */
  const undocumented = (value: unknown, kind: keyof typeof INVOICING_DOCUMENTED_PROPERTIES, path: (string | number)[], v: Validation): void => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const key of Object.keys(value)) {
      if (INVOICING_DOCUMENTED_PROPERTIES[kind].has(key)) continue;
      stats.undocumentedProperties.push(`${kind}.${key}`);
      if (switches.unknownProperties === 'reject') v.add([...path, key], INVOICING_ERROR_CODES.unknownProperty, `Property ${key} is not part of the ${kind} schema.`);
    }
  };

  const customerFrom = (body: Row, customerNumber: number | undefined, v: Validation): Row => {
    undocumented(body, 'customer', [], v);
    if (switches.vatNumberPolicy === 'reject' && body.vatNumber !== undefined)
      v.add(['vatNumber'], INVOICING_ERROR_CODES.invalid, 'vatNumber is not available on this agreement; use corporateIdentificationNumber.', body.vatNumber as Json);
    const name = text(body, 'name', v, true);
    const currency = currencyOf(body, v);
    const group = reference(body, [], 'customerGroup', 'customerGroupNumber', data.customerGroups, v, true);
    const terms = reference(body, [], 'paymentTerms', 'paymentTermsNumber', data.paymentTerms, v, true);
    const zone = reference(body, [], 'vatZone', 'vatZoneNumber', data.vatZones, v, true);
    const layout = reference(body, [], 'layout', 'layoutNumber', data.layouts, v, false);
    const out: Row = {};
    let number = customerNumber;
    if (body.customerNumber !== undefined) {
      const given = body.customerNumber;
      if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > 999_999_999)
        v.add(['customerNumber'], INVOICING_ERROR_CODES.invalid, 'customerNumber must be an integer from 1 to 999999999.', given as Json);
      else if (customerNumber === undefined && data.customers.some((c) => c.customerNumber === given))
        v.add(['customerNumber'], INVOICING_ERROR_CODES.duplicateNumber, `Customer number ${given} is already in use.`, given);
      else if (customerNumber !== undefined && given !== customerNumber) v.add(['customerNumber'], INVOICING_ERROR_CODES.invalid, 'customerNumber does not match the path.', given);
      else number = given;
    }
    for (const f of CUSTOMER_TEXT) {
      const t = text(body, f, v, false);
      if (t !== undefined) out[f] = t;
    }
    for (const f of ['creditLimit']) {
      if (body[f] === undefined) continue;
      if (typeof body[f] !== 'number') v.add([f], INVOICING_ERROR_CODES.invalid, `Property ${f} must be a number.`, body[f] as Json);
      else out[f] = body[f] as number;
    }
    if (body.barred !== undefined && typeof body.barred !== 'boolean') v.add(['barred'], INVOICING_ERROR_CODES.invalid, 'Property barred must be a boolean.', body.barred as Json);
    for (const f of ['attention', 'salesPerson', 'customerContact']) if (body[f] !== undefined && typeof body[f] === 'object' && !Array.isArray(body[f])) out[f] = body[f] as Row;
    v.throwIfAny();
    const n = number ?? Math.max(0, ...data.customers.map((c) => c.customerNumber as number)) + 1;
    const previous = data.customers.find((c) => c.customerNumber === n);
    return {
      customerNumber: n,
      name: name!,
      currency: currency!,
      balance: (previous?.balance as number | undefined) ?? 0,
      dueAmount: (previous?.dueAmount as number | undefined) ?? 0,
      ...out,
      ...(body.barred === true ? { barred: true } : {}),
      lastUpdated: `${new Date().toISOString().slice(0, 19)}Z`,
      customerGroup: { customerGroupNumber: group!.customerGroupNumber as number, self: group!.self as string },
      paymentTerms: paymentTermsRef(terms!.paymentTermsNumber as number),
      vatZone: { vatZoneNumber: zone!.vatZoneNumber as number, self: zone!.self as string },
      ...(layout ? { layout: { layoutNumber: layout.layoutNumber as number, self: layout.self as string } } : {}),
      ...customerLinks(n),
    };
  };

  const decimalsOk = (x: number): boolean => Math.abs(Math.round(x * 100) - x * 100) < 1e-7;

  const draftFrom = (body: Row, v: Validation): Row => {
    undocumented(body, 'draft', [], v);
    if (Array.isArray(body.lines)) for (const [i, line] of body.lines.entries()) undocumented(line, 'line', ['lines', i], v);
    const currency = currencyOf(body, v);
    const customer = reference(body, [], 'customer', 'customerNumber', data.customers, v, true);
    const layout = reference(body, [], 'layout', 'layoutNumber', data.layouts, v, true);
    const terms = reference(body, [], 'paymentTerms', 'paymentTermsNumber', data.paymentTerms, v, true);
    const date = body.date;
    if (date === undefined) v.add(['date'], INVOICING_ERROR_CODES.required, 'Property date is required.');
    else if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) v.add(['date'], INVOICING_ERROR_CODES.invalid, 'date must be YYYY-MM-DD.', date as Json);
    const dueDate = body.dueDate;
    if (dueDate !== undefined && (typeof dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dueDate)))
      v.add(['dueDate'], INVOICING_ERROR_CODES.invalid, 'dueDate must be YYYY-MM-DD.', dueDate as Json);
    if (terms?.paymentTermsType === 'dueDate' && dueDate === undefined) v.add(['dueDate'], INVOICING_ERROR_CODES.required, 'dueDate is required when the payment terms are of type dueDate.');
    const recipient = body.recipient;
    let zone: Row | undefined;
    if (recipient === undefined) v.add(['recipient'], INVOICING_ERROR_CODES.required, 'Property recipient is required.');
    else if (typeof recipient !== 'object' || recipient === null || Array.isArray(recipient)) v.add(['recipient'], INVOICING_ERROR_CODES.invalid, 'recipient must be an object.');
    else {
      const r = recipient as Row;
      if (r.name === undefined) v.add(['recipient', 'name'], INVOICING_ERROR_CODES.required, 'Property name is required.');
      else if (typeof r.name !== 'string') v.add(['recipient', 'name'], INVOICING_ERROR_CODES.invalid, 'name must be a string.', r.name as Json);
      zone = reference(body, ['recipient'], 'vatZone', 'vatZoneNumber', data.vatZones, v, true);
    }
    const lines: Row[] = [];
    if (body.lines !== undefined && !Array.isArray(body.lines)) v.add(['lines'], INVOICING_ERROR_CODES.invalid, 'lines must be an array.');
    const rawLines = Array.isArray(body.lines) ? (body.lines as Json[]) : [];
    rawLines.forEach((raw, i) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        v.add(['lines', i, 'description'], INVOICING_ERROR_CODES.invalid, 'A line must be an object.');
        return;
      }
      const line = raw as Row;
      let product: Row | undefined;
      if (line.product !== undefined) {
        const p = line.product as Row;
        if (typeof p !== 'object' || p === null || (p.productNumber === undefined && p.self === undefined))
          v.add(['lines', i, 'product'], INVOICING_ERROR_CODES.productWithoutId, 'A product needs productNumber or self.');
        else {
          const id = p.productNumber !== undefined ? String(p.productNumber) : decodeIdentifier(String(p.self).split('/').pop() ?? '');
          product = data.products.find((x) => x.productNumber === id);
          if (!product) v.add(['lines', i, 'product'], INVOICING_ERROR_CODES.unknownReference, 'Product not found.', (p.productNumber ?? p.self) as Json);
        }
        if (line.quantity === undefined) v.add(['lines', i, 'quantity'], INVOICING_ERROR_CODES.productWithoutQuantity, 'quantity is required on a line with a product.');
        if (switches.lineDescriptionRequired && line.description === undefined) v.add(['lines', i, 'description'], INVOICING_ERROR_CODES.required, 'description is required on a line with a product.');
      }
      if (line.quantity !== undefined && typeof line.quantity !== 'number') v.add(['lines', i, 'quantity'], INVOICING_ERROR_CODES.invalid, 'quantity must be a number.', line.quantity as Json);
      if (line.unitNetPrice !== undefined && (typeof line.unitNetPrice !== 'number' || !decimalsOk(line.unitNetPrice)))
        v.add(['lines', i, 'unitNetPrice'], INVOICING_ERROR_CODES.tooManyDecimals, 'unitNetPrice may have at most 2 decimals.', line.unitNetPrice as Json);
      const discount = line.discountPercentage ?? 0;
      if (typeof discount !== 'number') v.add(['lines', i, 'discountPercentage'], INVOICING_ERROR_CODES.invalid, 'discountPercentage must be a number.', discount);
      let unit: Row | undefined;
      if (line.unit !== undefined) unit = reference(line, [], 'unit', 'unitNumber', data.units, v, false);
      if (line.unit !== undefined && !unit) {
        // reference() reported at ['unit']; move it under the line.
        const errs = (v.tree.unit as Row).errors as Json[];
        delete v.tree.unit;
        v.count--;
        v.add(['lines', i, 'unit'], INVOICING_ERROR_CODES.unknownReference, 'Unit not found.', ((errs[0] as Row).value ?? null) as Json);
      }
      if (line.description !== undefined && typeof line.description !== 'string')
        v.add(['lines', i, 'description'], INVOICING_ERROR_CODES.invalid, 'description must be a string.', line.description as Json);
      const quantity = typeof line.quantity === 'number' ? line.quantity : product ? 0 : 1;
      const unitNetPrice = typeof line.unitNetPrice === 'number' ? line.unitNetPrice : ((product?.salesPrice as number | undefined) ?? 0);
      lines.push({
        lineNumber: i + 1,
        sortKey: i + 1,
        ...(typeof line.description === 'string' ? { description: line.description } : {}),
        ...(product ? { product: { productNumber: product.productNumber as string, self: product.self as string } } : {}),
        quantity,
        ...(unit ? { unit: { unitNumber: unit.unitNumber as number, name: unit.name as string } } : {}),
        unitNetPrice,
        discountPercentage: typeof discount === 'number' ? discount : 0,
        ...(product ? { unitCostPrice: product.costPrice as number } : {}),
        totalNetAmount: lineTotal(quantity, unitNetPrice, typeof discount === 'number' ? discount : 0),
      });
    });
    v.throwIfAny();
    const draftInvoiceNumber = Math.max(0, ...data.drafts.map((d) => d.draftInvoiceNumber as number)) + 1;
    const rate = INVOICING_CURRENCIES[currency!]!;
    const amounts = invoiceAmounts(lines, zone!.vatZoneNumber as number, rate);
    const cost = round2(lines.reduce((s, l) => s + ((l.unitCostPrice as number | undefined) ?? 0) * (l.quantity as number), 0));
    const r = recipient as Row;
    const keep = (o: unknown): Row => (typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Row) : {});
    return {
      draftInvoiceNumber,
      date: date as string,
      currency: currency!,
      exchangeRate: rate,
      ...amounts,
      costPriceInBaseCurrency: round2((cost * rate) / 100),
      marginInBaseCurrency: round2(((amounts.netAmount as number) - cost) * (rate / 100)),
      marginPercentage: amounts.netAmount ? round2((100 * ((amounts.netAmount as number) - cost)) / (amounts.netAmount as number)) : 0,
      dueDate: (dueDate as string | undefined) ?? addDays(date as string, (terms!.daysOfCredit as number | undefined) ?? 0),
      paymentTerms: paymentTermsRef(terms!.paymentTermsNumber as number),
      customer: { customerNumber: customer!.customerNumber as number, self: customer!.self as string },
      recipient: { ...keep(r), vatZone: { vatZoneNumber: zone!.vatZoneNumber as number, self: zone!.self as string } },
      ...(body.delivery !== undefined ? { delivery: keep(body.delivery) } : {}),
      notes: keep(body.notes),
      references: keep(body.references),
      layout: { layoutNumber: layout!.layoutNumber as number, self: layout!.self as string },
      soap: { currentInvoiceHandle: { id: 100 + draftInvoiceNumber } },
      templates: { bookingInstructions: `/invoices/drafts/${draftInvoiceNumber}/templates/booking-instructions`, self: `/invoices/drafts/${draftInvoiceNumber}/templates` },
      lines,
      self: `/invoices/drafts/${draftInvoiceNumber}`,
    };
  };

  const write = (method: string, seg: string[], body: Row): { status: number; body: Row; location?: string } => {
    const v = new Validation();
    findNulls(body, [], v);
    v.throwIfAny();
    if (method === 'POST' && seg[0] === 'customers') {
      const c = customerFrom(body, undefined, v);
      data.customers.push(c);
      return { status: 201, body: c, location: `${publicUrl}${c.self as string}` };
    }
    if (method === 'PUT' && seg[0] === 'customers') {
      const i = data.customers.findIndex((c) => String(c.customerNumber) === seg[1]);
      if (i < 0) throw notFound();
      if (switches.readOnlyOnPut === 'reject')
        for (const key of INVOICING_CUSTOMER_READ_ONLY) if (body[key] !== undefined) v.add([key], INVOICING_ERROR_CODES.readOnly, `Property ${key} is read-only.`, body[key] as Json);
      const c = customerFrom(body, data.customers[i]!.customerNumber as number, v);
      data.customers[i] = c;
      return { status: 200, body: c };
    }
    const d = draftFrom(body, v);
    data.drafts.push(d);
    return { status: 201, body: d, location: `${publicUrl}${d.self as string}` };
  };

  const isWriteRoute = (method: string, seg: string[]): boolean =>
    (method === 'POST' && seg.length === 1 && seg[0] === 'customers') ||
    (method === 'PUT' && seg.length === 2 && seg[0] === 'customers') ||
    (method === 'POST' && seg.length === 2 && seg[0] === 'invoices' && seg[1] === 'drafts');

  // ----- request handling --------------------------------------------------------------------

  /** The `/__sandbox/` controls; a reset answers `{ reset: true }`. */
  const controls: SandboxControls = {
    switches: () => switches,
    ...checkedSwitches<InvoicingSwitches>(SWITCH_CHECKS, (partial) => {
      switches = { ...switches, ...partial };
    }),
    stats: () => stats,
    requests: () => requests,
    reset: () => {
      switches = { ...initialSwitches };
      resetStats();
      return { reset: true };
    },
  };

  const resetStats = (): void => {
    stats.requests = 0;
    stats.byStatus = {};
    stats.writeLog = [];
    stats.forbidden = [];
    stats.undocumentedQuery = [];
    stats.undocumentedProperties = [];
    requests.length = 0;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const rawPath = url.pathname;
    if (rawPath.startsWith('/__sandbox/')) return serveControls(req.method ?? 'GET', rawPath, (await readBody(req)).text, res, controls);
    const method = (req.method ?? 'GET').toUpperCase();
    stats.requests++;
    requests.push({ method, path: rawPath, query: Object.fromEntries(url.searchParams), headers: req.headers });
    if (requests.length > INVOICING_REQUEST_LOG_MAX) requests.shift();
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      sendJson(res, status, body, headers);
    };
    const bodyText = method === 'GET' || method === 'HEAD' ? '' : (await readBody(req)).text;
    const rawSegments = rawPath.split('/').filter((s) => s !== '');
    const forbidden = method === 'DELETE' || (method === 'POST' && rawSegments[0] === 'invoices' && rawSegments[1] === 'booked');
    const logWrite = (status: number): void => {
      const entry = { method, path: rawPath, body: parseJsonLoose(bodyText), status };
      if (forbidden) stats.forbidden.push(entry);
      else if (method !== 'GET' && method !== 'HEAD') stats.writeLog.push(entry);
    };
    try {
      // Faults
      if (switches.fault !== 'none' && (switches.faultPath === null || rawPath.toLowerCase().includes(switches.faultPath.toLowerCase()))) {
        const fault = switches.fault;
        if (switches.faultCount > 0 && --switches.faultCount === 0) switches = { ...switches, fault: 'none' };
        if (fault === 'throttled')
          throw fail(429, 'Too many requests.', 'The request was throttled; try again later.', {}, switches.retryAfterSeconds === null ? {} : { 'retry-after': String(switches.retryAfterSeconds) });
        if (fault === 'serverError') throw fail(500, 'An error occurred.', 'Internal server error.');
        if (fault === 'notImplemented') throw fail(501, 'Not implemented.', 'This operation is not implemented.');
        if (fault === 'forbidden') throw fail(403, 'Access denied.', 'The agreement grant role has no access to this resource.');
        if (fault === 'htmlError' || fault === 'notJson') {
          const status = fault === 'htmlError' ? 502 : 200;
          const text = fault === 'htmlError' ? '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>' : 'OK, but not JSON';
          stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
          logWrite(status);
          res.writeHead(status, { 'content-type': fault === 'htmlError' ? 'text/html' : 'text/plain', 'content-length': Buffer.byteLength(text) });
          res.end(text);
          return;
        }
        if (!(await delays.delay(switches.slowDelayMs, res))) return;
      }
      // Authentication
      const secret = req.headers['x-appsecrettoken'];
      const grant = req.headers['x-agreementgranttoken'];
      const demo = (secret === 'demo' && grant === 'demo') || url.searchParams.get('demo') === 'true';
      const demoLink = `${publicUrl}${rawPath}?demo=true`;
      let role: 'readWrite' | 'readOnly' | 'demo';
      if (demo) role = 'demo';
      else {
        if (typeof secret !== 'string' || !appSecrets.has(secret)) throw fail(401, 'The app secret token is missing or not valid.', `Send a valid X-AppSecretToken header. Try the demo: ${demoLink}`);
        const r = typeof grant === 'string' ? grants.get(grant) : undefined;
        if (r === undefined) throw fail(401, 'The agreement grant token is missing, not valid or has been revoked.', `Send a valid X-AgreementGrantToken header. Try the demo: ${demoLink}`);
        role = r;
      }
      // Query parameters the docs do not describe
      const unknown = [...new Set(url.searchParams.keys())].filter((k) => !(INVOICING_QUERY_PARAMETERS as readonly string[]).includes(k));
      if (unknown.length) {
        stats.undocumentedQuery.push(...unknown);
        if (switches.unknownQuery === 'reject')
          throw fail(400, 'Could not parse query string.', `Query parameters are ${INVOICING_QUERY_PARAMETERS.join(', ')} (lower-case).`, {
            errors: unknown.map((k) => `The query parameter '${k}' is not supported.`),
          });
      }
      // Path
      const seg: string[] = [];
      for (const s of rawSegments) {
        const d = decodeIdentifier(s);
        if (d === null) throw notFound();
        seg.push(d);
      }
      if (method === 'GET') {
        const result = read(seg, rawPath, url.searchParams);
        if (Buffer.isBuffer(result)) {
          stats.byStatus[200] = (stats.byStatus[200] ?? 0) + 1;
          res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': result.length });
          res.end(result);
          return;
        }
        return send(200, result);
      }
      if (!isWriteRoute(method, seg)) throw fail(405, 'Method not allowed.', `${method} is not supported on ${rawPath}.`, {}, { allow: 'GET' });
      if (role !== 'readWrite') throw fail(403, 'Access denied.', role === 'demo' ? 'The demo agreement is read-only.' : 'The agreement grant role does not allow writes.');
      const type = String(req.headers['content-type'] ?? '');
      if (!/^application\/json\b/i.test(type)) throw fail(415, 'Unsupported media type.', 'Send Content-Type: application/json.');
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        throw fail(400, 'Could not parse the request body.', 'The body is not valid JSON.');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fail(400, 'Could not parse the request body.', 'The body must be a JSON object.');
      const out = write(method, seg, body as Row);
      if (switches.writeAnswer === 'empty') {
        // The statuses the docs list include 204: a PUT answered 204, a POST 201 + Location, no body.
        const status = out.status === 200 ? 204 : out.status;
        logWrite(status);
        stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
        res.writeHead(status, out.location ? { location: out.location } : {});
        res.end();
        return;
      }
      logWrite(out.status);
      return send(out.status, absolutize(out.body, publicUrl), out.location ? { location: out.location } : {});
    } catch (error) {
      const e = error instanceof HttpError ? error : fail(500, 'An error occurred.', error instanceof Error ? error.message : String(error));
      logWrite(e.status);
      send(e.status, e.body, e.headers);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(500, 'An error occurred.', String(error)));
    });
  });
  const { origin: url, port } = await listen(server, options.port ?? 0, host);
  publicUrl = (options.publicUrl ?? url).replace(/\/$/, '');

  return {
    url,
    publicUrl,
    port,
    get switches() {
      return switches;
    },
    stats,
    requests,
    data,
    setSwitches(partial) {
      const problem = switchError(partial, SWITCH_CHECKS);
      if (problem !== undefined) throw new Error(problem);
      switches = { ...switches, ...partial };
    },
    resetSwitches() {
      switches = { ...initialSwitches };
    },
    resetStats,
    revokeGrant(token) {
      grants.delete(token);
    },
    close: closeOnce(server, delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.INVOICING_SANDBOX_PORT ?? 4115);
  const sandbox = await startInvoicingSandbox({ port });
  process.stdout.write(
    `e-conomic sandbox listening on ${sandbox.url}\n` +
      `  curl -H 'X-AppSecretToken: ${INVOICING_SANDBOX_APP_SECRET}' -H 'X-AgreementGrantToken: ${INVOICING_SANDBOX_GRANT}' ${sandbox.url}/customers?pagesize=5\n` +
      `  curl '${sandbox.url}/accounting-years/2023_6_2024/periods?demo=true'\n`,
  );
  closeOnSignals(() => sandbox.close());
}

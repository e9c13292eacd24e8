// The invoicing sandbox's published constants (tokens, limits, error codes, documented query
// parameters and write-body properties) and its switches with their checks.
import { INVOICING_DEFAULT_TODAY } from './data.ts';

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
export const INVOICING_FAULTS = [
  'none',
  'throttled',
  'serverError',
  'notImplemented',
  'forbidden',
  'htmlError',
  'notJson',
  'slow',
] as const;
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
export const INVOICING_CUSTOMER_READ_ONLY = [
  'balance',
  'dueAmount',
  'lastUpdated',
  'self',
  'contacts',
  'deliveryLocations',
  'invoices',
  'totals',
  'templates',
] as const;
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

export const DEFAULT_SWITCHES: InvoicingSwitches = {
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

const isCount = (v: unknown, max: number): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
export const SWITCH_CHECKS: { readonly [K in keyof InvoicingSwitches]: (v: unknown) => boolean } = {
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

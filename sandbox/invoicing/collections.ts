// Collections of the invoicing sandbox: the filterable and sortable fields per resource, paging
// (`skippages`, `pagesize`, links), absolute links against the public origin, and the §2
// identifier encoding of path segments.
import { DECODE_TABLE, type Json, type Row } from './data.ts';
import { fail, queryError } from './errors.ts';
import { matches, parseFilter, parseSort, QueryError, sortRows } from './query.ts';
import type { InvoicingState } from './state.ts';
import { INVOICING_DEFAULT_PAGE_SIZE, INVOICING_MAX_PAGE_SIZE } from './switches.ts';

export interface CollectionSpec {
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
export const SPECS: Readonly<Record<string, CollectionSpec>> = {
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
  accounts: {
    filterable: ['accountNumber', 'accountType', 'balance', 'debitCredit', 'name', 'barred'],
    defaultSort: 'accountNumber',
    booleans: ['barred'],
  },
  products: {
    filterable: ['productNumber', 'name', 'salesPrice', 'costPrice', 'barred'],
    defaultSort: 'productNumber',
    booleans: ['barred'],
  },
  suppliers: { filterable: ['supplierNumber', 'name', 'currency'], defaultSort: 'supplierNumber' },
  'vat-accounts': { filterable: ['vatCode', 'name', 'ratePercentage'], defaultSort: 'vatCode' },
  'customer-groups': { filterable: ['customerGroupNumber', 'name'], defaultSort: 'customerGroupNumber' },
  'payment-terms': {
    filterable: ['paymentTermsNumber', 'name', 'paymentTermsType', 'daysOfCredit'],
    defaultSort: 'paymentTermsNumber',
  },
  'vat-zones': { filterable: ['vatZoneNumber', 'name'], defaultSort: 'vatZoneNumber' },
  layouts: { filterable: ['layoutNumber', 'name'], defaultSort: 'layoutNumber', booleans: ['deleted'] },
  units: { filterable: ['unitNumber', 'name'], defaultSort: 'unitNumber' },
  'accounting-years': {
    filterable: ['year', 'fromDate', 'toDate', 'closed'],
    defaultSort: 'fromDate',
    booleans: ['closed'],
  },
  periods: {
    filterable: ['periodNumber', 'fromDate', 'toDate', 'closed'],
    defaultSort: 'periodNumber',
    booleans: ['closed'],
  },
  entries: {
    filterable: [
      'entryNumber',
      'entryType',
      'date',
      'amount',
      'text',
      'voucherNumber',
      'account.accountNumber',
      'customer.customerNumber',
    ],
    defaultSort: 'entryNumber',
  },
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
export function absolutize(value: Json, base: string): Json {
  if (Array.isArray(value)) return value.map((v) => absolutize(v, base));
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value))
    out[k] = typeof v === 'string' && LINK_KEYS.has(k) && v.startsWith('/') ? base + v : absolutize(v, base);
  return out;
}

export function intParam(query: URLSearchParams, name: string, fallback: number, min: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw fail(400, `Could not parse query string ${name}.`, `${name} must be an integer of at least ${min}.`, {
      errors: [`The value '${raw}' is not valid for ${name}.`],
    });
  return Number(raw);
}

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

export const PDF_BYTES = (n: number): Buffer =>
  Buffer.from(
    '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages ' +
      '/Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 ' +
      `595 842] >> endobj\n% Invoice ${n}\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
    'latin1',
  );

/** One page of `rows` as e-conomic answers a collection: filtered, sorted, paged, with links. */
export function collection(
  s: InvoicingState,
  rows: readonly Row[],
  spec: CollectionSpec,
  path: string,
  query: URLSearchParams,
  metaData?: Row,
): Row {
  let pageSize = intParam(query, 'pagesize', INVOICING_DEFAULT_PAGE_SIZE, 1);
  if (pageSize > INVOICING_MAX_PAGE_SIZE) {
    if (s.switches.pageSizeOverMax === 'reject')
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
    return `${s.publicUrl}${path}?${q.toString()}`;
  };
  const page = selected.slice(skipPages * pageSize, (skipPages + 1) * pageSize);
  return {
    collection: page.map((r) => absolutize(r, s.publicUrl)),
    ...(metaData ? { metaData: absolutize(metaData, s.publicUrl) } : {}),
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
}

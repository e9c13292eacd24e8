// The GET routes of the invoicing sandbox (upstreams/invoicing.md §2), as a table over the decoded
// path segments: the root and /self, the simple resources, invoices (lists computed against the
// switchable "today", totals, single invoices and their PDF), accounting years and account years.
import { findSegmentRoute, type Route } from '../http-kit.ts';
import { INVOICING_BASE_CURRENCY, type Row, round2, yearPath } from './data.ts';
import { absolutize, type CollectionSpec, collection, PDF_BYTES, SPECS } from './collections.ts';
import { notFound } from './errors.ts';
import type { InvoicingState } from './state.ts';
import { INVOICING_AGREEMENT_NUMBER } from './switches.ts';

interface ReadRequest {
  readonly s: InvoicingState;
  /** The path as received (paging links repeat it). */
  readonly path: string;
  readonly query: URLSearchParams;
}

/** A JSON body, or the bytes of a PDF. */
type ReadHandler = (request: ReadRequest, params: string[]) => Row | Buffer;

const overdue = (s: InvoicingState, b: Row): boolean =>
  (b.remainder as number) !== 0 && (b.dueDate as string) < s.switches.today;
const withoutLines = (b: Row): Row => {
  const { lines: _lines, ...rest } = b;
  return rest;
};
const base = (amount: number, b: Row): number => round2((amount * (b.exchangeRate as number)) / 100);
const sum = (rows: readonly Row[], f: (r: Row) => number): number => round2(rows.reduce((total, r) => total + f(r), 0));

function totals(s: InvoicingState): Row {
  const paid = s.data.booked.filter((b) => (b.remainder as number) === 0);
  const unpaid = s.data.booked.filter((b) => (b.remainder as number) !== 0);
  const part = (rows: Row[]): Row => ({
    invoiceCount: rows.length,
    netAmountInBaseCurrency: sum(rows, (r) => r.netAmountInBaseCurrency as number),
    grossRemainderInBaseCurrency: sum(rows, (r) => base(r.remainder as number, r)),
  });
  return {
    drafts: {
      invoiceCount: s.data.drafts.length,
      netAmountInBaseCurrency: sum(s.data.drafts, (r) => r.netAmountInBaseCurrency as number),
      self: '/invoices/totals/drafts',
    },
    booked: {
      invoiceCount: s.data.booked.length,
      netAmountInBaseCurrency: sum(s.data.booked, (r) => r.netAmountInBaseCurrency as number),
      paid: {
        invoiceCount: paid.length,
        netAmountInBaseCurrency: sum(paid, (r) => r.netAmountInBaseCurrency as number),
        self: '/invoices/totals/booked/paid',
      },
      unpaid: {
        ...part(unpaid),
        overdue: { ...part(unpaid.filter((b) => overdue(s, b))), self: '/invoices/totals/booked/unpaid/overdue' },
        notOverdue: {
          ...part(unpaid.filter((b) => !overdue(s, b))),
          self: '/invoices/totals/booked/unpaid/not-overdue',
        },
        self: '/invoices/totals/booked/unpaid',
      },
      self: '/invoices/totals/booked',
    },
    self: '/invoices/totals',
  };
}

function yearTotals(s: InvoicingState, year: string): Row[] {
  return s.data.accounts
    .filter((a) => s.data.entries.has(a.accountNumber as number))
    .map((a) => {
      const y = s.data.years.find((x) => x.year === year)!;
      const list = s.data.entries.get(a.accountNumber as number)!.get(year) ?? [];
      return {
        account: { accountNumber: a.accountNumber as number, self: a.self as string },
        fromDate: y.fromDate as string,
        toDate: y.toDate as string,
        totalInBaseCurrency: sum(list, (e) => e.amountInBaseCurrency as number),
      };
    });
}

function byKey(rows: readonly Row[], key: string, id: string): Row {
  const row = rows.find((r) => String(r[key]) === id);
  if (!row) throw notFound();
  return row;
}
const yearOf = (s: InvoicingState, id: string): Row => byKey(s.data.years, 'year', id);

const SIMPLE: Readonly<Record<string, readonly [rows: (s: InvoicingState) => Row[], key: string]>> = {
  customers: [(s) => s.data.customers, 'customerNumber'],
  products: [(s) => s.data.products, 'productNumber'],
  suppliers: [(s) => s.data.suppliers, 'supplierNumber'],
  'vat-accounts': [(s) => s.data.vatAccounts, 'vatCode'],
  'customer-groups': [(s) => s.data.customerGroups, 'customerGroupNumber'],
  'payment-terms': [(s) => s.data.paymentTerms, 'paymentTermsNumber'],
  'vat-zones': [(s) => s.data.vatZones, 'vatZoneNumber'],
  layouts: [(s) => s.data.layouts, 'layoutNumber'],
  units: [(s) => s.data.units, 'unitNumber'],
  accounts: [(s) => s.data.accounts, 'accountNumber'],
};

/** The booked-invoice lists under /invoices/{list} (each computed against "today"). */
const INVOICE_LISTS: Readonly<Record<string, (s: InvoicingState) => Row[]>> = {
  booked: (s) => s.data.booked,
  overdue: (s) => s.data.booked.filter((b) => overdue(s, b)),
  paid: (s) => s.data.booked.filter((r) => (r.remainder as number) === 0),
  unpaid: (s) => s.data.booked.filter((r) => (r.remainder as number) !== 0),
  'not-due': (s) => s.data.booked.filter((r) => (r.remainder as number) !== 0 && !overdue(s, r)),
  sent: (s) => s.data.booked.filter((r) => (r.bookedInvoiceNumber as number) % 3 !== 0),
};

const root: ReadHandler = ({ s }) => ({
  apiName: 'e-conomic REST API (sandbox)',
  resources: Object.keys(SIMPLE)
    .concat(['invoices', 'accounting-years', 'self'])
    .map((r) => ({ name: r, href: `${s.publicUrl}/${r}` })),
  self: `${s.publicUrl}/`,
});

const self: ReadHandler = ({ s }) =>
  absolutize(
    {
      agreementNumber: INVOICING_AGREEMENT_NUMBER,
      agreementType: { agreementTypeNumber: 1, name: 'Small' },
      company: { name: 'Demo Bikes ApS', companyIdentificationNumber: '12345678', vatNumber: 'DK12345678' },
      user: {
        agreementNumber: INVOICING_AGREEMENT_NUMBER,
        loginId: 'demo',
        name: 'Demo User',
        email: 'demo@example.com',
      },
      bankInformation: {},
      settings: { baseCurrency: INVOICING_BASE_CURRENCY },
      canSendElectronicInvoice: false,
      self: '/self',
    },
    s.publicUrl,
  ) as Row;

const invoiceList: ReadHandler = ({ s, path, query }, [name]) => {
  const list = (rows: Row[], spec: CollectionSpec): Row => collection(s, rows.map(withoutLines), spec, path, query);
  if (name === 'totals') return absolutize(totals(s), s.publicUrl) as Row;
  if (name === 'drafts') return list(s.data.drafts, SPECS.drafts!);
  const rows = INVOICE_LISTS[name!];
  if (rows) return list(rows(s), SPECS.booked!);
  throw notFound();
};

/**
 * A booked invoice or draft (`/invoices/{kind}/{n}`), or a booked invoice's PDF (`…/pdf`, or `…/document` when only
 * linked).
 */
const invoice: ReadHandler = ({ s }, [kind, id, document]) => {
  if (kind !== 'booked' && kind !== 'drafts') throw notFound();
  const key = kind === 'booked' ? 'bookedInvoiceNumber' : 'draftInvoiceNumber';
  const row = byKey(kind === 'booked' ? s.data.booked : s.data.drafts, key, id!);
  const number = row[key] as number;
  const linkOnly = kind === 'booked' && s.switches.pdfPath === 'linkOnly';
  if (document === undefined)
    return absolutize(
      linkOnly ? { ...row, pdf: { download: `/invoices/booked/${number}/document` } } : row,
      s.publicUrl,
    ) as Row;
  if (document === (linkOnly ? 'document' : 'pdf')) return PDF_BYTES(number);
  throw notFound();
};

const accountingYear: ReadHandler = ({ s, path, query }, [id, part, n]) => {
  const y = yearOf(s, id!);
  const year = y.year as string;
  if (part === undefined) return absolutize(y, s.publicUrl) as Row;
  if (part === 'periods' && n === undefined)
    return collection(s, s.data.periods.get(year)!, SPECS.periods!, path, query);
  if (part === 'periods') return absolutize(byKey(s.data.periods.get(year)!, 'periodNumber', n!), s.publicUrl) as Row;
  if (part === 'totals' && n === undefined)
    return collection(s, yearTotals(s, year), SPECS['year-totals']!, path, query);
  if (part === 'entries' && n === undefined)
    return collection(
      s,
      [...s.data.entries.values()].flatMap((m) => m.get(year) ?? []),
      SPECS.entries!,
      path,
      query,
    );
  throw notFound();
};

/** `/accounts/{n}/accounting-years[/{year}/totals|entries]`. */
const accountYears: ReadHandler = ({ s, path, query }, [id, part, yearId, what]) => {
  const account = byKey(s.data.accounts, 'accountNumber', id!);
  const accountNumber = account.accountNumber as number;
  if (part !== 'accounting-years') throw notFound();
  if (yearId === undefined) return collection(s, s.data.years, SPECS['accounting-years']!, path, query);
  const year = yearOf(s, yearId).year as string;
  if (what === 'totals') {
    const t = yearTotals(s, year).find((x) => (x.account as Row).accountNumber === accountNumber);
    const y = yearOf(s, year);
    return absolutize(
      {
        ...(t ?? {
          account: { accountNumber, self: account.self as string },
          fromDate: y.fromDate as string,
          toDate: y.toDate as string,
          totalInBaseCurrency: 0,
        }),
        self: `/accounts/${accountNumber}/accounting-years/${yearPath(year)}/totals`,
      },
      s.publicUrl,
    ) as Row;
  }
  if (what === 'entries')
    return collection(s, s.data.entries.get(accountNumber)?.get(year) ?? [], SPECS.entries!, path, query);
  throw notFound();
};

const simpleList: ReadHandler = ({ s, path, query }, [resource]) => {
  const simple = SIMPLE[resource!];
  if (!simple) throw notFound();
  return collection(
    s,
    simple[0](s),
    SPECS[resource!]!,
    path,
    query,
    resource === 'customers'
      ? { create: { description: 'Create a new customer.', href: '/customers', httpMethod: 'post' } }
      : undefined,
  );
};

const simpleItem: ReadHandler = ({ s }, [resource, id]) => {
  const simple = SIMPLE[resource!];
  if (!simple) throw notFound();
  return absolutize(byKey(simple[0](s), simple[1], id!), s.publicUrl) as Row;
};

/** In order: the first template that fits the decoded segments answers; none is a 404. */
const READ_ROUTES: readonly Route<ReadHandler>[] = [
  { path: '/', handle: root },
  { path: '/self', handle: self },
  { path: '/invoices/:list', handle: invoiceList },
  { path: '/invoices/:kind/:n', handle: invoice },
  { path: '/invoices/:kind/:n/:document', handle: invoice },
  {
    path: '/accounting-years',
    handle: ({ s, path, query }) => collection(s, s.data.years, SPECS['accounting-years']!, path, query),
  },
  { path: '/accounting-years/:year', handle: accountingYear },
  { path: '/accounting-years/:year/:part', handle: accountingYear },
  { path: '/accounting-years/:year/:part/:n', handle: accountingYear },
  { path: '/accounts/:n/:part', handle: accountYears },
  { path: '/accounts/:n/:part/:year', handle: accountYears },
  { path: '/accounts/:n/:part/:year/:what', handle: accountYears },
  { path: '/:resource', handle: simpleList },
  { path: '/:resource/:id', handle: simpleItem },
];

/** GET: the body (JSON) or PDF bytes; an unknown path is a 404. */
export function read(s: InvoicingState, seg: readonly string[], path: string, query: URLSearchParams): Row | Buffer {
  const route = findSegmentRoute(READ_ROUTES, 'GET', seg);
  if (route === undefined) throw notFound();
  return route.handle({ s, path, query }, route.params);
}

// Demo data of the e-conomic sandbox (../shared/upstreams/invoicing.md §4, last item), generated
// from a fixed seed: accounting years including the split year 2023/2024 and a short year whose
// periods are not 1..12, 60 customers (one without `dueAmount`), 150 booked invoices (some
// overdue, one credit note), 10 drafts, 80 accounts of mixed `accountType` with entries, 3 VAT
// zones, layouts, units, payment terms (one of type `dueDate`), customer groups, products,
// suppliers and VAT accounts. Records hold relative links (`/customers/1001`); the server makes
// them absolute from its configurable base URL when it answers.
import { mulberry32 } from '../seeded-random.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Row = { [key: string]: Json };

/** The agreement's base currency. */
export const INVOICING_BASE_CURRENCY = 'DKK';
/** Currencies the agreement knows (anything else is E06000 on a write); exchange rate per 100 units. */
export const INVOICING_CURRENCIES: Readonly<Record<string, number>> = {
  DKK: 100,
  EUR: 745.6,
  SEK: 64.2,
  NOK: 63.1,
  USD: 688.4,
  GBP: 871.3,
};
/** The default "today" that totals and overdue lists are computed against. */
export const INVOICING_DEFAULT_TODAY = '2025-06-15';
/** Domestic VAT rate (VAT zone 1). */
export const INVOICING_DOMESTIC_VAT_PERCENT = 25;

export const INVOICING_DEMO_COUNTS = { customers: 60, booked: 150, drafts: 10, accounts: 80 } as const;
/** The customer whose record lacks `dueAmount` (older schema, §3 #5). */
export const INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT = 1017;
/** The booked invoice that is a credit note (negative amounts). */
export const INVOICING_CREDIT_NOTE_NUMBER = 20_077;
/** The split accounting year (path `2023_6_2024`). */
export const INVOICING_SPLIT_YEAR = '2023/2024';
/** The short accounting year whose periods are numbered 1..6. */
export const INVOICING_SHORT_YEAR = '2023';
/** The payment terms of type `dueDate` (a draft needs `dueDate`). */
export const INVOICING_DUE_DATE_TERMS = 4;

export interface InvoicingData {
  customers: Row[];
  booked: Row[];
  drafts: Row[];
  accounts: Row[];
  years: Row[];
  /** By year string. */
  periods: Map<string, Row[]>;
  /** Entries by account number, then by year string. */
  entries: Map<number, Map<string, Row[]>>;
  products: Row[];
  suppliers: Row[];
  vatAccounts: Row[];
  vatZones: Row[];
  layouts: Row[];
  units: Row[];
  paymentTerms: Row[];
  customerGroups: Row[];
}

export const yearPath = (year: string): string => year.replaceAll('/', '_6_');

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const iso = (d: Date): string => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
export const addDays = (date: string, days: number): string =>
  iso(new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000));
export const round2 = (n: number): number => Math.round(n * 100) / 100;

const FIRST = [
  'Nordic',
  'Blue',
  'Hansen',
  'Jensen',
  'Fjord',
  'Copenhagen',
  'Aarhus',
  'Baltic',
  'Viking',
  'Green',
  'Odense',
  'Polar',
];
const SECOND = [
  'Trading',
  'Consulting',
  'Design',
  'Logistics',
  'Foods',
  'Systems',
  'Bikes',
  'Media',
  'Build',
  'Energy',
];
const SUFFIX = ['ApS', 'A/S', 'IVS', 'AB', 'GmbH', 'Ltd'];
const CITIES: ReadonlyArray<readonly [string, string, string]> = [
  ['København K', '1050', 'Denmark'],
  ['Aarhus C', '8000', 'Denmark'],
  ['Odense C', '5000', 'Denmark'],
  ['Aalborg', '9000', 'Denmark'],
  ['Malmö', '21120', 'Sweden'],
  ['Hamburg', '20095', 'Germany'],
  ['London', 'EC1A 1BB', 'United Kingdom'],
];

export const VAT_ZONES: readonly Row[] = [
  { vatZoneNumber: 1, name: 'Domestic', enabledForCustomer: true, enabledForSupplier: true },
  { vatZoneNumber: 2, name: 'EU', enabledForCustomer: true, enabledForSupplier: true },
  { vatZoneNumber: 3, name: 'Abroad', enabledForCustomer: true, enabledForSupplier: true },
];
const PAYMENT_TERMS: readonly Row[] = [
  { paymentTermsNumber: 1, name: 'Netto 8 dage', daysOfCredit: 8, paymentTermsType: 'net' },
  { paymentTermsNumber: 2, name: 'Netto 14 dage', daysOfCredit: 14, paymentTermsType: 'net' },
  { paymentTermsNumber: 3, name: 'Løbende måned + 30 dage', daysOfCredit: 30, paymentTermsType: 'invoiceMonth' },
  { paymentTermsNumber: INVOICING_DUE_DATE_TERMS, name: 'Forfaldsdato', paymentTermsType: 'dueDate' },
  { paymentTermsNumber: 5, name: 'Kontant', paymentTermsType: 'paidInCash' },
];

function ref(kind: string, key: string, value: number | string, extra: Row = {}): Row {
  return { [key]: value, ...extra, self: `/${kind}/${typeof value === 'string' ? encodeIdentifier(value) : value}` };
}

/** The §2 identifier encoding (`/` → `_6_` …; anything else standard URL-encoded). */
const ENCODE_TABLE: Readonly<Record<string, string>> = {
  '<': '_0_',
  '>': '_1_',
  '*': '_2_',
  '%': '_3_',
  ':': '_4_',
  '&': '_5_',
  '/': '_6_',
  '\\': '_7_',
  _: '_8_',
  ' ': '_9_',
  '?': '_10_',
  '.': '_11_',
  '#': '_12_',
  '+': '_13_',
};
export const DECODE_TABLE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(ENCODE_TABLE).map(([k, v]) => [v, k]),
);
export function encodeIdentifier(id: string): string {
  return [...id].map((c) => ENCODE_TABLE[c] ?? encodeURIComponent(c)).join('');
}

export function customerLinks(n: number): Row {
  return {
    contacts: `/customers/${n}/contacts`,
    deliveryLocations: `/customers/${n}/delivery-locations`,
    invoices: {
      drafts: `/customers/${n}/invoices/drafts`,
      booked: `/customers/${n}/invoices/booked`,
      self: `/customers/${n}/invoices`,
    },
    totals: `/customers/${n}/totals`,
    templates: `/customers/${n}/templates`,
    self: `/customers/${n}`,
  };
}

export const paymentTermsRef = (n: number): Row => {
  const t = PAYMENT_TERMS.find((p) => p.paymentTermsNumber === n)!;
  return ref('payment-terms', 'paymentTermsNumber', n, {
    ...(t.daysOfCredit === undefined ? {} : { daysOfCredit: t.daysOfCredit }),
    name: t.name as string,
    paymentTermsType: t.paymentTermsType as string,
  });
};

/** Amounts of invoice lines: net per line, then VAT by zone (25 % domestic, 0 otherwise). */
export function invoiceAmounts(lines: readonly Row[], vatZoneNumber: number, exchangeRate: number): Row {
  const net = round2(lines.reduce((s, l) => s + (l.totalNetAmount as number), 0));
  const vat = vatZoneNumber === 1 ? round2((net * INVOICING_DOMESTIC_VAT_PERCENT) / 100) : 0;
  const gross = round2(net + vat);
  const base = (v: number): number => round2((v * exchangeRate) / 100);
  return {
    netAmount: net,
    grossAmount: gross,
    vatAmount: vat,
    roundingAmount: 0,
    netAmountInBaseCurrency: base(net),
    grossAmountInBaseCurrency: base(gross),
  };
}

export function lineTotal(quantity: number, unitNetPrice: number, discountPercentage: number): number {
  return round2(quantity * unitNetPrice * (1 - discountPercentage / 100));
}

export function buildInvoicingData(seed = 15_015): InvoicingData {
  const rnd = mulberry32(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

  const vatZones = VAT_ZONES.map((z) => ({ ...z, self: `/vat-zones/${z.vatZoneNumber}` }));
  const paymentTerms = PAYMENT_TERMS.map((t) => ({ ...t, self: `/payment-terms/${t.paymentTermsNumber}` }));
  const layouts: Row[] = [
    { layoutNumber: 19, name: 'Standard', self: '/layouts/19' },
    { layoutNumber: 21, name: 'Modern blå', self: '/layouts/21' },
    { layoutNumber: 22, name: 'Engelsk', deleted: true, self: '/layouts/22' },
  ];
  const units: Row[] = [
    { unitNumber: 1, name: 'stk.', self: '/units/1' },
    { unitNumber: 2, name: 'timer', self: '/units/2' },
    { unitNumber: 3, name: 'kg', self: '/units/3' },
    { unitNumber: 4, name: 'm²', self: '/units/4' },
  ];
  const customerGroups: Row[] = [
    {
      customerGroupNumber: 1,
      name: 'Indenlandske kunder',
      account: ref('accounts', 'accountNumber', 5600),
      self: '/customer-groups/1',
    },
    {
      customerGroupNumber: 2,
      name: 'EU-kunder',
      account: ref('accounts', 'accountNumber', 5600),
      self: '/customer-groups/2',
    },
    {
      customerGroupNumber: 3,
      name: 'Udenlandske kunder',
      account: ref('accounts', 'accountNumber', 5600),
      self: '/customer-groups/3',
    },
  ];

  // Accounts: 80 of mixed types, numbered 1000.., with headings and sums between them.
  const TYPES = [
    'profitAndLoss',
    'profitAndLoss',
    'profitAndLoss',
    'status',
    'status',
    'heading',
    'headingStart',
    'totalFrom',
    'sumInterval',
    'sumAlpha',
  ] as const;
  const ACCOUNT_WORDS = [
    'Salg',
    'Varekøb',
    'Løn',
    'Husleje',
    'Kontorartikler',
    'Bank',
    'Debitorer',
    'Kreditorer',
    'Moms',
    'Renter',
    'Afskrivninger',
    'Inventar',
  ];
  const accounts: Row[] = [];
  for (let i = 0; i < INVOICING_DEMO_COUNTS.accounts; i++) {
    const accountNumber = i === 79 ? 5600 : 1000 + i * 50;
    const accountType = i === 79 ? 'status' : i < TYPES.length ? TYPES[i]! : pick(TYPES);
    const posting = accountType === 'profitAndLoss' || accountType === 'status';
    accounts.push({
      accountNumber,
      accountType,
      balance: posting ? round2((rnd() - 0.4) * 500_000) : 0,
      draftBalance: posting ? round2((rnd() - 0.5) * 2000) : 0,
      ...(accountType === 'heading' || accountType === 'headingStart'
        ? {}
        : { debitCredit: rnd() < 0.5 ? 'debit' : 'credit' }),
      name: `${pick(ACCOUNT_WORDS)} ${accountNumber}`,
      ...(i % 23 === 22 ? { barred: true } : {}),
      ...(posting && i % 3 === 0 ? { vatAccount: ref('vat-accounts', 'vatCode', i % 2 === 0 ? 'U25' : 'I25') } : {}),
      accountingYears: `/accounts/${accountNumber}/accounting-years`,
      self: `/accounts/${accountNumber}`,
    });
  }
  accounts.sort((a, b) => (a.accountNumber as number) - (b.accountNumber as number));

  const vatAccounts: Row[] = [
    {
      vatCode: 'I25',
      name: 'Salgsmoms 25 %',
      ratePercentage: 25,
      account: ref('accounts', 'accountNumber', 1050),
      vatType: { vatTypeNumber: 1, name: 'Salgsmoms' },
      self: '/vat-accounts/I25',
    },
    {
      vatCode: 'U25',
      name: 'Købsmoms 25 %',
      ratePercentage: 25,
      account: ref('accounts', 'accountNumber', 1100),
      vatType: { vatTypeNumber: 2, name: 'Købsmoms' },
      self: '/vat-accounts/U25',
    },
    {
      vatCode: 'UEUV',
      name: 'Moms af varekøb i EU',
      ratePercentage: 25,
      account: ref('accounts', 'accountNumber', 1150),
      vatType: { vatTypeNumber: 3, name: 'EU-køb' },
      self: '/vat-accounts/UEUV',
    },
    {
      vatCode: 'I0',
      name: 'Momsfrit salg',
      ratePercentage: 0,
      account: ref('accounts', 'accountNumber', 1050),
      vatType: { vatTypeNumber: 1, name: 'Salgsmoms' },
      self: '/vat-accounts/I0',
    },
  ];

  // Accounting years: calendar 2022, the short 2023 (six periods), the split years.
  const years: Row[] = [];
  const periods = new Map<string, Row[]>();
  const addYear = (year: string, fromDate: string, months: number, closed: boolean): void => {
    const from = new Date(`${fromDate}T00:00:00Z`);
    const list: Row[] = [];
    for (let m = 0; m < months; m++) {
      const start = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + m, 1));
      const end = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + m + 1, 0));
      list.push({
        periodNumber: m + 1,
        fromDate: iso(start),
        toDate: iso(end),
        ...(closed ? { closed: true } : {}),
        accountingYear: { year, self: `/accounting-years/${yearPath(year)}` },
        self: `/accounting-years/${yearPath(year)}/periods/${m + 1}`,
      });
    }
    periods.set(year, list);
    const toDate = list[list.length - 1]!.toDate as string;
    const y = yearPath(year);
    years.push({
      year,
      fromDate,
      toDate,
      ...(closed ? { closed: true } : {}),
      periods: `/accounting-years/${y}/periods`,
      entries: `/accounting-years/${y}/entries`,
      totals: `/accounting-years/${y}/totals`,
      vouchers: `/accounting-years/${y}/vouchers`,
      self: `/accounting-years/${y}`,
    });
  };
  addYear('2022', '2022-01-01', 12, true);
  addYear(INVOICING_SHORT_YEAR, '2023-01-01', 6, true);
  addYear(INVOICING_SPLIT_YEAR, '2023-07-01', 12, true);
  addYear('2024/2025', '2024-07-01', 12, false);
  addYear('2025/2026', '2025-07-01', 12, false);

  const products: Row[] = [];
  for (let i = 0; i < 25; i++) {
    const productNumber = i === 24 ? 'SVC/HOUR 1' : `P-${100 + i * 10}`;
    const salesPrice = round2(int(50, 5000) + int(0, 99) / 100);
    products.push({
      productNumber,
      name: `${pick(['Cykel', 'Stol', 'Lampe', 'Bord', 'Konsulent', 'Licens'])} ${i + 1}`,
      salesPrice,
      costPrice: round2(salesPrice * 0.6),
      unit: { unitNumber: i === 24 ? 2 : 1, name: i === 24 ? 'timer' : 'stk.' },
      self: `/products/${encodeIdentifier(productNumber)}`,
    });
  }

  const suppliers: Row[] = [];
  for (let i = 0; i < 15; i++) {
    const supplierNumber = 3001 + i;
    suppliers.push({
      supplierNumber,
      name: `${pick(FIRST)} ${pick(SECOND)} ${pick(SUFFIX)}`,
      currency: i % 5 === 4 ? 'EUR' : 'DKK',
      supplierGroup: { supplierGroupNumber: 1 },
      paymentTerms: paymentTermsRef(2),
      vatZone: ref('vat-zones', 'vatZoneNumber', 1),
      self: `/suppliers/${supplierNumber}`,
    });
  }

  const customers: Row[] = [];
  for (let i = 0; i < INVOICING_DEMO_COUNTS.customers; i++) {
    const customerNumber = 1001 + i;
    const [city, zip, country] = pick(CITIES);
    const foreign = country !== 'Denmark';
    const zone = !foreign ? 1 : country === 'United Kingdom' ? 3 : 2;
    const currency = !foreign ? 'DKK' : country === 'Sweden' ? 'SEK' : country === 'United Kingdom' ? 'GBP' : 'EUR';
    const name =
      i === 5 ? 'Acme (Nordic) ApS' : i === 6 ? 'Ærø Fiskeri A/S' : `${pick(FIRST)} ${pick(SECOND)} ${pick(SUFFIX)}`;
    customers.push({
      customerNumber,
      name,
      currency,
      balance: 0,
      ...(customerNumber === INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT ? {} : { dueAmount: 0 }),
      address: `${pick(['Vestergade', 'Nørregade', 'Havnegade', 'Storgade'])} ${int(1, 120)}`,
      city,
      zip,
      country,
      ...(i % 7 === 3
        ? {}
        : {
            email: `faktura@${
              name
                .split(' ')[0]!
                .toLowerCase()
                .replace(/[^a-z]/g, '') || 'kunde'
            }${customerNumber}.example`,
          }),
      telephoneAndFaxNumber: `+45 ${int(20, 99)} ${int(10, 99)} ${int(10, 99)} ${int(10, 99)}`,
      ...(foreign
        ? { vatNumber: `${country.slice(0, 2).toUpperCase()}${int(10_000_000, 99_999_999)}` }
        : { corporateIdentificationNumber: String(int(10_000_000, 99_999_999)) }),
      creditLimit: int(0, 10) * 10_000,
      ...(i % 17 === 16 ? { barred: true } : {}),
      lastUpdated: `2025-0${int(1, 5)}-${pad(int(1, 28))}T${pad(int(6, 18))}:${pad(int(0, 59))}:00Z`,
      customerGroup: ref('customer-groups', 'customerGroupNumber', zone),
      paymentTerms: paymentTermsRef(i % 11 === 10 ? 3 : i % 2 === 0 ? 1 : 2),
      vatZone: ref('vat-zones', 'vatZoneNumber', zone),
      layout: ref('layouts', 'layoutNumber', 19),
      ...customerLinks(customerNumber),
    });
  }

  const makeLines = (count: number, sign: number): Row[] => {
    const lines: Row[] = [];
    for (let l = 0; l < count; l++) {
      const product = pick(products);
      const quantity = sign * int(1, 10);
      const unitNetPrice = product.salesPrice as number;
      const discountPercentage = rnd() < 0.2 ? 10 : 0;
      lines.push({
        lineNumber: l + 1,
        sortKey: l + 1,
        description: product.name as string,
        product: { productNumber: product.productNumber as string, self: product.self as string },
        quantity,
        unit: product.unit as Row,
        unitNetPrice,
        discountPercentage,
        unitCostPrice: product.costPrice as number,
        totalNetAmount: lineTotal(quantity, unitNetPrice, discountPercentage),
      });
    }
    return lines;
  };

  const recipientOf = (c: Row): Row => ({
    name: c.name as string,
    address: c.address as string,
    zip: c.zip as string,
    city: c.city as string,
    country: c.country as string,
    vatZone: c.vatZone as Row,
  });
  const customerRef = (c: Row): Row => ({ customerNumber: c.customerNumber as number, self: c.self as string });

  const booked: Row[] = [];
  for (let i = 0; i < INVOICING_DEMO_COUNTS.booked; i++) {
    const bookedInvoiceNumber = 20_001 + i;
    const c = customers[i % 59 === 16 ? 16 : int(0, customers.length - 1)]!;
    const credit = bookedInvoiceNumber === INVOICING_CREDIT_NOTE_NUMBER;
    const date = addDays('2024-07-01', Math.floor((i * 349) / INVOICING_DEMO_COUNTS.booked) + int(0, 2));
    const terms = (c.paymentTerms as Row).paymentTermsNumber as number;
    const dueDate = addDays(date, terms === 1 ? 8 : terms === 2 ? 14 : 30);
    const lines = makeLines(int(1, 4), credit ? -1 : 1);
    const rate = INVOICING_CURRENCIES[c.currency as string]!;
    const amounts = invoiceAmounts(lines, (c.vatZone as Row).vatZoneNumber as number, rate);
    const ageDays = (Date.parse(`${INVOICING_DEFAULT_TODAY}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / 86_400_000;
    const paid = credit || ageDays > 120 ? rnd() < 0.9 : ageDays > 40 ? rnd() < 0.6 : rnd() < 0.2;
    const gross = amounts.grossAmount as number;
    const remainder = paid ? 0 : rnd() < 0.15 ? round2(gross / 2) : gross;
    booked.push({
      bookedInvoiceNumber,
      date,
      currency: c.currency as string,
      exchangeRate: rate,
      ...amounts,
      remainder,
      remainderInBaseCurrency: round2((remainder * rate) / 100),
      dueDate,
      paymentTerms: paymentTermsRef(terms),
      customer: customerRef(c),
      recipient: recipientOf(c),
      delivery: {
        address: c.address as string,
        zip: c.zip as string,
        city: c.city as string,
        country: c.country as string,
        deliveryDate: date,
      },
      notes: {
        heading: credit ? `Kreditnota til faktura ${bookedInvoiceNumber - 40}` : `Faktura ${bookedInvoiceNumber}`,
        ...(i % 4 === 0 ? { textLine1: 'Tak for handlen' } : {}),
      },
      references: { ...(i % 5 === 0 ? { other: `PO-${4000 + i}` } : {}) },
      layout: ref('layouts', 'layoutNumber', 19),
      pdf: { self: `/invoices/booked/${bookedInvoiceNumber}/pdf` },
      sent: `/invoices/booked/${bookedInvoiceNumber}/sent`,
      lines,
      self: `/invoices/booked/${bookedInvoiceNumber}`,
    });
  }
  // Customer balances follow from their open invoices.
  for (const c of customers) {
    const open = booked.filter((b) => (b.customer as Row).customerNumber === c.customerNumber);
    const remaining = round2(open.reduce((s, b) => s + (b.remainder as number), 0));
    c.balance = remaining;
    if ('dueAmount' in c)
      c.dueAmount = round2(
        open
          .filter((b) => (b.dueDate as string) < INVOICING_DEFAULT_TODAY)
          .reduce((s, b) => s + (b.remainder as number), 0),
      );
  }

  const drafts: Row[] = [];
  for (let i = 0; i < INVOICING_DEMO_COUNTS.drafts; i++) {
    const draftInvoiceNumber = i + 1;
    const c = customers[int(0, customers.length - 1)]!;
    const lines = makeLines(int(1, 3), 1);
    const rate = INVOICING_CURRENCIES[c.currency as string]!;
    const amounts = invoiceAmounts(lines, (c.vatZone as Row).vatZoneNumber as number, rate);
    const cost = round2(lines.reduce((s, l) => s + (l.unitCostPrice as number) * (l.quantity as number), 0));
    const date = addDays('2025-06-01', i);
    const terms = (c.paymentTerms as Row).paymentTermsNumber as number;
    drafts.push({
      draftInvoiceNumber,
      date,
      currency: c.currency as string,
      exchangeRate: rate,
      ...amounts,
      costPriceInBaseCurrency: round2((cost * rate) / 100),
      marginInBaseCurrency: round2(((amounts.netAmount as number) * rate) / 100 - (cost * rate) / 100),
      marginPercentage: amounts.netAmount
        ? round2((100 * ((amounts.netAmount as number) - cost)) / (amounts.netAmount as number))
        : 0,
      dueDate: addDays(date, terms === 1 ? 8 : terms === 2 ? 14 : 30),
      paymentTerms: paymentTermsRef(terms),
      customer: customerRef(c),
      recipient: recipientOf(c),
      notes: { heading: `Udkast ${draftInvoiceNumber}` },
      references: {},
      layout: ref('layouts', 'layoutNumber', 19),
      soap: { currentInvoiceHandle: { id: 100 + draftInvoiceNumber } },
      templates: {
        bookingInstructions: `/invoices/drafts/${draftInvoiceNumber}/templates/booking-instructions`,
        self: `/invoices/drafts/${draftInvoiceNumber}/templates`,
      },
      lines,
      self: `/invoices/drafts/${draftInvoiceNumber}`,
    });
  }

  // Entries of the posting accounts in every year.
  const entries = new Map<number, Map<string, Row[]>>();
  let entryNumber = 1;
  for (const a of accounts) {
    if (a.accountType !== 'profitAndLoss' && a.accountType !== 'status') continue;
    const byYear = new Map<string, Row[]>();
    for (const y of years) {
      const list: Row[] = [];
      const from = y.fromDate as string;
      const days = (Date.parse(`${y.toDate as string}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
      const count = int(3, 12);
      for (let e = 0; e < count; e++) {
        const amount = round2((rnd() - 0.45) * 20_000);
        const withCustomer = rnd() < 0.3;
        list.push({
          entryNumber: entryNumber++,
          entryType: pick(['financeVoucher', 'customerInvoice', 'supplierInvoice', 'customerPayment']),
          date: addDays(from, Math.floor((e * days) / count)),
          amount,
          amountInBaseCurrency: amount,
          currency: 'DKK',
          text: `Postering ${e + 1}`,
          voucherNumber: 500 + e,
          account: ref('accounts', 'accountNumber', a.accountNumber as number),
          ...(withCustomer ? { customer: customerRef(customers[e % customers.length]!) } : {}),
          ...(a.vatAccount ? { vatAccount: a.vatAccount } : {}),
          accountingYear: { year: y.year as string, self: y.self as string },
          self: `/accounting-years/${yearPath(y.year as string)}/entries/${entryNumber - 1}`,
        });
      }
      list.sort((p, q) => ((p.date as string) < (q.date as string) ? -1 : 1));
      byYear.set(y.year as string, list);
    }
    entries.set(a.accountNumber as number, byYear);
  }

  return {
    customers,
    booked,
    drafts,
    accounts,
    years,
    periods,
    entries,
    products,
    suppliers,
    vatAccounts,
    vatZones,
    layouts,
    units,
    paymentTerms,
    customerGroups,
  };
}

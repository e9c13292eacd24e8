// Seeded demo data for the ledger sandbox (sandbox/ledger/server.ts), a fake of the Uniconta
// WebAPI described in ../shared/upstreams/ledger.md.
//
// Rows are what `POST /Query/Get/{Entity}` returns: flat objects with the upstream PascalCase
// property names, null properties left out, dates as `yyyy-MM-ddT00:00:00`. The two demo companies:
//
//   40112 Nordlys Cykler ApS   a bike shop in Aarhus with two full years (2025 and 2026) of books:
//                              40 debtors, 25 creditors, ~200 debtor invoices, 30 sales orders,
//                              93 G/L accounts, 8 VAT codes, 150 items in 8 product groups,
//                              ~4,000 inventory postings and more than 50,000 ledger postings
//                              (mostly till receipts; far past `aggregate`'s 50 pages of 1000).
//   40113 Nordlys Ejendomme ApS the landlord of the shop: six tenants, monthly rent invoices, a few
//                              suppliers, no inventory.
//
// The books are internally consistent: every voucher balances, the G/L accounts' `ThisYear`
// (2026) and `PrevYear` (2025) are the sums of the postings, debtor and creditor balances are the
// sums of their open items, invoice totals are the sums of their inventory lines, and the item
// stock is the sum of its inventory postings. "Today" for the data is LEDGER_DEMO_AS_OF
// (2026-12-31): open items due before it are overdue. A handful of postings on the suspense
// account 9990 carry an unreadable `Amount` string (imported rows) so that `aggregate` meets
// non-numeric values; they are left out of every balance.
//
// Everything is deterministic (fixed-seed PRNGs, one per section) and built lazily, once per
// company, on first use. None of the names or numbers are real.
import { mulberry32 } from '../seeded-random.ts';

// ---------------------------------------------------------------------------------------------
// Types and entity schemas
// ---------------------------------------------------------------------------------------------

export type LedgerValue = string | number | boolean;
/** One entity row as returned by the WebAPI (null properties are simply absent). */
export type LedgerRow = Readonly<Record<string, LedgerValue>>;

export type LedgerPropertyType = 'string' | 'number' | 'integer' | 'boolean' | 'date';
export type LedgerEntitySchema = Readonly<Record<string, LedgerPropertyType>>;

export const LEDGER_ENTITIES = [
  'CompanyClient',
  'DebtorClient',
  'DebtorClientUser',
  'DebtorTransOpenClient',
  'DebtorInvoiceClient',
  'DebtorOrderClient',
  'CreditorClient',
  'CreditorTransOpenClient',
  'GLAccountClient',
  'GLVatClient',
  'GLTransClient',
  'InvItemClient',
  'InvItemClientUser',
  'InvGroupClient',
  'InvTransClient',
] as const;

export type LedgerEntity = (typeof LEDGER_ENTITIES)[number];
/** Entities whose rows are stored per company (`CompanyClient` is built per request). */
export type LedgerDataEntity = Exclude<LedgerEntity, 'CompanyClient'>;

/** `{ string: 'A B', number: 'C' }` → `{ A: 'string', B: 'string', C: 'number' }`. */
function schema(spec: Partial<Record<LedgerPropertyType, string>>): LedgerEntitySchema {
  const out: Record<string, LedgerPropertyType> = {};
  for (const [type, names] of Object.entries(spec) as Array<[LedgerPropertyType, string]>) {
    for (const name of names.split(/\s+/).filter((n) => n !== '')) out[name] = type;
  }
  return out;
}

const DEBTOR_SCHEMA = schema({
  string:
    'Account Name Group Address1 Address2 Address3 ZipCode City CountryName CompanyRegNo VatNumber EAN Currency Phone ContactEmail InvoiceEmail Payment VatZone Vat',
  number: 'CreditMax CurBalance Overdue CurBalanceCur OverdueCur',
  integer: 'Country',
  boolean: 'Blocked',
});

const OPEN_ITEM_INHERITED = {
  string: 'Currency Text',
  number: 'Amount AmountOpen AmountOpenCur',
  integer: 'Voucher Invoice',
  date: 'Date DueDate',
};

const INV_ITEM_SCHEMA = schema({
  string: 'Item Name ItemType EAN Unit Group',
  number: 'CostPrice PurchasePrice SalesPrice1 SalesPrice2 SalesPrice3 Qty QtyOnStock QtyReserved QtyOrdered Available',
  date: 'LastMovement',
  boolean: 'Blocked',
});

/** Custom user fields of the `…ClientUser` variants (two each). */
export const LEDGER_USER_FIELDS = {
  DebtorClientUser: ['Segment', 'SalesRep'],
  InvItemClientUser: ['Brand', 'WarrantyMonths'],
} as const;

/** Properties of every entity: filters and sorts on other names are silently ignored. */
const SCHEMAS: Readonly<Record<LedgerEntity, LedgerEntitySchema>> = {
  CompanyClient: schema({
    integer: 'PrimaryKeyId Country',
    string: 'Id CompanyName CountryName Currency VatNumber Address1 Address2 Address3 Email Phone',
  }),
  DebtorClient: DEBTOR_SCHEMA,
  DebtorClientUser: { ...DEBTOR_SCHEMA, Segment: 'string', SalesRep: 'string' },
  DebtorTransOpenClient: schema({
    string: `Account Name PaymentStatus Vat ${OPEN_ITEM_INHERITED.string}`,
    number: `FeeAmount ${OPEN_ITEM_INHERITED.number}`,
    integer: OPEN_ITEM_INHERITED.integer,
    date: OPEN_ITEM_INHERITED.date,
  }),
  DebtorInvoiceClient: schema({
    integer: 'PrimaryKeyId InvoiceNumber',
    string: 'Account Name Currency',
    number: 'SalesValue CostValue Margin MarginRatio NetAmount VatAmount TotalAmount',
    boolean: 'PricesInclVat Paid',
    date: 'CreditnoteDate Date DueDate',
  }),
  DebtorOrderClient: schema({
    integer: 'OrderNumber',
    string: 'Account Name Group GroupName',
    number: 'SalesValue Margin MarginRatio CurBalance Overdue CreditMax',
    date: 'NextInvoice SubscriptionEnded',
  }),
  CreditorClient: { ...DEBTOR_SCHEMA, PaymentMethod: 'string', PaymentId: 'string' },
  CreditorTransOpenClient: schema({
    string: `Account Name PaymentMethod PaymentId SWIFT Vat ${OPEN_ITEM_INHERITED.string}`,
    number: OPEN_ITEM_INHERITED.number,
    integer: OPEN_ITEM_INHERITED.integer,
    date: OPEN_ITEM_INHERITED.date,
  }),
  GLAccountClient: schema({
    string: 'Account Name AccountType Vat Currency DebetCredit',
    number: 'Balance CurBalanceCur ThisYear ThisYearDebit ThisYearCredit PrevYear PrevYearDebit PrevYearCredit',
    boolean: 'Blocked',
  }),
  GLVatClient: schema({
    string: 'Vat Name Account OffsetAccount VatType RateType',
    number: 'Rate Rate2',
    integer: 'Id',
    boolean: 'Exempt Blocked',
  }),
  GLTransClient: schema({
    date: 'Date DocumentDate',
    string:
      'Account Text Vat TransType Currency DCType DCAccount ReferenceNumber Project Dimension1 Dimension2 Dimension3 Dimension4 Dimension5',
    integer: 'Voucher VoucherLine Invoice',
    number: 'Amount AmountCur AmountVat AmountBase Qty',
  }),
  InvItemClient: INV_ITEM_SCHEMA,
  InvItemClientUser: { ...INV_ITEM_SCHEMA, Brand: 'string', WarrantyMonths: 'number' },
  InvGroupClient: schema({ string: 'Group Name SalesAccount CostAccount PurchaseAccount InvAccount' }),
  InvTransClient: schema({
    integer: 'LineNumber OrderNumber InvoiceNumber',
    date: 'Date',
    string: 'Item ItemName DCAccount AccountName MovementType Currency Warehouse Text',
    number: 'Qty NetAmount CostPrice SalesPrice',
  }),
};

/**
 * The entity schemas: the properties ledger.md §2 names for each entity, nothing else. There is no
 * invented row id (`RowId` is in no document the sandbox is built from); a client that needs a
 * stable order sorts on the documented properties.
 */
export const LEDGER_ENTITY_SCHEMAS: Readonly<Record<LedgerEntity, LedgerEntitySchema>> = SCHEMAS;

// ---------------------------------------------------------------------------------------------
// Companies, users and constants
// ---------------------------------------------------------------------------------------------

/** The demo company with the full data set (bike shop). */
export const LEDGER_DEMO_COMPANY_ID = 40112;
export const LEDGER_DEMO_COMPANY_NAME = 'Nordlys Cykler ApS';
/** The second company of the demo user (the shop's landlord; a small data set). */
export const LEDGER_DEMO_SECOND_COMPANY_ID = 40113;
export const LEDGER_DEMO_SECOND_COMPANY_NAME = 'Nordlys Ejendomme ApS';
/** A company id that exists nowhere (login → "NoCompanyId"). */
export const LEDGER_UNKNOWN_COMPANY_ID = 49999;

/** Server-login user with access to both demo companies. */
export const LEDGER_DEMO_USER = 'gateway-api';
export const LEDGER_DEMO_PASSWORD = 'Nordlys-Demo-2026';
/** An ordinary (interactive) user: right password, but not a server-login user. */
export const LEDGER_DEMO_INTERACTIVE_USER = 'bogholder';
export const LEDGER_DEMO_INTERACTIVE_PASSWORD = 'Bogholder-Demo-2026';

/** Login failure bodies (bare JSON strings). */
export const LEDGER_LOGIN_ERRORS = {
  noCompanyId: 'NoCompanyId',
  invalidCredentials: 'Invalid credentials',
  notServerLogin: 'UserIsNotServerLogin',
} as const;

/** "Today" of the demo data: open items due before it are overdue. */
export const LEDGER_DEMO_AS_OF = '2026-12-31';

/** `GLTransClient.DCType` values (the real values are unconfirmed, ledger.md §5). */
export const LEDGER_DC_TYPES = { debtor: 'Debtor', creditor: 'Creditor' } as const;
/** `InvTransClient.MovementType` values: `Debtor` = sale (negative `Qty`), `Creditor` = purchase, `Counting` = stock count. */
export const LEDGER_MOVEMENT_TYPES = ['Debtor', 'Creditor', 'Counting'] as const;
/** The G/L account whose imported postings carry non-numeric `Amount` strings. */
export const LEDGER_NON_NUMERIC_ACCOUNT = '9990';
export const LEDGER_NON_NUMERIC_AMOUNTS = ['n/a', '1.250,00', '#VALUE!', '12 500', 'unknown', '-'] as const;

export interface LedgerUser {
  readonly userId: number;
  readonly username: string;
  readonly password: string;
  readonly serverLogin: boolean;
  readonly companies: readonly number[];
}

export const LEDGER_USERS: readonly LedgerUser[] = [
  {
    userId: 7001,
    username: LEDGER_DEMO_USER,
    password: LEDGER_DEMO_PASSWORD,
    serverLogin: true,
    companies: [LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_SECOND_COMPANY_ID],
  },
  {
    userId: 7002,
    username: LEDGER_DEMO_INTERACTIVE_USER,
    password: LEDGER_DEMO_INTERACTIVE_PASSWORD,
    serverLogin: false,
    companies: [LEDGER_DEMO_COMPANY_ID],
  },
];

/** User names are matched case-insensitively, passwords exactly. */
export function findLedgerUser(username: string): LedgerUser | undefined {
  const wanted = username.toLowerCase();
  return LEDGER_USERS.find((u) => u.username.toLowerCase() === wanted);
}

/** `CompanyClient` rows of every company the sandbox knows. */
export const LEDGER_COMPANY_ROWS: readonly LedgerRow[] = [
  {
    PrimaryKeyId: LEDGER_DEMO_COMPANY_ID,
    Id: 'NORDLYS-CYKLER',
    CompanyName: LEDGER_DEMO_COMPANY_NAME,
    Country: 57,
    CountryName: 'Denmark',
    Currency: 'DKK',
    VatNumber: 'DK38471265',
    Address1: 'Mejlgade 41',
    Address2: '8000 Aarhus C',
    Email: 'bogholderi@nordlys-cykler.example',
    Phone: '86 12 34 56',
  },
  {
    PrimaryKeyId: LEDGER_DEMO_SECOND_COMPANY_ID,
    Id: 'NORDLYS-EJD',
    CompanyName: LEDGER_DEMO_SECOND_COMPANY_NAME,
    Country: 57,
    CountryName: 'Denmark',
    Currency: 'DKK',
    VatNumber: 'DK29854107',
    Address1: 'Mejlgade 39',
    Address2: '8000 Aarhus C',
    Email: 'admin@nordlys-ejendomme.example',
    Phone: '86 12 34 00',
  },
];

// ---------------------------------------------------------------------------------------------
// Deterministic helpers
// ---------------------------------------------------------------------------------------------

interface Rng {
  next(): number;
  int(min: number, max: number): number;
  amount(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T;
  chance(p: number): boolean;
}

function rng(seed: number): Rng {
  const next = mulberry32(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    amount: (min, max) => round2(min + next() * (max - min)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted: (items) => {
      let total = 0;
      for (const [, w] of items) total += w;
      let r = next() * total;
      for (const [item, w] of items) {
        r -= w;
        if (r < 0) return item;
      }
      return items[items.length - 1]![0];
    },
    chance: (p) => next() < p,
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Drops undefined and null values; key order is the literal's order. */
function compact(fields: Record<string, LedgerValue | null | undefined>): LedgerRow {
  const out: Record<string, LedgerValue> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== null) out[key] = value;
  return out;
}

const DAY_MS = 86_400_000;
const START_MS = Date.UTC(2025, 0, 1);
/** Days in the demo books (2025-01-01 is day 0, 2026-12-31 is day 729). */
const DAYS = 730;
const YEAR2_START = 365;
const AS_OF_DAY = DAYS - 1;

const dateCache = new Map<number, string>();

/** `yyyy-MM-ddT00:00:00` of a day index. */
function dt(day: number): string {
  let s = dateCache.get(day);
  if (s === undefined) {
    s = `${new Date(START_MS + day * DAY_MS).toISOString().slice(0, 10)}T00:00:00`;
    dateCache.set(day, s);
  }
  return s;
}

function weekday(day: number): number {
  return new Date(START_MS + day * DAY_MS).getUTCDay();
}

/** Month number 0..23 counted from January 2025. */
function monthIndex(day: number): number {
  const d = new Date(START_MS + day * DAY_MS);
  return (d.getUTCFullYear() - 2025) * 12 + d.getUTCMonth();
}

function dayOf(year: number, month: number, date: number): number {
  return Math.round((Date.UTC(year, month - 1, date) - START_MS) / DAY_MS);
}

function isLastDayOfMonth(day: number): boolean {
  return monthIndex(day + 1) !== monthIndex(day);
}

/** Moves a Saturday or Sunday to the following Monday. */
function businessDay(day: number): number {
  const w = weekday(day);
  return w === 6 ? day + 2 : w === 0 ? day + 1 : day;
}

/** A valid 8-digit CVR-like number (modulus 11 with weights 2,7,6,5,4,3,2,1). */
function cvrNumber(r: Rng): string {
  for (;;) {
    const digits = [r.int(1, 4), ...Array.from({ length: 7 }, () => r.int(0, 9))];
    const weights = [2, 7, 6, 5, 4, 3, 2, 1];
    if (digits.reduce((sum, d, i) => sum + d * weights[i]!, 0) % 11 === 0) return digits.join('');
  }
}

function ean13(prefix: string, n: number): string {
  const body = `${prefix}${String(n).padStart(12 - prefix.length, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

// ---------------------------------------------------------------------------------------------
// The book: vouchers, account totals and scheduled events
// ---------------------------------------------------------------------------------------------

type DcType = (typeof LEDGER_DC_TYPES)[keyof typeof LEDGER_DC_TYPES];

interface PostingLine {
  account: string;
  amount: number | string;
  text?: string;
  vat?: string;
  amountVat?: number;
  dc?: { type: DcType; account: string };
  invoice?: number;
  currency?: string;
  amountCur?: number;
  dimension1?: string;
  reference?: string;
}

interface AccountTotals {
  prevDebit: number;
  prevCredit: number;
  thisDebit: number;
  thisCredit: number;
  /** Sum of every posting (both years). */
  all: number;
}

interface Book {
  readonly rows: LedgerRow[];
  readonly totals: Map<string, AccountTotals>;
  /** Posts one balanced voucher; returns its number. */
  post(day: number, transType: string, text: string, lines: readonly PostingLine[], documentDay?: number): number;
  /** Runs `fn` when the day loop reaches `day` (at once when that day is already running); events after the last day never run. */
  schedule(day: number, fn: () => void): void;
  runDay(day: number): void;
}

function createBook(firstVoucher: number): Book {
  const rows: LedgerRow[] = [];
  const totals = new Map<string, AccountTotals>();
  const events = new Map<number, Array<() => void>>();
  let voucher = firstVoucher;
  let today = -1;

  function account(no: string): AccountTotals {
    let t = totals.get(no);
    if (t === undefined) {
      t = { prevDebit: 0, prevCredit: 0, thisDebit: 0, thisCredit: 0, all: 0 };
      totals.set(no, t);
    }
    return t;
  }

  return {
    rows,
    totals,
    post(day, transType, text, lines, documentDay) {
      let balance = 0;
      for (const line of lines) if (typeof line.amount === 'number') balance += line.amount;
      if (Math.abs(balance) > 0.005)
        throw new Error(`ledger sandbox data: voucher on day ${day} (${text}) is off by ${balance}`);
      voucher++;
      lines.forEach((line, i) => {
        if (typeof line.amount === 'number') {
          const t = account(line.account);
          if (day < YEAR2_START) {
            if (line.amount >= 0) t.prevDebit += line.amount;
            else t.prevCredit -= line.amount;
          } else if (line.amount >= 0) t.thisDebit += line.amount;
          else t.thisCredit -= line.amount;
          t.all += line.amount;
        }
        rows.push(
          compact({
            Date: dt(day),
            DocumentDate: documentDay === undefined ? undefined : dt(documentDay),
            Account: line.account,
            Voucher: voucher,
            VoucherLine: i + 1,
            Invoice: line.invoice,
            Amount: line.amount,
            AmountCur: line.amountCur,
            AmountVat: line.amountVat,
            Text: line.text ?? text,
            Vat: line.vat,
            TransType: transType,
            Currency: line.currency,
            DCType: line.dc?.type,
            DCAccount: line.dc?.account,
            ReferenceNumber: line.reference,
            Dimension1: line.dimension1,
          }),
        );
      });
      return voucher;
    },
    schedule(day, fn) {
      if (day <= today) {
        fn();
        return;
      }
      const list = events.get(day);
      if (list === undefined) events.set(day, [fn]);
      else list.push(fn);
    },
    runDay(day) {
      today = day;
      const list = events.get(day);
      if (list === undefined) return;
      events.delete(day);
      for (const fn of list) fn();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Chart of accounts and VAT codes
// ---------------------------------------------------------------------------------------------

type AccountType =
  | 'Header'
  | 'Sum'
  | 'Revenue'
  | 'CostOfSales'
  | 'Expense'
  | 'Depreciation'
  | 'Financial'
  | 'Asset'
  | 'Bank'
  | 'Debtor'
  | 'Creditor'
  | 'Inventory'
  | 'Equity'
  | 'Liability'
  | 'Vat';

interface AccountDef {
  account: string;
  name: string;
  type: AccountType;
  vat?: string;
  currency?: string;
  /** Sum accounts: inclusive range of the accounts they add up. */
  sum?: readonly [string, string];
  blocked?: boolean;
}

const PROFIT_AND_LOSS: ReadonlySet<AccountType> = new Set([
  'Revenue',
  'CostOfSales',
  'Expense',
  'Depreciation',
  'Financial',
]);

const RATES: Readonly<Record<string, number>> = { EUR: 7.46, SEK: 0.69 };

function glAccountRows(defs: readonly AccountDef[], book: Book): LedgerRow[] {
  const figures = new Map<string, { balance: number; curBalance?: number; t: AccountTotals }>();
  for (const def of defs) {
    if (def.type === 'Header' || def.type === 'Sum') continue;
    const t = book.totals.get(def.account) ?? { prevDebit: 0, prevCredit: 0, thisDebit: 0, thisCredit: 0, all: 0 };
    const isPl = PROFIT_AND_LOSS.has(def.type);
    const balance = round2(isPl ? t.thisDebit - t.thisCredit : t.all);
    const rate = def.currency === undefined ? undefined : RATES[def.currency];
    figures.set(def.account, { balance, curBalance: rate === undefined ? undefined : round2(balance / rate), t });
  }
  return defs.map((def) => {
    const base = {
      Account: def.account,
      Name: def.name,
      AccountType: def.type,
      Vat: def.vat,
      Currency: def.currency,
    };
    if (def.type === 'Header') return compact({ ...base, Blocked: false });
    let f: { balance: number; curBalance?: number | undefined; t: AccountTotals } | undefined;
    if (def.type === 'Sum') {
      const [from, to] = def.sum!;
      const t: AccountTotals = { prevDebit: 0, prevCredit: 0, thisDebit: 0, thisCredit: 0, all: 0 };
      let balance = 0;
      for (const [no, child] of figures) {
        if (no < from || no > to) continue;
        t.prevDebit += child.t.prevDebit;
        t.prevCredit += child.t.prevCredit;
        t.thisDebit += child.t.thisDebit;
        t.thisCredit += child.t.thisCredit;
        balance += child.balance;
      }
      f = { balance: round2(balance), t };
    } else {
      f = figures.get(def.account)!;
    }
    const { t } = f;
    return compact({
      ...base,
      Balance: f.balance,
      CurBalanceCur: f.curBalance,
      ThisYear: round2(t.thisDebit - t.thisCredit),
      ThisYearDebit: round2(t.thisDebit),
      ThisYearCredit: round2(t.thisCredit),
      PrevYear: round2(t.prevDebit - t.prevCredit),
      PrevYearDebit: round2(t.prevDebit),
      PrevYearCredit: round2(t.prevCredit),
      Blocked: def.blocked ?? false,
      DebetCredit:
        def.type === 'Sum'
          ? undefined
          : PROFIT_AND_LOSS.has(def.type)
            ? def.type === 'Revenue'
              ? 'Credit'
              : 'Debit'
            : ['Equity', 'Liability', 'Creditor', 'Vat'].includes(def.type)
              ? 'Credit'
              : 'Debit',
    });
  });
}

interface VatDef {
  vat: string;
  name: string;
  account: string;
  offset?: string;
  type: 'Sales' | 'Purchase';
  rate: number;
  rate2?: number;
  exempt?: boolean;
}

function vatRows(defs: readonly VatDef[]): LedgerRow[] {
  return defs.map((d, i) =>
    compact({
      Vat: d.vat,
      Name: d.name,
      Account: d.account,
      OffsetAccount: d.offset,
      VatType: d.type,
      Rate: d.rate,
      Rate2: d.rate2,
      RateType: 'Percent',
      Exempt: d.exempt ?? false,
      Blocked: false,
      Id: i + 1,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Debtors, creditors, invoices and open items (shared by both companies)
// ---------------------------------------------------------------------------------------------

type PayBehaviour = 'prompt' | 'late' | 'bad';

interface Party {
  account: string;
  name: string;
  group: string;
  address: string;
  zip: string;
  city: string;
  country: number;
  countryName: string;
  cvr?: string;
  cvrStyle: 'plain' | 'dk';
  ean?: string;
  currency?: 'EUR' | 'SEK';
  phone: string;
  email: string;
  invoiceEmail?: string;
  paymentDays: number;
  payment: string;
  creditMax: number;
  vatZone: 'Domestic' | 'EU' | 'Abroad';
  vat?: string;
  blocked: boolean;
  behaviour: PayBehaviour;
  segment?: string;
  salesRep?: string;
  paymentMethod?: string;
  paymentId?: string;
  swift?: string;
}

interface IssuedInvoice {
  number: number;
  day: number;
  dueDay: number;
  party: Party;
  voucher: number;
  vatCode?: string;
  /** In the invoice currency. */
  net: number;
  vat: number;
  total: number;
  cost: number;
  /** DKK. */
  totalDkk: number;
  openDkk: number;
  openCur: number;
  creditNote: boolean;
  text: string;
}

function partyRow(p: Party, open: readonly IssuedInvoice[], extra: Record<string, LedgerValue | undefined>): LedgerRow {
  let balance = 0;
  let overdue = 0;
  let balanceCur = 0;
  let overdueCur = 0;
  for (const inv of open) {
    if (inv.party !== p) continue;
    balance += inv.openDkk;
    balanceCur += inv.openCur;
    if (inv.dueDay < AS_OF_DAY) {
      overdue += inv.openDkk;
      overdueCur += inv.openCur;
    }
  }
  const regNo = p.cvr === undefined ? undefined : p.cvrStyle === 'dk' ? `DK${p.cvr}` : p.cvr;
  return compact({
    Account: p.account,
    Name: p.name,
    Group: p.group,
    Address1: p.address,
    ZipCode: p.zip,
    City: p.city,
    Country: p.country,
    CountryName: p.countryName,
    CompanyRegNo: regNo,
    VatNumber: p.cvr === undefined ? undefined : p.country === 57 ? `DK${p.cvr}` : p.cvr,
    EAN: p.ean,
    Currency: p.currency,
    Phone: p.phone,
    ContactEmail: p.email,
    InvoiceEmail: p.invoiceEmail,
    Payment: p.payment,
    CreditMax: p.creditMax,
    VatZone: p.vatZone,
    Vat: p.vat,
    Blocked: p.blocked,
    CurBalance: round2(balance),
    Overdue: round2(overdue),
    CurBalanceCur: p.currency === undefined ? undefined : round2(balanceCur),
    OverdueCur: p.currency === undefined ? undefined : round2(overdueCur),
    ...extra,
  });
}

function debtorOpenRows(open: readonly IssuedInvoice[]): LedgerRow[] {
  return open.map((inv) => {
    const daysOverdue = AS_OF_DAY - inv.dueDay;
    const status = daysOverdue > 60 ? 'Collection' : daysOverdue > 14 ? 'Reminder' : 'None';
    return compact({
      Account: inv.party.account,
      Name: inv.party.name,
      PaymentStatus: status,
      FeeAmount: status === 'Collection' ? 300 : status === 'Reminder' ? 100 : 0,
      Vat: inv.vatCode,
      Date: dt(inv.day),
      Voucher: inv.voucher,
      Invoice: inv.number,
      DueDate: dt(inv.dueDay),
      Amount: inv.totalDkk,
      AmountOpen: inv.openDkk,
      AmountOpenCur: inv.party.currency === undefined ? undefined : inv.openCur,
      Currency: inv.party.currency,
      Text: inv.text,
    });
  });
}

function creditorOpenRows(open: readonly IssuedInvoice[]): LedgerRow[] {
  return open.map((inv) =>
    compact({
      Account: inv.party.account,
      Name: inv.party.name,
      PaymentMethod: inv.party.paymentMethod,
      PaymentId: inv.party.paymentId,
      SWIFT: inv.party.swift,
      Vat: inv.vatCode,
      Date: dt(inv.day),
      Voucher: inv.voucher,
      Invoice: inv.number,
      DueDate: dt(inv.dueDay),
      Amount: inv.totalDkk,
      AmountOpen: inv.openDkk,
      AmountOpenCur: inv.party.currency === undefined ? undefined : inv.openCur,
      Currency: inv.party.currency,
      Text: inv.text,
    }),
  );
}

interface RevenueLine {
  account: string;
  net: number;
  cost: number;
  dimension1?: string;
}

/** Posts a debtor invoice (or credit note, negative nets) and returns its record. */
function postDebtorInvoice(
  book: Book,
  day: number,
  number: number,
  party: Party,
  lines: readonly RevenueLine[],
  creditNote: boolean,
): IssuedInvoice {
  const rate = party.currency === undefined ? 1 : RATES[party.currency]!;
  const vatCode = party.vat ?? 'S25';
  const vatRate = vatCode === 'S25' ? 0.25 : 0;
  const byAccount = new Map<string, { net: number; dimension1?: string | undefined }>();
  for (const l of lines) {
    const e = byAccount.get(l.account);
    if (e === undefined) byAccount.set(l.account, { net: l.net, dimension1: l.dimension1 });
    else e.net = round2(e.net + l.net);
  }
  const net = round2(lines.reduce((s, l) => s + l.net, 0));
  const vat = round2(net * vatRate);
  const total = round2(net + vat);
  const cost = round2(lines.reduce((s, l) => s + l.cost, 0));
  const postingLines: PostingLine[] = [];
  let netDkkSum = 0;
  for (const [account, e] of byAccount) {
    const netDkk = round2(e.net * rate);
    netDkkSum += netDkk;
    postingLines.push({
      account,
      amount: -netDkk,
      vat: vatCode,
      amountVat: vatRate === 0 ? undefined : -round2(netDkk * vatRate),
      dimension1: e.dimension1,
      currency: party.currency,
      amountCur: party.currency === undefined ? undefined : -e.net,
    });
  }
  netDkkSum = round2(netDkkSum);
  const vatDkk = round2(netDkkSum * vatRate);
  if (vatDkk !== 0) postingLines.push({ account: '6200', amount: -vatDkk, vat: vatCode });
  const totalDkk = round2(netDkkSum + vatDkk);
  const text = `${creditNote ? 'Credit note' : 'Invoice'} ${number} ${party.name}`;
  postingLines.unshift({
    account: '5200',
    amount: totalDkk,
    dc: { type: 'Debtor', account: party.account },
    invoice: number,
    currency: party.currency,
    amountCur: party.currency === undefined ? undefined : total,
  });
  const voucher = book.post(
    day,
    creditNote ? 'CREDITNOTE' : 'INVOICE',
    text,
    postingLines.map((l) => ({ ...l, invoice: number })),
  );
  return {
    number,
    day,
    dueDay: creditNote ? day : businessDay(day + party.paymentDays),
    party,
    voucher,
    vatCode,
    net,
    vat,
    total,
    cost,
    totalDkk,
    openDkk: totalDkk,
    openCur: party.currency === undefined ? 0 : total,
    creditNote,
    text,
  };
}

/** Posts a (partial) payment of a debtor invoice into the bank. */
function postDebtorPayment(book: Book, day: number, inv: IssuedInvoice, fraction: number): void {
  const amountDkk = fraction >= 1 ? inv.openDkk : round2(inv.openDkk * fraction);
  const amountCur =
    inv.party.currency === undefined ? undefined : fraction >= 1 ? inv.openCur : round2(inv.openCur * fraction);
  if (amountDkk === 0) return;
  const bank = inv.party.currency === 'EUR' ? '5310' : '5300';
  book.post(day, 'PAYMENT', `Payment ${inv.creditNote ? 'credit note' : 'invoice'} ${inv.number} ${inv.party.name}`, [
    { account: bank, amount: amountDkk, currency: inv.party.currency, amountCur },
    {
      account: '5200',
      amount: -amountDkk,
      dc: { type: 'Debtor', account: inv.party.account },
      invoice: inv.number,
      currency: inv.party.currency,
      amountCur: amountCur === undefined ? undefined : -amountCur,
    },
  ]);
  inv.openDkk = round2(inv.openDkk - amountDkk);
  if (amountCur !== undefined) inv.openCur = round2(inv.openCur - amountCur);
}

/** Schedules the payments of a debtor invoice according to the debtor's habits. */
function scheduleDebtorPayment(book: Book, r: Rng, inv: IssuedInvoice): void {
  if (inv.creditNote) {
    book.schedule(inv.day + 5, () => postDebtorPayment(book, inv.day + 5, inv, 1));
    return;
  }
  switch (inv.party.behaviour) {
    case 'prompt': {
      const day = Math.max(inv.day + 1, inv.dueDay + r.int(-4, 2));
      book.schedule(day, () => postDebtorPayment(book, day, inv, 1));
      return;
    }
    case 'late': {
      if (r.chance(0.2)) {
        const first = inv.dueDay + r.int(5, 15);
        const second = first + r.int(30, 60);
        book.schedule(first, () => postDebtorPayment(book, first, inv, 0.5));
        book.schedule(second, () => postDebtorPayment(book, second, inv, 1));
      } else {
        const day = inv.dueDay + r.int(5, 40);
        book.schedule(day, () => postDebtorPayment(book, day, inv, 1));
      }
      return;
    }
    case 'bad': {
      if (r.chance(0.45)) return; // never paid: overdue open item
      const day = inv.dueDay + r.int(30, 90);
      book.schedule(day, () => postDebtorPayment(book, day, inv, 1));
      return;
    }
  }
}

interface CostLine {
  account: string;
  net: number;
  vat: 'K25' | 'KREP' | 'EUV' | 'EUY' | 'none';
}

/** Posts a creditor invoice (amounts in the creditor's currency) and returns its record. */
function postCreditorInvoice(
  book: Book,
  day: number,
  number: number,
  party: Party,
  lines: readonly CostLine[],
): IssuedInvoice {
  const rate = party.currency === undefined ? 1 : RATES[party.currency]!;
  const posting: PostingLine[] = [];
  let payableDkk = 0;
  let net = 0;
  let vatTotal = 0;
  for (const l of lines) {
    const netDkk = round2(l.net * rate);
    net = round2(net + l.net);
    switch (l.vat) {
      case 'K25': {
        const vat = round2(netDkk * 0.25);
        posting.push(
          { account: l.account, amount: netDkk, vat: 'K25', amountVat: vat },
          { account: '6210', amount: vat, vat: 'K25' },
        );
        payableDkk += netDkk + vat;
        vatTotal += vat;
        break;
      }
      case 'KREP': {
        const vat = round2(netDkk * 0.25);
        const deductible = round2(vat * 0.25);
        posting.push(
          { account: l.account, amount: round2(netDkk + vat - deductible), vat: 'KREP', amountVat: deductible },
          { account: '6210', amount: deductible, vat: 'KREP' },
        );
        payableDkk += netDkk + vat;
        vatTotal += vat;
        break;
      }
      case 'EUV':
      case 'EUY': {
        const vat = round2(netDkk * 0.25);
        posting.push(
          {
            account: l.account,
            amount: netDkk,
            vat: l.vat,
            amountVat: vat,
            currency: party.currency,
            amountCur: party.currency === undefined ? undefined : l.net,
          },
          { account: '6210', amount: vat, vat: l.vat },
          { account: '6220', amount: -vat, vat: l.vat },
        );
        payableDkk += netDkk;
        break;
      }
      case 'none':
        posting.push({ account: l.account, amount: netDkk });
        payableDkk += netDkk;
        break;
    }
  }
  payableDkk = round2(payableDkk);
  const totalCur = party.currency === undefined ? payableDkk : net;
  const text = `Invoice ${number} ${party.name}`;
  posting.unshift({
    account: '6110',
    amount: -payableDkk,
    dc: { type: 'Creditor', account: party.account },
    invoice: number,
    currency: party.currency,
    amountCur: party.currency === undefined ? undefined : -totalCur,
  });
  const voucher = book.post(day, 'PURCHASE', text, posting, Math.max(0, day - 2));
  return {
    number,
    day,
    dueDay: businessDay(day + party.paymentDays),
    party,
    voucher,
    vatCode: lines[0]?.vat === 'none' ? undefined : lines[0]?.vat,
    net,
    vat: round2(vatTotal),
    total: -totalCur,
    cost: 0,
    totalDkk: -payableDkk,
    openDkk: -payableDkk,
    openCur: party.currency === undefined ? 0 : -totalCur,
    creditNote: false,
    text,
  };
}

function postCreditorPayment(book: Book, day: number, inv: IssuedInvoice): void {
  const amountDkk = -inv.openDkk;
  const amountCur = inv.party.currency === undefined ? undefined : -inv.openCur;
  if (amountDkk === 0) return;
  const bank = inv.party.currency === 'EUR' ? '5310' : '5300';
  book.post(day, 'PAYMENT', `Payment invoice ${inv.number} ${inv.party.name}`, [
    {
      account: '6110',
      amount: amountDkk,
      dc: { type: 'Creditor', account: inv.party.account },
      invoice: inv.number,
      currency: inv.party.currency,
      amountCur,
    },
    {
      account: bank,
      amount: -amountDkk,
      currency: inv.party.currency,
      amountCur: amountCur === undefined ? undefined : -amountCur,
    },
  ]);
  inv.openDkk = 0;
  inv.openCur = 0;
}

/** Quarterly VAT settlement: clears 6200/6210/6220 into 6230 and pays it two months later. */
function settleVat(book: Book, day: number, label: string): void {
  const balance = (no: string): number => round2(book.totals.get(no)?.all ?? 0);
  const out = balance('6200');
  const inp = balance('6210');
  const eu = balance('6220');
  const payable = round2(out + inp + eu);
  const lines: PostingLine[] = [];
  if (out !== 0) lines.push({ account: '6200', amount: -out });
  if (inp !== 0) lines.push({ account: '6210', amount: -inp });
  if (eu !== 0) lines.push({ account: '6220', amount: -eu });
  lines.push({ account: '6230', amount: payable });
  book.post(day, 'VAT', `VAT settlement ${label}`, lines);
  const payDay = businessDay(day + 62);
  book.schedule(payDay, () =>
    book.post(payDay, 'VAT', `VAT payment ${label}`, [
      { account: '6230', amount: -payable },
      { account: '5300', amount: payable },
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// Company 1: Nordlys Cykler ApS (bike shop)
// ---------------------------------------------------------------------------------------------

const C1_ACCOUNTS: readonly AccountDef[] = [
  { account: '1000', name: 'REVENUE', type: 'Header' },
  { account: '1010', name: 'Sales, city and road bikes', type: 'Revenue', vat: 'S25' },
  { account: '1020', name: 'Sales, e-bikes', type: 'Revenue', vat: 'S25' },
  { account: '1030', name: "Sales, kids' bikes", type: 'Revenue', vat: 'S25' },
  { account: '1040', name: 'Sales, spare parts', type: 'Revenue', vat: 'S25' },
  { account: '1050', name: 'Sales, tyres and tubes', type: 'Revenue', vat: 'S25' },
  { account: '1060', name: 'Sales, accessories', type: 'Revenue', vat: 'S25' },
  { account: '1070', name: 'Sales, clothing and helmets', type: 'Revenue', vat: 'S25' },
  { account: '1080', name: 'Sales, workshop services', type: 'Revenue', vat: 'S25' },
  { account: '1090', name: 'Sales, EU customers', type: 'Revenue', vat: 'EUS' },
  { account: '1095', name: 'Sales, export outside the EU', type: 'Revenue', vat: 'EXP' },
  { account: '1099', name: 'Total revenue', type: 'Sum', sum: ['1000', '1098'] },
  { account: '1100', name: 'COST OF SALES', type: 'Header' },
  { account: '1110', name: 'Purchases, city and road bikes', type: 'CostOfSales', vat: 'K25' },
  { account: '1120', name: 'Purchases, e-bikes', type: 'CostOfSales', vat: 'K25' },
  { account: '1130', name: "Purchases, kids' bikes", type: 'CostOfSales', vat: 'K25' },
  { account: '1140', name: 'Purchases, spare parts', type: 'CostOfSales', vat: 'K25' },
  { account: '1150', name: 'Purchases, tyres and tubes', type: 'CostOfSales', vat: 'K25' },
  { account: '1160', name: 'Purchases, accessories', type: 'CostOfSales', vat: 'K25' },
  { account: '1170', name: 'Purchases, clothing and helmets', type: 'CostOfSales', vat: 'K25' },
  { account: '1180', name: 'Workshop materials', type: 'CostOfSales', vat: 'K25' },
  { account: '1190', name: 'Freight in', type: 'CostOfSales', vat: 'K25' },
  { account: '1195', name: 'Inventory regulation', type: 'CostOfSales' },
  { account: '1199', name: 'Total cost of sales', type: 'Sum', sum: ['1100', '1198'] },
  { account: '1200', name: 'Gross profit', type: 'Sum', sum: ['1000', '1199'] },
  { account: '2000', name: 'STAFF COSTS', type: 'Header' },
  { account: '2010', name: 'Wages and salaries', type: 'Expense' },
  { account: '2020', name: 'Pension contributions', type: 'Expense' },
  { account: '2030', name: 'ATP and social contributions', type: 'Expense' },
  { account: '2040', name: 'Staff training', type: 'Expense', vat: 'K25' },
  { account: '2050', name: 'Staff canteen', type: 'Expense', vat: 'K25' },
  { account: '2060', name: 'Work clothes', type: 'Expense', vat: 'K25' },
  { account: '2099', name: 'Total staff costs', type: 'Sum', sum: ['2000', '2098'] },
  { account: '2200', name: 'SALES AND MARKETING', type: 'Header' },
  { account: '2210', name: 'Advertising, print', type: 'Expense', vat: 'K25' },
  { account: '2220', name: 'Advertising, online', type: 'Expense', vat: 'EUY' },
  { account: '2230', name: 'Trade fairs and events', type: 'Expense', vat: 'K25' },
  { account: '2240', name: 'Entertainment', type: 'Expense', vat: 'KREP' },
  { account: '2250', name: 'Gifts and sponsorships', type: 'Expense' },
  { account: '2299', name: 'Total sales and marketing', type: 'Sum', sum: ['2200', '2298'] },
  { account: '2400', name: 'PREMISES', type: 'Header' },
  { account: '2410', name: 'Rent', type: 'Expense', vat: 'K25' },
  { account: '2420', name: 'Electricity', type: 'Expense', vat: 'K25' },
  { account: '2430', name: 'Heating and water', type: 'Expense', vat: 'K25' },
  { account: '2440', name: 'Cleaning', type: 'Expense', vat: 'K25' },
  { account: '2450', name: 'Repairs and maintenance', type: 'Expense', vat: 'K25' },
  { account: '2499', name: 'Total premises', type: 'Sum', sum: ['2400', '2498'] },
  { account: '2600', name: 'ADMINISTRATION', type: 'Header' },
  { account: '2610', name: 'Office supplies', type: 'Expense', vat: 'K25' },
  { account: '2620', name: 'Telephone and internet', type: 'Expense', vat: 'K25' },
  { account: '2630', name: 'IT and software', type: 'Expense', vat: 'K25' },
  { account: '2640', name: 'Insurance', type: 'Expense' },
  { account: '2650', name: 'Accounting and audit', type: 'Expense', vat: 'K25' },
  { account: '2660', name: 'Bank and card fees', type: 'Expense' },
  { account: '2670', name: 'Postage and freight out', type: 'Expense', vat: 'K25' },
  { account: '2680', name: 'Van running costs', type: 'Expense', vat: 'K25' },
  { account: '2690', name: 'Small acquisitions', type: 'Expense', vat: 'K25' },
  { account: '2699', name: 'Total administration', type: 'Sum', sum: ['2600', '2698'] },
  { account: '2800', name: 'DEPRECIATION', type: 'Header' },
  { account: '2810', name: 'Depreciation, equipment and van', type: 'Depreciation' },
  { account: '2899', name: 'Total depreciation', type: 'Sum', sum: ['2800', '2898'] },
  { account: '2900', name: 'FINANCIAL ITEMS', type: 'Header' },
  { account: '2910', name: 'Interest income', type: 'Financial' },
  { account: '2920', name: 'Interest expenses', type: 'Financial' },
  { account: '2930', name: 'Exchange rate differences', type: 'Financial', blocked: true },
  { account: '2999', name: 'Profit before tax', type: 'Sum', sum: ['1000', '2998'] },
  { account: '5000', name: 'ASSETS', type: 'Header' },
  { account: '5010', name: 'Shop and workshop equipment', type: 'Asset' },
  { account: '5020', name: 'Accumulated depreciation', type: 'Asset' },
  { account: '5030', name: 'Van', type: 'Asset' },
  { account: '5100', name: 'Inventory', type: 'Inventory' },
  { account: '5200', name: 'Debtors', type: 'Debtor' },
  { account: '5210', name: 'Prepaid expenses', type: 'Asset' },
  { account: '5300', name: 'Bank, Danske Bank', type: 'Bank' },
  { account: '5310', name: 'Bank, EUR account', type: 'Bank', currency: 'EUR' },
  { account: '5320', name: 'Cash register', type: 'Bank' },
  { account: '5330', name: 'MobilePay', type: 'Bank' },
  { account: '5399', name: 'Total assets', type: 'Sum', sum: ['5000', '5398'] },
  { account: '6000', name: 'EQUITY AND LIABILITIES', type: 'Header' },
  { account: '6010', name: 'Share capital', type: 'Equity' },
  { account: '6020', name: 'Retained earnings', type: 'Equity' },
  { account: '6099', name: 'Total equity', type: 'Sum', sum: ['6001', '6098'] },
  { account: '6110', name: 'Creditors', type: 'Creditor' },
  { account: '6120', name: 'Bank loan', type: 'Liability' },
  { account: '6130', name: 'Holiday pay obligation', type: 'Liability' },
  { account: '6140', name: 'Payroll tax withheld', type: 'Liability' },
  { account: '6200', name: 'Output VAT', type: 'Vat' },
  { account: '6210', name: 'Input VAT', type: 'Vat' },
  { account: '6220', name: 'VAT on EU purchases', type: 'Vat' },
  { account: '6230', name: 'VAT settlement account', type: 'Vat' },
  { account: '6300', name: 'Corporate tax payable', type: 'Liability' },
  { account: '6399', name: 'Total liabilities', type: 'Sum', sum: ['6100', '6398'] },
  { account: LEDGER_NON_NUMERIC_ACCOUNT, name: 'Suspense, imported postings', type: 'Asset' },
];

const STANDARD_VAT: readonly VatDef[] = [
  { vat: 'S25', name: 'Output VAT 25%', account: '6200', type: 'Sales', rate: 25 },
  { vat: 'K25', name: 'Input VAT 25%', account: '6210', type: 'Purchase', rate: 25 },
  {
    vat: 'KREP',
    name: 'Input VAT entertainment (25% deductible)',
    account: '6210',
    type: 'Purchase',
    rate: 25,
    rate2: 6.25,
  },
  {
    vat: 'EUV',
    name: 'EU purchase of goods (reverse charge)',
    account: '6220',
    offset: '6210',
    type: 'Purchase',
    rate: 25,
  },
  {
    vat: 'EUY',
    name: 'EU purchase of services (reverse charge)',
    account: '6220',
    offset: '6210',
    type: 'Purchase',
    rate: 25,
  },
  { vat: 'EUS', name: 'EU sale of goods (zero-rated)', account: '6200', type: 'Sales', rate: 0, exempt: true },
  { vat: 'EXP', name: 'Export outside the EU (zero-rated)', account: '6200', type: 'Sales', rate: 0, exempt: true },
  { vat: 'FRI', name: 'VAT exempt', account: '6200', type: 'Sales', rate: 0, exempt: true },
];

interface ProductGroup {
  group: string;
  name: string;
  prefix: string;
  salesAccount: string;
  costAccount: string;
  models: readonly string[];
  variants: readonly string[];
  count: number;
  price: readonly [number, number];
  costRatio: number;
  brands: readonly string[];
  warranty: number;
  service?: boolean;
  /** Weight in till sales. */
  tillWeight: number;
  /** Units per till summary line. */
  tillQty: readonly [number, number];
  openingStock: readonly [number, number];
}

/** The 8 product groups of company 1 (`InvGroupClient.Group`). */
export const LEDGER_PRODUCT_GROUPS = ['BIKES', 'EBIKES', 'KIDS', 'PARTS', 'TYRES', 'ACC', 'CLOTH', 'SERVICE'] as const;

const GROUPS: readonly ProductGroup[] = [
  {
    group: 'BIKES',
    name: 'City and road bikes',
    prefix: 'BK',
    salesAccount: '1010',
    costAccount: '1110',
    models: ['City Classic', 'City Comfort', 'Urban Sport', 'Trekking Pro', 'Gravel X', 'Road Race'],
    variants: ['48 cm', '53 cm', '57 cm', '61 cm'],
    count: 22,
    price: [3200, 11000],
    costRatio: 0.62,
    brands: ['Nordlys', 'Kronborg', 'Velora'],
    warranty: 60,
    tillWeight: 3,
    tillQty: [1, 2],
    openingStock: [3, 8],
  },
  {
    group: 'EBIKES',
    name: 'E-bikes',
    prefix: 'EB',
    salesAccount: '1020',
    costAccount: '1120',
    models: ['E-City', 'E-Cargo Long', 'E-Trekking', 'E-MTB Trail', 'E-Fold'],
    variants: ['400 Wh', '500 Wh', '625 Wh', '750 Wh'],
    count: 18,
    price: [11000, 32000],
    costRatio: 0.68,
    brands: ['Voltvej', 'Nordlys', 'Cargoteket'],
    warranty: 24,
    tillWeight: 2,
    tillQty: [1, 1],
    openingStock: [2, 5],
  },
  {
    group: 'KIDS',
    name: "Kids' bikes",
    prefix: 'KB',
    salesAccount: '1030',
    costAccount: '1130',
    models: ['Balance bike 12"', 'Kids bike 16"', 'Kids bike 20"', 'Junior 24"', 'Junior MTB 24"', 'Teen 26"'],
    variants: ['red', 'blue'],
    count: 12,
    price: [700, 3400],
    costRatio: 0.6,
    brands: ['Lillebror', 'Nordlys'],
    warranty: 24,
    tillWeight: 3,
    tillQty: [1, 2],
    openingStock: [3, 8],
  },
  {
    group: 'PARTS',
    name: 'Spare parts',
    prefix: 'PT',
    salesAccount: '1040',
    costAccount: '1140',
    models: [
      'Chain',
      'Cassette',
      'Brake pads',
      'Brake cable',
      'Gear cable',
      'Saddle',
      'Pedals',
      'Handlebar grips',
      'Bottom bracket',
      'Derailleur',
      'Crankset',
      'Spoke set',
      'Headset',
      'Seat post',
      'Stem',
    ],
    variants: ['standard', 'premium'],
    count: 30,
    price: [40, 900],
    costRatio: 0.5,
    brands: ['Kædeværket', 'Velora', 'Shift-On'],
    warranty: 12,
    tillWeight: 6,
    tillQty: [1, 6],
    openingStock: [15, 40],
  },
  {
    group: 'TYRES',
    name: 'Tyres and tubes',
    prefix: 'TY',
    salesAccount: '1050',
    costAccount: '1150',
    models: [
      'Tyre 28x1.40',
      'Tyre 28x1.75',
      'Tyre 26x2.10',
      'Tyre 20x1.75',
      'Tube 28"',
      'Tube 26"',
      'Tube 20"',
      'Puncture-proof tyre 28"',
    ],
    variants: ['standard', 'reflex'],
    count: 16,
    price: [60, 450],
    costRatio: 0.5,
    brands: ['Rundt', 'Gummihuset'],
    warranty: 6,
    tillWeight: 5,
    tillQty: [1, 6],
    openingStock: [20, 50],
  },
  {
    group: 'ACC',
    name: 'Accessories',
    prefix: 'AC',
    salesAccount: '1060',
    costAccount: '1160',
    models: [
      'Front light',
      'Rear light',
      'Light set',
      'Chain lock',
      'Frame lock',
      'D-lock',
      'Bell',
      'Pannier bag',
      'Basket',
      'Child seat',
      'Floor pump',
      'Mini pump',
    ],
    variants: ['basic', 'deluxe'],
    count: 24,
    price: [50, 1400],
    costRatio: 0.48,
    brands: ['Lygtemanden', 'Låsesmeden', 'Nordlys'],
    warranty: 24,
    tillWeight: 6,
    tillQty: [1, 5],
    openingStock: [10, 35],
  },
  {
    group: 'CLOTH',
    name: 'Clothing and helmets',
    prefix: 'CL',
    salesAccount: '1070',
    costAccount: '1170',
    models: ['Helmet adult', 'Helmet kids', 'Rain jacket', 'Rain trousers', 'Gloves', 'Cycling jersey'],
    variants: ['S/M', 'L/XL', 'one size'],
    count: 18,
    price: [150, 1600],
    costRatio: 0.5,
    brands: ['Regnvejr', 'Hjelmfabrikken'],
    warranty: 12,
    tillWeight: 4,
    tillQty: [1, 3],
    openingStock: [8, 25],
  },
  {
    group: 'SERVICE',
    name: 'Workshop services',
    prefix: 'SV',
    salesAccount: '1080',
    costAccount: '1180',
    models: [
      'Basic service',
      'Full service',
      'E-bike service',
      'Puncture repair',
      'Brake adjustment',
      'Gear adjustment',
      'Wheel truing',
      'Assembly of new bike',
      'Workshop hour',
      'Winter storage',
    ],
    variants: [''],
    count: 10,
    price: [120, 1100],
    costRatio: 0.15,
    brands: [],
    warranty: 3,
    service: true,
    tillWeight: 7,
    tillQty: [1, 3],
    openingStock: [0, 0],
  },
];

interface Item {
  item: string;
  name: string;
  group: ProductGroup;
  price: number;
  cost: number;
  purchase: number;
  price2?: number;
  price3?: number;
  ean?: string;
  brand?: string;
  blocked: boolean;
}

interface InvLine {
  day: number;
  seq: number;
  item: Item;
  qty: number;
  net: number;
  movement: (typeof LEDGER_MOVEMENT_TYPES)[number];
  party?: Party;
  invoice?: number;
  text: string;
  currency?: string;
}

const CITIES: ReadonlyArray<readonly [string, string]> = [
  ['8000', 'Aarhus C'],
  ['8200', 'Aarhus N'],
  ['8210', 'Aarhus V'],
  ['8220', 'Brabrand'],
  ['8240', 'Risskov'],
  ['8260', 'Viby J'],
  ['8270', 'Højbjerg'],
  ['8310', 'Tranbjerg J'],
  ['8520', 'Lystrup'],
  ['8600', 'Silkeborg'],
  ['8900', 'Randers C'],
  ['8700', 'Horsens'],
  ['8300', 'Odder'],
  ['8660', 'Skanderborg'],
  ['8800', 'Viborg'],
  ['7500', 'Holstebro'],
  ['7620', 'Lemvig'],
  ['8400', 'Ebeltoft'],
];
const STREETS = [
  'Søndergade',
  'Vestergade',
  'Østergade',
  'Nørregade',
  'Frederiks Allé',
  'Skolevej',
  'Industrivej',
  'Havnegade',
  'Banegårdsgade',
  'Kirkevej',
  'Parkvej',
  'Møllevej',
];
const SALES_REPS = ['Mette Holm', 'Lars Bech', 'Anne Kjær'];

type DebtorSeed = readonly [
  name: string,
  group: 'B2B' | 'PUBLIC' | 'EXPORT' | 'CASH',
  behaviour: PayBehaviour,
  segment: string,
];

const C1_DEBTORS: readonly DebtorSeed[] = [
  ['Counter sales', 'CASH', 'prompt', 'Walk-in'],
  ['Aarhus Kommune, Teknik og Miljø', 'PUBLIC', 'late', 'Public'],
  ['Vestjysk Smedeværksted A/S', 'B2B', 'prompt', 'Fleet'],
  ['Cykelsmeden i Viby ApS', 'B2B', 'prompt', 'Retail partner'],
  ['Grøn Mobilitet ApS', 'B2B', 'late', 'Rental'],
  ['Hotel Marselis Strand A/S', 'B2B', 'prompt', 'Hospitality'],
  ['Nørrebro Byg & Anlæg A/S', 'B2B', 'bad', 'Construction'],
  ['Region Midtjylland, Hospitalsenheden', 'PUBLIC', 'prompt', 'Public'],
  ['Skanderborg Cykeludlejning I/S', 'B2B', 'late', 'Rental'],
  ['Djursland Feriecenter A/S', 'B2B', 'prompt', 'Hospitality'],
  ['Fahrradflotte Hamburg GmbH', 'EXPORT', 'prompt', 'Export'],
  ['Malmö Cykelkök AB', 'EXPORT', 'late', 'Export'],
  ['Favrskov Kommune', 'PUBLIC', 'prompt', 'Public'],
  ['Studenterhuset Aarhus', 'B2B', 'late', 'Education'],
  ['Jysk Budservice ApS', 'B2B', 'prompt', 'Fleet'],
  ['Lystrup Tandklinik ApS', 'B2B', 'prompt', 'Fleet'],
  ['Århus Arkitekterne A/S', 'B2B', 'prompt', 'Fleet'],
  ['Kattegat Havneservice ApS', 'B2B', 'bad', 'Fleet'],
  ['Bispehaven Boligforening', 'B2B', 'late', 'Housing'],
  ['Risskov Efterskole', 'B2B', 'prompt', 'Education'],
  ['Egå Engsø Camping', 'B2B', 'late', 'Hospitality'],
  ['Midtjysk Ejendomsservice A/S', 'B2B', 'prompt', 'Housing'],
  ['Brabrand IT-Konsulenterne ApS', 'B2B', 'prompt', 'Fleet'],
  ['Harlev Tømrerforretning ApS', 'B2B', 'late', 'Construction'],
  ['Tranbjerg VVS ApS', 'B2B', 'prompt', 'Construction'],
  ['Hasle Bageri I/S', 'B2B', 'bad', 'Fleet'],
  ['Gellerup Kulturhus', 'B2B', 'prompt', 'Education'],
  ['Silkeborg Sø-Kajak ApS', 'B2B', 'prompt', 'Rental'],
  ['Syddjurs Kommune', 'PUBLIC', 'prompt', 'Public'],
  ['Horsens Havnefront A/S', 'B2B', 'late', 'Hospitality'],
  ['Odder Cykelklub', 'B2B', 'prompt', 'Retail partner'],
  ['Mols Bjerge Naturguider ApS', 'B2B', 'prompt', 'Rental'],
  ['Kieler Radverleih GmbH', 'EXPORT', 'prompt', 'Export'],
  ['Samsø Færgekro ApS', 'B2B', 'late', 'Hospitality'],
  ['Viborg Domkirke Sogn', 'B2B', 'prompt', 'Education'],
  ['Holstebro Kunstmuseum', 'B2B', 'prompt', 'Education'],
  ['Trøjborg Smedie ApS', 'B2B', 'prompt', 'Retail partner'],
  ['Skejby Pendlerkontor ApS', 'B2B', 'prompt', 'Fleet'],
  ['Lemvig Surf & Bike ApS', 'B2B', 'late', 'Retail partner'],
  ['Randers Regnskov Café ApS', 'B2B', 'prompt', 'Hospitality'],
];

const DEBTOR_GROUP_NAMES: Readonly<Record<string, string>> = {
  B2B: 'Business customers',
  PUBLIC: 'Public sector',
  EXPORT: 'Export customers',
  CASH: 'Counter sales',
  TENANT: 'Tenants',
};

function makeParty(
  r: Rng,
  account: string,
  name: string,
  group: string,
  behaviour: PayBehaviour,
  cityIndex: number,
): Party {
  const [zip, city] = CITIES[cityIndex % CITIES.length]!;
  const slug = name
    .toLowerCase()
    .replace(/æ/g, 'ae')
    .replace(/ø/g, 'oe')
    .replace(/å/g, 'aa')
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .split('-')
    .slice(0, 2)
    .join('-');
  return {
    account,
    name,
    group,
    address: `${r.pick(STREETS)} ${r.int(1, 140)}`,
    zip,
    city,
    country: 57,
    countryName: 'Denmark',
    cvr: cvrNumber(r),
    cvrStyle: r.chance(0.3) ? 'dk' : 'plain',
    phone: `${r.int(20, 99)} ${r.int(10, 99)} ${r.int(10, 99)} ${r.int(10, 99)}`,
    email: `info@${slug}.example`,
    paymentDays: 14,
    payment: 'Net 14 days',
    creditMax: 50_000,
    vatZone: 'Domestic',
    blocked: false,
    behaviour,
  };
}

function c1Debtors(): Party[] {
  const r = rng(0x1ed6e7);
  return C1_DEBTORS.map(([name, group, behaviour, segment], i) => {
    const p = makeParty(r, String(10000 + i), name, group, behaviour, i);
    p.segment = segment;
    if (group === 'CASH') {
      delete p.cvr;
      p.address = 'Mejlgade 41';
      p.zip = '8000';
      p.city = 'Aarhus C';
      p.email = 'butik@nordlys-cykler.example';
      p.creditMax = 0;
      p.paymentDays = 0;
      p.payment = 'Cash';
      return p;
    }
    p.salesRep = SALES_REPS[i % SALES_REPS.length];
    p.invoiceEmail = r.chance(0.5) ? p.email.replace('info@', 'faktura@') : undefined;
    p.creditMax = r.pick([25_000, 50_000, 75_000, 100_000, 150_000]);
    if (group === 'PUBLIC') {
      p.ean = ean13('5798', 1000000 + i * 7919);
      p.paymentDays = 30;
      p.payment = 'Net 30 days';
      p.creditMax = 250_000;
    } else if (r.chance(0.4)) {
      p.paymentDays = 30;
      p.payment = 'Net 30 days';
    }
    if (group === 'EXPORT') {
      const swedish = name.endsWith(' AB');
      p.country = swedish ? 205 : 80;
      p.countryName = swedish ? 'Sweden' : 'Germany';
      p.currency = swedish ? 'SEK' : 'EUR';
      p.vatZone = 'EU';
      p.vat = 'EUS';
      p.cvr = swedish ? `SE55${r.int(10000000, 99999999)}01` : `DE${r.int(100000000, 999999999)}`;
      p.cvrStyle = 'plain';
      p.zip = swedish ? '211 20' : name.includes('Kiel') ? '24103' : '20095';
      p.city = swedish ? 'Malmö' : name.includes('Kiel') ? 'Kiel' : 'Hamburg';
      p.address = swedish ? 'Södra Förstadsgatan 12' : name.includes('Kiel') ? 'Holstenstraße 8' : 'Lange Reihe 77';
      p.paymentDays = 30;
      p.payment = 'Net 30 days';
    }
    if (name === 'Kieler Radverleih GmbH') {
      // Outside the EU VAT scheme for the demo: zero-rated export.
      p.vat = 'EXP';
      p.vatZone = 'Abroad';
    }
    if (behaviour === 'bad' && name.startsWith('Hasle')) p.blocked = true;
    if (i % 9 === 4) delete p.cvr; // a few without registration number
    return p;
  });
}

interface CreditorSeed {
  name: string;
  /** Expense account, or the product groups bought from this supplier. */
  account: string | readonly string[];
  vat: CostLine['vat'];
  schedule: 'monthly' | 'quarterly' | 'biweekly' | 'occasional';
  amount: readonly [number, number];
  currency?: 'EUR';
  method: 'IBAN' | 'FIK71' | 'BankTransfer';
}

const C1_CREDITORS: readonly CreditorSeed[] = [
  {
    name: 'Nordic Bike Distribution A/S',
    account: ['BIKES', 'KIDS'],
    vat: 'K25',
    schedule: 'biweekly',
    amount: [0, 0],
    method: 'BankTransfer',
  },
  {
    name: 'Voltvej E-Mobility ApS',
    account: ['EBIKES'],
    vat: 'K25',
    schedule: 'biweekly',
    amount: [0, 0],
    method: 'BankTransfer',
  },
  {
    name: 'Cykeldele Engros ApS',
    account: ['PARTS'],
    vat: 'K25',
    schedule: 'biweekly',
    amount: [0, 0],
    method: 'FIK71',
  },
  {
    name: 'Dækcentralen Vejle ApS',
    account: ['TYRES'],
    vat: 'K25',
    schedule: 'biweekly',
    amount: [0, 0],
    method: 'FIK71',
  },
  {
    name: 'Accessory House Scandinavia A/S',
    account: ['ACC', 'CLOTH'],
    vat: 'K25',
    schedule: 'biweekly',
    amount: [0, 0],
    method: 'BankTransfer',
  },
  {
    name: 'Velo Parts GmbH',
    account: ['PARTS'],
    vat: 'EUV',
    schedule: 'occasional',
    amount: [800, 4500],
    currency: 'EUR',
    method: 'IBAN',
  },
  {
    name: LEDGER_DEMO_SECOND_COMPANY_NAME,
    account: '2410',
    vat: 'K25',
    schedule: 'monthly',
    amount: [28_000, 28_000],
    method: 'BankTransfer',
  },
  {
    name: 'Aarhus Forsyning A/S',
    account: '2430',
    vat: 'K25',
    schedule: 'monthly',
    amount: [1_800, 4_600],
    method: 'FIK71',
  },
  {
    name: 'Jysk Energi A/S',
    account: '2420',
    vat: 'K25',
    schedule: 'monthly',
    amount: [2_200, 5_400],
    method: 'FIK71',
  },
  { name: 'TeleNord A/S', account: '2620', vat: 'K25', schedule: 'monthly', amount: [890, 1_450], method: 'FIK71' },
  {
    name: 'Midtjysk Forsikring G/S',
    account: '2640',
    vat: 'none',
    schedule: 'quarterly',
    amount: [9_500, 11_000],
    method: 'FIK71',
  },
  {
    name: 'Revisionsfirmaet Balance I/S',
    account: '2650',
    vat: 'K25',
    schedule: 'quarterly',
    amount: [6_000, 14_000],
    method: 'BankTransfer',
  },
  {
    name: 'Smedegaard Logistik ApS',
    account: '1190',
    vat: 'K25',
    schedule: 'monthly',
    amount: [1_500, 6_500],
    method: 'BankTransfer',
  },
  {
    name: 'Annoncehuset Aarhus ApS',
    account: '2210',
    vat: 'K25',
    schedule: 'occasional',
    amount: [2_000, 12_000],
    method: 'BankTransfer',
  },
  {
    name: 'SearchAds Europe Ltd',
    account: '2220',
    vat: 'EUY',
    schedule: 'monthly',
    amount: [300, 1_200],
    currency: 'EUR',
    method: 'IBAN',
  },
  {
    name: 'Kontorland A/S',
    account: '2610',
    vat: 'K25',
    schedule: 'occasional',
    amount: [300, 2_500],
    method: 'FIK71',
  },
  {
    name: 'Bogføringssystemer ApS',
    account: '2630',
    vat: 'K25',
    schedule: 'monthly',
    amount: [650, 650],
    method: 'FIK71',
  },
  {
    name: 'Rengøringsfirmaet Skinnende ApS',
    account: '2440',
    vat: 'K25',
    schedule: 'monthly',
    amount: [2_400, 2_400],
    method: 'BankTransfer',
  },
  {
    name: 'Værktøjsgrossisten A/S',
    account: '2450',
    vat: 'K25',
    schedule: 'occasional',
    amount: [500, 7_000],
    method: 'FIK71',
  },
  {
    name: 'Pakkepost Danmark A/S',
    account: '2670',
    vat: 'K25',
    schedule: 'monthly',
    amount: [400, 2_200],
    method: 'FIK71',
  },
  {
    name: 'Kaffebaren Aarhus ApS',
    account: '2050',
    vat: 'K25',
    schedule: 'monthly',
    amount: [600, 1_400],
    method: 'BankTransfer',
  },
  {
    name: 'Bilcentret Aarhus A/S',
    account: '2680',
    vat: 'K25',
    schedule: 'occasional',
    amount: [800, 6_000],
    method: 'FIK71',
  },
  {
    name: 'Messecenter Herning A/S',
    account: '2230',
    vat: 'K25',
    schedule: 'occasional',
    amount: [4_000, 18_000],
    method: 'BankTransfer',
  },
  {
    name: 'Grafisk Trykkeri Midt ApS',
    account: '2210',
    vat: 'K25',
    schedule: 'occasional',
    amount: [1_200, 6_000],
    method: 'BankTransfer',
  },
  {
    name: 'Restaurant Åkanten ApS',
    account: '2240',
    vat: 'KREP',
    schedule: 'occasional',
    amount: [900, 4_500],
    method: 'BankTransfer',
  },
];

function creditorParty(r: Rng, seed: CreditorSeed, i: number, accountBase: number): Party {
  const p = makeParty(
    r,
    String(accountBase + i),
    seed.name,
    seed.currency === undefined ? 'DK' : 'EU',
    'prompt',
    i + 5,
  );
  p.paymentDays = seed.schedule === 'biweekly' ? 30 : r.pick([8, 14, 14, 30]);
  p.payment = `Net ${p.paymentDays} days`;
  p.creditMax = 0;
  p.paymentMethod = seed.method;
  p.paymentId =
    seed.method === 'FIK71'
      ? `+71<${String(r.int(100000000, 999999999)).padStart(15, '0')}+${r.int(80000000, 89999999)}<`
      : seed.method === 'IBAN'
        ? `DE${r.int(10, 99)}${r.int(10000000, 99999999)}${r.int(1000000000, 9999999999)}`
        : `${r.int(1000, 9999)} ${r.int(1000000000, 9999999999)}`;
  if (seed.currency !== undefined) {
    p.currency = seed.currency;
    p.vatZone = 'EU';
    p.country = seed.name.endsWith('Ltd') ? 106 : 80;
    p.countryName = seed.name.endsWith('Ltd') ? 'Ireland' : 'Germany';
    p.cvr = seed.name.endsWith('Ltd') ? `IE${r.int(1000000, 9999999)}X` : `DE${r.int(100000000, 999999999)}`;
    p.city = seed.name.endsWith('Ltd') ? 'Dublin' : 'Köln';
    p.zip = seed.name.endsWith('Ltd') ? 'D02' : '50667';
    p.address = seed.name.endsWith('Ltd') ? 'Grand Canal Quay 4' : 'Hohe Straße 101';
    p.swift = seed.name.endsWith('Ltd') ? 'AIBKIE2D' : 'COLSDE33';
  }
  if (seed.name === LEDGER_DEMO_SECOND_COMPANY_NAME) {
    p.address = 'Mejlgade 39';
    p.zip = '8000';
    p.city = 'Aarhus C';
    p.cvr = '29854107';
    p.paymentDays = 0;
    p.payment = 'Due on the 1st';
  }
  return p;
}

function buildItems(): Item[] {
  const r = rng(0x17e35);
  const items: Item[] = [];
  let eanSeq = 1;
  for (const g of GROUPS) {
    const combos: string[] = [];
    for (const m of g.models) for (const v of g.variants) combos.push(v === '' ? m : `${m}, ${v}`);
    for (let i = 0; i < g.count; i++) {
      const name = combos[i % combos.length]!;
      const base = g.price[0] + r.next() * (g.price[1] - g.price[0]);
      const price = base > 1000 ? Math.round(base / 100) * 100 : Math.round(base / 5) * 5;
      const cost = round2(price * (g.costRatio + (r.next() - 0.5) * 0.08));
      items.push({
        item: `${g.prefix}-${String(1001 + i)}`,
        name,
        group: g,
        price,
        cost,
        purchase: round2(cost * 0.97),
        price2: g.service || r.chance(0.5) ? undefined : round2(price * 0.9),
        price3: g.service || !r.chance(0.15) ? undefined : round2(price * 0.8),
        ean: g.service ? undefined : ean13('571234', eanSeq++),
        brand: g.brands.length === 0 ? undefined : r.pick(g.brands),
        blocked: !g.service && r.chance(0.02),
      });
    }
  }
  return items;
}

const GROUP_BY_NAME: ReadonlyMap<string, ProductGroup> = new Map(GROUPS.map((g) => [g.group, g]));

/** Till receipt value per group (net DKK). */
const TILL_RECEIPT: ReadonlyArray<readonly [string, number, readonly [number, number]]> = [
  ['SERVICE', 30, [120, 1100]],
  ['ACC', 22, [50, 900]],
  ['PARTS', 18, [40, 650]],
  ['TYRES', 12, [60, 480]],
  ['CLOTH', 10, [150, 1400]],
  ['BIKES', 1.6, [3200, 9800]],
  ['EBIKES', 0.6, [11000, 28000]],
  ['KIDS', 1.8, [700, 3200]],
];

const TILL_WEIGHTS = TILL_RECEIPT.map((t) => [t, t[1]] as const);
const GROUP_WEIGHTS = GROUPS.map((g) => [g, g.tillWeight] as const);

/** Seasonal activity per calendar month (January first). */
const SEASON = [0.55, 0.6, 0.9, 1.2, 1.4, 1.45, 1.35, 1.3, 1.1, 0.9, 0.7, 0.9];

interface CompanyBuild {
  entities: Record<LedgerDataEntity, LedgerRow[]>;
}

function buildNordlysCykler(): CompanyBuild {
  const book = createBook(10000);
  const items = buildItems();
  const itemsByGroup = new Map<string, Item[]>();
  for (const it of items) {
    const list = itemsByGroup.get(it.group.group) ?? [];
    list.push(it);
    itemsByGroup.set(it.group.group, list);
  }
  const debtors = c1Debtors();
  const rc = rng(0xc4ed170);
  const creditors = C1_CREDITORS.map((seed, i) => creditorParty(rc, seed, i, 20001));
  const invLines: InvLine[] = [];
  let invSeq = 0;
  const debtorInvoices: IssuedInvoice[] = [];
  const creditorInvoices: IssuedInvoice[] = [];

  const rTill = rng(0x7111);
  const rInv = rng(0x1a701ce);
  const rPay = rng(0xba7);
  const rCred = rng(0xc0575);
  const rInvTill = rng(0x5a1e5);
  const rMisc = rng(0x3157);

  // Opening balances and opening stock (day 0).
  const stock = new Map<Item, number>();
  let openingStockValue = 0;
  for (const it of items) {
    if (it.group.service) continue;
    const qty = rMisc.int(it.group.openingStock[0], it.group.openingStock[1]);
    stock.set(it, qty);
    openingStockValue += qty * it.cost;
    invLines.push({
      day: 0,
      seq: invSeq++,
      item: it,
      qty,
      net: round2(qty * it.cost),
      movement: 'Counting',
      text: 'Opening stock count',
    });
  }
  openingStockValue = round2(openingStockValue);
  const opening: PostingLine[] = [
    { account: '5010', amount: 310_000 },
    { account: '5020', amount: -95_000 },
    { account: '5030', amount: 180_000 },
    { account: '5100', amount: openingStockValue },
    { account: '5300', amount: 243_518.4 },
    { account: '5320', amount: 5_000 },
    { account: '6010', amount: -125_000 },
    { account: '6120', amount: -400_000 },
  ];
  const openingSum = round2(opening.reduce((s, l) => s + (l.amount as number), 0));
  opening.push({ account: '6020', amount: -openingSum });
  book.post(0, 'OPENING', 'Opening balance 2025', opening);

  // Imported postings with unreadable amounts (kept out of every balance).
  const nonNumericDays = [2, 95, 181, 366, 455, 640];
  LEDGER_NON_NUMERIC_AMOUNTS.forEach((amount, i) => {
    book.schedule(nonNumericDays[i]!, () => {
      book.post(nonNumericDays[i]!, 'IMPORT', 'Imported from legacy system (amount unreadable)', [
        { account: LEDGER_NON_NUMERIC_ACCOUNT, amount, reference: `LEGACY-${1001 + i}` },
      ]);
    });
  });

  // 200 debtor invoices spread over the two years (5 of them credit notes).
  const invoiceDays = new Map<number, number>();
  for (let k = 0; k < 200; k++) {
    const day = businessDay(Math.min(DAYS - 3, Math.floor((k * DAYS) / 200) + rInv.int(0, 2)));
    invoiceDays.set(day, (invoiceDays.get(day) ?? 0) + 1);
  }
  const invoiceDebtors = debtors.filter((d) => d.group !== 'CASH');
  let invoiceNumber = 100_000;
  const stockItems = items.filter((it) => !it.group.service && !it.blocked);
  const serviceItems = items.filter((it) => it.group.service);

  function sell(
    day: number,
    it: Item,
    qty: number,
    party: Party,
    invoice: number | undefined,
    text: string,
    currency?: string,
  ): number {
    const rate = currency === undefined ? 1 : RATES[currency]!;
    const unit = currency === undefined ? it.price : round2(it.price / rate);
    const net = round2(qty * unit);
    invLines.push({ day, seq: invSeq++, item: it, qty: -qty, net, movement: 'Debtor', party, invoice, text, currency });
    if (!it.group.service) stock.set(it, (stock.get(it) ?? 0) - qty);
    return net;
  }

  function issueInvoice(day: number, party: Party, creditOf?: IssuedInvoice): void {
    invoiceNumber++;
    const lines: RevenueLine[] = [];
    if (creditOf !== undefined) {
      // Return of one line of an earlier invoice.
      const original = invLines.find(
        (l) => l.invoice === creditOf.number && l.movement === 'Debtor' && !l.item.group.service,
      );
      const it = original?.item ?? rInv.pick(stockItems);
      const net = sell(day, it, -1, party, invoiceNumber, `Return on invoice ${creditOf.number}`, party.currency);
      lines.push({
        account: party.vat === 'EUS' ? '1090' : party.vat === 'EXP' ? '1095' : it.group.salesAccount,
        net,
        cost: -it.cost,
        dimension1: 'B2B',
      });
    } else {
      const n = rInv.int(1, 5);
      for (let j = 0; j < n; j++) {
        const service = rInv.chance(0.2);
        const it = service ? rInv.pick(serviceItems) : rInv.pick(stockItems);
        const qty = it.group.group === 'EBIKES' || it.group.group === 'BIKES' ? rInv.int(1, 4) : rInv.int(1, 10);
        const net = sell(day, it, qty, party, invoiceNumber, `Invoice ${invoiceNumber}`, party.currency);
        const account = party.vat === 'EUS' ? '1090' : party.vat === 'EXP' ? '1095' : it.group.salesAccount;
        lines.push({ account, net, cost: round2(qty * it.cost), dimension1: 'B2B' });
      }
    }
    const inv = postDebtorInvoice(book, day, invoiceNumber, party, lines, creditOf !== undefined);
    debtorInvoices.push(inv);
    scheduleDebtorPayment(book, rPay, inv);
  }

  // Creditor schedules.
  const creditorNumbers = creditors.map(() => rCred.int(10_000, 90_000));
  function purchaseFromCreditor(day: number, ci: number): void {
    const seed = C1_CREDITORS[ci]!;
    const party = creditors[ci]!;
    creditorNumbers[ci]! += rCred.int(1, 40);
    const number = creditorNumbers[ci]!;
    let lines: CostLine[];
    if (Array.isArray(seed.account)) {
      const groups = seed.account as readonly string[];
      const rate = party.currency === undefined ? 1 : RATES[party.currency]!;
      const byAccount = new Map<string, number>();
      let bought = 0;
      for (const g of groups) {
        for (const it of itemsByGroup.get(g) ?? []) {
          if (it.blocked) continue;
          // Reorder point: refill to the top of the usual stock range once at or below its bottom.
          const onHand = stock.get(it) ?? 0;
          const [reorderAt, refillTo] = it.group.openingStock;
          let qty = onHand <= reorderAt ? refillTo - onHand + (rCred.chance(0.2) ? 1 : 0) : 0;
          if (party.currency !== undefined) qty = rCred.chance(0.1) ? rCred.int(2, 10) : 0;
          if (qty <= 0) continue;
          const unit = round2(it.purchase / rate);
          const net = round2(qty * unit);
          invLines.push({
            day,
            seq: invSeq++,
            item: it,
            qty,
            net,
            movement: 'Creditor',
            party,
            invoice: number,
            text: `Purchase ${party.name}`,
            currency: party.currency,
          });
          stock.set(it, onHand + qty);
          byAccount.set(it.group.costAccount, round2((byAccount.get(it.group.costAccount) ?? 0) + net));
          bought++;
        }
      }
      if (bought === 0) {
        creditorNumbers[ci]! -= 1;
        return;
      }
      lines = [...byAccount].map(([account, net]) => ({ account, net, vat: seed.vat }));
    } else {
      lines = [{ account: seed.account as string, net: rCred.amount(seed.amount[0], seed.amount[1]), vat: seed.vat }];
    }
    const inv = postCreditorInvoice(book, day, number, party, lines);
    creditorInvoices.push(inv);
    // Creditors are paid on the due date, except two disputed invoices (overdue) and what falls after the end.
    const disputed =
      (ci === 12 && creditorInvoices.filter((c) => c.party === party).length === 17) ||
      (ci === 18 && creditorInvoices.filter((c) => c.party === party).length === 5);
    if (disputed) return;
    const payDay = Math.max(day, inv.dueDay);
    book.schedule(payDay, () => postCreditorPayment(book, payDay, inv));
  }

  const biweeklyOffset = creditors.map((_, i) => i % 10);
  const quarterly = new Map<number, number>();
  const occasional: Array<[number, number]> = [];
  C1_CREDITORS.forEach((seed, ci) => {
    if (seed.schedule === 'quarterly') quarterly.set(ci, rCred.int(3, 20));
    if (seed.schedule === 'occasional') {
      const n = rCred.int(4, 12);
      for (let k = 0; k < n; k++) occasional.push([businessDay(rCred.int(3, DAYS - 4)), ci]);
    }
  });

  const revenueTillText = (n: number): string => `Till receipt ${n}`;
  let receipt = 0;
  let cashInDrawer = 0;
  let mobilePay = 0;

  for (let day = 0; day < DAYS; day++) {
    book.runDay(day);
    const w = weekday(day);
    const month = monthIndex(day) % 12;
    const season = SEASON[month]!;

    // Till receipts (shop closed on Sundays).
    if (w !== 0) {
      const n = Math.round(25 * season * (w === 6 ? 1.3 : 1) * (0.8 + 0.4 * rTill.next()));
      for (let k = 0; k < n; k++) {
        receipt++;
        const [group, , range] = rTill.weighted(TILL_WEIGHTS);
        const g = GROUP_BY_NAME.get(group)!;
        const net = rTill.amount(range[0], range[1]);
        const vat = round2(net * 0.25);
        const gross = round2(net + vat);
        const method = rTill.weighted([
          ['5300', 55],
          ['5330', 35],
          ['5320', 10],
        ] as const);
        if (method === '5320') cashInDrawer = round2(cashInDrawer + gross);
        if (method === '5330') mobilePay = round2(mobilePay + gross);
        book.post(day, 'POS', revenueTillText(receipt), [
          { account: method, amount: gross },
          {
            account: g.salesAccount,
            amount: -net,
            vat: 'S25',
            amountVat: -vat,
            dimension1: g.service ? 'WORKSHOP' : 'SHOP',
          },
          { account: '6200', amount: -vat, vat: 'S25' },
        ]);
      }
      // Daily till summary lines in the inventory journal.
      const lines = Math.max(1, Math.round(4 * season * (0.7 + 0.6 * rInvTill.next())));
      for (let k = 0; k < lines; k++) {
        const group = rInvTill.weighted(GROUP_WEIGHTS);
        const candidates = (itemsByGroup.get(group.group) ?? []).filter((it) => !it.blocked);
        const it = rInvTill.pick(candidates);
        sell(day, it, rInvTill.int(group.tillQty[0], group.tillQty[1]), debtors[0]!, undefined, 'Till sales summary');
      }
    }

    // Debtor invoices.
    const count = invoiceDays.get(day) ?? 0;
    for (let k = 0; k < count; k++) {
      const isCredit = (debtorInvoices.length + 1) % 40 === 17 && debtorInvoices.length > 20;
      if (isCredit) {
        const earlier = debtorInvoices.filter((inv) => !inv.creditNote && inv.openDkk === 0);
        const creditOf = earlier[earlier.length - 1 - rInv.int(0, Math.min(5, earlier.length - 1))];
        if (creditOf !== undefined) issueInvoice(day, creditOf.party, creditOf);
        else issueInvoice(day, rInv.pick(invoiceDebtors));
      } else {
        issueInvoice(
          day,
          rInv.weighted(
            invoiceDebtors.map((d) => [d, d.group === 'PUBLIC' ? 3 : d.group === 'EXPORT' ? 1.5 : 1] as const),
          ),
        );
      }
    }

    // Supplier invoices.
    if (w >= 1 && w <= 5) {
      C1_CREDITORS.forEach((seed, ci) => {
        if (seed.schedule === 'biweekly' && Math.floor(day / 7) % 2 === biweeklyOffset[ci]! % 2 && w === 1 + (ci % 5))
          purchaseFromCreditor(day, ci);
      });
    }
    const dom = new Date(START_MS + day * DAY_MS).getUTCDate();
    C1_CREDITORS.forEach((seed, ci) => {
      if (seed.schedule === 'monthly' && dom === 1 + ((ci * 3) % 26)) purchaseFromCreditor(day, ci);
      if (seed.schedule === 'quarterly' && month % 3 === 0 && dom === quarterly.get(ci)) purchaseFromCreditor(day, ci);
    });
    for (const [d, ci] of occasional) if (d === day) purchaseFromCreditor(day, ci);

    // Month end: payroll, depreciation, bank fees, cash and MobilePay to the bank.
    if (isLastDayOfMonth(day)) {
      const m = monthIndex(day);
      const wages = round2(168_000 + (month >= 3 && month <= 7 ? 42_000 : 0) + m * 900 + rMisc.amount(-2500, 2500));
      const pension = round2(wages * 0.08);
      const atp = 1_134;
      const tax = round2(wages * 0.36);
      book.post(day, 'PAYROLL', `Payroll ${dt(day).slice(0, 7)}`, [
        { account: '2010', amount: wages },
        { account: '2020', amount: pension },
        { account: '2030', amount: atp },
        { account: '6140', amount: -tax },
        { account: '5300', amount: -round2(wages + pension + atp - tax) },
      ]);
      const taxDay = businessDay(day + 10);
      book.schedule(taxDay, () =>
        book.post(taxDay, 'PAYROLL', `Payroll tax ${dt(day).slice(0, 7)}`, [
          { account: '6140', amount: tax },
          { account: '5300', amount: -tax },
        ]),
      );
      book.post(day, 'DEPRECIATION', `Depreciation ${dt(day).slice(0, 7)}`, [
        { account: '2810', amount: 6_250 },
        { account: '5020', amount: -6_250 },
      ]);
      const fees = rMisc.amount(450, 1_900);
      book.post(day, 'BANK', `Card and bank fees ${dt(day).slice(0, 7)}`, [
        { account: '2660', amount: fees },
        { account: '5300', amount: -fees },
      ]);
      const transfer = round2(Math.max(cashInDrawer - 5_000, 0));
      if (transfer > 0)
        book.post(day, 'BANK', 'Cash deposited in bank', [
          { account: '5300', amount: transfer },
          { account: '5320', amount: -transfer },
        ]);
      cashInDrawer = round2(cashInDrawer - transfer);
      if (mobilePay > 0)
        book.post(day, 'BANK', 'MobilePay settlement', [
          { account: '5300', amount: mobilePay },
          { account: '5330', amount: -mobilePay },
        ]);
      mobilePay = 0;
      if (month % 3 === 2) {
        const interest = round2((400_000 * 0.055) / 4 - m * 40);
        book.post(day, 'BANK', `Loan interest Q${Math.floor(month / 3) + 1}`, [
          { account: '2920', amount: interest },
          { account: '5300', amount: -interest },
        ]);
        const deposit = rMisc.amount(40, 320);
        book.post(day, 'BANK', `Interest on deposits Q${Math.floor(month / 3) + 1}`, [
          { account: '5300', amount: deposit },
          { account: '2910', amount: -deposit },
        ]);
        settleVat(book, day, `Q${Math.floor(month / 3) + 1} ${dt(day).slice(0, 4)}`);
      }
      if (month === 11) {
        const regulation = day < YEAR2_START ? 18_450 : -7_230;
        book.post(day, 'YEAREND', `Inventory regulation ${dt(day).slice(0, 4)}`, [
          { account: '5100', amount: regulation },
          { account: '1195', amount: -regulation },
        ]);
      }
    }
  }

  // Stock counting: a few quarterly corrections, and no item ends below zero.
  const rCount = rng(0xc0a7);
  for (let q = 1; q <= 8; q++) {
    const day = businessDay(q * 91 - 3);
    for (let k = 0; k < 8; k++) {
      const it = rCount.pick(stockItems);
      const delta = rCount.chance(0.7) ? -rCount.int(1, 2) : rCount.int(1, 2);
      invLines.push({
        day,
        seq: invSeq++,
        item: it,
        qty: delta,
        net: round2(delta * it.cost),
        movement: 'Counting',
        text: 'Stock count correction',
      });
      stock.set(it, (stock.get(it) ?? 0) + delta);
    }
  }
  for (const it of stockItems) {
    const qty = stock.get(it) ?? 0;
    if (qty < 0) {
      invLines.push({
        day: AS_OF_DAY,
        seq: invSeq++,
        item: it,
        qty: -qty,
        net: round2(-qty * it.cost),
        movement: 'Counting',
        text: 'Year-end stock count',
      });
      stock.set(it, 0);
    }
  }

  // Rows ------------------------------------------------------------------------------------
  invLines.sort((a, b) => a.day - b.day || a.seq - b.seq);
  const lastMovement = new Map<Item, number>();
  const invTransRows = invLines.map((l, i) => {
    lastMovement.set(l.item, l.day);
    return compact({
      LineNumber: i + 1,
      Date: dt(l.day),
      Item: l.item.item,
      ItemName: l.item.name,
      DCAccount: l.party?.account,
      AccountName: l.party?.name,
      MovementType: l.movement,
      Qty: l.qty,
      NetAmount: l.net,
      CostPrice: l.item.cost,
      SalesPrice: l.movement === 'Debtor' ? l.item.price : undefined,
      Currency: l.currency,
      InvoiceNumber: l.invoice,
      Warehouse: l.item.group.service ? undefined : 'MAIN',
      Text: l.text,
    });
  });

  const rOrders = rng(0x0bde5);
  const reserved = new Map<Item, number>();
  const orderDebtors = invoiceDebtors.filter((d) => !d.blocked);
  const openDebtor = debtorInvoices.filter((inv) => inv.openDkk !== 0);
  const debtorRows = debtors.map((d) => partyRow(d, openDebtor, {}));
  const debtorByAccount = new Map(debtorRows.map((row) => [row.Account as string, row]));
  const orderRows: LedgerRow[] = [];
  for (let k = 0; k < 30; k++) {
    const d = orderDebtors[(k * 7) % orderDebtors.length]!;
    const subscription = k % 10 === 3;
    let sales = 0;
    let cost = 0;
    const n = subscription ? 1 : rOrders.int(1, 6);
    for (let j = 0; j < n; j++) {
      const it = subscription
        ? serviceItems.find((s) => s.name === (k === 13 ? 'Winter storage' : 'Full service'))!
        : rOrders.pick(stockItems);
      const qty = subscription ? rOrders.int(4, 12) : rOrders.int(1, 6);
      sales += qty * it.price;
      cost += qty * it.cost;
      if (!it.group.service) reserved.set(it, (reserved.get(it) ?? 0) + qty);
    }
    const debtorRow = debtorByAccount.get(d.account)!;
    orderRows.push(
      compact({
        OrderNumber: 5001 + k,
        Account: d.account,
        Name: d.name,
        Group: d.group,
        GroupName: DEBTOR_GROUP_NAMES[d.group],
        SalesValue: round2(sales),
        Margin: round2(sales - cost),
        MarginRatio: round2(((sales - cost) / sales) * 100),
        CurBalance: debtorRow.CurBalance,
        Overdue: debtorRow.Overdue,
        CreditMax: d.creditMax,
        NextInvoice: subscription ? dt(dayOf(2027, 1, 4)) : undefined,
        SubscriptionEnded: subscription && k === 23 ? dt(dayOf(2026, 6, 30)) : undefined,
      }),
    );
  }

  const ordered = new Map<Item, number>();
  for (const it of stockItems) if (rOrders.chance(0.2)) ordered.set(it, rOrders.int(1, 10));

  const itemRows: LedgerRow[] = [];
  const itemUserRows: LedgerRow[] = [];
  for (const it of items) {
    const onStock = it.group.service ? 0 : (stock.get(it) ?? 0);
    const res = reserved.get(it) ?? 0;
    const last = lastMovement.get(it);
    const base = compact({
      Item: it.item,
      Name: it.name,
      ItemType: it.group.service ? 'Service' : 'Item',
      EAN: it.ean,
      CostPrice: it.cost,
      PurchasePrice: it.group.service ? undefined : it.purchase,
      SalesPrice1: it.price,
      SalesPrice2: it.price2,
      SalesPrice3: it.price3,
      Unit: it.group.service ? (it.name === 'Workshop hour' ? 'Hours' : 'Piece') : 'Piece',
      Group: it.group.group,
      Qty: onStock,
      QtyOnStock: onStock,
      QtyReserved: res,
      QtyOrdered: ordered.get(it) ?? 0,
      Available: onStock - res,
      LastMovement: last === undefined ? undefined : dt(last),
      Blocked: it.blocked,
    });
    itemRows.push(base);
    itemUserRows.push(compact({ ...base, Brand: it.brand, WarrantyMonths: it.group.warranty }));
  }

  const groupRows = GROUPS.map((g) =>
    compact({
      Group: g.group,
      Name: g.name,
      SalesAccount: g.salesAccount,
      CostAccount: g.costAccount,
      PurchaseAccount: g.costAccount,
      InvAccount: '5100',
    }),
  );

  const openCreditor = creditorInvoices.filter((inv) => inv.openDkk !== 0);
  return {
    entities: {
      DebtorClient: debtorRows,
      DebtorClientUser: debtors.map((d, i) => compact({ ...debtorRows[i]!, Segment: d.segment, SalesRep: d.salesRep })),
      DebtorTransOpenClient: debtorOpenRows(openDebtor),
      DebtorInvoiceClient: invoiceRows(debtorInvoices, 900_001),
      DebtorOrderClient: orderRows,
      CreditorClient: creditors.map((c) =>
        partyRow(c, openCreditor, { PaymentMethod: c.paymentMethod, PaymentId: c.paymentId }),
      ),
      CreditorTransOpenClient: creditorOpenRows(openCreditor),
      GLAccountClient: glAccountRows(C1_ACCOUNTS, book),
      GLVatClient: vatRows(STANDARD_VAT),
      GLTransClient: book.rows,
      InvItemClient: itemRows,
      InvItemClientUser: itemUserRows,
      InvGroupClient: groupRows,
      InvTransClient: invTransRows,
    },
  };
}

function invoiceRows(invoices: readonly IssuedInvoice[], firstKey: number): LedgerRow[] {
  return invoices.map((inv, i) => {
    const sales = round2(inv.net * (inv.party.currency === undefined ? 1 : RATES[inv.party.currency]!));
    return compact({
      PrimaryKeyId: firstKey + i,
      Account: inv.party.account,
      Name: inv.party.name,
      SalesValue: sales,
      CostValue: inv.cost,
      Margin: round2(sales - inv.cost),
      MarginRatio: sales === 0 ? 0 : round2(((sales - inv.cost) / sales) * 100),
      PricesInclVat: false,
      CreditnoteDate: inv.creditNote ? dt(inv.day) : undefined,
      InvoiceNumber: inv.number,
      Date: dt(inv.day),
      DueDate: dt(inv.dueDay),
      NetAmount: inv.net,
      VatAmount: inv.vat,
      TotalAmount: inv.total,
      Currency: inv.party.currency,
      Paid: inv.openDkk === 0,
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Company 2: Nordlys Ejendomme ApS (the shop's landlord)
// ---------------------------------------------------------------------------------------------

const C2_ACCOUNTS: readonly AccountDef[] = [
  { account: '1000', name: 'REVENUE', type: 'Header' },
  { account: '1010', name: 'Rental income, commercial leases', type: 'Revenue', vat: 'S25' },
  { account: '1020', name: 'Service charges', type: 'Revenue', vat: 'S25' },
  { account: '1099', name: 'Total revenue', type: 'Sum', sum: ['1000', '1098'] },
  { account: '2400', name: 'PROPERTY COSTS', type: 'Header' },
  { account: '2410', name: 'Repairs and maintenance', type: 'Expense', vat: 'K25' },
  { account: '2420', name: 'Utilities', type: 'Expense', vat: 'K25' },
  { account: '2430', name: 'Property tax', type: 'Expense' },
  { account: '2640', name: 'Insurance', type: 'Expense' },
  { account: '2650', name: 'Accounting and audit', type: 'Expense', vat: 'K25' },
  { account: '2920', name: 'Mortgage interest', type: 'Financial' },
  { account: '2999', name: 'Profit before tax', type: 'Sum', sum: ['1000', '2998'] },
  { account: '5010', name: 'Property, Mejlgade 39-41', type: 'Asset' },
  { account: '5200', name: 'Debtors', type: 'Debtor' },
  { account: '5300', name: 'Bank, Jyske Bank', type: 'Bank' },
  { account: '6010', name: 'Share capital', type: 'Equity' },
  { account: '6020', name: 'Retained earnings', type: 'Equity' },
  { account: '6110', name: 'Creditors', type: 'Creditor' },
  { account: '6120', name: 'Mortgage loan', type: 'Liability' },
  { account: '6200', name: 'Output VAT', type: 'Vat' },
  { account: '6210', name: 'Input VAT', type: 'Vat' },
  { account: '6220', name: 'VAT on EU purchases', type: 'Vat' },
  { account: '6230', name: 'VAT settlement account', type: 'Vat' },
];

const C2_VAT: readonly VatDef[] = [STANDARD_VAT[0]!, STANDARD_VAT[1]!, STANDARD_VAT[4]!, STANDARD_VAT[7]!];

const C2_TENANTS: ReadonlyArray<readonly [string, number, PayBehaviour]> = [
  [LEDGER_DEMO_COMPANY_NAME, 22_400, 'prompt'],
  ['Café Åen ApS', 14_800, 'late'],
  ['Tandlæge Holm ApS', 18_200, 'prompt'],
  ['Frisør Saks & Co I/S', 9_600, 'bad'],
  ['Revisorhuset Aarhus ApS', 16_000, 'prompt'],
  ['Yogastudiet Lys ApS', 8_900, 'late'],
];

const C2_CREDITORS: readonly CreditorSeed[] = [
  {
    name: 'Aarhus Forsyning A/S',
    account: '2420',
    vat: 'K25',
    schedule: 'monthly',
    amount: [2_000, 5_500],
    method: 'FIK71',
  },
  {
    name: 'Midtjysk Forsikring G/S',
    account: '2640',
    vat: 'none',
    schedule: 'quarterly',
    amount: [7_500, 7_500],
    method: 'FIK71',
  },
  {
    name: 'Ejendomsservice Jylland ApS',
    account: '2410',
    vat: 'K25',
    schedule: 'occasional',
    amount: [1_500, 24_000],
    method: 'BankTransfer',
  },
  {
    name: 'Revisionsfirmaet Balance I/S',
    account: '2650',
    vat: 'K25',
    schedule: 'quarterly',
    amount: [3_500, 5_000],
    method: 'BankTransfer',
  },
];

function buildNordlysEjendomme(): CompanyBuild {
  const book = createBook(50000);
  const r = rng(0xe7d);
  const tenants = C2_TENANTS.map(([name, , behaviour], i) => {
    const p = makeParty(r, String(30001 + i), name, 'TENANT', behaviour, 0);
    p.address = `Mejlgade ${i < 2 ? 41 : 39}${i === 0 ? '' : `, ${i}. sal`}`;
    p.paymentDays = 0;
    p.payment = 'Due on the 1st';
    p.creditMax = 0;
    if (name === LEDGER_DEMO_COMPANY_NAME) p.cvr = '38471265';
    return p;
  });
  const creditors = C2_CREDITORS.map((seed, i) => creditorParty(r, seed, i, 40001));
  const invoices: IssuedInvoice[] = [];
  const creditorInvoices: IssuedInvoice[] = [];
  book.post(0, 'OPENING', 'Opening balance 2025', [
    { account: '5010', amount: 6_400_000 },
    { account: '5300', amount: 312_000 },
    { account: '6010', amount: -200_000 },
    { account: '6120', amount: -4_850_000 },
    { account: '6020', amount: -1_662_000 },
  ]);
  let invoiceNumber = 200_000;
  let creditorNumber = 5_000;
  for (let day = 0; day < DAYS; day++) {
    book.runDay(day);
    const date = new Date(START_MS + day * DAY_MS);
    const dom = date.getUTCDate();
    const month = date.getUTCMonth();
    if (dom === 1) {
      C2_TENANTS.forEach(([, rent], i) => {
        const tenant = tenants[i]!;
        invoiceNumber++;
        const lines: RevenueLine[] = [{ account: '1010', net: rent, cost: 0 }];
        if (i % 2 === 0) lines.push({ account: '1020', net: Math.round(rent * 0.08), cost: 0 });
        const inv = postDebtorInvoice(book, day, invoiceNumber, tenant, lines, false);
        invoices.push(inv);
        scheduleDebtorPayment(book, r, inv);
      });
    }
    C2_CREDITORS.forEach((seed, ci) => {
      const due =
        (seed.schedule === 'monthly' && dom === 12) ||
        (seed.schedule === 'quarterly' && dom === 20 && month % 3 === 0) ||
        (seed.schedule === 'occasional' && dom === 8 && month % 2 === 1);
      if (!due) return;
      creditorNumber += 3;
      const inv = postCreditorInvoice(book, day, creditorNumber, creditors[ci]!, [
        { account: seed.account as string, net: r.amount(seed.amount[0], seed.amount[1]), vat: seed.vat },
      ]);
      creditorInvoices.push(inv);
      const payDay = Math.max(day, inv.dueDay);
      book.schedule(payDay, () => postCreditorPayment(book, payDay, inv));
    });
    if (isLastDayOfMonth(day)) {
      const interest = round2((4_850_000 * 0.042) / 12);
      book.post(day, 'BANK', `Mortgage interest ${dt(day).slice(0, 7)}`, [
        { account: '2920', amount: interest },
        { account: '5300', amount: -interest },
      ]);
      if (month % 3 === 2) settleVat(book, day, `Q${Math.floor(month / 3) + 1} ${dt(day).slice(0, 4)}`);
      if (month === 0 || month === 6)
        book.post(day, 'TAX', `Property tax ${dt(day).slice(0, 7)}`, [
          { account: '2430', amount: 21_300 },
          { account: '5300', amount: -21_300 },
        ]);
    }
  }
  const open = invoices.filter((inv) => inv.openDkk !== 0);
  const openCreditor = creditorInvoices.filter((inv) => inv.openDkk !== 0);
  const tenantRows = tenants.map((t) => partyRow(t, open, {}));
  return {
    entities: {
      DebtorClient: tenantRows,
      DebtorClientUser: tenants.map((_t, i) =>
        compact({ ...tenantRows[i]!, Segment: 'Tenant', SalesRep: i % 2 === 0 ? 'Jens Nordlys' : undefined }),
      ),
      DebtorTransOpenClient: debtorOpenRows(open),
      DebtorInvoiceClient: invoiceRows(invoices, 800_001),
      DebtorOrderClient: [],
      CreditorClient: creditors.map((c) =>
        partyRow(c, openCreditor, { PaymentMethod: c.paymentMethod, PaymentId: c.paymentId }),
      ),
      CreditorTransOpenClient: creditorOpenRows(openCreditor),
      GLAccountClient: glAccountRows(C2_ACCOUNTS, book),
      GLVatClient: vatRows(C2_VAT),
      GLTransClient: book.rows,
      InvItemClient: [],
      InvItemClientUser: [],
      InvGroupClient: [],
      InvTransClient: [],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Lazy access
// ---------------------------------------------------------------------------------------------

export interface LedgerCompanyData {
  readonly companyId: number;
  readonly entities: Readonly<Record<LedgerDataEntity, readonly LedgerRow[]>>;
}

const BUILDERS: ReadonlyMap<number, () => CompanyBuild> = new Map([
  [LEDGER_DEMO_COMPANY_ID, buildNordlysCykler],
  [LEDGER_DEMO_SECOND_COMPANY_ID, buildNordlysEjendomme],
]);

const built = new Map<number, LedgerCompanyData>();

/** The rows of one company, built on first use and kept; undefined for an unknown company. */
export function ledgerCompanyData(companyId: number): LedgerCompanyData | undefined {
  const cached = built.get(companyId);
  if (cached !== undefined) return cached;
  const build = BUILDERS.get(companyId);
  if (build === undefined) return undefined;
  const data: LedgerCompanyData = { companyId, entities: build().entities };
  built.set(companyId, data);
  return data;
}

export function ledgerCompanyRow(companyId: number): LedgerRow | undefined {
  return LEDGER_COMPANY_ROWS.find((row) => row.PrimaryKeyId === companyId);
}

// Demo data of the Dinero sandbox (../shared/upstreams/books.md §4 "Demo data"), generated
// deterministically: a Pro organisation with two accounting years, ~120 accounts (hidden and
// summary ones included), deposit accounts with bank details, ~1,500 balanced entries, 250
// contacts (some deleted, some with notes), 300 invoices across all five statuses (one with 3
// reminders), credit notes linked by `CreditNoteFor`, trade offers in every status, purchase and
// manual vouchers reachable by guid and `FileGuid`, files with 32-character `FileGuid`s (one over
// 6 MB), VAT types with fractional rates; a free organisation (no Pro plan); a busy Pro
// organisation that the rate limit keeps throttled. Every model is PascalCase as on the wire.
import { mulberry32 } from '../seeded-random.ts';

export type Row = Record<string, unknown>;

/** The Pro organisation the demo works with. */
export const BOOKS_DEMO_ORG_ID = 412_345;
export const BOOKS_DEMO_ORG_NAME = 'Nordlys Regnskab ApS';
/** An organisation without the paid Pro plan: everything but /v1/organizations answers 403 code 90. */
export const BOOKS_FREE_ORG_ID = 412_346;
/** A Pro organisation whose per-organisation quota is spent: every request answers 429 (switch `throttledOrganizations`). */
export const BOOKS_THROTTLED_ORG_ID = 412_347;
/** The accounting years of the demo organisation (names as the upstream returns them). */
export const BOOKS_YEARS = ['2024', '2025'] as const;
/** "Today" of the demo data: due dates before it are overdue (switch `today`). */
export const BOOKS_TODAY = '2025-06-15';
/** The invoice with three reminders. */
export const BOOKS_REMINDED_INVOICE_GUID = '7c0f6f4e-0000-4000-8000-00000000a003';
/** A file over the connector's 6 MB download cap. */
export const BOOKS_BIG_FILE_GUID = 'big0file0over0six0mb0000000000zz';
export const BOOKS_BIG_FILE_BYTES = 6 * 1024 * 1024 + 300_000;
/** A contact whose name holds an apostrophe (a filter value the connector must refuse). */
export const BOOKS_APOSTROPHE_CONTACT = "O'Brien Consulting";
/**
 * Overdue invoices in a foreign currency (docs/decisions/connector-books.md, 'Money-bearing answers
 * an assistant can add up', item 3): every 20th invoice from the 8th in EUR,
 * from the 12th in SEK; their totals are in that currency and `Total…InDkk` converts them at these
 * rates (DKK per 100 units, as `ExchangeRate` on payments). Those with an index divisible by 3 are
 * also half paid, like every such overdue invoice.
 */
export const BOOKS_EXCHANGE_RATES: Readonly<Record<string, number>> = { DKK: 100, EUR: 746, SEK: 64.5 };
function invoiceCurrency(i: number, status: string): string {
  if (status !== 'Overdue') return 'DKK';
  return i % 20 === 8 ? 'EUR' : i % 20 === 12 ? 'SEK' : 'DKK';
}

export interface OrganizationData {
  readonly org: Row;
  readonly pro: boolean;
  readonly years: readonly Row[];
  readonly accounts: readonly Row[];
  readonly depositAccounts: readonly Row[];
  readonly entries: readonly Row[];
  readonly contacts: readonly Row[];
  readonly notes: ReadonlyMap<string, readonly Row[]>;
  readonly invoices: readonly Row[];
  readonly creditNotes: readonly Row[];
  readonly payments: ReadonlyMap<string, readonly Row[]>;
  readonly mailouts: ReadonlyMap<string, readonly Row[]>;
  readonly reminders: ReadonlyMap<string, readonly Row[]>;
  readonly tradeOffers: readonly Row[];
  readonly purchaseVouchers: readonly Row[];
  readonly purchaseCreditNotes: readonly Row[];
  readonly manualVouchers: readonly Row[];
  readonly purchasePayments: ReadonlyMap<string, readonly Row[]>;
  readonly products: readonly Row[];
  readonly files: readonly Row[];
  readonly attachments: ReadonlyMap<string, readonly Row[]>;
  readonly vatTypes: readonly Row[];
  readonly salesSettings: Row;
}

export interface BooksDataset {
  readonly organizations: ReadonlyMap<number, OrganizationData>;
  readonly countries: readonly Row[];
}

export const BOOKS_COUNTRIES: readonly Row[] = [
  ['DK', 'Danmark', 'Denmark'],
  ['SE', 'Sverige', 'Sweden'],
  ['NO', 'Norge', 'Norway'],
  ['FI', 'Finland', 'Finland'],
  ['IS', 'Island', 'Iceland'],
  ['DE', 'Tyskland', 'Germany'],
  ['NL', 'Holland', 'Netherlands'],
  ['BE', 'Belgien', 'Belgium'],
  ['FR', 'Frankrig', 'France'],
  ['ES', 'Spanien', 'Spain'],
  ['IT', 'Italien', 'Italy'],
  ['PL', 'Polen', 'Poland'],
  ['GB', 'Storbritannien', 'United Kingdom'],
  ['IE', 'Irland', 'Ireland'],
  ['US', 'USA', 'United States'],
  ['CA', 'Canada', 'Canada'],
  ['GL', 'Grønland', 'Greenland'],
  ['FO', 'Færøerne', 'Faroe Islands'],
].map(([CountryKey, Name, EnglishName]) => ({ CountryKey, Name, EnglishName }));

export const BOOKS_VAT_TYPES: readonly Row[] = [
  { VatCode: 'I25', Name: 'Indgående moms (køb) 25%', VatRate: 0.25 },
  { VatCode: 'U25', Name: 'Udgående moms (salg) 25%', VatRate: 0.25 },
  { VatCode: 'IEUV', Name: 'Køb af varer i EU', VatRate: 0.25 },
  { VatCode: 'UEUV', Name: 'Salg af varer til EU', VatRate: 0 },
  { VatCode: 'HREP', Name: 'Hotel og restaurant (25% af 25%)', VatRate: 0.0625 },
  { VatCode: 'none', Name: 'Ingen moms', VatRate: 0 },
];

const FIRST = [
  'Anders',
  'Birgitte',
  'Carsten',
  'Dorthe',
  'Emil',
  'Freja',
  'Gustav',
  'Hanne',
  'Ib',
  'Julie',
  'Kasper',
  'Lone',
  'Mads',
  'Nanna',
  'Ole',
  'Pia',
];
const LAST = [
  'Hansen',
  'Jensen',
  'Nielsen',
  'Pedersen',
  'Andersen',
  'Christensen',
  'Larsen',
  'Sørensen',
  'Rasmussen',
  'Jørgensen',
];
const COMPANY_WORDS = [
  'Nordic',
  'Fjord',
  'Havn',
  'Skov',
  'Lys',
  'Bølge',
  'Klit',
  'Eng',
  'Sten',
  'Vind',
  'Acme',
  'Polar',
];
const COMPANY_KINDS = ['ApS', 'A/S', 'I/S', 'Handel', 'Consult', 'Byg', 'Design', 'Data'];
const CITIES: readonly [string, string][] = [
  ['1000', 'København K'],
  ['8000', 'Aarhus C'],
  ['5000', 'Odense C'],
  ['9000', 'Aalborg'],
  ['6700', 'Esbjerg'],
  ['7100', 'Vejle'],
  ['4000', 'Roskilde'],
  ['3000', 'Helsingør'],
];
const PRODUCT_NAMES = [
  'Konsulenttime',
  'Rådgivning',
  'Licens',
  'Support',
  'Installation',
  'Kursus',
  'Kørsel',
  'Materialer',
  'Abonnement',
  'Revision',
];
const UNITS = ['hours', 'parts', 'km', 'day', 'month', 'package'];

/** Accounts of the chart: [number, name, category, categoryName, vatCode]. Summary rows are generated below. */
const ACCOUNT_PLAN: readonly (readonly [number, number, string, string, string, string])[] = [
  // [from, to, name stem, category, categoryName, vat]
  [1000, 1090, 'Salg af ydelser', 'Turnover', 'Omsætning', 'U25'],
  [1100, 1190, 'Salg EU', 'Turnover', 'Omsætning', 'UEUV'],
  [1300, 1390, 'Vareforbrug', 'CostOfGoods', 'Vareforbrug', 'I25'],
  [2000, 2190, 'Lønninger', 'Salaries', 'Personaleomkostninger', 'none'],
  [2400, 2590, 'Lokaleomkostninger', 'Expenses', 'Lokaleomkostninger', 'I25'],
  [2800, 2990, 'Administration', 'Expenses', 'Administrationsomkostninger', 'I25'],
  [3200, 3290, 'Renter', 'Financial', 'Finansielle poster', 'none'],
  [5000, 5190, 'Inventar', 'FixedAssets', 'Anlægsaktiver', 'none'],
  [5600, 5790, 'Debitorer', 'Receivables', 'Tilgodehavender', 'none'],
  [5800, 5890, 'Bank', 'LiquidAssets', 'Likvide beholdninger', 'none'],
  [6000, 6190, 'Egenkapital', 'Equity', 'Egenkapital', 'none'],
  [6300, 6590, 'Kreditorer', 'Liabilities', 'Gæld', 'none'],
  [6800, 6990, 'Moms', 'Vat', 'Moms og afgifter', 'none'],
];

/** Summary (total) accounts: [number, name, from, to]. */
const SUMMARY_ACCOUNTS: readonly (readonly [number, string, number, number])[] = [
  [1099, 'Omsætning i alt', 1000, 1190],
  [2999, 'Omkostninger i alt', 1300, 2990],
  [3999, 'Årets resultat', 1000, 3290],
  [5999, 'Aktiver i alt', 5000, 5890],
  [6999, 'Passiver i alt', 6000, 6990],
];

export const SALES_ACCOUNT = 1000;
export const RECEIVABLES_ACCOUNT = 5600;
export const BANK_ACCOUNT = 5800;
export const PAYABLES_ACCOUNT = 6300;
export const VAT_ACCOUNT = 6800;
export const EQUITY_ACCOUNT = 6000;

function guidFrom(rng: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rng() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function fileGuidFrom(rng: () => number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 32 }, () => alphabet[Math.floor(rng() * alphabet.length)]).join('');
}

const pad = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM-DD` plus `days`. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
const round2 = (n: number) => Math.round(n * 100) / 100;

interface Generator {
  readonly rng: () => number;
  pick<T>(list: readonly T[]): T;
  int(min: number, max: number): number;
  guid(): string;
  fileGuid(): string;
}

function generator(seed: number): Generator {
  const rng = mulberry32(seed);
  return {
    rng,
    pick: (list) => list[Math.floor(rng() * list.length)]!,
    int: (min, max) => min + Math.floor(rng() * (max - min + 1)),
    guid: () => guidFrom(rng),
    fileGuid: () => fileGuidFrom(rng),
  };
}

function organization(id: number, name: string, pro: boolean, g: Generator): Row {
  const [zip, city] = g.pick(CITIES);
  return {
    Id: id,
    Name: name,
    Type: 'ApS',
    IsPro: pro,
    IsPayingPro: pro,
    IsVatFree: false,
    Email: `bogholderi@${name.toLowerCase().replace(/[^a-z]+/g, '')}.dk`,
    Phone: `+45 ${g.int(20, 99)} ${g.int(10, 99)} ${g.int(10, 99)} ${g.int(10, 99)}`,
    Street: `${g.pick(COMPANY_WORDS)}vej ${g.int(1, 120)}`,
    City: city,
    ZipCode: zip,
    AttPerson: `${g.pick(FIRST)} ${g.pick(LAST)}`,
    IsTaxFreeUnion: false,
    VatNumber: `DK${g.int(10_000_000, 99_999_999)}`,
    CountryKey: 'DK',
    Website: null,
  };
}

function chartOfAccounts(g: Generator): Row[] {
  const accounts: Row[] = [];
  for (const [from, to, stem, category, categoryName, vat] of ACCOUNT_PLAN) {
    let i = 0;
    for (let n = from; n <= to; n += to - from > 100 ? 20 : 10) {
      accounts.push({
        AccountNumber: n,
        Name: i === 0 ? stem : `${stem} ${i + 1}`,
        VatCode: vat,
        Category: category,
        CategoryName: categoryName,
        IsHidden: i >= 8 && g.rng() < 0.6,
        IsSummary: false,
      });
      i++;
    }
  }
  for (const [n, nameOf, from, to] of SUMMARY_ACCOUNTS)
    accounts.push({
      AccountNumber: n,
      Name: nameOf,
      VatCode: 'none',
      Category: 'Summary',
      CategoryName: 'Sum',
      IsHidden: false,
      IsSummary: true,
      SumFrom: from,
      SumTo: to,
    });
  return accounts.sort((a, b) => (a.AccountNumber as number) - (b.AccountNumber as number));
}

export function summaryRange(account: Row): [number, number] | undefined {
  return account.IsSummary === true ? [account.SumFrom as number, account.SumTo as number] : undefined;
}

interface BuildSizes {
  readonly contacts: number;
  readonly invoices: number;
  readonly creditNotes: number;
  readonly tradeOffers: number;
  readonly purchaseVouchers: number;
  readonly manualVouchers: number;
  readonly products: number;
  readonly files: number;
  readonly extraEntries: number;
}

const FULL: BuildSizes = {
  contacts: 250,
  invoices: 300,
  creditNotes: 24,
  tradeOffers: 36,
  purchaseVouchers: 60,
  manualVouchers: 20,
  products: 60,
  files: 70,
  extraEntries: 260,
};
const SMALL: BuildSizes = {
  contacts: 12,
  invoices: 10,
  creditNotes: 1,
  tradeOffers: 2,
  purchaseVouchers: 2,
  manualVouchers: 1,
  products: 3,
  files: 2,
  extraEntries: 5,
};

function timestampOf(n: number): string {
  return n.toString(16).toUpperCase().padStart(16, '0');
}

function pdfFor(label: string): Buffer {
  return Buffer.from(
    `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n` +
      `3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj\n% ${label}\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
    'latin1',
  );
}

/** A small valid PDF naming what it shows (every PDF the sandbox serves). */
export const booksPdf = pdfFor;

function buildOrganization(
  id: number,
  name: string,
  pro: boolean,
  seed: number,
  sizes: BuildSizes,
  today: string,
): OrganizationData {
  const g = generator(seed);
  const org = organization(id, name, pro, g);
  const years: Row[] = BOOKS_YEARS.map((y) => ({ Name: y, FromDate: `${y}-01-01`, ToDate: `${y}-12-31` }));
  const accounts = chartOfAccounts(g);
  const accountName = new Map(accounts.map((a) => [a.AccountNumber as number, a.Name as string]));
  const depositAccounts: Row[] = [
    {
      AccountNumber: 5800,
      Name: 'Bank',
      IsDefault: true,
      IsHidden: false,
      BankRegistrationNumber: '5301',
      BankAccountNumber: '0244781205',
      BankSwiftNumber: 'ALBADKKK',
      BankIbanNumber: 'DK5053010244781205',
    },
    {
      AccountNumber: 5810,
      Name: 'Kasse',
      IsDefault: false,
      IsHidden: false,
      BankRegistrationNumber: null,
      BankAccountNumber: null,
      BankSwiftNumber: null,
      BankIbanNumber: null,
    },
    {
      AccountNumber: 5820,
      Name: 'MobilePay',
      IsDefault: false,
      IsHidden: true,
      BankRegistrationNumber: null,
      BankAccountNumber: null,
      BankSwiftNumber: null,
      BankIbanNumber: null,
    },
  ];

  // Contacts.
  const contacts: Row[] = [];
  const notes = new Map<string, Row[]>();
  for (let i = 0; i < sizes.contacts; i++) {
    const person = i % 5 === 4;
    const contactName =
      i === 7
        ? BOOKS_APOSTROPHE_CONTACT
        : person
          ? `${g.pick(FIRST)} ${g.pick(LAST)}`
          : `${g.pick(COMPANY_WORDS)} ${g.pick(COMPANY_KINDS)} ${i + 1}`;
    const [zip, city] = g.pick(CITIES);
    const guid = g.guid();
    const created = `${addDays('2023-06-01', i)}T09:00:00Z`;
    const updated = `${addDays('2024-01-01', (i * 7) % 520)}T10:${pad(i % 60)}:00Z`;
    const deleted = i % 25 === 24;
    contacts.push({
      ContactGuid: guid,
      IsDebitor: i % 6 !== 5,
      IsCreditor: i % 6 === 5 || i % 9 === 0,
      Name: contactName,
      Street: `${g.pick(COMPANY_WORDS)}gade ${g.int(1, 99)}`,
      ZipCode: zip,
      City: city,
      CountryKey: i % 17 === 3 ? 'SE' : 'DK',
      Phone: `+45${g.int(20_000_000, 99_999_999)}`,
      Email: `kontakt${i + 1}@example.dk`,
      Webpage: null,
      AttPerson: person ? null : `${g.pick(FIRST)} ${g.pick(LAST)}`,
      VatNumber: person ? null : `DK${g.int(10_000_000, 99_999_999)}`,
      EanNumber: !person && i % 11 === 0 ? `57900${g.int(10_000_000, 99_999_999)}` : null,
      SENumber: null,
      PNumber: null,
      PaymentConditionType: 'Netto',
      PaymentConditionNumberOfDays: i % 3 === 0 ? 14 : 8,
      IsPerson: person,
      ExternalReference: `CRM-${1000 + i}`,
      VatRegionKey: i % 17 === 3 ? 'EU' : 'DK',
      CreatedAt: created,
      UpdatedAt: updated,
      DeletedAt: deleted ? `${addDays('2025-03-01', i % 40)}T12:00:00Z` : null,
    });
    if (i % 10 === 0) {
      const list: Row[] = [];
      for (let n = 0; n < 3; n++)
        list.push({
          Id: i * 10 + n + 1,
          NoteDate: addDays('2024-02-01', i + n * 30),
          Text:
            n === 0
              ? 'Aftalt betalingsplan pr. telefon.'
              : n === 1
                ? 'Ønsker faktura som EAN.'
                : 'Ny kontaktperson i regnskabsafdelingen.',
          AuthorName: 'Demo Bogholder',
          AuthorEmail: 'bogholder@example.dk',
          CreatedAt: `${addDays('2024-02-01', i + n * 30)}T08:00:00Z`,
          UpdatedAt: `${addDays('2024-02-01', i + n * 30)}T08:00:00Z`,
          DeletedAt: n === 2 && i % 20 === 0 ? '2025-01-10T08:00:00Z' : null,
        });
      notes.set(guid, list);
    }
  }
  const live = contacts.filter((c) => c.DeletedAt === null && c.IsDebitor === true);

  // Products.
  const products: Row[] = [];
  for (let i = 0; i < sizes.products; i++) {
    const base = g.int(2, 150) * 25;
    products.push({
      ProductGuid: g.guid(),
      Name: `${g.pick(PRODUCT_NAMES)} ${i + 1}`,
      ProductNumber: `P-${String(100 + i)}`,
      Quantity: 1,
      Unit: g.pick(UNITS),
      AccountNumber: SALES_ACCOUNT,
      BaseAmountValue: base,
      BaseAmountValueInclVat: round2(base * 1.25),
      TotalAmount: base,
      TotalAmountInclVat: round2(base * 1.25),
      ExternalReference: `SKU-${2000 + i}`,
      Comment: i % 4 === 0 ? 'Faktureres månedligt bagud.' : null,
      CreatedAt: `${addDays('2023-09-01', i)}T07:00:00Z`,
      UpdatedAt: `${addDays('2024-03-01', (i * 13) % 450)}T07:30:00Z`,
      DeletedAt: i % 20 === 19 ? '2025-02-01T07:30:00Z' : null,
    });
  }

  // Entries: primo, sales, purchases, manual vouchers, payments.
  const entries: Row[] = [];
  let voucherNumber = 1;
  let entrySeq = 0;
  const entry = (
    date: string,
    accountNumber: number,
    amount: number,
    voucher: { guid: string; number: number; type: string; fileGuid?: string | null },
    description: string,
    extra: { contactGuid?: string | null; type?: string; vatCode?: string } = {},
  ) => {
    entrySeq++;
    entries.push({
      AccountNumber: accountNumber,
      AccountName: accountName.get(accountNumber) ?? String(accountNumber),
      Date: date,
      VoucherNumber: voucher.number,
      VoucherGuid: voucher.guid,
      FileGuid: voucher.fileGuid ?? null,
      VoucherType: voucher.type,
      Description: description,
      VatType: extra.vatCode === 'U25' ? 'Salgsmoms' : extra.vatCode === 'I25' ? 'Købsmoms' : null,
      VatCode: extra.vatCode ?? null,
      Amount: round2(amount),
      EntryGuid: g.guid(),
      ContactGuid: extra.contactGuid ?? null,
      Type: extra.type ?? 'Normal',
      // When the entry was booked (the changes endpoint reads this; not a documented property).
      __BookedAt: `${date}T${pad(8 + (entrySeq % 10))}:${pad(entrySeq % 60)}:00Z`,
    });
  };
  for (const year of BOOKS_YEARS) {
    const primo = { guid: g.guid(), number: 0, type: 'Primo' };
    const bank = year === '2024' ? 250_000 : 312_000;
    entry(`${year}-01-01`, BANK_ACCOUNT, bank, primo, 'Primo', { type: 'Primo' });
    entry(`${year}-01-01`, 5000, 80_000, primo, 'Primo', { type: 'Primo' });
    entry(`${year}-01-01`, EQUITY_ACCOUNT, -(bank + 80_000), primo, 'Primo', { type: 'Primo' });
  }

  // Invoices.
  const invoices: Row[] = [];
  const payments = new Map<string, Row[]>();
  const mailouts = new Map<string, Row[]>();
  const reminders = new Map<string, Row[]>();
  const attachments = new Map<string, Row[]>();
  const files: Row[] = [];
  const fileBytes = new Map<string, number>();
  const statuses = ['Paid', 'Paid', 'Overdue', 'Booked', 'Paid', 'Draft', 'OverPaid', 'Paid', 'Overdue', 'Booked'];
  let invoiceNumber = 1;
  for (let i = 0; i < sizes.invoices; i++) {
    const wanted = i === 3 ? 'Overdue' : statuses[i % statuses.length]!;
    const contact = live[(i * 7) % live.length]!;
    // Dates: overdue ones are old enough to be past due; booked (not due) ones are recent.
    const date =
      wanted === 'Booked'
        ? addDays(today, -g.int(0, 6))
        : wanted === 'Draft'
          ? addDays(today, -g.int(0, 400))
          : wanted === 'Overdue'
            ? addDays(today, -g.int(20, 300))
            : addDays('2024-01-03', (i * 3) % 520);
    const days = contact.PaymentConditionNumberOfDays as number;
    const paymentDate = addDays(date, days);
    const lines: Row[] = [];
    const lineCount = g.int(1, 3);
    for (let l = 0; l < lineCount; l++) {
      const p = products[(i + l) % products.length]!;
      const qty = g.int(1, 8);
      const unitPrice = p.BaseAmountValue as number;
      lines.push({
        ProductGuid: p.ProductGuid,
        Description: p.Name,
        Comments: null,
        Quantity: qty,
        AccountNumber: SALES_ACCOUNT,
        Unit: p.Unit,
        Discount: 0,
        LineType: 'Product',
        AccountName: accountName.get(SALES_ACCOUNT),
        BaseAmountValue: unitPrice,
        BaseAmountValueInclVat: round2(unitPrice * 1.25),
        TotalAmount: round2(unitPrice * qty),
        TotalAmountInclVat: round2(unitPrice * qty * 1.25),
      });
    }
    const exclVat = round2(lines.reduce((s, l) => s + (l.TotalAmount as number), 0));
    const vat = round2(exclVat * 0.25);
    const inclVat = round2(exclVat + vat);
    // Totals are in the invoice's currency; the books (entries) and the …InDkk totals in DKK.
    const currency = invoiceCurrency(i, wanted);
    const rate = BOOKS_EXCHANGE_RATES[currency]!;
    const inDkk = (amount: number) => round2((amount * rate) / 100);
    const guid = i === 3 ? BOOKS_REMINDED_INVOICE_GUID : g.guid();
    const booked = wanted !== 'Draft';
    const number = booked ? invoiceNumber++ : null;
    const voucher = { guid, number: number ?? 0, type: 'Invoice' };
    const created = `${date}T09:${pad(i % 60)}:00Z`;
    const updated = `${addDays(date, i % 9)}T11:${pad(i % 60)}:00Z`;
    const deleted = !booked && i % 4 === 1;
    const paidAmount =
      wanted === 'Paid'
        ? inclVat
        : wanted === 'OverPaid'
          ? round2(inclVat + 100)
          : wanted === 'Overdue' && i % 3 === 0
            ? round2(inclVat / 2)
            : 0;
    const invoice: Row = {
      Number: number,
      Guid: guid,
      ExternalReference: `ORD-${5000 + i}`,
      Date: date,
      PaymentDate: paymentDate,
      Description: `Faktura for ${lines[0]!.Description}`,
      Comment: i % 5 === 0 ? 'Tak for handlen.' : null,
      Address: `${contact.Name}\n${contact.Street}\n${contact.ZipCode} ${contact.City}`,
      Status: wanted,
      Type: 'Invoice',
      ContactName: contact.Name,
      ContactGuid: contact.ContactGuid,
      Currency: currency,
      Language: 'da-DK',
      ShowLinesInclVat: false,
      TotalExclVat: exclVat,
      TotalVatableAmount: exclVat,
      TotalNonVatableAmount: 0,
      TotalVat: vat,
      TotalInclVat: inclVat,
      TotalExclVatInDkk: inDkk(exclVat),
      TotalInclVatInDkk: inDkk(inclVat),
      PaymentStatus: wanted === 'Draft' ? 'Draft' : wanted,
      PaymentConditionType: 'Netto',
      PaymentConditionNumberOfDays: days,
      FikCode: booked ? `+71<${String(100_000_000_000_000 + (number ?? 0)).padStart(15, '0')}+85500000<` : null,
      DepositAccountNumber: 5800,
      IsSentToDebtCollection: false,
      MailOutStatus: booked && i % 2 === 0 ? 'Sent' : 'NotSent',
      LatestMailOutType: booked && i % 2 === 0 ? 'Invoice' : null,
      TotalLines: [
        { Type: 'Subtotal', TotalAmount: exclVat, Position: 0, Label: 'Subtotal' },
        { Type: 'Vat', TotalAmount: vat, Position: 1, Label: 'Moms (25%)' },
        { Type: 'Total', TotalAmount: inclVat, Position: 2, Label: `Total ${currency}` },
      ],
      ProductLines: lines,
      CreatedAt: created,
      UpdatedAt: updated,
      DeletedAt: deleted ? `${addDays(date, 2)}T10:00:00Z` : null,
      TimeStamp: timestampOf(0x20a5ea8 + i),
    };
    invoices.push(invoice);
    if (booked) {
      entry(date, RECEIVABLES_ACCOUNT, inDkk(inclVat), voucher, invoice.Description as string, {
        contactGuid: contact.ContactGuid as string,
      });
      entry(date, SALES_ACCOUNT + 10 * (i % 3), -inDkk(exclVat), voucher, invoice.Description as string, {
        contactGuid: contact.ContactGuid as string,
        vatCode: 'U25',
      });
      entry(date, VAT_ACCOUNT, round2(inDkk(exclVat) - inDkk(inclVat)), voucher, invoice.Description as string, {
        contactGuid: contact.ContactGuid as string,
      });
      const list: Row[] = [];
      if (paidAmount > 0) {
        const payDate = addDays(date, Math.min(days, 5));
        const payVoucher = { guid: g.guid(), number: voucherNumber++, type: 'InvoicePayment' };
        list.push({
          Guid: payVoucher.guid,
          DepositAccountNumber: 5800,
          Currency: currency,
          ExchangeRate: rate,
          PaymentDate: payDate,
          Description: `Indbetaling faktura ${number}`,
          // In the invoice's currency, like RemainingAmount and PaidAmount of the payments answer.
          Amount: paidAmount,
          AmountInForeignCurrency: paidAmount,
        });
        entry(payDate, BANK_ACCOUNT, inDkk(paidAmount), payVoucher, `Indbetaling faktura ${number}`, {
          contactGuid: contact.ContactGuid as string,
        });
        entry(payDate, RECEIVABLES_ACCOUNT, -inDkk(paidAmount), payVoucher, `Indbetaling faktura ${number}`, {
          contactGuid: contact.ContactGuid as string,
        });
      }
      payments.set(guid, list);
      if (i % 2 === 0) {
        const sent: Row[] = [
          {
            Id: i * 10 + 1,
            Date: `${date}T12:00:00Z`,
            SeenAt: i % 4 === 0 ? `${addDays(date, 1)}T08:15:00Z` : null,
            Receiver: contact.Email,
            Subject: `Faktura ${number}`,
            DownloadCount: i % 4 === 0 ? 1 : 0,
            PrintCount: 0,
            Type: 'Invoice',
            Status: 'Delivered',
            LatestEvent: i % 4 === 0 ? 'Opened' : 'Received',
            IsSmsMessage: false,
          },
        ];
        if (i % 6 === 0)
          sent.push({
            Id: i * 10 + 2,
            Date: `${date}T12:01:00Z`,
            SeenAt: null,
            Receiver: contact.Phone,
            Subject: `Faktura ${number}`,
            DownloadCount: 0,
            PrintCount: 0,
            Type: 'Invoice',
            Status: 'Delivered',
            LatestEvent: 'Received',
            IsSmsMessage: true,
          });
        if (i % 10 === 8)
          sent.push({
            Id: i * 10 + 3,
            Date: `${date}T12:02:00Z`,
            SeenAt: null,
            Receiver: 'bounce@invalid.example',
            Subject: `Faktura ${number}`,
            DownloadCount: 0,
            PrintCount: 0,
            Type: 'Invoice',
            Status: 'Failed',
            LatestEvent: 'Bounced',
            IsSmsMessage: false,
          });
        mailouts.set(guid, sent);
      }
      if (wanted === 'Overdue' && (i === 3 || i % 4 === 0)) {
        const count = i === 3 ? 3 : 1;
        const list2: Row[] = [];
        let accumulated = 0;
        for (let r = 0; r < count; r++) {
          const fee = 100;
          const interest = round2(inclVat * 0.008 * (r + 1));
          const compensation = r === 0 ? 310 : 0;
          accumulated = round2(accumulated + fee + interest + compensation);
          list2.push({
            Id: i * 100 + r + 1,
            IsDraft: false,
            Number: r + 1,
            Date: addDays(paymentDate, 10 * (r + 1)),
            Title: `${r + 1}. rykker for faktura ${number}`,
            Description: 'Vi har endnu ikke modtaget betaling for nedenstående faktura.',
            DebtCollectionNotificationText:
              r === 2 ? 'Betales beløbet ikke inden 10 dage, overgår sagen til inkasso.' : null,
            FeeAmount: fee,
            InterestAmount: interest,
            CompensationFeeAmount: compensation,
            AccumulatedFeesAndInterestAmount: accumulated,
            PaidAmount: -paidAmount,
            ReminderTotalInclVatAmount: round2(inclVat - paidAmount + accumulated),
            WithFee: true,
            WithInterestFee: true,
            WithCompensationFee: compensation > 0,
            WithDebtCollectionWarning: r === 2,
            UpdatedAt: `${addDays(paymentDate, 10 * (r + 1))}T09:00:00Z`,
          });
        }
        reminders.set(guid, list2);
      }
      if (i % 9 === 0) {
        const fileGuid = g.fileGuid();
        attachments.set(guid, [
          { OrganizationId: id, DocumentId: guid, FileGuid: fileGuid, FileName: `bilag-faktura-${number}.pdf` },
        ]);
        files.push({
          FileGuid: fileGuid,
          Name: `bilag-faktura-${number}`,
          Extension: 'pdf',
          Size: 14_000 + i,
          UploadedAt: `${date}T13:00:00Z`,
          NumberOfPages: 1,
          Linked: [],
          UploadedBy: 'Demo Bogholder',
        });
        fileBytes.set(fileGuid, 14_000 + i);
      }
    }
  }

  // Credit notes, each crediting a paid invoice.
  const creditNotes: Row[] = [];
  const bookedPaid = invoices.filter((inv) => inv.Status === 'Paid');
  let creditNumber = 1;
  for (let i = 0; i < sizes.creditNotes && i < bookedPaid.length; i++) {
    const inv = bookedPaid[(i * 5) % bookedPaid.length]!;
    const guid = g.guid();
    const exclVat = round2((inv.TotalExclVat as number) / (i % 2 === 0 ? 1 : 2));
    const vat = round2(exclVat * 0.25);
    const inclVat = round2(exclVat + vat);
    const date = addDays(inv.Date as string, 12);
    const draft = i % 6 === 5;
    const number = draft ? null : creditNumber++;
    const line = {
      ...(inv.ProductLines as Row[])[0]!,
      TotalAmount: exclVat,
      TotalAmountInclVat: inclVat,
      Quantity: 1,
      BaseAmountValue: exclVat,
    };
    const note: Row = {
      Number: number,
      Guid: guid,
      CreditNoteFor: inv.Guid,
      ExternalReference: inv.ExternalReference,
      Date: date,
      PaymentDate: date,
      Description: `Kreditnota til faktura ${inv.Number}`,
      Comment: null,
      Address: inv.Address,
      Status: draft ? 'Draft' : 'Paid',
      Type: 'CreditNote',
      ContactName: inv.ContactName,
      ContactGuid: inv.ContactGuid,
      Currency: 'DKK',
      Language: 'da-DK',
      ShowLinesInclVat: false,
      TotalExclVat: -exclVat,
      TotalVat: -vat,
      TotalInclVat: -inclVat,
      TotalExclVatInDkk: -exclVat,
      TotalInclVatInDkk: -inclVat,
      MailOutStatus: draft ? 'NotSent' : 'Sent',
      LatestMailOutType: draft ? null : 'CreditNote',
      TotalLines: [{ Type: 'Total', TotalAmount: -inclVat, Position: 0, Label: 'Total DKK' }],
      ProductLines: [line],
      CreatedAt: `${date}T10:00:00Z`,
      UpdatedAt: `${date}T10:30:00Z`,
      DeletedAt: null,
      TimeStamp: timestampOf(0x30a5ea8 + i),
    };
    creditNotes.push(note);
    if (!draft) {
      const voucher = { guid, number: number!, type: 'CreditNote' };
      entry(date, RECEIVABLES_ACCOUNT, -inclVat, voucher, note.Description as string, {
        contactGuid: inv.ContactGuid as string,
      });
      entry(date, SALES_ACCOUNT, exclVat, voucher, note.Description as string, {
        contactGuid: inv.ContactGuid as string,
        vatCode: 'U25',
      });
      entry(date, VAT_ACCOUNT, vat, voucher, note.Description as string, { contactGuid: inv.ContactGuid as string });
      payments.set(guid, [
        {
          Guid: g.guid(),
          DepositAccountNumber: 5800,
          Currency: 'DKK',
          ExchangeRate: 100,
          PaymentDate: addDays(date, 2),
          Description: `Udbetaling kreditnota ${number}`,
          Amount: -inclVat,
          AmountInForeignCurrency: -inclVat,
        },
      ]);
      mailouts.set(guid, [
        {
          Id: 90_000 + i,
          Date: `${date}T12:00:00Z`,
          SeenAt: null,
          Receiver: 'kunde@example.dk',
          Subject: `Kreditnota ${number}`,
          DownloadCount: 0,
          PrintCount: 0,
          Type: 'CreditNote',
          Status: 'Delivered',
          LatestEvent: 'Received',
          IsSmsMessage: false,
        },
      ]);
    }
  }

  // Trade offers in every status.
  const tradeOffers: Row[] = [];
  const offerStatuses = ['Draft', 'Sent', 'Accepted', 'Declined', 'Invoiced', 'Expired'];
  for (let i = 0; i < sizes.tradeOffers; i++) {
    const contact = live[(i * 11) % live.length]!;
    const status = offerStatuses[i % offerStatuses.length]!;
    const guid = g.guid();
    const date = addDays('2024-02-01', i * 13);
    const p = products[i % products.length]!;
    const qty = g.int(1, 20);
    const exclVat = round2((p.BaseAmountValue as number) * qty);
    const inclVat = round2(exclVat * 1.25);
    const invoiced =
      status === 'Invoiced'
        ? invoices.find((inv) => inv.ContactGuid === contact.ContactGuid && inv.Status !== 'Draft')
        : undefined;
    tradeOffers.push({
      Number: i + 1,
      Guid: guid,
      ExternalReference: i % 3 === 0 ? `TILBUD-${300 + i}` : null,
      Date: date,
      ValidUntil: addDays(date, 30),
      Description: `Tilbud på ${p.Name}`,
      Comment: null,
      Address: `${contact.Name}\n${contact.Street}`,
      Status: status,
      ContactName: contact.Name,
      ContactGuid: contact.ContactGuid,
      Currency: i % 7 === 3 ? 'EUR' : 'DKK',
      TotalExclVat: exclVat,
      TotalInclVat: inclVat,
      TotalExclVatInDkk: exclVat,
      TotalInclVatInDkk: inclVat,
      ProductLines: [
        {
          ProductGuid: p.ProductGuid,
          Description: p.Name,
          Quantity: qty,
          AccountNumber: SALES_ACCOUNT,
          Unit: p.Unit,
          Discount: 0,
          LineType: 'Product',
          BaseAmountValue: p.BaseAmountValue,
          TotalAmount: exclVat,
          TotalAmountInclVat: inclVat,
        },
      ],
      History: [
        { Date: `${date}T09:00:00Z`, Event: 'Created', Description: 'Tilbud oprettet' },
        ...(status === 'Draft'
          ? []
          : [{ Date: `${addDays(date, 1)}T09:00:00Z`, Event: 'Sent', Description: 'Tilbud sendt' }]),
        ...(status === 'Accepted' || status === 'Invoiced'
          ? [{ Date: `${addDays(date, 5)}T09:00:00Z`, Event: 'Accepted', Description: 'Tilbud accepteret' }]
          : []),
      ],
      GeneratedVouchers: invoiced
        ? [{ VoucherGuid: invoiced.Guid, VoucherNumber: invoiced.Number, VoucherType: 'Invoice' }]
        : [],
      CreatedAt: `${date}T09:00:00Z`,
      UpdatedAt: `${addDays(date, 3)}T09:00:00Z`,
      DeletedAt: i % 12 === 11 ? `${addDays(date, 40)}T09:00:00Z` : null,
      TimeStamp: timestampOf(0x40a5ea8 + i),
    });
    if (status !== 'Draft')
      mailouts.set(guid, [
        {
          Id: 80_000 + i * 2,
          Date: `${addDays(date, 1)}T09:00:00Z`,
          SeenAt: `${addDays(date, 2)}T10:00:00Z`,
          Receiver: contact.Email,
          Subject: `Tilbud ${i + 1}`,
          DownloadCount: 2,
          PrintCount: 0,
          Type: 'TradeOffer',
          Status: 'Delivered',
          LatestEvent: 'Opened',
          IsSmsMessage: false,
        },
        {
          Id: 80_000 + i * 2 + 1,
          Date: `${addDays(date, 1)}T09:01:00Z`,
          SeenAt: null,
          Receiver: contact.Phone,
          Subject: `Tilbud ${i + 1}`,
          DownloadCount: 0,
          PrintCount: 0,
          Type: 'TradeOffer',
          Status: 'Delivered',
          LatestEvent: 'Received',
          IsSmsMessage: true,
        },
      ]);
  }

  // Purchase vouchers (with files), purchase credit notes, manual vouchers.
  const purchaseVouchers: Row[] = [];
  const purchaseCreditNotes: Row[] = [];
  const purchasePayments = new Map<string, Row[]>();
  const creditors = contacts.filter((c) => c.IsCreditor === true && c.DeletedAt === null);
  const expenseAccounts = accounts.filter(
    (a) => a.IsSummary === false && (a.AccountNumber as number) >= 1300 && (a.AccountNumber as number) < 3000,
  );
  for (let i = 0; i < sizes.purchaseVouchers; i++) {
    const supplier = creditors[i % creditors.length]!;
    const account = expenseAccounts[(i * 3) % expenseAccounts.length]!;
    const guid = g.guid();
    const fileGuid = g.fileGuid();
    const year = i % 2 === 0 ? '2024' : '2025';
    const date = addDays(`${year}-01-05`, (i * 9) % (year === '2025' ? 150 : 350));
    const exclVat = g.int(5, 400) * 10;
    const vat = round2(exclVat * 0.25);
    const voucher = { guid, number: voucherNumber++, type: 'PurchaseVoucher', fileGuid };
    const paid = i % 3 !== 2;
    purchaseVouchers.push({
      Guid: guid,
      VoucherNumber: voucher.number,
      VoucherDate: date,
      PaymentDate: addDays(date, 30),
      Status: paid ? 'Paid' : 'Booked',
      ContactGuid: supplier.ContactGuid,
      ContactName: supplier.Name,
      Notes: `Køb hos ${supplier.Name}`,
      FileGuid: fileGuid,
      RegionKey: 'DK',
      DepositAccountNumber: paid ? 5800 : null,
      PurchaseType: 'Default',
      Currency: 'DKK',
      ExternalReference: `BILAG-${7000 + i}`,
      Lines: [
        {
          Description: account.Name,
          AccountNumber: account.AccountNumber,
          BalancingAccountNumber: PAYABLES_ACCOUNT,
          Amount: round2(exclVat + vat),
          AccountVatCode: 'I25',
        },
      ],
      TotalExclVat: exclVat,
      TotalVat: vat,
      TotalInclVat: round2(exclVat + vat),
      TimeStamp: timestampOf(0x50a5ea8 + i),
      CreatedAt: `${date}T14:00:00Z`,
      UpdatedAt: `${date}T14:30:00Z`,
    });
    entry(date, account.AccountNumber as number, exclVat, voucher, `Køb hos ${supplier.Name}`, {
      contactGuid: supplier.ContactGuid as string,
      vatCode: 'I25',
    });
    entry(date, VAT_ACCOUNT + 20, vat, voucher, `Købsmoms ${supplier.Name}`, {
      contactGuid: supplier.ContactGuid as string,
    });
    entry(date, PAYABLES_ACCOUNT, -round2(exclVat + vat), voucher, `Køb hos ${supplier.Name}`, {
      contactGuid: supplier.ContactGuid as string,
    });
    files.push({
      FileGuid: fileGuid,
      Name: `kvittering-${i + 1}`,
      Extension: i % 4 === 0 ? 'jpg' : 'pdf',
      Size: 40_000 + i * 100,
      UploadedAt: `${date}T13:55:00Z`,
      NumberOfPages: 1,
      Linked: [{ VoucherGuid: guid, LinkedAt: `${date}T14:00:00Z` }],
      UploadedBy: 'Demo Bogholder',
    });
    fileBytes.set(fileGuid, 40_000 + i * 100);
    const list: Row[] = [];
    if (paid) {
      const payDate = addDays(date, 20);
      const pay = { guid: g.guid(), number: voucherNumber++, type: 'PurchasePayment' };
      list.push({
        Guid: pay.guid,
        DepositAccountNumber: 5800,
        Currency: 'DKK',
        ExchangeRate: 100,
        PaymentDate: payDate,
        Description: `Betaling til ${supplier.Name}`,
        Amount: round2(exclVat + vat),
      });
      entry(payDate, PAYABLES_ACCOUNT, round2(exclVat + vat), pay, `Betaling til ${supplier.Name}`, {
        contactGuid: supplier.ContactGuid as string,
      });
      entry(payDate, BANK_ACCOUNT, -round2(exclVat + vat), pay, `Betaling til ${supplier.Name}`, {
        contactGuid: supplier.ContactGuid as string,
      });
    }
    purchasePayments.set(guid, list);
    if (i % 12 === 5) {
      const pcGuid = g.guid();
      const pcVoucher = { guid: pcGuid, number: voucherNumber++, type: 'PurchaseCreditNote', fileGuid };
      purchaseCreditNotes.push({
        Guid: pcGuid,
        VoucherNumber: pcVoucher.number,
        VoucherDate: addDays(date, 7),
        Status: 'Booked',
        ContactGuid: supplier.ContactGuid,
        ContactName: supplier.Name,
        Notes: `Kreditnota fra ${supplier.Name}`,
        FileGuid: fileGuid,
        CreditNoteFor: guid,
        Currency: 'DKK',
        Lines: [
          {
            Description: account.Name,
            AccountNumber: account.AccountNumber,
            BalancingAccountNumber: PAYABLES_ACCOUNT,
            Amount: -round2((exclVat + vat) / 4),
            AccountVatCode: 'I25',
          },
        ],
        TotalInclVat: -round2((exclVat + vat) / 4),
        TimeStamp: timestampOf(0x60a5ea8 + i),
      });
      entry(
        addDays(date, 7),
        account.AccountNumber as number,
        -round2((exclVat + vat) / 4),
        pcVoucher,
        `Kreditnota fra ${supplier.Name}`,
        { contactGuid: supplier.ContactGuid as string },
      );
      entry(
        addDays(date, 7),
        PAYABLES_ACCOUNT,
        round2((exclVat + vat) / 4),
        pcVoucher,
        `Kreditnota fra ${supplier.Name}`,
        { contactGuid: supplier.ContactGuid as string },
      );
    }
  }
  const manualVouchers: Row[] = [];
  for (let i = 0; i < sizes.manualVouchers; i++) {
    const guid = g.guid();
    const year = i % 2 === 0 ? '2024' : '2025';
    const date = addDays(`${year}-01-31`, (i * 30) % 150);
    const amount = g.int(10, 300) * 100;
    const voucher = { guid, number: voucherNumber++, type: 'ManualVoucher' };
    manualVouchers.push({
      Guid: guid,
      VoucherNumber: voucher.number,
      VoucherDate: date,
      Status: 'Booked',
      FileGuid: null,
      Lines: [
        {
          Description: 'Husleje',
          AccountNumber: 2400,
          BalancingAccountNumber: BANK_ACCOUNT,
          AccountVatCode: 'I25',
          BalancingAccountVatCode: null,
          Amount: amount,
          AmountInForeignCurrency: null,
          Currency: 'DKK',
        },
      ],
      BookedAt: `${date}T16:00:00Z`,
      BookedBy: 'Demo Bogholder',
      TimeStamp: timestampOf(0x70a5ea8 + i),
    });
    entry(date, 2400, amount, voucher, 'Husleje', { vatCode: 'I25' });
    entry(date, BANK_ACCOUNT, -amount, voucher, 'Husleje');
  }
  // Filler entries (bank fees, salaries) so the ledger reaches ~1,500 rows.
  for (let i = 0; i < sizes.extraEntries; i++) {
    const year = i % 2 === 0 ? '2024' : '2025';
    const date = addDays(`${year}-01-02`, (i * 5) % (year === '2025' ? 160 : 360));
    const amount = g.int(2, 400) * 25;
    const account = i % 3 === 0 ? 2000 : i % 3 === 1 ? 2800 : 3200;
    const voucher = { guid: g.guid(), number: voucherNumber++, type: 'ManualVoucher' };
    entry(date, account, amount, voucher, account === 2000 ? 'Løn' : account === 2800 ? 'Gebyr' : 'Renter');
    entry(date, BANK_ACCOUNT, -amount, voucher, account === 2000 ? 'Løn' : account === 2800 ? 'Gebyr' : 'Renter');
  }
  // Unused files (not linked to any voucher) and the file over 6 MB.
  for (let i = 0; i < Math.max(2, Math.floor(sizes.files / 10)); i++) {
    const fileGuid = g.fileGuid();
    files.push({
      FileGuid: fileGuid,
      Name: `scan-${i + 1}`,
      Extension: i % 2 === 0 ? 'png' : 'pdf',
      Size: 9_000 + i,
      UploadedAt: `${addDays('2025-04-01', i)}T08:00:00Z`,
      NumberOfPages: 1,
      Linked: [],
      UploadedBy: 'Demo Bogholder',
    });
    fileBytes.set(fileGuid, 9_000 + i);
  }
  files.push({
    FileGuid: BOOKS_BIG_FILE_GUID,
    Name: 'arsrapport-scannet',
    Extension: 'pdf',
    Size: BOOKS_BIG_FILE_BYTES,
    UploadedAt: '2025-05-02T08:00:00Z',
    NumberOfPages: 48,
    Linked: [],
    UploadedBy: 'Demo Bogholder',
  });
  entries.sort(
    (a, b) =>
      (a.Date as string).localeCompare(b.Date as string) || (a.VoucherNumber as number) - (b.VoucherNumber as number),
  );

  const salesSettings: Row = {
    DefaultAccountNumber: SALES_ACCOUNT,
    DefaultPaymentConditionType: 'Netto',
    DefaultPaymentConditionNumberOfDays: 8,
    ReminderFee: 100,
    ReminderInterestRate: 0.008,
    ReminderCompensationFee: 310,
    DefaultTemplateId: 'c1d3f2a0-0000-4000-8000-0000000000aa',
    DefaultTemplateName: 'Standard',
    ShowLinesInclVat: false,
    DefaultLanguage: 'da-DK',
  };

  return {
    org,
    pro,
    years,
    accounts,
    depositAccounts,
    entries,
    contacts,
    notes,
    invoices,
    creditNotes,
    payments,
    mailouts,
    reminders,
    tradeOffers,
    purchaseVouchers,
    purchaseCreditNotes,
    manualVouchers,
    purchasePayments,
    products,
    files: files.map((f) => ({ ...f, __Bytes: fileBytes.get(f.FileGuid as string) ?? (f.Size as number) })),
    attachments,
    vatTypes: BOOKS_VAT_TYPES,
    salesSettings,
  };
}

let cached: BooksDataset | undefined;

/** The sandbox's data (built once per process; the sandbox never writes to it). */
export function booksDataset(today = BOOKS_TODAY): BooksDataset {
  if (cached && today === BOOKS_TODAY) return cached;
  const organizations = new Map<number, OrganizationData>([
    [BOOKS_DEMO_ORG_ID, buildOrganization(BOOKS_DEMO_ORG_ID, BOOKS_DEMO_ORG_NAME, true, 16_001, FULL, today)],
    [BOOKS_FREE_ORG_ID, buildOrganization(BOOKS_FREE_ORG_ID, 'Solo Design (gratis)', false, 16_002, SMALL, today)],
    [BOOKS_THROTTLED_ORG_ID, buildOrganization(BOOKS_THROTTLED_ORG_ID, 'Travl Handel ApS', true, 16_003, SMALL, today)],
  ]);
  const dataset = { organizations, countries: BOOKS_COUNTRIES };
  if (today === BOOKS_TODAY) cached = dataset;
  return dataset;
}

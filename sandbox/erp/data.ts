// Seeded demo data and entity schemas for the ERP sandbox (sandbox/erp/server.ts), the fake of
// Business Central API v2.0 described in ../shared/upstreams/erp.md (§4 checklist).
//
// One tenant with three Business Central environments seen through /environments/v1.2
// (`Production`, `Sandbox` without a countryCode) plus one foreign-applicationFamily entry the
// connector must drop. Production holds two companies, Sandbox one. The first Production company
// holds the big demo data (customers 120 = 3 pages at 50, vendors 40, items 60,
// generalLedgerEntries 600, salesInvoices 80 with their salesInvoiceLines,
// agedAccountsReceivables); the other two hold a handful of rows each, to prove company scoping.
// The second Production company's companyInformation is empty (`value: []`).
//
// Everything is deterministic: a fixed-seed PRNG (sandbox/seeded-random.ts) fills in details and
// the dataset is built once, lazily. Names and amounts are invented.
import { createHash } from 'node:crypto';
import { mulberry32 } from '../seeded-random.ts';

// ---------------------------------------------------------------------------------------------
// Tenant, environments, companies
// ---------------------------------------------------------------------------------------------

/** The Entra tenant (aadTenantId) of the demo tenant; accepted as the `{tenant}` URL segment. */
export const ERP_TENANT_ID = '7d1a9c3e-5b2f-4e8a-9c61-0f4b2d8e6a13';
/** The tenant's primary domain, also accepted as the `{tenant}` URL segment. */
export const ERP_TENANT_DOMAIN = 'cronusdemo.onmicrosoft.com';

export const ERP_PRODUCTION = 'Production';
export const ERP_SANDBOX_ENV = 'Sandbox';
/** The name of the foreign-applicationFamily entry of /environments/v1.2 (no API behind it). */
export const ERP_FOREIGN_ENV = 'FieldServiceProd';
/** Business Central environments with an API. Names are matched case-sensitively in URLs (§5 leaves it open). */
export const ERP_ENVIRONMENTS = [ERP_PRODUCTION, ERP_SANDBOX_ENV] as const;

/** The first Production company: the big demo data. */
export const ERP_DEMO_COMPANY_ID = '3f2b8c1a-6d4e-4b7a-8e21-5a9c0d7f1b01';
/** The second Production company: few rows, and `companyInformation` answers `value: []`. */
export const ERP_SECOND_COMPANY_ID = '3f2b8c1a-6d4e-4b7a-8e21-5a9c0d7f1b02';
/** The only Sandbox company. */
export const ERP_SANDBOX_COMPANY_ID = '3f2b8c1a-6d4e-4b7a-8e21-5a9c0d7f1b03';
/** A well-formed GUID that is no company. */
export const ERP_UNKNOWN_COMPANY_ID = '00000000-0000-4000-8000-00000000dead';

export const ERP_DEMO_COMPANY_NAME = 'CRONUS Danmark A/S';
export const ERP_SECOND_COMPANY_NAME = 'CRONUS Holding ApS';
export const ERP_SANDBOX_COMPANY_NAME = 'CRONUS Test Sandbox';

/** Demo-company row counts (the checklist's sizes). */
export const ERP_DEMO_COUNTS = {
  customers: 120,
  vendors: 40,
  items: 60,
  generalLedgerEntries: 600,
  salesInvoices: 80,
} as const;

/** A demo customer whose name holds an apostrophe (for doubled quotes in `$filter`). */
export const ERP_APOSTROPHE_CUSTOMER = "O'Brien Consulting ApS";

/** The date the aged receivables are computed at and the last posting date of the data. */
export const ERP_AS_OF_DATE = '2026-06-30';

// ---------------------------------------------------------------------------------------------
// The allow-list and the service document
// ---------------------------------------------------------------------------------------------

/** The product spec's 85 allow-listed set names, in the spellings of doc 000. */
export const ERP_SPEC_ALLOW_LIST = [
  'accounts',
  'accountingPeriods',
  'agedAccountsPayable',
  'agedAccountsReceivable',
  'applyVendorEntries',
  'approvalEntries',
  'approvalUserSetups',
  'attachments',
  'balanceSheets',
  'bankAccounts',
  'cashFlowStatements',
  'companyInformation',
  'contacts',
  'contactsInformation',
  'countriesRegions',
  'currencies',
  'currencyExchangeRates',
  'customers',
  'customerContacts',
  'customerFinancialDetails',
  'customerPaymentJournals',
  'customerPayments',
  'customerReturnReasons',
  'customerSales',
  'defaultDimensions',
  'dimensions',
  'dimensionSetLines',
  'dimensionValues',
  'disputeStatus',
  'documentAttachments',
  'employees',
  'fixedAssets',
  'fixedAssetLocations',
  'generalLedgerEntries',
  'generalLedgerSetup',
  'generalProductPostingGroups',
  'incomeStatements',
  'inventoryPostingGroups',
  'items',
  'itemCategories',
  'itemLedgerEntries',
  'itemVariants',
  'jobQueueEntries',
  'jobQueueLogEntries',
  'journals',
  'journalLines',
  'locations',
  'opportunities',
  'paymentMethods',
  'paymentTerms',
  'pictures',
  'postedApprovalEntries',
  'projects',
  'purchaseCreditMemos',
  'purchaseCreditMemoLines',
  'purchaseInvoices',
  'purchaseInvoiceLines',
  'purchaseOrders',
  'purchaseOrderLines',
  'purchaseReceipts',
  'purchaseReceiptLines',
  'retainedEarningsStatements',
  'salesCreditMemos',
  'salesCreditMemoLines',
  'salesInvoices',
  'salesInvoiceLines',
  'salesOrders',
  'salesOrderLines',
  'salesQuotes',
  'salesQuoteLines',
  'salesShipments',
  'salesShipmentLines',
  'salespersonsPurchasers',
  'shipmentMethods',
  'subscriptions',
  'taxAreas',
  'taxGroups',
  'timeRegistrationEntries',
  'trialBalances',
  'unitsOfMeasure',
  'vendors',
  'vendorPayments',
  'vendorPaymentJournals',
  'vendorPurchases',
  'workflowApprovers',
] as const;

/** Spec spellings whose real v2.0 entity-set name differs (erp.md §3). */
export const ERP_REAL_NAMES: Readonly<Record<string, string>> = {
  agedAccountsPayable: 'agedAccountsPayables',
  agedAccountsReceivable: 'agedAccountsReceivables',
  salespersonsPurchasers: 'salespeoplePurchasers',
};

/** The allow-listed set this environment's service document omits; reading it gives 404 BadRequest_ResourceNotFound. */
export const ERP_OMITTED_SET = 'workflowApprovers';

/** Real v2.0 sets outside the allow-list that the service document lists (erp.md §3). */
export const ERP_EXTRA_SETS = [
  'companies',
  'pdfDocument',
  'workflows',
  'workflowSteps',
  'workflowResponseOptions',
] as const;

/** Real names of the allow-listed sets this sandbox serves (every allow-list entry but ERP_OMITTED_SET). */
export const ERP_SERVED_ALLOW_LISTED: readonly string[] = ERP_SPEC_ALLOW_LIST.filter((n) => n !== ERP_OMITTED_SET).map(
  (n) => ERP_REAL_NAMES[n] ?? n,
);

/** Entity sets listed by the service document, in its order (alphabetical, as BC lists them). */
export const ERP_SERVICE_DOCUMENT_SETS: readonly string[] = [...ERP_SERVED_ALLOW_LISTED, ...ERP_EXTRA_SETS].sort(
  (a, b) => a.localeCompare(b, 'en'),
);

/** Sets read at environment level (not under companies(…)). */
export const ERP_ENVIRONMENT_SETS: ReadonlySet<string> = new Set(['companies', 'subscriptions']);

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

export type ErpFieldType = 'string' | 'number' | 'boolean' | 'date' | 'datetime' | 'guid';

export interface ErpNavigation {
  /** Target set (real name). */
  readonly target: string;
  /** Collection (true) or single-valued (false). */
  readonly many: boolean;
  /** Parent field and child field that must be equal. */
  readonly parentField: string;
  readonly childField: string;
}

export interface ErpEntitySchema {
  /** Entity-set name (real v2.0 spelling). */
  readonly set: string;
  /** Entity type name (Microsoft.NAV.<type>) used in error messages and $metadata. */
  readonly type: string;
  /** Key field; `subscriptionId` (a string) for subscriptions, otherwise a GUID field. */
  readonly key: string;
  readonly fields: Readonly<Record<string, ErpFieldType>>;
  readonly navigations: Readonly<Record<string, ErpNavigation>>;
}

const AUDIT = { lastModifiedDateTime: 'datetime' } as const;

const SCHEMAS: Record<string, ErpEntitySchema> = {};

function schema(
  set: string,
  type: string,
  fields: Record<string, ErpFieldType>,
  navigations: Record<string, ErpNavigation> = {},
  key = 'id',
): void {
  SCHEMAS[set] = { set, type, key, fields, navigations };
}

schema('companies', 'company', {
  id: 'guid',
  systemVersion: 'string',
  timestamp: 'number',
  name: 'string',
  displayName: 'string',
  businessProfileId: 'string',
  systemCreatedAt: 'datetime',
  systemCreatedBy: 'guid',
  systemModifiedAt: 'datetime',
  systemModifiedBy: 'guid',
});
schema('companyInformation', 'companyInformation', {
  id: 'guid',
  displayName: 'string',
  addressLine1: 'string',
  addressLine2: 'string',
  city: 'string',
  state: 'string',
  country: 'string',
  postalCode: 'string',
  phoneNumber: 'string',
  faxNumber: 'string',
  email: 'string',
  website: 'string',
  taxRegistrationNumber: 'string',
  currencyCode: 'string',
  currentFiscalYearStartDate: 'date',
  industry: 'string',
  ...AUDIT,
});
schema('customers', 'customer', {
  id: 'guid',
  number: 'string',
  displayName: 'string',
  type: 'string',
  addressLine1: 'string',
  addressLine2: 'string',
  city: 'string',
  state: 'string',
  country: 'string',
  postalCode: 'string',
  phoneNumber: 'string',
  email: 'string',
  website: 'string',
  salespersonCode: 'string',
  balanceDue: 'number',
  creditLimit: 'number',
  taxLiable: 'boolean',
  taxRegistrationNumber: 'string',
  currencyCode: 'string',
  blocked: 'string',
  ...AUDIT,
});
schema('vendors', 'vendor', {
  id: 'guid',
  number: 'string',
  displayName: 'string',
  addressLine1: 'string',
  city: 'string',
  country: 'string',
  postalCode: 'string',
  phoneNumber: 'string',
  email: 'string',
  taxRegistrationNumber: 'string',
  currencyCode: 'string',
  taxLiable: 'boolean',
  blocked: 'string',
  balance: 'number',
  ...AUDIT,
});
schema('items', 'item', {
  id: 'guid',
  number: 'string',
  displayName: 'string',
  type: 'string',
  itemCategoryCode: 'string',
  blocked: 'boolean',
  gtin: 'string',
  inventory: 'number',
  unitPrice: 'number',
  priceIncludesTax: 'boolean',
  unitCost: 'number',
  baseUnitOfMeasureCode: 'string',
  ...AUDIT,
});
schema('generalLedgerEntries', 'generalLedgerEntry', {
  id: 'guid',
  entryNumber: 'number',
  postingDate: 'date',
  documentNumber: 'string',
  documentType: 'string',
  accountId: 'guid',
  accountNumber: 'string',
  description: 'string',
  debitAmount: 'number',
  creditAmount: 'number',
  ...AUDIT,
});
schema(
  'salesInvoices',
  'salesInvoice',
  {
    id: 'guid',
    number: 'string',
    externalDocumentNumber: 'string',
    invoiceDate: 'date',
    postingDate: 'date',
    dueDate: 'date',
    customerId: 'guid',
    customerNumber: 'string',
    customerName: 'string',
    currencyCode: 'string',
    pricesIncludeTax: 'boolean',
    totalAmountExcludingTax: 'number',
    totalTaxAmount: 'number',
    totalAmountIncludingTax: 'number',
    status: 'string',
    ...AUDIT,
  },
  {
    salesInvoiceLines: { target: 'salesInvoiceLines', many: true, parentField: 'id', childField: 'documentId' },
    customer: { target: 'customers', many: false, parentField: 'customerId', childField: 'id' },
  },
);
schema(
  'salesInvoiceLines',
  'salesInvoiceLine',
  {
    id: 'guid',
    documentId: 'guid',
    sequence: 'number',
    itemId: 'guid',
    lineType: 'string',
    lineObjectNumber: 'string',
    description: 'string',
    unitOfMeasureCode: 'string',
    quantity: 'number',
    unitPrice: 'number',
    discountPercent: 'number',
    taxPercent: 'number',
    amountExcludingTax: 'number',
    totalTaxAmount: 'number',
    amountIncludingTax: 'number',
  },
  { item: { target: 'items', many: false, parentField: 'itemId', childField: 'id' } },
);
schema(
  'agedAccountsReceivables',
  'agedAccountsReceivable',
  {
    customerId: 'guid',
    customerNumber: 'string',
    name: 'string',
    currencyCode: 'string',
    balanceDue: 'number',
    currentAmount: 'number',
    period1Amount: 'number',
    period2Amount: 'number',
    period3Amount: 'number',
    agedAsOfDate: 'date',
    periodLengthFilter: 'string',
  },
  {},
  'customerId',
);
schema(
  'subscriptions',
  'subscription',
  {
    subscriptionId: 'string',
    notificationUrl: 'string',
    resource: 'string',
    userId: 'guid',
    lastModifiedDateTime: 'datetime',
    clientState: 'string',
    expirationDateTime: 'datetime',
  },
  {},
  'subscriptionId',
);

/** The schema of a served set (real name); sets without demo rows get `id` and `lastModifiedDateTime` only. */
export function erpSchema(set: string): ErpEntitySchema | undefined {
  const known = SCHEMAS[set];
  if (known !== undefined) return known;
  if (!ERP_SERVICE_DOCUMENT_SETS.includes(set)) return undefined;
  const type = set.endsWith('ies') ? `${set.slice(0, -3)}y` : set.endsWith('s') ? set.slice(0, -1) : set;
  const generic: ErpEntitySchema = { set, type, key: 'id', fields: { id: 'guid', ...AUDIT }, navigations: {} };
  SCHEMAS[set] = generic;
  return generic;
}

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

export type ErpRow = Readonly<Record<string, unknown>>;

/** A stored row: the fields plus its weak etag (`@odata.etag`). */
export interface ErpStoredRow {
  readonly fields: ErpRow;
  readonly etag: string;
}

export interface ErpCompany {
  readonly environment: string;
  readonly row: ErpRow;
  /** Rows by real set name; a served set without an entry is empty. */
  readonly sets: ReadonlyMap<string, readonly ErpStoredRow[]>;
}

export interface ErpDataset {
  readonly companies: readonly ErpCompany[];
  /** Environment-level subscriptions, by environment. */
  readonly subscriptions: ReadonlyMap<string, readonly ErpStoredRow[]>;
}

/** The weak etag of a row (derived from its fields). */
export function erpEtag(fields: ErpRow): string {
  const digest = createHash('sha256').update(JSON.stringify(fields)).digest('base64').slice(0, 32);
  return `W/"JzQ0O${digest}MTswMDsn"`;
}

function stored(rows: readonly ErpRow[]): ErpStoredRow[] {
  return rows.map((fields) => ({ fields, etag: erpEtag(fields) }));
}

type Rand = () => number;

function guidFrom(rand: Rand): string {
  let hex = '';
  for (let i = 0; i < 32; i++) hex += Math.floor(rand() * 16).toString(16);
  const v = hex.split('');
  v[12] = '4';
  v[16] = '89ab'[Math.floor(rand() * 4)]!;
  const h = v.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const money = (n: number): number => Math.round(n * 100) / 100;
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function dateAdd(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const FIRST = [
  'Nordic',
  'Baltic',
  'Aarhus',
  'Fyns',
  'Jysk',
  'Sjællands',
  'Blue',
  'Green',
  'North',
  'Harbour',
  'City',
  'Coastal',
  'Alpha',
  'Delta',
  'Polar',
  'Viking',
];
const SECOND = [
  'Trading',
  'Furniture',
  'Supplies',
  'Design',
  'Logistics',
  'Bikes',
  'Electric',
  'Foods',
  'Interiors',
  'Tools',
  'Office',
  'Systems',
];
const SUFFIX = ['A/S', 'ApS', 'I/S', 'K/S'];
const CITIES: readonly (readonly [string, string])[] = [
  ['København K', '1150'],
  ['Aarhus C', '8000'],
  ['Odense C', '5000'],
  ['Aalborg', '9000'],
  ['Esbjerg', '6700'],
  ['Vejle', '7100'],
  ['Roskilde', '4000'],
  ['Kolding', '6000'],
];
const STREETS = ['Hovedgaden', 'Strandvejen', 'Vestergade', 'Østergade', 'Industrivej', 'Havnegade', 'Bredgade'];
const ITEM_NAMES = [
  'Office chair',
  'Desk',
  'Lamp',
  'Bookshelf',
  'Filing cabinet',
  'Whiteboard',
  'Monitor arm',
  'Conference table',
  'Sofa',
  'Coat rack',
];
const ITEM_STYLES = ['ATHENS', 'PARIS', 'LONDON', 'ROME', 'BERLIN', 'OSLO', 'MADRID'];
const GL_ACCOUNTS: readonly (readonly [string, string])[] = [
  ['1110', 'Sales, Retail - Dom.'],
  ['2310', 'Customers Domestic'],
  ['2910', 'Bank, Checking'],
  ['5410', 'Vendors, Domestic'],
  ['5610', 'Sales VAT 25 %'],
  ['8210', 'Office Supplies'],
  ['8710', 'Salaries'],
];

function companyName(rand: Rand, used: Set<string>): string {
  for (;;) {
    const name = `${pick(rand, FIRST)} ${pick(rand, SECOND)} ${pick(rand, SUFFIX)}`;
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

function modified(rand: Rand): string {
  const day = dateAdd('2025-01-01', Math.floor(rand() * 545));
  return `${day}T${pad(Math.floor(rand() * 24), 2)}:${pad(Math.floor(rand() * 60), 2)}:${pad(Math.floor(rand() * 60), 2)}.${pad(Math.floor(rand() * 1000), 3)}Z`;
}

interface Sizes {
  customers: number;
  vendors: number;
  items: number;
  generalLedgerEntries: number;
  salesInvoices: number;
}

function companyData(
  seed: number,
  sizes: Sizes,
  withInformation: boolean,
  id: string,
  name: string,
): Map<string, ErpStoredRow[]> {
  const rand = mulberry32(seed);
  const used = new Set<string>();
  const sets = new Map<string, ErpStoredRow[]>();

  const customers: Record<string, unknown>[] = [];
  for (let i = 0; i < sizes.customers; i++) {
    const [city, postalCode] = pick(rand, CITIES);
    const displayName = i === 7 && sizes.customers > 7 ? ERP_APOSTROPHE_CUSTOMER : companyName(rand, used);
    customers.push({
      id: guidFrom(rand),
      number: `C${pad(10 * (i + 1), 5)}`,
      displayName,
      type: rand() < 0.85 ? 'Company' : 'Person',
      addressLine1: `${pick(rand, STREETS)} ${1 + Math.floor(rand() * 120)}`,
      addressLine2: '',
      city,
      state: '',
      country: rand() < 0.9 ? 'DK' : pick(rand, ['SE', 'DE', 'NO']),
      postalCode,
      phoneNumber: `+45 ${pad(Math.floor(rand() * 100_000_000), 8)}`,
      email: `info${i + 1}@example.com`,
      website: '',
      salespersonCode: pick(rand, ['JO', 'PS', 'BC']),
      balanceDue: 0,
      creditLimit: pick(rand, [0, 10000, 25000, 50000]),
      taxLiable: rand() < 0.9,
      taxRegistrationNumber: `DK${pad(Math.floor(rand() * 100_000_000), 8)}`,
      currencyCode: rand() < 0.85 ? '' : pick(rand, ['EUR', 'SEK', 'USD']),
      blocked: rand() < 0.05 ? 'All' : ' ',
      lastModifiedDateTime: modified(rand),
    });
  }

  const vendors: Record<string, unknown>[] = [];
  for (let i = 0; i < sizes.vendors; i++) {
    const [city, postalCode] = pick(rand, CITIES);
    vendors.push({
      id: guidFrom(rand),
      number: `V${pad(10 * (i + 1), 5)}`,
      displayName: companyName(rand, used),
      addressLine1: `${pick(rand, STREETS)} ${1 + Math.floor(rand() * 120)}`,
      city,
      country: 'DK',
      postalCode,
      phoneNumber: `+45 ${pad(Math.floor(rand() * 100_000_000), 8)}`,
      email: `sales${i + 1}@example.net`,
      taxRegistrationNumber: `DK${pad(Math.floor(rand() * 100_000_000), 8)}`,
      currencyCode: '',
      taxLiable: true,
      blocked: ' ',
      balance: money(rand() * 40000),
      lastModifiedDateTime: modified(rand),
    });
  }

  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < sizes.items; i++) {
    const unitCost = money(20 + rand() * 900);
    items.push({
      id: guidFrom(rand),
      number: `${1000 + i * 10}-S`,
      displayName: `${pick(rand, ITEM_STYLES)} ${pick(rand, ITEM_NAMES)}`,
      type: rand() < 0.85 ? 'Inventory' : 'Service',
      itemCategoryCode: pick(rand, ['CHAIR', 'DESK', 'MISC', 'TABLE']),
      blocked: rand() < 0.05,
      gtin: '',
      inventory: Math.floor(rand() * 200),
      unitPrice: money(unitCost * (1.2 + rand() * 0.8)),
      priceIncludesTax: false,
      unitCost,
      baseUnitOfMeasureCode: 'PCS',
      lastModifiedDateTime: modified(rand),
    });
  }

  const invoices: Record<string, unknown>[] = [];
  const lines: Record<string, unknown>[] = [];
  const balances = new Map<string, { due: number; buckets: [number, number, number, number] }>();
  for (let i = 0; i < sizes.salesInvoices && customers.length > 0 && items.length > 0; i++) {
    const customer = customers[Math.floor(rand() * customers.length)]!;
    const invoiceDate = dateAdd('2025-07-01', Math.floor(rand() * 365));
    const invoiceId = guidFrom(rand);
    const lineCount = 1 + Math.floor(rand() * 5);
    let net = 0;
    let tax = 0;
    for (let n = 0; n < lineCount; n++) {
      const item = items[Math.floor(rand() * items.length)]!;
      const quantity = 1 + Math.floor(rand() * 10);
      const unitPrice = item.unitPrice as number;
      const amount = money(quantity * unitPrice);
      const lineTax = money(amount * 0.25);
      net += amount;
      tax += lineTax;
      lines.push({
        id: guidFrom(rand),
        documentId: invoiceId,
        sequence: 10000 * (n + 1),
        itemId: item.id,
        lineType: 'Item',
        lineObjectNumber: item.number,
        description: item.displayName,
        unitOfMeasureCode: 'PCS',
        quantity,
        unitPrice,
        discountPercent: 0,
        taxPercent: 25,
        amountExcludingTax: amount,
        totalTaxAmount: lineTax,
        amountIncludingTax: money(amount + lineTax),
      });
    }
    const total = money(net + tax);
    const dueDate = dateAdd(invoiceDate, 30);
    const status = dueDate < dateAdd(ERP_AS_OF_DATE, -60) || rand() < 0.5 ? 'Paid' : 'Open';
    invoices.push({
      id: invoiceId,
      number: `103${pad(i + 1, 3)}`,
      externalDocumentNumber: rand() < 0.3 ? `PO-${pad(Math.floor(rand() * 10000), 4)}` : '',
      invoiceDate,
      postingDate: invoiceDate,
      dueDate,
      customerId: customer.id,
      customerNumber: customer.number,
      customerName: customer.displayName,
      currencyCode: customer.currencyCode,
      pricesIncludeTax: false,
      totalAmountExcludingTax: money(net),
      totalTaxAmount: money(tax),
      totalAmountIncludingTax: total,
      status,
      lastModifiedDateTime: `${invoiceDate}T12:00:00Z`,
    });
    if (status === 'Open') {
      const entry = balances.get(customer.id as string) ?? { due: 0, buckets: [0, 0, 0, 0] };
      const overdueDays = (Date.parse(`${ERP_AS_OF_DATE}T00:00:00Z`) - Date.parse(`${dueDate}T00:00:00Z`)) / 86_400_000;
      const bucket = overdueDays <= 0 ? 0 : overdueDays <= 30 ? 1 : overdueDays <= 60 ? 2 : 3;
      entry.due = money(entry.due + total);
      entry.buckets[bucket] = money(entry.buckets[bucket] + total);
      balances.set(customer.id as string, entry);
    }
  }
  for (const customer of customers) customer.balanceDue = balances.get(customer.id as string)?.due ?? 0;

  const aged = customers
    .filter((c) => balances.has(c.id as string))
    .map((c) => {
      const b = balances.get(c.id as string)!;
      return {
        customerId: c.id,
        customerNumber: c.number,
        name: c.displayName,
        currencyCode: c.currencyCode,
        balanceDue: b.due,
        currentAmount: b.buckets[0],
        period1Amount: b.buckets[1],
        period2Amount: b.buckets[2],
        period3Amount: b.buckets[3],
        agedAsOfDate: ERP_AS_OF_DATE,
        periodLengthFilter: '30D',
      };
    });

  const accountIds = new Map(GL_ACCOUNTS.map(([number]) => [number, guidFrom(rand)]));
  const gl: Record<string, unknown>[] = [];
  for (let i = 0; i < sizes.generalLedgerEntries; i++) {
    const [accountNumber, description] = pick(rand, GL_ACCOUNTS);
    const amount = money(10 + rand() * 20000);
    const debit = rand() < 0.5;
    const postingDate = dateAdd('2025-01-01', Math.floor((i * 545) / Math.max(1, sizes.generalLedgerEntries)));
    gl.push({
      id: guidFrom(rand),
      entryNumber: i + 1,
      postingDate,
      documentNumber: `G${pad(Math.floor(i / 2) + 1, 5)}`,
      documentType: pick(rand, ['Invoice', 'Payment', ' ']),
      accountId: accountIds.get(accountNumber),
      accountNumber,
      description,
      debitAmount: debit ? amount : 0,
      creditAmount: debit ? 0 : amount,
      lastModifiedDateTime: `${postingDate}T08:00:00Z`,
    });
  }

  sets.set('customers', stored(customers));
  sets.set('vendors', stored(vendors));
  sets.set('items', stored(items));
  sets.set('generalLedgerEntries', stored(gl));
  sets.set('salesInvoices', stored(invoices));
  sets.set('salesInvoiceLines', stored(lines));
  sets.set('agedAccountsReceivables', stored(aged));
  sets.set(
    'companyInformation',
    withInformation
      ? stored([
          {
            id: guidFrom(rand),
            displayName: name,
            addressLine1: 'Ved Vesterport 6',
            addressLine2: '',
            city: 'København V',
            state: '',
            country: 'DK',
            postalCode: '1612',
            phoneNumber: '+45 33 33 33 33',
            faxNumber: '',
            email: `info@${id.slice(-4)}.example.com`,
            website: 'www.example.com',
            taxRegistrationNumber: 'DK12345678',
            currencyCode: 'DKK',
            currentFiscalYearStartDate: '2026-01-01',
            industry: 'Furniture',
            'picture@odata.mediaReadLink': `companyInformation(${id})/picture`,
            lastModifiedDateTime: '2026-01-02T09:00:00Z',
          },
        ])
      : [],
  );
  return sets;
}

function companyRow(id: string, name: string, created: string): ErpRow {
  return {
    id,
    systemVersion: '26.0.30643.32483',
    timestamp: 42118,
    name,
    displayName: name,
    businessProfileId: '',
    systemCreatedAt: created,
    systemCreatedBy: '00000000-0000-0000-0000-000000000001',
    systemModifiedAt: created,
    systemModifiedBy: '00000000-0000-0000-0000-000000000001',
  };
}

let dataset: ErpDataset | undefined;

/** The demo dataset (built once, on first use). */
export function erpDataset(): ErpDataset {
  if (dataset !== undefined) return dataset;
  const companies: ErpCompany[] = [
    {
      environment: ERP_PRODUCTION,
      row: companyRow(ERP_DEMO_COMPANY_ID, ERP_DEMO_COMPANY_NAME, '2024-03-01T10:00:00Z'),
      sets: companyData(14_001, ERP_DEMO_COUNTS, true, ERP_DEMO_COMPANY_ID, ERP_DEMO_COMPANY_NAME),
    },
    {
      environment: ERP_PRODUCTION,
      row: companyRow(ERP_SECOND_COMPANY_ID, ERP_SECOND_COMPANY_NAME, '2024-05-01T10:00:00Z'),
      sets: companyData(
        14_002,
        { customers: 5, vendors: 3, items: 4, generalLedgerEntries: 10, salesInvoices: 3 },
        false,
        ERP_SECOND_COMPANY_ID,
        ERP_SECOND_COMPANY_NAME,
      ),
    },
    {
      environment: ERP_SANDBOX_ENV,
      row: companyRow(ERP_SANDBOX_COMPANY_ID, ERP_SANDBOX_COMPANY_NAME, '2025-02-01T10:00:00Z'),
      sets: companyData(
        14_003,
        { customers: 8, vendors: 2, items: 3, generalLedgerEntries: 12, salesInvoices: 2 },
        true,
        ERP_SANDBOX_COMPANY_ID,
        ERP_SANDBOX_COMPANY_NAME,
      ),
    },
  ];
  const subscriptionRows = (env: string): ErpStoredRow[] =>
    stored([
      {
        subscriptionId: `demo-${env.toLowerCase()}-customers`,
        notificationUrl: 'https://hooks.example.com/bc',
        resource: `api/v2.0/companies(${ERP_DEMO_COMPANY_ID})/customers`,
        userId: '00000000-0000-0000-0000-000000000001',
        lastModifiedDateTime: '2026-06-01T10:00:00Z',
        clientState: 'sandbox-webhook-secret-Q7w2',
        expirationDateTime: '2026-06-04T10:00:00Z',
      },
    ]);
  dataset = {
    companies,
    subscriptions: new Map([
      [ERP_PRODUCTION, subscriptionRows(ERP_PRODUCTION)],
      [ERP_SANDBOX_ENV, []],
    ]),
  };
  return dataset;
}

/** The webhook secret of the demo subscription row (connector tests check it never reaches a result). */
export const ERP_SUBSCRIPTION_CLIENT_STATE = 'sandbox-webhook-secret-Q7w2';

/** The /environments/v1.2 body (the foreign entry included: the connector must drop it). */
export function erpEnvironmentsBody(): { value: Record<string, unknown>[] } {
  return {
    value: [
      {
        aadTenantId: ERP_TENANT_ID,
        applicationFamily: 'BusinessCentral',
        type: 'production',
        name: ERP_PRODUCTION,
        countryCode: 'DK',
        webServiceUrl: `https://api.businesscentral.dynamics.com/v2.0/${ERP_PRODUCTION}/api`,
        webClientLoginUrl: `https://businesscentral.dynamics.com/${ERP_TENANT_ID}/${ERP_PRODUCTION}`,
        ringName: 'PROD',
      },
      {
        aadTenantId: ERP_TENANT_ID,
        applicationFamily: 'BusinessCentral',
        type: 'sandbox',
        name: ERP_SANDBOX_ENV,
        webServiceUrl: `https://api.businesscentral.dynamics.com/v2.0/${ERP_SANDBOX_ENV}/api`,
        webClientLoginUrl: `https://businesscentral.dynamics.com/${ERP_TENANT_ID}/${ERP_SANDBOX_ENV}`,
        ringName: 'PROD',
      },
      {
        aadTenantId: ERP_TENANT_ID,
        applicationFamily: 'FieldService',
        type: 'production',
        name: ERP_FOREIGN_ENV,
        countryCode: 'DK',
        webServiceUrl: null,
        webClientLoginUrl: null,
        ringName: 'PROD',
      },
    ],
  };
}

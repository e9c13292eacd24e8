// The 52 bookkeeping-reports handlers against the Dinero sandbox (a real HTTP server built from
// upstreams/books.md), table-driven from the catalog: for every tool generated/catalog.json lists,
// a row gives the arguments and the request the tool must send (method, path, query, Accept), and
// the result must satisfy the catalog's result shape (the generated output validator). Then the
// error table of doc 001 (401, 403 Pro and no access, 429 after one retry, 480, other 4xx never
// retried, quotes, incomplete date range, the 31-day window, the 6 MB cap), paging shapes and the
// calculators that persist nothing.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BooksToolName, BooksTools } from '../generated/books/contract.ts';
import { booksDescriptor } from '../generated/books/descriptor.ts';
import { booksHandlers } from '../generated/books/handlers.ts';
import * as validators from '../generated/books/validators.js';
import { camelKey } from '../handlers/books/client.ts';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';
import type { Credential } from '../runtime/handler-api/tool-context.ts';
import { formatText, ToolError } from '../runtime/handler-api/tool-error.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import { UpstreamQuotas } from '../runtime/metering/rate-limit.ts';
import { RedisSharedStore } from '../runtime/store/shared-store.ts';
import {
  BOOKS_APOSTROPHE_CONTACT,
  BOOKS_BIG_FILE_GUID,
  BOOKS_DEMO_ORG_ID,
  BOOKS_FREE_ORG_ID,
  BOOKS_REMINDED_INVOICE_GUID,
  BOOKS_THROTTLED_ORG_ID,
  booksDataset,
  type Row,
} from '../sandbox/books/data.ts';
import {
  BOOKS_FIELDS,
  type BooksFieldsEndpoint,
  fieldsEndpointOf,
  isDocumentedField,
} from '../sandbox/books/documented-fields.ts';
import {
  BOOKS_SANDBOX_OTHER_USER_TOKEN,
  BOOKS_SANDBOX_TOKEN,
  type BooksRecordedRequest,
  type BooksSandbox,
  startBooksSandbox,
} from '../sandbox/books/server.ts';
import { testContext } from './support/tool-context.ts';
import { needs, REDIS_URL } from './support/services.ts';

const O = BOOKS_DEMO_ORG_ID;
const CREDENTIAL: Credential = {
  kind: 'oauth2',
  accessToken: BOOKS_SANDBOX_TOKEN,
  refreshToken: 'rt-books-Zx81-refresh',
  expiresAt: 4102444800000,
};
const CATALOG = JSON.parse(readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8')) as {
  connectors: { key: string; tools: { name: string; system: boolean; result: { required?: string[] } }[] }[];
};
const catalogTools = CATALOG.connectors.find((c) => c.key === 'books')!.tools.filter((t) => !t.system);

let sandbox: BooksSandbox;
/** The sandbox's data (the same, deterministic, in this process). */
const org = booksDataset().organizations.get(O)!;

interface CallOptions {
  readonly credential?: Credential | null;
  /** The per-key upstream budgets (one set per gateway process); default a fresh set per call. */
  readonly quotas?: UpstreamQuotas;
}

async function call<K extends BooksToolName>(
  tool: K,
  raw: Record<string, unknown>,
  options: CallOptions = {},
): Promise<BooksTools[K]['result']> {
  const input = (validators as unknown as Record<string, CompiledValidator>)[`input_${tool}`]!;
  const checked = checkArguments({ coerce: [] }, input, raw);
  if (!checked.ok) throw new Error(`arguments refused by the schema: ${checked.reason}`);
  const ctx = testContext({
    descriptor: booksDescriptor,
    tool,
    credential: options.credential === undefined ? CREDENTIAL : options.credential,
    baseUrl: sandbox.url,
    ...(options.quotas ? { upstreamQuotas: options.quotas } : {}),
  });
  const handler = booksHandlers[tool] as unknown as (args: unknown, c: unknown) => Promise<BooksTools[K]['result']>;
  const result = await handler(checked.args, ctx);
  const output = (validators as unknown as Record<string, CompiledValidator>)[`output_${tool}`]!;
  output(result);
  expect(output.errors ?? [], `output_${tool}`).toEqual([]);
  expect(JSON.stringify(result)).not.toContain(BOOKS_SANDBOX_TOKEN);
  return result;
}

async function failure(
  tool: BooksToolName,
  raw: Record<string, unknown>,
  options: CallOptions = {},
): Promise<{ error: unknown; code?: string; text?: string; refusal?: boolean }> {
  const error = await call(tool, raw, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should fail').toBeDefined();
  expect(String((error as Error)?.message ?? error)).not.toContain(BOOKS_SANDBOX_TOKEN);
  if (!(error instanceof ToolError)) return { error };
  const entry = booksDescriptor.errors[error.code as keyof typeof booksDescriptor.errors];
  // As the default instance answers it (the pipeline renders tool references per instance).
  const text = formatText(renderToolReferences(entry.text, booksDescriptor.defaultId), {
    upstream: booksDescriptor.upstream.name,
    ...error.params,
  });
  return { error, code: error.code, text, refusal: error.name === 'ArgumentRefusal' };
}

const requests = (): BooksRecordedRequest[] => [...sandbox.requests];

/** The request's `fields`, each a name its endpoint documents (sandbox/books/documented-fields.ts), in PascalCase. */
function expectDocumentedFields(request: BooksRecordedRequest): string[] {
  const fields = request.query.fields;
  if (fields === undefined) return [];
  const endpoint = fieldsEndpointOf(request.path);
  expect(endpoint, `${request.path} takes no fields`).toBeDefined();
  const names = fields.split(',');
  for (const name of names) {
    expect(isDocumentedField(endpoint!, name), `${request.path}: field ${name}`).toBe(true);
    expect(name, 'fields are sent in PascalCase').toMatch(/^[A-Z]/);
  }
  expect(new Set(names).size, 'no field twice').toBe(names.length);
  return names;
}
const last = (): BooksRecordedRequest => sandbox.requests.at(-1)!;

beforeAll(async () => {
  sandbox = await startBooksSandbox({ switches: { rateLimitPerMinute: 0 } });
});
afterAll(async () => {
  await sandbox?.close();
  // Only the two calculators ever POST, and nothing is ever written.
  expect(sandbox.stats.writeLog).toEqual([]);
});
beforeEach(() => {
  sandbox.resetStats();
  sandbox.resetSwitches();
  sandbox.setSwitches({ rateLimitPerMinute: 0 });
});

// ---------------------------------------------------------------------------------------------
// The table: one row per catalog tool
// ---------------------------------------------------------------------------------------------

interface Expected {
  readonly args: () => Record<string, unknown>;
  readonly method?: 'GET' | 'POST';
  /** The path, or a function of the arguments. */
  readonly path: (args: Record<string, unknown>) => string;
  /** Query parameters that must be sent exactly so. */
  readonly query?: Readonly<Record<string, string>>;
  readonly accept?: 'application/json' | 'application/octet-stream';
  /** Extra checks of the result. */
  readonly check?: (result: any, args: Record<string, unknown>) => void;
}

const first = <T>(rows: readonly T[], test: (row: T) => boolean, what: string): T => {
  const row = rows.find(test);
  if (row === undefined) throw new Error(`no ${what} in the demo data`);
  return row;
};
const booked = () =>
  first(org.invoices, (i) => i.Status === 'Paid' && org.mailouts.has(i.Guid as string), 'paid invoice with mail-outs');
const contactWithNotes = () => first(org.contacts, (c) => org.notes.has(c.ContactGuid as string), 'contact with notes');
const creditNote = () => first(org.creditNotes, (c) => c.Status !== 'Draft', 'booked credit note');
const tradeOffer = () => first(org.tradeOffers, (t) => t.Status === 'Sent', 'sent trade offer');
const purchase = () =>
  first(
    org.purchaseVouchers,
    (v) => (org.purchasePayments.get(v.Guid as string) ?? []).length > 0,
    'paid purchase voucher',
  );
const attached = () => first(org.invoices, (i) => org.attachments.has(i.Guid as string), 'invoice with attachments');
const smallFile = () => first(org.files, (f) => f.FileGuid !== BOOKS_BIG_FILE_GUID, 'small file');
const pdfBase64 = (result: { base64: string; mimeType: string }) => {
  expect(Buffer.from(result.base64, 'base64').subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(result.mimeType).toBe('application/pdf');
};
const reportQuery = {
  showZeroAccount: 'false',
  includeSummaryAccount: 'false',
  includeLedgerEntries: 'false',
  showAccountNo: 'true',
};

const TABLE: Readonly<Record<string, Expected>> = {
  list_organizations: {
    args: () => ({}),
    path: () => '/v1/organizations',
    check: (r) => {
      expect(r.count).toBe(3);
      // CountryKey is not among the `fields` /v1/organizations documents (sandbox/books/documented-fields.ts): not
      // asked, so null.
      expect(r.organizations.find((o: Row) => o.id === O)).toMatchObject({
        id: O,
        isPro: true,
        countryKey: null,
        vatNumber: expect.any(String),
      });
      expect(r.organizations.find((o: Row) => o.id === BOOKS_FREE_ORG_ID).isPro).toBe(false);
    },
  },
  validate_connection: {
    args: () => ({}),
    path: () => '/v1/organizations',
    check: (r) => expect(r).toMatchObject({ connected: true, organizationCount: 3 }),
  },
  list_accounting_years: {
    args: () => ({ organizationId: O }),
    path: () => `/v1/${O}/accountingyears`,
    check: (r) => expect(r.years.map((y: Row) => y.name)).toEqual(['2024', '2025']),
  },
  list_countries: {
    args: () => ({ search: 'sver' }),
    path: () => '/v1/countries',
    check: (r) => expect(r.countries.map((c: Row) => c.countryKey)).toEqual(['SE']),
  },
  list_vat_types: {
    args: () => ({ organizationId: O }),
    path: () => `/v1/${O}/vatTypes`,
    check: (r) => expect(r.vatTypes.find((v: Row) => v.vatCode === 'I25').vatRate).toBe(0.25),
  },
  get_sales_settings: {
    args: () => ({ organizationId: O }),
    path: () => `/v1/${O}/sales/settings`,
    check: (r) => expect(r.reminderFee).toBe(100),
  },
  list_chart_of_accounts: {
    args: () => ({ organizationId: O, accountNumberFrom: 1000, accountNumberTo: 3999, pageSize: 10 }),
    path: () => `/v1/${O}/accounts/entry`,
    query: { fields: 'AccountNumber,Name,VatCode,Category,CategoryName,IsHidden' },
    check: (r) => {
      expect(r.items).toHaveLength(10);
      expect(r.hasMore).toBe(true);
      expect(r.items.every((a: Row) => a.isHidden === false && (a.accountNumber as number) <= 3999)).toBe(true);
      expect(r.items[0]).not.toHaveProperty('balance');
    },
  },
  list_deposit_accounts: {
    args: () => ({ organizationId: O, includeBankDetails: true }),
    path: () => `/v1/${O}/accounts/deposit`,
    query: {
      fields:
        'AccountNumber,Name,IsDefault,IsHidden,BankRegistrationNumber,BankAccountNumber,BankSwiftNumber,BankIbanNumber',
    },
    check: (r) => {
      expect(r.count).toBe(2); // the hidden one left out
      expect(r.accounts[0]).toMatchObject({ accountNumber: 5800, isDefault: true, bankRegistrationNumber: '5301' });
    },
  },
  get_saldo_balance_report: {
    args: () => ({ organizationId: O, accountingYear: '2025' }),
    path: () => `/v1/${O}/2025/reports/saldo`,
    query: reportQuery,
    check: (r) => expect(r.count).toBeGreaterThan(10),
  },
  get_result_report: {
    args: () => ({ organizationId: O, accountingYear: '2025', includeSummaryAccounts: true }),
    path: () => `/v1/${O}/2025/reports/result`,
    query: { ...reportQuery, includeSummaryAccount: 'true' },
    check: (r) => {
      expect(r.rows.every((row: Row) => (row.accountNumber as number) < 5000)).toBe(true);
      expect(r.rows.some((row: Row) => row.accountNumber === 3999)).toBe(true);
    },
  },
  get_balance_report: {
    args: () => ({ organizationId: O, accountingYear: '2024', accountNumberFrom: 5800, accountNumberTo: 5899 }),
    path: () => `/v1/${O}/2024/reports/balance`,
    query: reportQuery,
    check: (r) => expect(r.rows.map((row: Row) => row.accountNumber)).toEqual([5800]),
  },
  get_primo_balance_report: {
    args: () => ({ organizationId: O, accountingYear: '2025' }),
    path: () => `/v1/${O}/2025/reports/primo`,
    query: { showZeroAccount: 'false', includeSummaryAccount: 'false' },
    check: (r) => expect(r.rows.find((row: Row) => row.accountNumber === 5800).amount).toBe(312000),
  },
  get_account_balance: {
    args: () => ({ organizationId: O, accountingYear: '2025', accountNumbers: [5800, 1000, 4242] }),
    path: () => `/v1/${O}/2025/reports/saldo`,
    query: { showZeroAccount: 'true', includeSummaryAccount: 'true' },
    check: (r) => {
      expect(r.accounts.map((a: Row) => a.accountNumber)).toEqual([5800, 1000]);
      expect(r.notFound).toEqual([4242]);
    },
  },
  list_entries: {
    args: () => ({ organizationId: O, fromDate: '2025-01-01', toDate: '2025-03-31', accountNumber: 5800, pageSize: 5 }),
    path: () => `/v1/${O}/entries`,
    query: { fromDate: '2025-01-01', toDate: '2025-03-31', includePrimo: 'true' },
    check: (r) => {
      expect(r.items.every((e: Row) => e.accountNumber === 5800)).toBe(true);
      expect(r.totalCount).toBeGreaterThan(5);
      expect(r.hasMore).toBe(true);
    },
  },
  list_entry_changes: {
    args: () => ({
      organizationId: O,
      changesFrom: '2025-03-01T00:00:00.000Z',
      changesTo: '2025-03-31T00:00:00+00:00',
      includePrimo: false,
    }),
    path: () => `/v1/${O}/entries/changes`,
    query: { changesFrom: '2025-03-01T00:00:00Z', changesTo: '2025-03-31T00:00:00Z', includePrimo: 'false' },
    check: (r) => expect(r.totalCount).toBeGreaterThan(0),
  },
  list_contacts: {
    args: () => ({ organizationId: O, name: 'nordic', isPerson: false, pageSize: 5 }),
    path: () => `/v1/${O}/contacts`,
    query: {
      queryFilter: "Name contains 'nordic';IsPerson eq 'false'",
      page: '0',
      pageSize: '5',
      deletedOnly: 'false',
    },
    check: (r) => {
      expect(r.items.length).toBeGreaterThan(0);
      expect(r.items.every((c: Row) => String(c.name).toLowerCase().includes('nordic'))).toBe(true);
      expect(r.items[0]).toHaveProperty('contactGuid');
      expect(r.pagination.totalWithoutFilter).toBeGreaterThanOrEqual(r.pagination.result);
    },
  },
  get_contact: {
    args: () => ({ organizationId: O, contactGuid: contactWithNotes().ContactGuid }),
    path: (a) => `/v1/${O}/contacts/${a.contactGuid}`,
    accept: 'application/json',
    check: (r) => expect(typeof r.isDebitor).toBe('boolean'),
  },
  list_contact_notes: {
    args: () => ({ organizationId: O, contactGuid: contactWithNotes().ContactGuid }),
    path: (a) => `/v1/${O}/contacts/${a.contactGuid}/notes`,
    query: { deletedOnly: 'false', page: '0', pageSize: '20' },
    check: (r) => expect(r.items[0]).toHaveProperty('noteDate'),
  },
  get_contact_state_of_account: {
    args: () => ({ organizationId: O, contactGuid: booked().ContactGuid, from: '2024-01-01', maxEntries: 2 }),
    path: (a) => `/v1/${O}/state-of-account/${a.contactGuid}`,
    query: { from: '2024-01-01T00:00:00Z', hideClosed: 'false' },
    check: (r) => {
      expect(r.entries).toHaveLength(2);
      expect(r.truncated).toBe(r.entryCount > 2);
      expect(typeof r.entries[1].balance).toBe('number');
    },
  },
  download_contact_state_of_account_pdf: {
    args: () => ({ organizationId: O, contactGuid: booked().ContactGuid, to: '2025-12-31', hideClosed: true }),
    path: (a) => `/v1/${O}/state-of-account/${a.contactGuid}/pdf`,
    query: { to: '2025-12-31T23:59:59Z', hideClosed: 'true' },
    accept: 'application/octet-stream',
    check: (r, a) => {
      pdfBase64(r);
      expect(r.contactGuid).toBe(a.contactGuid);
      expect(r.fileName).toMatch(/^kontoudtog-.*\.pdf$/);
    },
  },
  list_invoices: {
    args: () => ({
      organizationId: O,
      status: 'Overdue',
      startDate: '2024-01-01',
      endDate: '2025-12-31',
      sort: 'VoucherDate',
      sortOrder: 'ascending',
      pageSize: 10,
    }),
    path: () => `/v1/${O}/invoices`,
    query: {
      statusFilter: 'Overdue',
      startDate: '2024-01-01',
      endDate: '2025-12-31',
      sort: 'VoucherDate',
      sortOrder: 'ascending',
      page: '0',
      pageSize: '10',
      deletedOnly: 'false',
    },
    check: (r) => {
      expect(r.items).toHaveLength(10);
      expect(r.items.every((i: Row) => i.status === 'Overdue')).toBe(true);
      expect(r.pagination).toMatchObject({ page: 0, pageSize: 10, result: 10, hasMore: true });
      expect(r.items[0].date <= r.items[9].date).toBe(true);
    },
  },
  list_invoices_overdue: {
    args: () => ({ organizationId: O, includeNotYetDue: true, pageSize: 1000 }),
    path: () => `/v1/${O}/invoices`,
    query: { statusFilter: 'Overdue,Booked', pageSize: '1000' },
    check: (r) => {
      expect(new Set(r.items.map((i: Row) => i.status))).toEqual(new Set(['Overdue', 'Booked']));
      expect(r.pagination.hasMore).toBe(false);
    },
  },
  get_invoice: {
    args: () => ({ organizationId: O, invoiceGuid: booked().Guid }),
    path: (a) => `/v1/${O}/invoices/${a.invoiceGuid}`,
    accept: 'application/json',
    check: (r) => {
      expect(r.fikCode).toMatch(/^\+71</);
      expect(r.productLines[0]).toHaveProperty('baseAmountValue');
    },
  },
  download_invoice_pdf: {
    args: () => ({ organizationId: O, invoiceGuid: booked().Guid }),
    path: (a) => `/v1/${O}/invoices/${a.invoiceGuid}`,
    accept: 'application/octet-stream',
    check: (r, a) => {
      pdfBase64(r);
      expect(r).toMatchObject({ invoiceGuid: a.invoiceGuid, fileName: `Faktura-${booked().Number}.pdf` });
    },
  },
  list_invoice_payments: {
    args: () => ({ organizationId: O, invoiceGuid: booked().Guid }),
    path: (a) => `/v2/${O}/invoices/${a.invoiceGuid}/payments`,
    check: (r) => expect(r).toMatchObject({ remainingAmount: 0, paidAmount: booked().TotalInclVat }),
  },
  calculate_invoice_totals: {
    args: () => ({
      organizationId: O,
      productLines: [
        { description: 'Rådgivning', quantity: 2, accountNumber: 1000, baseAmountValue: 500, discount: 10 },
      ],
      date: '2025-06-01',
    }),
    method: 'POST',
    path: () => `/v1/${O}/invoices/fetch`,
    check: (r) => {
      expect(r).toMatchObject({ totalExclVat: 900, totalVat: 225, totalInclVat: 1125, paymentDate: '2025-06-09' });
      const body = last().body as Row;
      expect(body.ProductLines).toEqual([
        { Description: 'Rådgivning', Quantity: 2, AccountNumber: 1000, Discount: 10, BaseAmountValue: 500 },
      ]);
      expect(sandbox.stats.calculations).toBe(1);
    },
  },
  list_invoice_mailouts: {
    args: () => ({
      organizationId: O,
      invoiceGuid: booked().Guid,
      includeSms: false,
      changesSince: '2020-01-01T00:00:00Z',
    }),
    path: (a) => `/v1/${O}/invoices/${a.invoiceGuid}/mailouts`,
    query: { includeSms: 'false', changesSince: '2020-01-01T00:00:00Z' },
    check: (r) => expect(r.mailouts.every((m: Row) => m.isSmsMessage === false)).toBe(true),
  },
  list_invoice_reminders: {
    args: () => ({ organizationId: O, invoiceGuid: BOOKS_REMINDED_INVOICE_GUID }),
    path: () => `/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders`,
    check: (r) => {
      expect(r.count).toBe(3);
      expect(r.reminders[0].paidAmount).toBeLessThanOrEqual(0);
    },
  },
  get_invoice_reminder: {
    args: () => ({
      organizationId: O,
      invoiceGuid: BOOKS_REMINDED_INVOICE_GUID,
      reminderId: org.reminders.get(BOOKS_REMINDED_INVOICE_GUID)![2]!.Id,
    }),
    path: (a) => `/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders/${a.reminderId}`,
    accept: 'application/json',
    check: (r) => expect(r.withDebtCollectionWarning).toBe(true),
  },
  download_invoice_reminder_pdf: {
    args: () => ({
      organizationId: O,
      invoiceGuid: BOOKS_REMINDED_INVOICE_GUID,
      reminderId: org.reminders.get(BOOKS_REMINDED_INVOICE_GUID)![0]!.Id,
    }),
    path: (a) => `/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders/${a.reminderId}`,
    accept: 'application/octet-stream',
    check: (r) => pdfBase64(r),
  },
  get_next_invoice_reminder: {
    args: () => ({ organizationId: O, invoiceGuid: BOOKS_REMINDED_INVOICE_GUID }),
    path: () => `/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders/next`,
    check: (r) => expect(r).toMatchObject({ number: 4, isDraft: true }),
  },
  preview_invoice_reminder: {
    args: () => ({
      organizationId: O,
      invoiceGuid: first(
        org.invoices,
        (i) => i.Status === 'Overdue' && !org.reminders.has(i.Guid as string),
        'overdue invoice without reminders',
      ).Guid,
      date: '2025-06-20',
      withFee: true,
      withInterestFee: false,
      withCompensationFee: true,
      withDebtCollectionWarning: false,
    }),
    method: 'POST',
    path: (a) => `/v1/${O}/invoices/${a.invoiceGuid}/reminders/fetch`,
    check: (r) => {
      expect(r).toMatchObject({
        number: 1,
        feeAmount: 100,
        interestAmount: 0,
        compensationFeeAmount: 310,
        date: '2025-06-20',
      });
      expect(last().body).toEqual({
        Date: '2025-06-20',
        WithFee: true,
        WithInterestFee: false,
        WithCompensationFee: true,
        WithDebtCollectionWarning: false,
      });
    },
  },
  list_sales: {
    args: () => ({ organizationId: O, pageSize: 1000, startDate: '2024-01-01', endDate: '2025-12-31' }),
    path: () => `/v1/${O}/sales`,
    query: { startDate: '2024-01-01', endDate: '2025-12-31' },
    check: (r) => expect(new Set(r.items.map((i: Row) => i.type))).toEqual(new Set(['Invoice', 'CreditNote'])),
  },
  list_credit_notes: {
    args: () => ({ organizationId: O, contactGuid: creditNote().ContactGuid }),
    path: () => `/v1/${O}/sales/creditnotes`,
    query: { queryFilter: `ContactGuid eq '${String(creditNote().ContactGuid)}'` },
    check: (r) => {
      const creditNoteGuids = new Set(org.creditNotes.map((c) => c.Guid));
      expect(r.items.length).toBeGreaterThan(0);
      expect(r.items.every((i: Row) => creditNoteGuids.has(i.guid) && i.contactGuid === creditNote().ContactGuid)).toBe(
        true,
      );
      // The credit-note list documents neither Type nor LatestMailOutType: not asked for.
      expect(r.items[0]).not.toHaveProperty('type');
    },
  },
  get_credit_note: {
    args: () => ({ organizationId: O, creditNoteGuid: creditNote().Guid }),
    path: (a) => `/v1/${O}/sales/creditnotes/${a.creditNoteGuid}`,
    check: (r) => expect(r.creditNoteFor).toBe(creditNote().CreditNoteFor),
  },
  download_credit_note_pdf: {
    args: () => ({ organizationId: O, creditNoteGuid: creditNote().Guid }),
    path: (a) => `/v1/${O}/sales/creditnotes/${a.creditNoteGuid}/pdf`,
    accept: 'application/octet-stream',
    check: (r, a) => {
      pdfBase64(r);
      expect(r.creditNoteGuid).toBe(a.creditNoteGuid);
    },
  },
  list_credit_note_payments: {
    args: () => ({ organizationId: O, creditNoteGuid: creditNote().Guid }),
    path: (a) => `/v1/${O}/sales/creditnotes/${a.creditNoteGuid}/payments`,
    check: (r) => expect(r.payments).toHaveLength(1),
  },
  list_credit_note_mailouts: {
    args: () => ({ organizationId: O, creditNoteGuid: creditNote().Guid }),
    path: (a) => `/v1/${O}/sales/creditnotes/${a.creditNoteGuid}/mailouts`,
    check: (r) => {
      expect(r.count).toBe(1);
      expect(last().query).not.toHaveProperty('includeSms');
    },
  },
  list_trade_offers: {
    args: () => ({
      organizationId: O,
      status: 'Accepted',
      currency: 'DKK',
      sort: 'TradeOfferNumber',
      sortOrder: 'ascending',
      pageSize: 10,
    }),
    path: () => `/v1/${O}/tradeoffers`,
    query: { queryFilter: "Currency eq 'DKK'", sort: 'TradeOfferNumber', sortOrder: 'ascending', pageSize: '10' },
    check: (r) => {
      // The status filter runs on the returned page: fewer items than pageSize, but the upstream page was full.
      expect(r.items.length).toBeLessThan(10);
      expect(r.items.every((t: Row) => t.status === 'Accepted')).toBe(true);
      expect(r.pagination).toMatchObject({ result: 10, hasMore: true });
    },
  },
  get_trade_offer: {
    args: () => ({ organizationId: O, tradeOfferGuid: tradeOffer().Guid }),
    path: (a) => `/v1/${O}/tradeoffers/${a.tradeOfferGuid}`,
    accept: 'application/json',
    check: (r) => {
      expect(r.history.length).toBeGreaterThan(1);
      expect(r).toHaveProperty('generatedVouchers');
    },
  },
  download_trade_offer_pdf: {
    args: () => ({ organizationId: O, tradeOfferGuid: tradeOffer().Guid }),
    path: (a) => `/v1/${O}/tradeoffers/${a.tradeOfferGuid}`,
    accept: 'application/octet-stream',
    check: (r) => pdfBase64(r),
  },
  list_trade_offer_mailouts: {
    args: () => ({ organizationId: O, tradeOfferGuid: tradeOffer().Guid }),
    path: (a) => `/v1/${O}/tradeoffers/${a.tradeOfferGuid}/mailouts`,
    query: { includeSms: 'true' },
    check: (r) => expect(r.count).toBe(2),
  },
  get_purchase_voucher: {
    args: () => ({ organizationId: O, voucherGuid: purchase().Guid }),
    path: (a) => `/v1/${O}/vouchers/purchase/${a.voucherGuid}`,
    check: (r) => expect(r.fileGuid).toMatch(/^[a-z0-9]{32}$/),
  },
  get_purchase_voucher_payments: {
    args: () => ({ organizationId: O, voucherGuid: purchase().Guid }),
    path: (a) => `/v1/${O}/purchase-vouchers/${a.voucherGuid}/payments`,
    check: (r) => expect(r.count).toBe(1),
  },
  get_purchase_vouchers_by_file: {
    args: () => ({ organizationId: O, fileGuid: purchase().FileGuid }),
    path: (a) => `/v1/${O}/vouchers/purchase/fileguid/${a.fileGuid}`,
    check: (r) => expect(r.voucherGuids).toEqual([purchase().Guid]),
  },
  get_purchase_credit_note: {
    args: () => ({ organizationId: O, creditNoteGuid: org.purchaseCreditNotes[0]!.Guid }),
    path: (a) => `/v1/${O}/vouchers/purchase/creditnotes/${a.creditNoteGuid}`,
    check: (r) => expect(r.creditNoteFor).toBeTypeOf('string'),
  },
  get_manual_voucher: {
    args: () => ({ organizationId: O, voucherGuid: org.manualVouchers[0]!.Guid }),
    path: (a) => `/v1/${O}/vouchers/manuel/${a.voucherGuid}`,
    check: (r) => expect(r.lines[0]).toHaveProperty('balancingAccountNumber'),
  },
  list_products: {
    args: () => ({ organizationId: O, search: 'P-10', productNumber: 'P-105' }),
    path: () => `/v1/${O}/products`,
    query: { freeTextSearch: 'P-10', queryFilter: "ProductNumber eq 'P-105'" },
    check: (r) => {
      expect(r.items.map((p: Row) => p.productNumber)).toEqual(['P-105']);
      expect(r.items[0]).not.toHaveProperty('comment');
    },
  },
  get_product: {
    args: () => ({ organizationId: O, productGuid: org.products[0]!.ProductGuid }),
    path: (a) => `/v1/${O}/products/${a.productGuid}`,
    check: (r) => expect(r).toHaveProperty('comment'),
  },
  list_files: {
    args: () => ({
      organizationId: O,
      extensions: 'pdf',
      uploadedAfter: '2024-01-01',
      uploadedBefore: '2025-12-31',
      fileStatus: 'Used',
      pageSize: 5,
    }),
    path: () => `/v1/${O}/files`,
    query: {
      extensions: 'pdf',
      uploadedAfter: '2024/01/01',
      uploadedBefore: '2025/12/31',
      fileStatus: 'Used',
      page: '0',
      pageSize: '5',
    },
    check: (r) => {
      expect(r).toMatchObject({ count: 5, hasMore: true });
      expect(r.files.every((f: Row) => f.extension === 'pdf' && (f.linked as Row[]).length > 0)).toBe(true);
    },
  },
  download_file: {
    args: () => ({ organizationId: O, fileGuid: smallFile().FileGuid }),
    path: (a) => `/v1/${O}/files/${a.fileGuid}`,
    accept: 'application/octet-stream',
    check: (r) => expect(Buffer.from(r.base64, 'base64').length).toBe(smallFile().Size),
  },
  list_document_attachments: {
    args: () => ({ organizationId: O, documentGuid: attached().Guid }),
    path: (a) => `/v1/${O}/attachments/${a.documentGuid}`,
    check: (r) =>
      expect(r.attachments[0]).toMatchObject({ organizationId: O, fileGuid: expect.stringMatching(/^[a-z0-9]{32}$/) }),
  },
};

describe('books: every catalog tool against the Dinero sandbox', () => {
  it('the table has exactly one row per catalog tool (52)', () => {
    expect(catalogTools).toHaveLength(52);
    expect(Object.keys(TABLE).sort()).toEqual(catalogTools.map((t) => t.name).sort());
  });

  for (const tool of catalogTools) {
    it(`${tool.name}: sends the documented request and answers the catalog's result shape`, async () => {
      const row = TABLE[tool.name];
      expect(row, `no table row for ${tool.name}`).toBeDefined();
      const args = row!.args();
      const result = (await call(tool.name as BooksToolName, args)) as Record<string, unknown>;
      for (const key of tool.result.required ?? []) expect(result, `result.${key}`).toHaveProperty(key);
      const sent = requests();
      expect(sent.length, 'one upstream request').toBe(1);
      const request = sent[0]!;
      expect(request.method).toBe(row!.method ?? 'GET');
      expect(request.path).toBe(row!.path(args));
      expect(request.headers.authorization).toBe(`Bearer ${BOOKS_SANDBOX_TOKEN}`);
      expect(request.headers.accept).toBe(row!.accept ?? 'application/json');
      for (const [name, value] of Object.entries(row!.query ?? {}))
        expect(request.query[name], `query ${name}`).toBe(value);
      // `fields` only on an endpoint that documents it, and only documented names (the sandbox would have answered
      // 400).
      expectDocumentedFields(request);
      expect(sandbox.stats.undocumentedFields).toEqual([]);
      // organizationId travels as an integer path segment on every organisation call.
      if ('organizationId' in args) expect(request.path).toMatch(new RegExp(`^/v[12]/${O}/`));
      row!.check?.(result, args);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// `fields`: only documented names (books.md §2 and the OpenAPI text it cites), derived from the
// requests the sandbox recorded
// ---------------------------------------------------------------------------------------------

describe('books: the fields every tool asks for are documented for its endpoint', () => {
  it("derives each tool's fields from recorded requests; all documented, every such endpoint exercised", async () => {
    // Every catalog tool once, plus the variants that reach another endpoint or another field list.
    const runs: [string, Record<string, unknown>][] = [
      ...catalogTools.map((t) => [t.name, TABLE[t.name]!.args()] as [string, Record<string, unknown>]),
      ['list_deposit_accounts', { organizationId: O }],
      ['list_contacts', { organizationId: O, deletedFilter: 'all', pageSize: 5 }],
      ['list_invoices_overdue', { organizationId: O }],
      ['list_products', { organizationId: O }],
    ];
    const asked = new Map<string, { endpoint: BooksFieldsEndpoint; fields: string[] }[]>();
    for (const [tool, args] of runs) {
      sandbox.resetStats();
      await call(tool as BooksToolName, args);
      for (const request of requests()) {
        const fields = expectDocumentedFields(request);
        const endpoint = fieldsEndpointOf(request.path);
        if (endpoint === undefined) continue;
        // An endpoint that takes `fields` is always sent them: its defaults omit most columns (books.md §2 "Casing").
        expect(fields.length, `${tool} sends fields to ${request.path}`).toBeGreaterThan(0);
        asked.set(tool, [...(asked.get(tool) ?? []), { endpoint, fields }]);
      }
      expect(sandbox.stats.undocumentedFields, tool).toEqual([]);
    }
    const exercised = new Set([...asked.values()].flat().map((a) => a.endpoint));
    expect([...exercised].sort()).toEqual(Object.keys(BOOKS_FIELDS).sort());
    const of = (tool: string, endpoint: BooksFieldsEndpoint) =>
      asked.get(tool)!.find((a) => a.endpoint === endpoint)!.fields;
    // What the spec's results need is asked where the endpoint documents it:
    expect(of('list_trade_offers', 'tradeOffers')).toContain('Status'); // the client-side status filter
    expect(of('list_sales', 'sales')).toContain('Type'); // "a type field tells them apart"
    expect(of('list_invoices', 'invoices')).not.toContain('Type');
    expect(of('list_credit_notes', 'creditNotes')).not.toContain('LatestMailOutType');
    expect(of('list_organizations', 'organizations')).toEqual(
      expect.arrayContaining(['Id', 'Name', 'VatNumber', 'IsPro']),
    );
    expect(of('list_organizations', 'organizations')).not.toContain('CountryKey');
    expect(asked.get('list_deposit_accounts')!.map((a) => a.fields.some((f) => f.startsWith('Bank')))).toEqual([
      true,
      false,
    ]);
  });

  it('an undocumented field is refused by the sandbox (400 code 42) and recorded: drift cannot pass', async () => {
    const response = await fetch(`${sandbox.url}/v1/${O}/products?fields=Name,Comment`, {
      headers: { authorization: `Bearer ${BOOKS_SANDBOX_TOKEN}` },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 42, validationErrors: { fields: "Unknown field 'Comment'." } });
    expect(sandbox.stats.undocumentedFields).toEqual([{ path: `/v1/${O}/products`, field: 'Comment' }]);
  });

  it("deletedFilter 'all' reads /v2/{o}/contacts without deletedOnly (live, deleted); others v1 with it", async () => {
    const all = await call('list_contacts', { organizationId: O, deletedFilter: 'all', pageSize: 1000 });
    expect(last().path).toBe(`/v2/${O}/contacts`);
    expect(last().query).not.toHaveProperty('deletedOnly');
    const live = await call('list_contacts', { organizationId: O, pageSize: 1000 });
    expect(last()).toMatchObject({ path: `/v1/${O}/contacts`, query: { deletedOnly: 'false' } });
    const deleted = await call('list_contacts', { organizationId: O, deletedFilter: 'deleted', pageSize: 1000 });
    expect(last()).toMatchObject({ path: `/v1/${O}/contacts`, query: { deletedOnly: 'true' } });
    expect(deleted.items.length).toBeGreaterThan(0);
    expect(all.items.length).toBe(live.items.length + deleted.items.length);
  });
});

// ---------------------------------------------------------------------------------------------
// The error table (doc 001 "Errors")
// ---------------------------------------------------------------------------------------------

const texts = booksDescriptor.errors;
/** A text as the default instance answers it: sibling tools named `books__<tool>`. */
const rendered = (code: keyof typeof texts, params: Record<string, string> = {}) =>
  formatText(renderToolReferences(texts[code].text, 'books'), { upstream: 'Dinero', ...params });

describe('books: the error table', () => {
  it('401 → AccessTokenExpiredError, on every tool kind, never retried', async () => {
    sandbox.setSwitches({ tokenExpired: true });
    for (const tool of ['list_organizations', 'list_accounting_years'] as const) {
      sandbox.resetStats();
      const f = await failure(tool, tool === 'list_organizations' ? {} : { organizationId: O });
      expect(f.text).toBe(rendered('access_token_expired'));
      expect(f.text).toMatch(/^AccessTokenExpiredError: /);
      expect(sandbox.stats.requests).toBe(1);
    }
  });

  it('a credential without an access token → AccessTokenExpiredError with no request', async () => {
    const f = await failure('list_vat_types', { organizationId: O }, { credential: null });
    expect(f.code).toBe('access_token_expired');
    expect(sandbox.stats.requests).toBe(0);
  });

  it('403 (no Pro plan, code 90 or 48) → ProPlanRequiredError on every tool but the organisation tools', async () => {
    for (const code of [90, 48] as const) {
      sandbox.setSwitches({ proPlanCode: code });
      const f = await failure('get_result_report', { organizationId: BOOKS_FREE_ORG_ID, accountingYear: '2025' });
      expect(f.text).toBe(rendered('pro_plan_required'));
      expect(f.text).toMatch(/^ProPlanRequiredError: /);
    }
    // The organisation list itself works for the free organisation's user and shows isPro: false.
    const orgs = await call(
      'list_organizations',
      {},
      { credential: { kind: 'oauth2', accessToken: BOOKS_SANDBOX_OTHER_USER_TOKEN } },
    );
    expect(orgs.organizations).toMatchObject([{ id: BOOKS_FREE_ORG_ID, isPro: false }]);
  });

  it('403 for an organisation the user cannot reach → ProPlanRequiredError (its text covers both causes)', async () => {
    const f = await failure(
      'list_invoices',
      { organizationId: O },
      { credential: { kind: 'oauth2', accessToken: BOOKS_SANDBOX_OTHER_USER_TOKEN } },
    );
    expect(f.code).toBe('pro_plan_required');
    expect(f.text).toContain('no access to this organisation');
  });

  it('403 on /v1/organizations is passed through with the upstream words, not ProPlanRequiredError', async () => {
    nock('https://dinero.test')
      .get('/v1/organizations')
      .query(true)
      .reply(403, { code: 41, message: 'Client not allowed.' });
    const ctx = testContext({
      descriptor: booksDescriptor,
      tool: 'validate_connection',
      credential: CREDENTIAL,
      baseUrl: 'https://dinero.test',
    });
    const error = await booksHandlers.validate_connection({}, ctx as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('upstream_rejected');
    expect(formatText(texts.upstream_rejected.text, { upstream: 'Dinero', ...(error as ToolError).params })).toBe(
      'Dinero rejected the request (HTTP 403): Client not allowed.',
    );
    nock.cleanAll();
  });

  it('429 → retried once, then UpstreamRateLimitError (with and without Retry-After)', async () => {
    for (const retryAfterSeconds of [null, 2]) {
      sandbox.resetStats();
      sandbox.setSwitches({ retryAfterSeconds });
      const f = await failure('list_vat_types', { organizationId: BOOKS_THROTTLED_ORG_ID });
      expect(f.text).toBe(rendered('upstream_rate_limit'));
      expect(f.text).toMatch(/^UpstreamRateLimitError: /);
      expect(sandbox.stats.requests).toBe(2);
      expect(sandbox.stats.throttled).toBe(2);
    }
  });

  it('429 once, then an answer: the retry succeeds', async () => {
    sandbox.setSwitches({ fault: 'throttled', faultCount: 1 });
    const result = await call('list_vat_types', { organizationId: O });
    expect(result.count).toBeGreaterThan(0);
    expect(sandbox.stats.requests).toBe(2);
  });

  it("the upstream's 100/minute per organisation: the 101st answer is 429 → UpstreamRateLimitError", async () => {
    sandbox.setSwitches({ rateLimitPerMinute: 100 });
    for (let i = 0; i < 100; i++) await call('get_sales_settings', { organizationId: O });
    const f = await failure('get_sales_settings', { organizationId: O });
    expect(f.code).toBe('upstream_rate_limit');
    expect(sandbox.stats.throttled).toBe(2);
    // Another organisation has its own quota, and the organisation list none.
    expect((await call('list_organizations', {})).count).toBe(3);
  });

  it('the connector keeps the per-organisation budget: past it, a call that cannot wait sends nothing', async () => {
    // A sleep that returns at once: the budget never refills during the wait (quotaMaxWaitMs of simulated waiting).
    let waits = 0;
    const quotas = new UpstreamQuotas(
      undefined,
      () => {},
      async () => {
        waits++;
      },
    );
    for (let i = 0; i < booksDescriptor.limits.upstreamRequestsPerMinute!; i++)
      await call('get_sales_settings', { organizationId: O }, { quotas });
    const before = sandbox.stats.requests;
    const f = await failure('get_sales_settings', { organizationId: O }, { quotas });
    expect(f.text).toBe(rendered('upstream_rate_limit'));
    expect(sandbox.stats.requests).toBe(before);
    expect(waits).toBe(
      Math.floor(
        booksDescriptor.limits.quotaMaxWaitMs! / Math.ceil(60_000 / booksDescriptor.limits.upstreamRequestsPerMinute!),
      ),
    );
    // Per organisation: the free organisation's budget is untouched (its 403 comes from upstream).
    expect((await failure('list_vat_types', { organizationId: BOOKS_FREE_ORG_ID }, { quotas })).code).toBe(
      'pro_plan_required',
    );
    // Not on the organisation list, which has no organisation.
    expect((await call('list_organizations', {}, { quotas })).count).toBe(3);
  });

  it('past the budget a call is paced, not refused: it waits for the next refill and is then sent', async () => {
    const quotas = new UpstreamQuotas(undefined, () => {});
    for (let i = 0; i < booksDescriptor.limits.upstreamRequestsPerMinute!; i++)
      await call('get_sales_settings', { organizationId: O }, { quotas });
    const before = sandbox.stats.requests;
    expect((await call('get_sales_settings', { organizationId: O }, { quotas })).reminderFee).toBe(100);
    expect(sandbox.stats.requests).toBe(before + 1);
  });

  it(
    'the budget is shared across replicas through the shared store, and counted per process while it is down',
    needs('redis'),
    async () => {
      const prefix = `test-books-quota-${randomBytes(4).toString('hex')}:`;
      const url = REDIS_URL;
      const [a, b] = [
        await RedisSharedStore.connect(url, { prefix, timeoutMs: 1000 }),
        await RedisSharedStore.connect(url, { prefix, timeoutMs: 1000 }),
      ];
      try {
        const noWait = async () => {};
        const replicas = [new UpstreamQuotas(a, () => {}, noWait), new UpstreamQuotas(b, () => {}, noWait)];
        const perMinute = booksDescriptor.limits.upstreamRequestsPerMinute!;
        // Twice the budget, alternating replicas. The bucket refills at perMinute/60 per second while
        // the calls run, so the successes are bounded by the budget plus that refill (per-process
        // budgets would let all of them through), and both replicas are refused with no request.
        const before = sandbox.stats.requests;
        const started = performance.now();
        const refused = [0, 0];
        let answered = 0;
        for (let i = 0; i < 2 * perMinute; i++) {
          const r = await call('get_sales_settings', { organizationId: O }, { quotas: replicas[i % 2]! }).then(
            () => null,
            (error: unknown) => error,
          );
          if (r === null) answered++;
          else {
            expect(r).toBeInstanceOf(ToolError);
            expect((r as ToolError).code).toBe('upstream_rate_limit');
            refused[i % 2]!++;
          }
        }
        const refill = ((performance.now() - started) / 1000) * (perMinute / 60);
        expect(answered).toBeGreaterThanOrEqual(perMinute);
        expect(answered).toBeLessThanOrEqual(perMinute + Math.ceil(refill) + 1);
        expect(refused[0]).toBeGreaterThan(0);
        expect(refused[1]).toBeGreaterThan(0);
        expect(sandbox.stats.requests - before).toBe(answered);
        // The shared store down: the replica counts in its own process and says so.
        let failedOpen = 0;
        const cut = new UpstreamQuotas(a, () => failedOpen++, noWait);
        await a.close();
        await call('get_sales_settings', { organizationId: O }, { quotas: cut });
        expect(failedOpen).toBe(1);
      } finally {
        await b.close();
        await a.close().catch(() => {});
      }
    },
  );

  it('480 (brownout of a deprecated endpoint) → its own text, not retried', async () => {
    sandbox.setSwitches({ brownoutPath: '/sales/settings' });
    const f = await failure('get_sales_settings', { organizationId: O });
    expect(f.text).toBe(rendered('deprecated_endpoint'));
    expect(sandbox.stats.requests).toBe(1);
    expect(sandbox.stats.brownouts).toBe(1);
  });

  it('other 4xx → the upstream message, never retried: 400 validation and 404 not found', async () => {
    const crossing = await failure('list_entries', { organizationId: O, fromDate: '2024-12-01', toDate: '2025-01-31' });
    expect(crossing.text).toBe(
      'Dinero rejected the request (HTTP 400): Validation failed; toDate: ' +
        'fromDate and toDate must be within the same accounting year.',
    );
    expect(sandbox.stats.requests).toBe(1);
    const year = await failure('get_saldo_balance_report', { organizationId: O, accountingYear: '1999' });
    expect(year.text).toContain("accountingYear: The accounting year '1999' does not exist.");
    sandbox.resetStats();
    const missing = await failure('get_invoice', {
      organizationId: O,
      invoiceGuid: '00000000-0000-4000-8000-000000000000',
    });
    expect(missing.text).toBe('Dinero rejected the request (HTTP 404): The invoice was not found.');
    expect(sandbox.stats.requests).toBe(1);
    const draft = first(org.invoices, (i) => i.Status === 'Draft', 'draft');
    const pdf = await failure('download_invoice_pdf', { organizationId: O, invoiceGuid: draft.Guid });
    expect(pdf.text).toContain('HTTP 400');
  });

  it('5xx, a non-JSON body and a PDF that is not a PDF → the generic text, not retried', async () => {
    sandbox.setSwitches({ fault: 'serverError' });
    const server = await failure('list_vat_types', { organizationId: O });
    expect(server.code).toBeUndefined();
    expect(sandbox.stats.requests).toBe(1);
    sandbox.setSwitches({ fault: 'nonJson' });
    expect((await failure('list_vat_types', { organizationId: O })).code).toBeUndefined();
    expect(
      (await failure('download_invoice_pdf', { organizationId: O, invoiceGuid: booked().Guid })).code,
    ).toBeUndefined();
  });

  it('a single quote in any filter value is refused with a friendly text before any request', async () => {
    const cases: [BooksToolName, Record<string, unknown>, string][] = [
      ['list_contacts', { organizationId: O, name: BOOKS_APOSTROPHE_CONTACT }, 'name'],
      ['list_invoices', { organizationId: O, descriptionContains: "it's" }, 'descriptionContains'],
      ['list_sales', { organizationId: O, externalReference: "a'b" }, 'externalReference'],
      ['list_credit_notes', { organizationId: O, externalReference: "'" }, 'externalReference'],
      ['list_trade_offers', { organizationId: O, contactNameContains: "O'B" }, 'contactNameContains'],
      ['list_products', { organizationId: O, productNumber: "P'1" }, 'productNumber'],
    ];
    for (const [tool, args, argument] of cases) {
      const f = await failure(tool, args);
      expect(f.refusal, tool).toBe(true);
      expect(f.text).toBe(rendered('quote_in_filter', { argument }));
    }
    expect(sandbox.stats.requests).toBe(0);
    // The free-text search is not a filter clause: a quote passes there.
    await call('list_invoices', { organizationId: O, freeTextSearch: "O'Brien" });
    expect(sandbox.stats.requests).toBe(1);
  });

  it('startDate without endDate (or the reverse) is refused before any request', async () => {
    for (const tool of ['list_invoices', 'list_sales', 'list_credit_notes'] as const) {
      const f = await failure(tool, { organizationId: O, startDate: '2025-01-01' });
      expect(f).toMatchObject({ refusal: true, text: rendered('date_range_incomplete') });
      expect((await failure(tool, { organizationId: O, endDate: '2025-01-01' })).code).toBe('date_range_incomplete');
    }
    expect(sandbox.stats.requests).toBe(0);
  });

  it('a changes window over 31 days is refused before any request; 31 days exactly is sent', async () => {
    const f = await failure('list_entry_changes', {
      organizationId: O,
      changesFrom: '2025-01-01T00:00:00Z',
      changesTo: '2025-02-01T00:00:01Z',
    });
    expect(f).toMatchObject({ refusal: true, text: rendered('change_window_too_long') });
    expect(sandbox.stats.requests).toBe(0);
    await call('list_entry_changes', {
      organizationId: O,
      changesFrom: '2025-01-01T00:00:00Z',
      changesTo: '2025-02-01T00:00:00Z',
    });
    expect(sandbox.stats.requests).toBe(1);
  });

  it('download_file refuses a file over 6 MB, whether or not its size is declared', async () => {
    for (const streamFilesWithoutLength of [false, true]) {
      sandbox.setSwitches({ streamFilesWithoutLength });
      const f = await failure('download_file', { organizationId: O, fileGuid: BOOKS_BIG_FILE_GUID });
      expect(f.text).toBe(`The file ${BOOKS_BIG_FILE_GUID} is larger than the 6 MB download cap and was not returned.`);
    }
    sandbox.setSwitches({ streamFilesWithoutLength: true });
    const small = await call('download_file', { organizationId: O, fileGuid: smallFile().FileGuid });
    expect(Buffer.from(small.base64, 'base64').length).toBe(smallFile().Size);
  });
});

// ---------------------------------------------------------------------------------------------
// Paging, casing and the rest of the wire details
// ---------------------------------------------------------------------------------------------

describe('books: paging and casing', () => {
  it('the envelope: totalWithoutFilter is ResultWithoutFilter in both readings; hasMore from a full page', async () => {
    const filtered = { organizationId: O, name: 'nordic', pageSize: 5 };
    sandbox.setSwitches({ resultWithoutFilter: 'beforePaging' });
    const a = await call('list_contacts', filtered);
    sandbox.setSwitches({ resultWithoutFilter: 'ignoringFilters' });
    const b = await call('list_contacts', filtered);
    expect(b.pagination.totalWithoutFilter).toBeGreaterThan(a.pagination.totalWithoutFilter);
    for (const page of [a, b]) expect(page.pagination.hasMore).toBe(true);
    // 250 contacts, 10 of them deleted: three pages of 100, the last one partial.
    const pages = [];
    for (let page = 0; page < 3; page++)
      pages.push(await call('list_contacts', { organizationId: O, page, pageSize: 100 }));
    expect(pages.map((p) => p.items.length)).toEqual([100, 100, 40]);
    expect(pages.map((p) => p.pagination.hasMore)).toEqual([true, true, false]);
    const deleted = await call('list_contacts', { organizationId: O, deletedFilter: 'deleted', pageSize: 100 });
    expect(deleted.items).toHaveLength(10);
    expect(last().query.deletedOnly).toBe('true');
  });

  it('client-sliced pages: totalCount is the filtered count, the last page has no more', async () => {
    const all = await call('list_chart_of_accounts', { organizationId: O, includeHidden: true, pageSize: 1000 });
    const visible = await call('list_chart_of_accounts', { organizationId: O, pageSize: 1000 });
    expect(all.totalCount).toBeGreaterThan(visible.totalCount);
    const lastPage = Math.floor((visible.totalCount - 1) / 50);
    const tail = await call('list_chart_of_accounts', { organizationId: O, page: lastPage, pageSize: 50 });
    expect(tail).toMatchObject({ hasMore: false, page: lastPage, pageSize: 50, totalCount: visible.totalCount });
    expect(tail.items).toHaveLength(visible.totalCount - lastPage * 50);
    const turnover = await call('list_chart_of_accounts', { organizationId: O, category: 'Turnover' });
    expect(last().query.categoryFilter).toBe('Turnover');
    expect(turnover.items.every((a) => a['category'] === 'Turnover')).toBe(true);
  });

  it('drafts ignore the date range, as the upstream does', async () => {
    const page = await call('list_invoices', {
      organizationId: O,
      startDate: '2030-01-01',
      endDate: '2030-12-31',
      pageSize: 1000,
    });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((i) => i['status'] === 'Draft')).toBe(true);
  });

  it('state of account: the latest maxEntries entries, with a running balance ending in the balance', async () => {
    const contact = booked().ContactGuid as string;
    const full = await call('get_contact_state_of_account', { organizationId: O, contactGuid: contact });
    const cut = await call('get_contact_state_of_account', { organizationId: O, contactGuid: contact, maxEntries: 1 });
    expect(full.truncated).toBe(false);
    expect(cut).toMatchObject({ entryCount: full.entryCount, truncated: full.entryCount > 1 });
    expect(cut.entries).toEqual(full.entries.slice(-1));
    const sum = Math.round(full.entries.reduce((s, e) => s + (e['amount'] as number), 0) * 100) / 100;
    expect(full.entries.at(-1)!['balance']).toBe(sum);
  });

  it('camel-cases keys with the acronym rule', () => {
    expect(['SENumber', 'CCToSender', 'Id', 'VAT', 'FikCode', 'PNumber', 'contactGuid', 'IsPro'].map(camelKey)).toEqual(
      ['seNumber', 'ccToSender', 'id', 'vat', 'fikCode', 'pNumber', 'contactGuid', 'isPro'],
    );
  });

  it('the calculators persist nothing: a calculation twice gives the same answer, invoices unchanged', async () => {
    const before = await call('list_invoices', { organizationId: O, pageSize: 1 });
    const args = {
      organizationId: O,
      productLines: [
        { productGuid: org.products[0]!.ProductGuid, quantity: 1, accountNumber: 1000, baseAmountValue: 125 },
      ],
      showLinesInclVat: true,
      contactGuid: booked().ContactGuid,
    };
    const one = await call('calculate_invoice_totals', args);
    const two = await call('calculate_invoice_totals', args);
    expect(one).toEqual(two);
    expect(one).toMatchObject({ totalExclVat: 100, totalInclVat: 125 });
    const after = await call('list_invoices', { organizationId: O, pageSize: 1 });
    expect(after.pagination.totalWithoutFilter).toBe(before.pagination.totalWithoutFilter);
    expect(sandbox.stats.writeLog).toEqual([]);
  });
});

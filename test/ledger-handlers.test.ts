// The ledger handlers against a nock-faked Uniconta WebAPI (upstreams/ledger.md): the exact login
// body and Query/Get bodies per tool, the list-result rules, filters, the reconnect paths, the
// aggregate fold's edges, and the opt-in data layer (on the real store, through the gateway too).
// Every result is checked by the generated output validator.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerToolName, LedgerTools } from '../generated/ledger/contract.ts';
import { ledgerDescriptor } from '../generated/ledger/descriptor.ts';
import * as validators from '../generated/ledger/validators.js';
import { ledgerHandlers } from '../generated/ledger/handlers.ts';
import { foldPages, GroupFold, parseNumber } from '../handlers/ledger/fold.ts';
import { sinceInstant } from '../handlers/ledger/shared.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import { runCli, UsageError } from '../bin/admin.ts';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import { bindDataLayer } from '../runtime/store/data-layer.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import type { Credential, DataLayer } from '../runtime/handler-api/tool-context.ts';
import { ToolError, formatText } from '../runtime/handler-api/tool-error.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { createTenant, mcpClient, startGateway, testConfig, connectTenant } from './support/gateway.ts';
import { testContext, type TestToolContext } from './support/tool-context.ts';

const ORIGIN = 'https://ledger.test';
const CREDENTIAL: Credential = {
  kind: 'login_company',
  username: 'api-user',
  password: 'S3cret pw',
  companyId: '4711',
};
const LOGIN_BODY = { Username: '004711/api-user', Password: 'S3cret pw' };
const TOKEN = 'jwt-for-this-call';

type Row = Record<string, unknown>;
interface Sent {
  readonly path: string;
  readonly body: unknown;
  readonly authorization: string | null;
}
type Reply = [number, unknown];
type Responder = (entity: string, body: Row[]) => Reply;

const sent: Sent[] = [];
const queries = () => sent.filter((s) => s.path.startsWith('/Query/Get/'));

/**
 * The properties upstreams/ledger.md §2 names per entity (own and inherited). In `reject` mode the
 * fake answers a body naming any other property (and none of the rows it serves has) with the
 * upstream's 400 text, as ledger.md §2 believes the real WebAPI does; in `ignore` mode it answers
 * whatever the body says, as §4 and §3 #13 describe. The suites that send sorts, pages and
 * caller-named properties run in both modes (`describe.each`).
 */
const DOCUMENTED: Readonly<Record<string, string>> = {
  CompanyClient:
    'PrimaryKeyId Id CompanyName Country CountryName Currency VatNumber Address1 Address2 Address3 Email Phone',
  DebtorClient:
    'Account Name Group Address1 Address2 Address3 ZipCode City Country CountryName ' +
    'CompanyRegNo VatNumber EAN Currency Phone ContactEmail InvoiceEmail Payment ' +
    'CreditMax VatZone Vat Blocked CurBalance Overdue CurBalanceCur OverdueCur',
  CreditorClient:
    'Account Name Group Address1 Address2 Address3 ZipCode City Country CountryName CompanyRegNo ' +
    'VatNumber EAN Currency Phone ContactEmail InvoiceEmail Payment CreditMax VatZone Vat ' +
    'Blocked CurBalance Overdue CurBalanceCur OverdueCur PaymentMethod PaymentId',
  GLTransClient:
    'Date DocumentDate Account Voucher VoucherLine Invoice Amount AmountCur AmountVat ' +
    'AmountBase Text Vat TransType Currency DCType DCAccount ReferenceNumber Qty ' +
    'Project Dimension1 Dimension2 Dimension3 Dimension4 Dimension5',
  GLAccountClient:
    'Account Name AccountType Vat Currency Balance CurBalanceCur ThisYear ThisYearDebit ' +
    'ThisYearCredit PrevYear PrevYearDebit PrevYearCredit Blocked DebetCredit',
  InvItemClient:
    'Item Name ItemType EAN CostPrice PurchasePrice SalesPrice1 SalesPrice2 SalesPrice3 Unit ' +
    'Group Qty QtyOnStock QtyReserved QtyOrdered Available LastMovement Blocked',
  InvTransClient:
    'LineNumber Date Item ItemName DCAccount AccountName MovementType Qty NetAmount ' +
    'CostPrice SalesPrice Currency OrderNumber InvoiceNumber Warehouse Text',
};
type UnknownProperties = 'ignore' | 'reject';
let unknownProperties: UnknownProperties = 'ignore';
/** Property names of the rows served so far per entity (the fake's schema beside DOCUMENTED). */
const served = new Map<string, Set<string>>();

/** The first PropertyName of `body` that `entity` does not have, in reject mode. */
function rejectedProperty(entity: string, body: Row[]): string | undefined {
  if (unknownProperties === 'ignore' || !Array.isArray(body)) return undefined;
  const known = new Set([
    ...(DOCUMENTED[entity.replace(/User$/, '')]?.split(' ') ?? []),
    ...(served.get(entity) ?? []),
  ]);
  for (const entry of body) {
    const name = entry['PropertyName'];
    if (typeof name === 'string' && name !== '' && !known.has(name)) return name;
  }
  return undefined;
}

/** Runs a describe block once per unknown-property behaviour of the fake. */
function eachUpstream(name: string, body: (mode: UnknownProperties) => void): void {
  describe.each(['ignore', 'reject'] as const)(`${name} (upstream %s unknown properties)`, (mode) => {
    beforeAll(() => {
      unknownProperties = mode;
    });
    afterAll(() => {
      unknownProperties = 'ignore';
    });
    body(mode);
  });
}

/** The fake WebAPI: `/login` answers `login`, every `/Query/Get/{Entity}` answers `respond`. */
function upstream(
  respond: Responder,
  login: () => Reply = () => [200, { token: TOKEN, refreshToken: 'b7e1', refreshTokenExpiry: '2026-12-01T00:00:00Z' }],
) {
  nock(ORIGIN)
    .post(/.*/)
    // nock 15 calls a reply function with the request (a fetch Request).
    .reply(async (request: Request) => {
      const path = new URL(request.url).pathname;
      const body = (await request.json()) as unknown;
      sent.push({ path, body, authorization: request.headers.get('authorization') });
      if (path === '/login') return login() as [number, string];
      const entity = decodeURIComponent(path.slice('/Query/Get/'.length));
      const reply = respond(entity, body as Row[]);
      if (reply[0] === 200 && Array.isArray(reply[1])) {
        const names = served.get(entity) ?? new Set<string>();
        for (const row of reply[1] as Row[]) for (const key of Object.keys(row)) names.add(key);
        served.set(entity, names);
      }
      const unknown = rejectedProperty(entity, body as Row[]);
      if (unknown !== undefined)
        return [400, `Unknown property: ${unknown} is not a property of ${entity}`] as [number, string];
      return reply as [number, string];
    })
    .persist();
}

/** Rows per entity; anything else is the upstream's 400 text. */
const table =
  (data: Record<string, Row[]>): Responder =>
  (entity) =>
    entity in data ? [200, data[entity]] : [400, `Unknown entity ${entity}`];

function ctxFor(
  tool: LedgerToolName,
  options: { credential?: Credential | null; dataLayer?: DataLayer; now?: () => Date } = {},
): TestToolContext {
  return testContext({
    descriptor: ledgerDescriptor,
    tool,
    credential: options.credential === undefined ? CREDENTIAL : options.credential,
    baseUrl: ORIGIN,
    ...(options.now ? { now: options.now } : {}),
    ...(options.dataLayer ? { dataLayer: options.dataLayer } : {}),
  });
}

function expectValid(tool: LedgerToolName, result: unknown): void {
  const validate = (validators as unknown as Record<string, CompiledValidator>)[`output_${tool}`]!;
  const ok = validate(result);
  expect(validate.errors ?? [], `output_${tool}`).toEqual([]);
  expect(ok).toBe(true);
}

/** Validates the raw arguments as the runtime would (defaults filled in), runs the handler, validates the result. */
async function call<K extends LedgerToolName>(
  tool: K,
  raw: Record<string, unknown> = {},
  options: Parameters<typeof ctxFor>[1] = {},
): Promise<LedgerTools[K]['result']> {
  const descriptor = ledgerDescriptor.tools.find((t) => t.name === tool)!;
  const checked = checkArguments(
    descriptor,
    (validators as unknown as Record<string, CompiledValidator>)[`input_${tool}`]!,
    raw,
  );
  if (!checked.ok) throw new Error(`invalid arguments: ${checked.reason}`);
  const handler = ledgerHandlers[tool] as (a: unknown, c: TestToolContext) => Promise<LedgerTools[K]['result']>;
  const result = await handler(checked.args, ctxFor(tool, options));
  expectValid(tool, result);
  return result;
}

function argsValid(tool: LedgerToolName, raw: Record<string, unknown>): boolean {
  const descriptor = ledgerDescriptor.tools.find((t) => t.name === tool)!;
  return checkArguments(descriptor, (validators as unknown as Record<string, CompiledValidator>)[`input_${tool}`]!, raw)
    .ok;
}

/** The text the client would see for a failed call. */
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ToolError)
      return formatText(ledgerDescriptor.errors[error.code as keyof typeof ledgerDescriptor.errors].text, {
        upstream: 'Uniconta',
        ...error.params,
      });
    if (error instanceof UpstreamError) return `upstream ${error.kind} ${error.status ?? ''}`.trim();
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  throw new Error('expected a failure');
}

const GENERIC = ledgerDescriptor.errors.generic.text;
/** The spec's bound on the rows read to count `total` (connector limit `maxScanRows`). */
const SCAN = (ledgerDescriptor.limits as Record<string, number>)['maxScanRows']!;
const RECONNECT = ledgerDescriptor.errors.reconnect_required.text;
const rowsOf = (n: number, make: (i: number) => Row = (i) => ({ Account: String(1000 + i), Name: `Debtor ${i}` })) =>
  Array.from({ length: n }, (_, i) => make(i));

beforeEach(() => {
  sent.length = 0;
  served.clear();
});
afterEach(() => nock.cleanAll());

describe('ledger: login and the Query/Get wire format', () => {
  it('logs in with 00<companyId>/<user>, then queries with the bearer token and the filter array', async () => {
    upstream(table({ DebtorClient: rowsOf(3) }));
    const result = await call('list_debtors', { search: 'smed', account: '1001', cvr: '12345678' });
    expect(sent.map((s) => s.path)).toEqual(['/login', '/Query/Get/DebtorClient']);
    expect(sent[0]!.body).toEqual(LOGIN_BODY);
    expect(sent[0]!.authorization).toBeNull();
    expect(sent[1]!.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent[1]!.body).toEqual([
      { PropertyName: 'Name', FilterValue: '*smed*' },
      { PropertyName: 'Account', FilterValue: '1001' },
      { PropertyName: 'CompanyRegNo', FilterValue: '12345678' },
      { Take: SCAN + 1 },
    ]);
    expect(result).toEqual({ entity: 'DebtorClient', count: 3, total: 3, items: rowsOf(3) });
  });

  it('logs in again on every tool call (the token is never kept)', async () => {
    upstream(table({ GLVatClient: [{ Vat: 'S25', Rate: 25 }] }));
    await call('list_vat_codes');
    await call('list_vat_codes');
    expect(sent.map((s) => s.path)).toEqual(['/login', '/Query/Get/GLVatClient', '/login', '/Query/Get/GLVatClient']);
  });

  const cases: Array<[LedgerToolName, Record<string, unknown>, string, unknown[]]> = [
    [
      'list_debtor_open_items',
      { account: '1001' },
      'DebtorTransOpenClient',
      [{ PropertyName: 'Account', FilterValue: '1001' }],
    ],
    [
      'list_debtor_invoices',
      { account: '1001', fromDate: '2025-01-01', toDate: '2025-05-31' },
      'DebtorInvoiceClient',
      [
        { PropertyName: 'Account', FilterValue: '1001' },
        { PropertyName: 'Date', FilterValue: '01-01-2025..31-05-2025' },
      ],
    ],
    [
      'list_debtor_orders',
      { account: '1001' },
      'DebtorOrderClient',
      [{ PropertyName: 'Account', FilterValue: '1001' }],
    ],
    [
      'list_debtor_transactions',
      { account: '1001', fromDate: '2024-02-29' },
      'GLTransClient',
      [
        { PropertyName: 'DCAccount', FilterValue: '1001' },
        { PropertyName: 'Date', FilterValue: '29-02-2024..31-12-2099' },
      ],
    ],
    ['list_creditors', { search: 'Tømrer*' }, 'CreditorClient', [{ PropertyName: 'Name', FilterValue: 'Tømrer*' }]],
    ['list_creditor_open_items', {}, 'CreditorTransOpenClient', []],
    [
      'list_creditor_transactions',
      { account: '5001', toDate: '2025-03-31' },
      'GLTransClient',
      [
        { PropertyName: 'DCAccount', FilterValue: '5001' },
        { PropertyName: 'Date', FilterValue: '01-01-1900..31-03-2025' },
      ],
    ],
    [
      'list_gl_accounts',
      { search: 'bank', account: '5810' },
      'GLAccountClient',
      [
        { PropertyName: 'Name', FilterValue: '*bank*' },
        { PropertyName: 'Account', FilterValue: '5810' },
      ],
    ],
    ['get_account_balance', { account: '5810' }, 'GLAccountClient', [{ PropertyName: 'Account', FilterValue: '5810' }]],
    [
      'list_gl_transactions',
      { account: '1010', fromDate: '2025-01-01', toDate: '2025-01-31' },
      'GLTransClient',
      [
        { PropertyName: 'Account', FilterValue: '1010' },
        { PropertyName: 'Date', FilterValue: '01-01-2025..31-01-2025' },
      ],
    ],
    ['list_vat_codes', {}, 'GLVatClient', []],
    ['list_product_groups', {}, 'InvGroupClient', []],
    [
      'list_inventory_items',
      { search: 'skrue', item: 'A-1', group: 'G1' },
      'InvItemClient',
      [
        { PropertyName: 'Name', FilterValue: '*skrue*' },
        { PropertyName: 'Item', FilterValue: 'A-1' },
        { PropertyName: 'Group', FilterValue: 'G1' },
      ],
    ],
    [
      'list_inventory_transactions',
      { item: 'A-1; A-2;;A-3 ', account: '1001', fromDate: '2025-01-01', toDate: '2025-12-31' },
      'InvTransClient',
      [
        { PropertyName: 'Item', FilterValue: 'A-1;A-2;A-3' },
        { PropertyName: 'DCAccount', FilterValue: '1001' },
        { PropertyName: 'Date', FilterValue: '01-01-2025..31-12-2025' },
      ],
    ],
    ['list_companies', {}, 'CompanyClient', []],
    [
      'query',
      { entity: 'ProjectClient', filters: [{ PropertyName: 'Group', FilterValue: 'A;B' }] },
      'ProjectClient',
      [{ PropertyName: 'Group', FilterValue: 'A;B' }],
    ],
  ];
  it.each(cases)('%s sends exactly the documented Query/Get body', async (tool, args, entity, body) => {
    upstream(() => [200, []]);
    await call(tool, args);
    expect(sent[0]).toMatchObject({ path: '/login', body: LOGIN_BODY });
    // List reads count `total` over at most maxScanRows rows: one more is asked for to see whether more exist.
    const scanned = tool === 'get_account_balance' || tool === 'list_companies' ? body : [...body, { Take: SCAN + 1 }];
    expect(queries()).toEqual([{ path: `/Query/Get/${entity}`, body: scanned, authorization: `Bearer ${TOKEN}` }]);
  });
});

describe('ledger: filters', () => {
  it('wraps a search in * unless the caller used *', async () => {
    upstream(() => [200, []]);
    await call('list_gl_accounts', { search: 'bank' });
    await call('list_gl_accounts', { search: 'bank*' });
    await call('list_gl_accounts', { search: '*kasse' });
    expect(queries().map((q) => (q.body as Row[])[0]!['FilterValue'])).toEqual(['*bank*', 'bank*', '*kasse']);
  });

  it('refuses ; and .. in search, account, cvr, item and group with the generic text, before any request', async () => {
    upstream(() => [200, []]);
    const refused: Array<[LedgerToolName, Record<string, unknown>]> = [
      ['list_debtors', { search: 'a;b' }],
      ['list_debtors', { search: 'a..b' }],
      ['list_debtors', { account: '1000..1999' }],
      ['list_debtors', { account: '1001;1002' }],
      ['list_debtors', { cvr: '1;2' }],
      ['list_creditors', { search: 'x..' }],
      ['list_gl_accounts', { account: '1;' }],
      ['get_account_balance', { account: '1000..2000' }],
      ['list_debtor_transactions', { account: '1;2' }],
      ['list_inventory_items', { item: 'A;B' }],
      ['list_inventory_items', { group: 'G..H' }],
      ['list_inventory_transactions', { item: 'A..C' }],
      ['list_inventory_transactions', { item: ' ; ' }],
      ['list_inventory_transactions', { account: '1;2' }],
    ];
    for (const [tool, args] of refused)
      expect(await failure(call(tool, args)), `${tool} ${JSON.stringify(args)}`).toBe(GENERIC);
    expect(sent).toEqual([]);
  });

  it('refuses the wildcards * and ? in every exact argument with the generic text, before any request', async () => {
    upstream(() => [200, []]);
    const exactArguments: Array<[LedgerToolName, string]> = [
      ['list_debtors', 'account'],
      ['list_debtors', 'cvr'],
      ['list_debtor_open_items', 'account'],
      ['list_debtor_invoices', 'account'],
      ['list_debtor_orders', 'account'],
      ['list_debtor_transactions', 'account'],
      ['list_creditors', 'account'],
      ['list_creditor_open_items', 'account'],
      ['list_creditor_transactions', 'account'],
      ['list_gl_accounts', 'account'],
      ['get_account_balance', 'account'],
      ['list_gl_transactions', 'account'],
      ['list_inventory_items', 'item'],
      ['list_inventory_items', 'group'],
      ['list_inventory_transactions', 'item'],
      ['list_inventory_transactions', 'account'],
    ];
    for (const [tool, name] of exactArguments) {
      for (const value of ['10*', '*', '10?0', 'A;B*'])
        expect(await failure(call(tool, { [name]: value })), `${tool} ${name}=${value}`).toBe(GENERIC);
    }
    expect(sent).toEqual([]);
  });

  it('converts dates to dd-MM-yyyy with open bounds and refuses a reversed range', async () => {
    upstream(() => [200, []]);
    await call('list_gl_transactions', { fromDate: '2025-06-01' });
    await call('list_gl_transactions', { toDate: '2025-06-30' });
    await call('list_gl_transactions', {});
    const take = { Take: SCAN + 1 };
    expect(queries().map((q) => q.body)).toEqual([
      [{ PropertyName: 'Date', FilterValue: '01-06-2025..31-12-2099' }, take],
      [{ PropertyName: 'Date', FilterValue: '01-01-1900..30-06-2025' }, take],
      [take],
    ]);
    sent.length = 0;
    expect(await failure(call('list_gl_transactions', { fromDate: '2025-07-01', toDate: '2025-06-30' }))).toBe(GENERIC);
    expect(sent).toEqual([]);
    expect(argsValid('list_gl_transactions', { fromDate: '2025-02-30' })).toBe(false);
    expect(argsValid('list_gl_transactions', { fromDate: '01-02-2025' })).toBe(false);
  });

  it('matches debtor and creditor transactions on DCAccount and drops postings of the other kind', async () => {
    const postings: Row[] = [
      { Date: '2025-01-02T00:00:00', Account: '5600', DCAccount: '1001', DCType: 1, Amount: 100 },
      { Date: '2025-01-03T00:00:00', Account: '5600', DCAccount: '1001', DCType: 'Creditor', Amount: -5 },
      { Date: '2025-01-04T00:00:00', Account: '5600', DCAccount: '1001', Amount: 7 },
      { Date: '2025-01-05T00:00:00', Account: '1010', Amount: 9 },
      { Date: '2025-01-06T00:00:00', Account: '5600', DCAccount: '1001', DCType: 2, Amount: -6 },
    ];
    upstream(table({ GLTransClient: postings }));
    const debtor = await call('list_debtor_transactions', { account: '1001', limit: 1 });
    expect(debtor).toMatchObject({ entity: 'GLTransClient', count: 1, total: 2, items: [postings[0]] });
    const creditor = await call('list_creditor_transactions', {});
    expect(creditor.items).toEqual([postings[1], postings[2], postings[4]]);
    expect(creditor.total).toBe(3);
  });
});

eachUpstream('ledger: list results', () => {
  it('reads the filtered set up to the scan bound, gives total before the limit cap and no cursor', async () => {
    upstream(table({ CreditorClient: rowsOf(7) }));
    const result = await call('list_creditors', { limit: 3 });
    expect(result).toEqual({ entity: 'CreditorClient', count: 3, total: 7, items: rowsOf(3) });
    expect(queries()[0]!.body).toEqual([{ Take: SCAN + 1 }]);
    expect(await call('list_creditors', {})).toMatchObject({ count: 7, total: 7 }); // default limit 50
  });

  it('bounds the scan behind total: more rows than maxScanRows give truncated without total', async () => {
    expect(SCAN).toBeGreaterThanOrEqual(1000);
    // Before: every call read the whole filtered set (52,000 postings for list_gl_transactions {}).
    upstream((_entity, body) => {
      const page = body.find((e) => 'Take' in e);
      const n = page === undefined ? SCAN + 500 : Math.min(Number(page['Take']), SCAN + 500);
      return [200, rowsOf(n, (i) => ({ Account: '1010', Voucher: i, Amount: 1, DCAccount: 'D1' }))];
    });
    const result = await call('list_gl_transactions', { limit: 5 });
    expect(queries()[0]!.body).toEqual([{ Take: SCAN + 1 }]);
    expect(result).toMatchObject({ entity: 'GLTransClient', count: 5, truncated: true });
    expect(result).not.toHaveProperty('total');
    // Exactly maxScanRows rows: the whole set was read, total is known.
    nock.cleanAll();
    upstream(() => [200, rowsOf(SCAN, (i) => ({ Account: '1010', Voucher: i }))]);
    expect(await call('list_gl_transactions', { limit: 5 })).toEqual(
      expect.objectContaining({ count: 5, total: SCAN }),
    );
    // A row test after the read (debtor postings) still marks a bounded scan truncated.
    nock.cleanAll();
    upstream(() => [
      200,
      rowsOf(SCAN + 1, (i) => ({
        Account: '1010',
        Voucher: i,
        DCAccount: 'D1',
        DCType: i % 2 === 0 ? 'Debtor' : 'Creditor',
      })),
    ]);
    const debtor = await call('list_debtor_transactions', { limit: 5 });
    expect(debtor).toMatchObject({ count: 5, truncated: true });
    expect(debtor).not.toHaveProperty('total');
  });

  it('maps each sortBy to its property, reads one page, marks a full one truncated, no total or cursor', async () => {
    const expected = {
      item: 'Item',
      name: 'Name',
      sales_price: 'SalesPrice1',
      cost_price: 'CostPrice',
      quantity: 'QtyOnStock',
      last_movement: 'LastMovement',
    };
    upstream(
      table({
        InvItemClient: rowsOf(5, (i) => ({ Item: `I-${i}`, Name: `Item ${i}`, LastMovement: '2025-03-01T00:00:00' })),
      }),
    );
    for (const [sortBy, property] of Object.entries(expected)) {
      sent.length = 0;
      const result = await call('list_inventory_items', { sortBy, limit: 5 });
      // The item number, the documented key of InvItemClient, breaks ties (never an undocumented RowId).
      const tieBreak = property === 'Item' ? [] : [{ PropertyName: 'Item', OrderBy: true }];
      expect(queries()[0]!.body).toEqual([
        { PropertyName: property, OrderByDescending: true },
        ...tieBreak,
        { Take: 5 },
      ]);
      expect(result).toEqual({ entity: 'InvItemClient', count: 5, truncated: true, items: expect.any(Array) });
      expect(result).not.toHaveProperty('total');
      expect(result).not.toHaveProperty('nextOffset');
    }
    sent.length = 0;
    const ascending = await call('list_inventory_items', {
      sortBy: 'name',
      sortDescending: false,
      group: 'G1',
      limit: 10,
    });
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'Group', FilterValue: 'G1' },
      { PropertyName: 'Name', OrderBy: true },
      { PropertyName: 'Item', OrderBy: true },
      { Take: 10 },
    ]);
    expect(ascending).toMatchObject({ count: 5, truncated: false });
  });

  it('pages with offset: Skip/Take, offset and nextOffset, null at the end', async () => {
    const all = rowsOf(5, (i) => ({ Item: `I-${i}`, Date: '2025-01-01T00:00:00', Qty: -1 }));
    upstream((_entity, body) => {
      const page = body.find((e) => 'Take' in e)!;
      const skip = Number(page['Skip'] ?? 0);
      return [200, all.slice(skip, skip + Number(page['Take']))];
    });
    const first = await call('list_inventory_transactions', { item: 'I-1', offset: 0, limit: 2 });
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'Item', FilterValue: 'I-1' },
      // Offset paging without a sort still needs an order: the documented Date, Item and LineNumber.
      { PropertyName: 'Date', OrderBy: true },
      { PropertyName: 'Item', OrderBy: true },
      { PropertyName: 'LineNumber', OrderBy: true },
      // One row past the page, never returned: it shows whether the next page starts cleanly.
      { Skip: 0, Take: 3 },
    ]);
    expect(first).toEqual({
      entity: 'InvTransClient',
      count: 2,
      truncated: true,
      offset: 0,
      nextOffset: 2,
      items: all.slice(0, 2),
    });
    const last = await call('list_inventory_transactions', { offset: 4, limit: 2 });
    expect(last).toEqual({
      entity: 'InvTransClient',
      count: 1,
      truncated: false,
      offset: 4,
      nextOffset: null,
      items: all.slice(4),
    });
    const exactEnd = await call('list_inventory_items', { offset: 3, limit: 2 });
    expect(exactEnd).toMatchObject({ count: 2, truncated: true, offset: 3, nextOffset: 5 });
  });

  it('says when the page at nextOffset may repeat or skip rows: a tie across the page end, or no order', async () => {
    let data: Row[] = [];
    upstream((_entity, body) => {
      const page = body.find((e) => 'Take' in e)!;
      const skip = Number(page['Skip'] ?? 0);
      return [200, data.slice(skip, skip + Number(page['Take']))];
    });
    // Postings of one day and item without a line number tie on every documented sort value.
    data = rowsOf(5, () => ({ Item: 'I-1', Date: '2025-01-01T00:00:00', Qty: -1 }));
    expect(await call('list_inventory_transactions', { offset: 0, limit: 2 })).toMatchObject({
      count: 2,
      nextOffset: 2,
      unstableOrder: true,
    });
    // The last page has no next row: nothing can be repeated or skipped after it.
    expect(await call('list_inventory_transactions', { offset: 3, limit: 2 })).not.toHaveProperty('unstableOrder');
    // Line numbers tell the rows apart.
    data = rowsOf(5, (i) => ({ Item: 'I-1', Date: '2025-01-01T00:00:00', LineNumber: i + 1, Qty: -1 }));
    expect(await call('list_inventory_transactions', { offset: 0, limit: 2 })).not.toHaveProperty('unstableOrder');
    // A sort-only read (no cursor) is one top-N page: nothing to follow, no flag.
    data = rowsOf(5, () => ({ Item: 'I-1', SalesPrice1: 10 }));
    const top = await call('list_inventory_items', { sortBy: 'sales_price', limit: 2 });
    expect(top).not.toHaveProperty('unstableOrder');
    expect((queries().at(-1)!.body as Row[]).at(-1)).toEqual({ Take: 2 });
    // query on an entity without a documented key and without orderBy: no order at all.
    data = rowsOf(5, (i) => ({ Number: `P${i}`, Name: 'Project' }));
    sent.length = 0;
    expect(await call('query', { entity: 'ProjectClient', offset: 0, limit: 2 })).toMatchObject({
      nextOffset: 2,
      unstableOrder: true,
    });
    expect(queries()[0]!.body).toEqual([{ Skip: 0, Take: 3 }]);
    expect(await call('query', { entity: 'ProjectClient', offset: 2, limit: 1 })).toMatchObject({
      unstableOrder: true,
    });
    // ... with a unique orderBy the boundary is checked and clean.
    expect(await call('query', { entity: 'ProjectClient', orderBy: 'Number', offset: 2, limit: 2 })).not.toHaveProperty(
      'unstableOrder',
    );
  });

  it('caps a page the upstream sent too long (Take ignored) and marks it truncated', async () => {
    upstream(table({ InvItemClient: rowsOf(9, (i) => ({ Item: `I-${i}` })) }));
    const result = await call('list_inventory_items', { sortBy: 'item', limit: 4 });
    expect(result).toMatchObject({ count: 4, truncated: true });
  });

  it('projects fields and echoes names present in no returned row', async () => {
    const items: Row[] = [
      { Item: 'A', Name: 'Skrue', SalesPrice1: 2.5 },
      { Item: 'B', Name: 'Møtrik', QtyOnStock: 4 },
    ];
    upstream(table({ InvItemClient: items }));
    const result = await call('list_inventory_items', { fields: ['Item', 'QtyOnStock', 'Colour', 'Item'] });
    expect(result).toEqual({
      entity: 'InvItemClient',
      count: 2,
      total: 2,
      unknownFields: ['Colour'],
      items: [{ Item: 'A' }, { Item: 'B', QtyOnStock: 4 }],
    });
    const known = await call('list_inventory_items', { fields: ['Name'] });
    expect(known).not.toHaveProperty('unknownFields');
    expect(known.items).toEqual([{ Name: 'Skrue' }, { Name: 'Møtrik' }]);
  });

  it('reads InvItemClientUser with the custom fields when includeCustomFields is set', async () => {
    const rows: Row[] = [{ Item: 'A', Name: 'Skrue', Group: 'G1', Colour: 'Rød', Supplier: 'Nord' }];
    upstream(table({ InvItemClientUser: rows }));
    const result = await call('list_inventory_items', { includeCustomFields: true, group: 'G1' });
    expect(queries()[0]!.path).toBe('/Query/Get/InvItemClientUser');
    expect(result).toEqual({ entity: 'InvItemClientUser', count: 1, total: 1, items: rows });
    expect(await call('list_inventory_items', { includeCustomFields: true, fields: ['Item', 'Colour'] })).toMatchObject(
      { items: [{ Item: 'A', Colour: 'Rød' }] },
    );
  });

  it('list_companies sets CompanyId from CompanyId or PrimaryKeyId and marks the logged-in company', async () => {
    upstream(
      table({
        CompanyClient: [
          { PrimaryKeyId: 4711, Id: 'DEMO', CompanyName: 'Demo ApS', Country: 57, VatNumber: '12345678' },
          { CompanyId: '815', PrimaryKeyId: 99, Id: 'SØSTER', CompanyName: 'Søster ApS' },
          { Id: 'X', CompanyName: 'Unknown id' },
        ],
      }),
    );
    const result = await call('list_companies');
    expect(result).toEqual({
      count: 3,
      companies: [
        {
          PrimaryKeyId: 4711,
          Id: 'DEMO',
          CompanyName: 'Demo ApS',
          Country: 57,
          VatNumber: '12345678',
          CompanyId: 4711,
          LoggedIn: true,
        },
        { PrimaryKeyId: 99, Id: 'SØSTER', CompanyName: 'Søster ApS', CompanyId: 815, LoggedIn: false },
        { Id: 'X', CompanyName: 'Unknown id' },
      ],
    });
  });

  it('get_account_balance returns the exact account row, or null', async () => {
    upstream(
      table({
        GLAccountClient: [
          { Account: '5810x', Name: 'Other' },
          { Account: '5810', Name: 'Bank', Balance: 1200.5, ThisYear: 10, PrevYear: 9 },
        ],
      }),
    );
    expect(await call('get_account_balance', { account: '5810' })).toEqual({
      Account: '5810',
      Name: 'Bank',
      Balance: 1200.5,
      ThisYear: 10,
      PrevYear: 9,
    });
    nock.cleanAll();
    upstream(table({ GLAccountClient: [] }));
    expect(await call('get_account_balance', { account: '9999' })).toBeNull();
    // A row the upstream matched although it is not equal (it compares case-insensitively) is no match.
    nock.cleanAll();
    upstream(table({ GLAccountClient: [{ Account: 'ab10', Name: 'Other' }] }));
    expect(await call('get_account_balance', { account: 'AB10' })).toBeNull();
  });

  it('passes open-item and invoice rows through, tolerating absent inherited properties', async () => {
    upstream(
      table({
        DebtorTransOpenClient: [
          { Account: '1001', Name: 'A' },
          { Account: '1001', Voucher: 17, Invoice: '2001', DueDate: '2025-02-01T00:00:00', AmountOpen: 250 },
        ],
        DebtorInvoiceClient: [
          { InvoiceNumber: 2001, Account: '1001', NetAmount: 100, VatAmount: 25, TotalAmount: 125 },
        ],
      }),
    );
    expect((await call('list_debtor_open_items', {})).items).toHaveLength(2);
    expect((await call('list_debtor_invoices', {})).items[0]).not.toHaveProperty('Paid');
  });
});

eachUpstream('ledger: query', (mode) => {
  it('passes filters through, sorts and pages server-side', async () => {
    upstream(table({ DebtorClient: rowsOf(2) }));
    const result = await call('query', {
      entity: 'DebtorClient',
      filters: [{ PropertyName: 'Account', FilterValue: '1000..1999' }],
      orderBy: 'Name',
      limit: 2,
      offset: 4,
      fields: ['Account'],
    });
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'Account', FilterValue: '1000..1999' },
      { PropertyName: 'Name', OrderByDescending: true },
      { PropertyName: 'Account', OrderBy: true },
      { Skip: 4, Take: 3 },
    ]);
    expect(result).toEqual({
      entity: 'DebtorClient',
      count: 2,
      truncated: true,
      offset: 4,
      nextOffset: 6,
      items: [{ Account: '1000' }, { Account: '1001' }],
    });
    sent.length = 0;
    await call('query', { entity: 'DebtorClient', orderBy: 'Name', descending: false });
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'Name', OrderBy: true },
      { PropertyName: 'Account', OrderBy: true },
      { Take: 50 },
    ]);
    sent.length = 0;
    await call('query', { entity: 'DebtorClient', orderBy: 'Account', offset: 0 });
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'Account', OrderByDescending: true },
      { Skip: 0, Take: 51 },
    ]); // already the documented key
  });

  it('answers an unknown entity or property (a 4xx) with query_rejected and the status', async () => {
    upstream(table({}));
    expect(await failure(call('query', { entity: 'NoSuchClient' }))).toBe(
      'Uniconta rejected the query with HTTP 400. Check the entity name and the ' +
        'property names used in filters, orderBy, groupBy, sum and dateField.',
    );
    nock.cleanAll();
    upstream(() => [404, 'not found']);
    expect(await failure(call('query', { entity: 'DebtorClient' }))).toContain('HTTP 404');
    nock.cleanAll();
    upstream(() => [500, 'boom']);
    expect(await failure(call('query', { entity: 'DebtorClient' }))).toBe('upstream server 500');
    // A filter on a property the entity does not have: rejected (400) or ignored, as the upstream does.
    nock.cleanAll();
    upstream(table({ DebtorClient: rowsOf(2) }));
    const filtered = call('query', {
      entity: 'DebtorClient',
      filters: [{ PropertyName: 'Colour', FilterValue: 'Red' }],
    });
    if (mode === 'reject') expect(await failure(filtered)).toContain('rejected the query with HTTP 400');
    else expect(await filtered).toMatchObject({ count: 2, total: 2 });
  });

  it('refuses an entity name that is not a plain identifier before any request', async () => {
    upstream(() => [200, []]);
    for (const entity of ['../Crud/Insert', 'Debtor Client', 'Debtor/Client', '', 'Debtor?x=1'])
      expect(await failure(call('query', { entity }))).toBe(GENERIC);
    expect(sent).toEqual([]);
  });

  it('a fixed-entity tool leaves a 4xx to the generic text', async () => {
    upstream(() => [400, 'bad']);
    expect(await failure(call('list_vat_codes'))).toBe('upstream validation 400');
  });
});

describe('ledger: reconnect required', () => {
  const refusedLogins: Array<[string, Reply]> = [
    ['a JSON string with 200', [200, JSON.stringify('Invalid credentials')]],
    ['a JSON string with 400', [400, JSON.stringify('NoCompanyId')]],
    ['a JSON string with 401', [401, JSON.stringify('Invalid credentials')]],
    ['a text body with 403', [403, 'not a server-login user']],
    ['an object without token', [200, { refreshToken: 'x' }]],
    ['an empty token', [200, { token: '' }]],
    ['null', [200, null]],
  ];
  it.each(refusedLogins)('a login answered with %s', async (_label, reply) => {
    upstream(
      () => [200, []],
      () => reply,
    );
    expect(await failure(call('list_debtors'))).toBe(RECONNECT);
    expect(queries()).toEqual([]);
  });

  // Before: every one of these was reported as a refused login (reconnect_required).
  const outages: Array<[string, number, string, Record<string, string>]> = [
    [
      'an HTML maintenance page with 200',
      200,
      '<!DOCTYPE html><html><body><h1>Uniconta is down for maintenance</h1></body></html>',
      { 'content-type': 'text/html; charset=utf-8' },
    ],
    ['an HTML page with 200 and no content type', 200, '  <html><body>Service Unavailable</body></html>', {}],
    [
      'a plain-text body with 200 (not the JSON the WebAPI answers)',
      200,
      'Invalid credentials',
      { 'content-type': 'text/plain' },
    ],
    ['an HTML page with 503', 503, '<html><body>Maintenance</body></html>', { 'content-type': 'text/html' }],
    [
      'an HTML page with 404 (a proxy, not the WebAPI)',
      404,
      '<html><body>Not Found</body></html>',
      { 'content-type': 'text/html' },
    ],
  ];
  it.each(outages)(
    'a login answered with %s is an outage (generic), not a refusal',
    async (_label, status, page, headers) => {
      nock(ORIGIN).post('/login').reply(status, page, headers).persist();
      const text = await failure(call('list_debtors'));
      expect(text).not.toBe(RECONNECT);
      expect(text).toMatch(/^upstream /);
      expect(queries()).toEqual([]);
    },
  );

  it('a 401 on the first query right after login', async () => {
    upstream(() => [401, 'Token invalid']);
    expect(await failure(call('list_debtors'))).toBe(RECONNECT);
    expect(await failure(call('query', { entity: 'DebtorClient' }))).toBe(RECONNECT);
    expect(await failure(call('aggregate', { entity: 'GLTransClient' }))).toBe(RECONNECT);
  });

  it('a missing or incomplete credential', async () => {
    upstream(() => [200, []]);
    expect(await failure(call('list_debtors', {}, { credential: null }))).toBe(RECONNECT);
    expect(
      await failure(call('list_debtors', {}, { credential: { ...CREDENTIAL, companyId: '' } as Credential })),
    ).toBe(RECONNECT);
    expect(await failure(call('list_debtors', {}, { credential: { kind: 'api_key', apiKey: 'k' } }))).toBe(RECONNECT);
    expect(sent).toEqual([]);
  });

  it('an outage or an exhausted quota at login stays generic (not a reconnect)', async () => {
    upstream(
      () => [200, []],
      () => [503, 'maintenance'],
    );
    expect(await failure(call('list_debtors'))).toBe('upstream server 503');
    nock.cleanAll();
    upstream(
      () => [200, []],
      () => [429, 'Daily call limit reached'],
    );
    expect(await failure(call('list_debtors'))).toBe('upstream throttled 429');
  });

  it('a 401 after a first successful page is an ordinary failure', async () => {
    let n = 0;
    upstream(() => (++n === 1 ? [200, rowsOf(1000, (i) => ({ Account: String(i), Amount: 1 }))] : [401, 'expired']));
    expect(await failure(call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] }))).toBe(
      'upstream auth 401',
    );
  });
});

eachUpstream('ledger: aggregate', (mode) => {
  /** Serves `total` rows made by `make`, honouring Skip/Take; records nothing else. */
  function pagedRows(total: number, make: (i: number) => Row) {
    upstream((_entity, body) => {
      const page = body.find((e) => 'Take' in e)!;
      const skip = Number(page['Skip'] ?? 0);
      const take = Number(page['Take']);
      const rows: Row[] = [];
      for (let i = skip; i < Math.min(total, skip + take); i++) rows.push(make(i));
      return [200, rows];
    });
  }

  it('sends the caller filters, the dateField range, a stable order and Skip/Take pages of 1000', async () => {
    pagedRows(2500, (i) => ({ Item: `I-${i % 3}`, Date: '2025-02-01T00:00:00', Qty: -1, NetAmount: 10 }));
    const result = await call('aggregate', {
      entity: 'InvTransClient',
      filters: [{ PropertyName: 'MovementType', FilterValue: 'Sales' }],
      groupBy: ['Item'],
      sum: ['Qty', 'NetAmount'],
      fromDate: '2025-01-01',
      toDate: '2025-03-31',
    });
    const bodies = queries().map((q) => q.body);
    expect(bodies).toEqual(
      [0, 1000, 2000].map((skip) => [
        { PropertyName: 'MovementType', FilterValue: 'Sales' },
        { PropertyName: 'Date', FilterValue: '01-01-2025..31-03-2025' },
        // InvTransClient has no documented key: its documented Date, Item and LineNumber order the pages.
        { PropertyName: 'Date', OrderBy: true },
        { PropertyName: 'Item', OrderBy: true },
        { PropertyName: 'LineNumber', OrderBy: true },
        { Skip: skip, Take: 1000 },
      ]),
    );
    expect(result).toEqual({
      entity: 'InvTransClient',
      groupCount: 3,
      rowsScanned: 2500,
      pages: 3,
      truncated: false,
      groups: [
        { key: { Item: 'I-0' }, count: 834, sums: { Qty: -834, NetAmount: 8340 } },
        { key: { Item: 'I-1' }, count: 833, sums: { Qty: -833, NetAmount: 8330 } },
        { key: { Item: 'I-2' }, count: 833, sums: { Qty: -833, NetAmount: 8330 } },
      ],
    });
  });

  it('uses the caller orderBy and dateField, and gives one grand-total row without groupBy', async () => {
    pagedRows(3, (i) => ({ PostingDate: '2025-01-01T00:00:00', Amount: i + 0.1 }));
    const result = await call('aggregate', {
      entity: 'GLTransClient',
      dateField: 'PostingDate',
      fromDate: '2025-01-01',
      orderBy: 'Voucher',
      sum: ['Amount'],
    });
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'PostingDate', FilterValue: '01-01-2025..31-12-2099' },
      { PropertyName: 'Voucher', OrderBy: true },
      { PropertyName: 'VoucherLine', OrderBy: true },
      { Skip: 0, Take: 1000 },
    ]);
    expect(result).toMatchObject({
      groupCount: 1,
      pages: 1,
      rowsScanned: 3,
      groups: [{ key: {}, count: 3, sums: { Amount: 3.3 } }],
    });
    nock.cleanAll();
    upstream(() => [200, []]);
    expect(await call('aggregate', { entity: 'GLTransClient', sum: ['Amount'] })).toEqual({
      entity: 'GLTransClient',
      groupCount: 1,
      rowsScanned: 0,
      pages: 1,
      truncated: false,
      groups: [{ key: {}, count: 0, sums: { Amount: 0 } }],
    });
  });

  it('pages GLTransClient in voucher-line order, never by RowId, saying when a boundary may repeat rows', async () => {
    pagedRows(2500, (i) => ({ Voucher: Math.floor(i / 2), VoucherLine: (i % 2) + 1, Account: 'A', Amount: 1 }));
    const exact = await call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] });
    expect(exact).toMatchObject({ rowsScanned: 2500, pages: 3, truncated: false, groups: [{ count: 2500 }] });
    expect(exact).not.toHaveProperty('unstableOrder');
    expect(queries()[0]!.body).toEqual([
      { PropertyName: 'Voucher', OrderBy: true },
      { PropertyName: 'VoucherLine', OrderBy: true },
      { Skip: 0, Take: 1000 },
    ]);
    for (const q of queries()) expect(JSON.stringify(q.body)).not.toMatch(/rowid/i);
    // Postings without voucher lines tie at every page boundary.
    nock.cleanAll();
    pagedRows(2500, () => ({ Account: 'A', Amount: 1 }));
    expect(await call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] })).toMatchObject({
      rowsScanned: 2500,
      unstableOrder: true,
    });
    // An entity without a documented key and no orderBy: no sort entry at all, so more than one page is unverified.
    nock.cleanAll();
    sent.length = 0;
    pagedRows(2500, (i) => ({ Number: i, Amount: 1 }));
    expect(await call('aggregate', { entity: 'ProjectClient', sum: ['Amount'] })).toMatchObject({
      pages: 3,
      unstableOrder: true,
    });
    expect(queries()[0]!.body).toEqual([{ Skip: 0, Take: 1000 }]);
    // ... a unique orderBy makes the boundaries checkable, and one page needs no order.
    expect(await call('aggregate', { entity: 'ProjectClient', sum: ['Amount'], orderBy: 'Number' })).not.toHaveProperty(
      'unstableOrder',
    );
    nock.cleanAll();
    pagedRows(999, (i) => ({ Number: i, Amount: 1 }));
    expect(await call('aggregate', { entity: 'ProjectClient', sum: ['Amount'] })).not.toHaveProperty('unstableOrder');
  });

  it('accepts exactly 1000 groups and refuses the 1001st without reading further pages', async () => {
    pagedRows(1000, (i) => ({ Account: `A${i}`, Amount: 1 }));
    const ok = await call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] });
    expect(ok).toMatchObject({ groupCount: 1000, rowsScanned: 1000, pages: 2, truncated: false });
    nock.cleanAll();
    sent.length = 0;
    // Group 1001 appears on the second page; the third page is never asked for.
    pagedRows(5000, (i) => ({ Account: `A${i}`, Amount: 1 }));
    expect(await failure(call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] }))).toBe(
      'The grouping produces more than 1000 groups. Group by fewer or ' +
        'coarser properties, or narrow the filters or the date range.',
    );
    expect(queries()).toHaveLength(2);
  });

  it('groups by up to three properties, absent values as null', async () => {
    pagedRows(4, (i) =>
      i === 3 ? { Account: '1010', Amount: 5 } : { Account: '1010', Vat: 'S25', Dimension1: i % 2, Amount: 1 },
    );
    const result = await call('aggregate', {
      entity: 'GLTransClient',
      groupBy: ['Account', 'Vat', 'Dimension1'],
      sum: ['Amount'],
    });
    expect(result.groups).toEqual([
      { key: { Account: '1010', Vat: null, Dimension1: null }, count: 1, sums: { Amount: 5 } },
      { key: { Account: '1010', Vat: 'S25', Dimension1: 0 }, count: 2, sums: { Amount: 2 } },
      { key: { Account: '1010', Vat: 'S25', Dimension1: 1 }, count: 1, sums: { Amount: 1 } },
    ]);
  });

  it('skips and counts unparseable numbers per property, never summing them as 0', async () => {
    const values: unknown[] = [
      10,
      '2.5',
      ' -1 ',
      'n/a',
      '',
      true,
      { x: 1 },
      null,
      undefined,
      '1,5',
      '0x10',
      'Infinity',
      '0',
      '1e2',
    ];
    pagedRows(values.length, (i) => ({ Item: 'A', Qty: values[i], Cost: 1 }));
    const result = await call('aggregate', { entity: 'InvTransClient', groupBy: ['Item'], sum: ['Qty', 'Cost'] });
    expect(result.groups).toEqual([
      { key: { Item: 'A' }, count: values.length, sums: { Qty: 111.5, Cost: values.length } },
    ]);
    // 'n/a', '', true, {x:1}, '1,5', '0x10', 'Infinity'; null and absent are no value
    expect(result.nonNumeric).toEqual({ Qty: 7 });
    nock.cleanAll();
    pagedRows(2, () => ({ Item: 'A', Qty: 1 }));
    expect(await call('aggregate', { entity: 'InvTransClient', sum: ['Qty'] })).not.toHaveProperty('nonNumeric');
  });

  it('stops after 50 full pages and reports truncated', async () => {
    pagedRows(60_000, (i) => ({ Account: `A${i % 10}`, Amount: 1 }));
    const result = await call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] });
    expect(result).toMatchObject({ groupCount: 10, rowsScanned: 50_000, pages: 50, truncated: true });
    // 50 pages, then a one-row probe that finds the rows left behind.
    expect(queries()).toHaveLength(51);
    expect((queries().at(-2)!.body as Row[]).at(-1)).toEqual({ Skip: 49_000, Take: 1000 });
    expect((queries().at(-1)!.body as Row[]).at(-1)).toEqual({ Skip: 50_000, Take: 1 });
  });

  it('exactly 50,000 rows: 50 full pages and an empty one-row probe, so nothing was left behind', async () => {
    pagedRows(50_000, () => ({ Amount: 2 }));
    expect(await call('aggregate', { entity: 'GLTransClient', sum: ['Amount'] })).toMatchObject({
      pages: 50,
      rowsScanned: 50_000,
      truncated: false,
      groups: [{ count: 50_000, sums: { Amount: 100_000 } }],
    });
  });

  it('49,999 rows end on a short page, not truncated', async () => {
    pagedRows(49_999, () => ({ Amount: 1 }));
    expect(await call('aggregate', { entity: 'GLTransClient', sum: ['Amount'] })).toMatchObject({
      pages: 50,
      rowsScanned: 49_999,
      truncated: false,
    });
  });

  it('limits groupBy to 3 and sum to 10 through the validator, and refuses a bad entity', async () => {
    expect(argsValid('aggregate', { entity: 'X', groupBy: ['a', 'b', 'c'] })).toBe(true);
    expect(argsValid('aggregate', { entity: 'X', groupBy: ['a', 'b', 'c', 'd'] })).toBe(false);
    expect(argsValid('aggregate', { entity: 'X', sum: Array.from({ length: 10 }, (_, i) => `s${i}`) })).toBe(true);
    expect(argsValid('aggregate', { entity: 'X', sum: Array.from({ length: 11 }, (_, i) => `s${i}`) })).toBe(false);
    expect(argsValid('aggregate', { groupBy: ['a'] })).toBe(false);
    upstream(() => [200, []]);
    expect(await failure(call('aggregate', { entity: 'GL/../Crud' }))).toBe(GENERIC);
    expect(sent).toEqual([]);
  });

  it('checks groupBy and sum names: a wrong case maps to the upstream spelling, unknown: query_rejected', async () => {
    pagedRows(3, (i) => ({ Account: `A${i % 2}`, Amount: 1.5, ...(i === 2 ? { Dimension1: 'D' } : {}) }));
    // Before: sum ["amount"] gave { amount: 0 } (the fold is exact-case) and groupBy ["account"] one null group.
    const cased = await call('aggregate', { entity: 'GLTransClient', groupBy: ['account'], sum: ['amount'] });
    expect(cased.groups).toEqual([
      { key: { Account: 'A0' }, count: 2, sums: { Amount: 3 } },
      { key: { Account: 'A1' }, count: 1, sums: { Amount: 1.5 } },
    ]);
    // A property present in only some rows is a real property.
    expect((await call('aggregate', { entity: 'GLTransClient', groupBy: ['Dimension1'] })).groupCount).toBe(2);
    // A dateField no row has: the upstream ignored the range filter (unknown names are ignored), so refuse.
    for (const args of [
      { groupBy: ['Nope'] },
      { sum: ['Amount', 'Amont'] },
      { dateField: 'PostingDay', fromDate: '2025-01-01' },
    ]) {
      expect(await failure(call('aggregate', { entity: 'GLTransClient', ...args }))).toBe(
        'Uniconta rejected the query with HTTP 400. Check the entity name and the ' +
          'property names used in filters, orderBy, groupBy, sum and dateField.',
      );
    }
  });

  it('answers a 4xx from Query/Get with query_rejected', async () => {
    upstream(() => [400, 'Unknown property Foo']);
    expect(await failure(call('aggregate', { entity: 'GLTransClient', groupBy: ['Foo'] }))).toContain(
      'rejected the query with HTTP 400',
    );
    // A caller orderBy the entity does not have: rejected (400), or ignored and then unverifiable.
    nock.cleanAll();
    pagedRows(1500, () => ({ Account: 'A', Amount: 1 }));
    const ordered = call('aggregate', { entity: 'GLTransClient', orderBy: 'Colour', sum: ['Amount'] });
    if (mode === 'reject') expect(await failure(ordered)).toContain('rejected the query with HTTP 400');
    else expect(await ordered).toMatchObject({ rowsScanned: 1500, unstableOrder: true });
  });
});

describe('ledger: the fold on its own', () => {
  it('folds pages one at a time and reports the overflow at the first extra group', () => {
    const fold = new GroupFold({ groupBy: ['K'], sum: ['V'], maxGroups: 2 });
    expect(
      fold.add([
        { K: 'a', V: 1 },
        { K: 'b', V: 2 },
      ]),
    ).toBe(true);
    expect(
      fold.add([
        { K: 'a', V: 3 },
        { K: 'c', V: 4 },
        { K: 'a', V: 5 },
      ]),
    ).toBe(false);
    expect(fold.overflow).toBe(true);
    expect(fold.rows).toBe(3);
    expect(fold.add([{ K: 'a', V: 1 }])).toBe(false);
  });

  it('groups by raw values (absent with null), sums without float noise, sorted by key', () => {
    const result = foldPages([[{ K: 10, V: 0.1 }, { K: 9, V: 0.2 }, { K: 10, V: 0.2 }, { K: null, V: 1 }, { V: 1 }]], {
      groupBy: ['K'],
      sum: ['V'],
      maxGroups: 10,
    });
    expect(result.groups).toEqual([
      { key: { K: null }, count: 2, sums: { V: 2 } },
      { key: { K: 9 }, count: 1, sums: { V: 0.2 } },
      { key: { K: 10 }, count: 2, sums: { V: 0.3 } },
    ]);
  });

  it('sums in exact integer micro-units: large amounts that cancel leave no floating-point noise', () => {
    const rows: Row[] = [];
    for (let i = 0; i < 1000; i++)
      rows.push(
        { A: 1_000_000_000.01, B: 0.1, C: '12345678901.23' },
        { A: -1_000_000_000, B: 0.2, C: '-12345678901.2' },
      );
    // Before: A summed to 9.99999 (the float sum, rounded to micro-units, kept the drift).
    expect(foldPages([rows], { groupBy: [], sum: ['A', 'B', 'C'], maxGroups: 10 }).groups[0]!.sums).toEqual({
      A: 10,
      B: 300,
      C: 30,
    });
    const big = Array.from({ length: 50_000 }, (_, i) => ({ A: 98_765_432.1 + (i % 100) / 100 }));
    expect(foldPages([big], { groupBy: [], sum: ['A'], maxGroups: 10 }).groups[0]!.sums.A).toBe(4_938_271_629_750);
  });

  it('parses numbers without accepting blanks, radix prefixes or infinities', () => {
    expect([1.5, '1.5', ' 2 ', '-0', '0.0', '1e3', '+4'].map(parseNumber)).toEqual([1.5, 1.5, 2, -0, 0, 1000, 4]);
    expect(
      [
        '',
        ' ',
        '0x10',
        ' 0b1',
        '0o7',
        'Infinity',
        '-Infinity',
        'NaN',
        '1,5',
        'abc',
        true,
        {},
        Number.NaN,
        Infinity,
      ].map(parseNumber),
    ).toEqual(Array(14).fill(undefined));
  });
});

describe('ledger: recently added items (opt-in data layer)', () => {
  let store: PlatformStore;
  let accountId: string;
  beforeAll(async () => {
    store = await openStore({});
    accountId = (await store.accounts.createAccount({ name: 'Data layer' })).id;
    await store.connections.putConnection({
      accountId,
      instanceId: 'ledger',
      connectorKey: 'ledger',
      ciphertext: 'x',
      keyVersion: 1,
    });
  });
  afterAll(async () => {
    await store.close();
  });

  it('is declared for list_recently_added_items only', () => {
    expect(ledgerDescriptor.tools.filter((t) => t.dataLayer).map((t) => t.name)).toEqual(['list_recently_added_items']);
  });

  it('without the opt-in returns the structured hint and reads nothing', async () => {
    upstream(() => [200, []]);
    const result = await call(
      'list_recently_added_items',
      {},
      { dataLayer: bindDataLayer(store, accountId, 'ledger') },
    );
    expect(result).toEqual({ hint: 'data_layer_not_enabled', message: ledgerDescriptor.texts['dataLayerNotEnabled'] });
    expect(sent).toEqual([]);
    expect(await store.dataLayer.getDataLayer(accountId, 'ledger')).toBeNull();
  });

  it('records a baseline at the opt-in time, then the time each new item was first seen', async () => {
    const optIn = new Date('2025-05-01T08:00:00.000Z');
    await store.dataLayer.enableDataLayer(accountId, 'ledger', optIn);
    const dataLayer = bindDataLayer(store, accountId, 'ledger');
    let items: Row[] = [{ Item: 'A', Name: 'Skrue' }, { Item: 'B', Name: 'Møtrik' }, { Name: 'no item number' }];
    upstream((entity) => (entity === 'InvItemClient' ? [200, items] : [400, 'unknown']));

    let now = new Date('2025-05-03T10:00:00.000Z');
    const first = await call('list_recently_added_items', {}, { dataLayer, now: () => now });
    expect(queries()).toEqual([{ path: '/Query/Get/InvItemClient', body: [], authorization: `Bearer ${TOKEN}` }]);
    expect(first).toEqual({
      entity: 'InvItemClient',
      count: 2,
      total: 2,
      items: [
        { Item: 'A', Name: 'Skrue', firstSeenAt: optIn.toISOString(), baseline: true },
        { Item: 'B', Name: 'Møtrik', firstSeenAt: optIn.toISOString(), baseline: true },
      ],
    });

    items = [...items, { Item: 'C', Name: 'Bolt' }];
    now = new Date('2025-05-10T12:00:00.000Z');
    const second = await call('list_recently_added_items', { limit: 2 }, { dataLayer, now: () => now });
    expect(second).toEqual({
      entity: 'InvItemClient',
      count: 2,
      total: 3,
      items: [
        { Item: 'C', Name: 'Bolt', firstSeenAt: '2025-05-10T12:00:00.000Z', baseline: false },
        { Item: 'A', Name: 'Skrue', firstSeenAt: optIn.toISOString(), baseline: true },
      ],
    });

    // `since`: a date is local midnight (Europe/Copenhagen); a date-time is taken as given.
    now = new Date('2025-05-11T12:00:00.000Z');
    expect(
      await call('list_recently_added_items', { since: '2025-05-10' }, { dataLayer, now: () => now }),
    ).toMatchObject({ total: 1, items: [{ Item: 'C' }] });
    // 2025-05-10 starts at 22:00 UTC the day before in Copenhagen (summer time), 23:00 in winter.
    expect(sinceInstant(ctxFor('list_recently_added_items'), '2025-05-10')?.toISOString()).toBe(
      '2025-05-09T22:00:00.000Z',
    );
    expect(sinceInstant(ctxFor('list_recently_added_items'), '2025-01-10')?.toISOString()).toBe(
      '2025-01-09T23:00:00.000Z',
    );
    expect(
      await call('list_recently_added_items', { since: '2025-05-10T12:00:01Z' }, { dataLayer, now: () => now }),
    ).toMatchObject({ count: 0, total: 0, items: [] });
    expect(
      await call('list_recently_added_items', { since: '2025-04-30' }, { dataLayer, now: () => now }),
    ).toMatchObject({ total: 3 });
    expect(await failure(call('list_recently_added_items', { since: '2025-02-30' }, { dataLayer }))).toBe(GENERIC);
    expect(await failure(call('list_recently_added_items', { since: '2025-05-10Tnonsense' }, { dataLayer }))).toBe(
      GENERIC,
    );
    expect(argsValid('list_recently_added_items', { since: 'yesterday' })).toBe(false);

    // Opting out deletes the records; the hint is back.
    await store.dataLayer.disableDataLayer(accountId, 'ledger');
    expect(await call('list_recently_added_items', {}, { dataLayer })).toMatchObject({
      hint: 'data_layer_not_enabled',
    });
  });

  it('a refused login is a reconnect, and nothing is recorded', async () => {
    await store.dataLayer.enableDataLayer(accountId, 'ledger', new Date('2025-06-01T00:00:00Z'));
    upstream(
      () => [200, [{ Item: 'A' }]],
      () => [200, JSON.stringify('Invalid credentials')],
    );
    expect(
      await failure(call('list_recently_added_items', {}, { dataLayer: bindDataLayer(store, accountId, 'ledger') })),
    ).toBe(RECONNECT);
    expect(await store.dataLayer.getDataLayer(accountId, 'ledger')).toMatchObject({ baselineAt: null, itemCount: 0 });
    await store.dataLayer.disableDataLayer(accountId, 'ledger');
  });

  it('the operator CLI enables, reports and disables it for a connected ledger instance only', async () => {
    const config = testConfig();
    const out: string[] = [];
    const run = (argv: string[]) => runCli(argv, config, store, (line) => out.push(line));
    await run(['data-layer', 'status', accountId, 'ledger']);
    expect(JSON.parse(out.pop()!)).toEqual({ enabled: false });
    await run(['data-layer', 'enable', accountId, 'ledger']);
    expect(JSON.parse(out.pop()!)).toMatchObject({
      enabled: true,
      accountId,
      instanceId: 'ledger',
      baselineAt: null,
      itemCount: 0,
    });
    await run(['data-layer', 'status', accountId, 'ledger']);
    expect(JSON.parse(out.pop()!)).toMatchObject({ enabled: true });
    await run(['data-layer', 'disable', accountId, 'ledger']);
    expect(out.pop()).toBe('disabled; the recorded items were deleted');
    await expect(run(['data-layer', 'enable', accountId, 'ledger-2'])).rejects.toThrow(/no connection/);
    await expect(run(['data-layer', 'enable', accountId, 'cases'])).rejects.toThrow(UsageError);
    await expect(run(['data-layer', 'enable', accountId])).rejects.toThrow(UsageError);
  });

  it('through the gateway: the pipeline hands the data layer of the caller connection to the tool', async () => {
    const gw = await startGateway(store, {
      env: { CONNECTOR_LEDGER_BASE_URL: ORIGIN, RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000' },
    });
    try {
      const tenant = await createTenant(store, { subscribe: ['ledger'] });
      await connectTenant(gw, tenant, 'ledger', { username: 'api-user', password: 'S3cret pw', companyId: '4711' });
      upstream(table({ InvItemClient: [{ Item: 'A', Name: 'Skrue' }] }));
      const client = await mcpClient(gw.url, 'ledger', tenant.token);
      try {
        const text = async () => {
          const r = (await client.callTool({ name: 'ledger__list_recently_added_items', arguments: {} })) as {
            content: Array<{ text: string }>;
            isError?: boolean;
          };
          expect(r.isError ?? false).toBe(false);
          return JSON.parse(r.content[0]!.text) as Record<string, unknown>;
        };
        expect(await text()).toMatchObject({ hint: 'data_layer_not_enabled' });
        await store.dataLayer.enableDataLayer(tenant.account.id, 'ledger', new Date('2025-01-01T00:00:00Z'));
        expect(await text()).toMatchObject({
          total: 1,
          items: [{ Item: 'A', firstSeenAt: '2025-01-01T00:00:00.000Z', baseline: true }],
        });
        expect(sent.find((s) => s.path === '/login')?.body).toEqual(LOGIN_BODY);
        // Another account's layer is untouched.
        expect(await store.dataLayer.getDataLayer(accountId, 'ledger')).toBeNull();
      } finally {
        await client.close();
      }
    } finally {
      await gw.close();
    }
  });
});

// The 23 invoicing read handlers against a nock-faked e-conomic REST API (upstreams/invoicing.md
// §2–3): exact request shapes (paths, query strings, both token headers), the list envelope and
// `hasMore`, the split accounting-year path encoding, the filter and sort grammar (injection
// attempts escaped or refused before any request), PDFs as base64, and every error text the read
// tools can end with. Arguments go through the generated input validator (defaults filled in) and
// every result through the output validator. Every request any test makes is recorded: only GETs.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InvoicingToolName, InvoicingTools } from '../generated/invoicing/contract.ts';
import { invoicingDescriptor } from '../generated/invoicing/descriptor.ts';
import { invoicingHandlers } from '../generated/invoicing/handlers.ts';
import * as validators from '../generated/invoicing/validators.js';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { normalizeFilter } from '../handlers/invoicing/filter.ts';
import { encodeIdentifier } from '../handlers/invoicing/paths.ts';
import { rejectionDetails } from '../handlers/invoicing/wire.ts';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import type { Credential } from '../runtime/handler-api/tool-context.ts';
import { ArgumentRefusal, formatText, ToolError } from '../runtime/handler-api/tool-error.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import { ConnectorTexts } from '../runtime/pipeline/call-context.ts';
import { pendingHandlers } from './pending-handlers.ts';
import { recordingMethods, testContext, type TestToolContext } from './support/tool-context.ts';

const ORIGIN = 'https://economic.test';
const APP_SECRET = 'Zq9appsecret77x';
const GRANT = 'Qk4grant31yVv';
/** The customer's grant token, with the integrator's app secret the runtime adds from the deployment setting. */
const CREDENTIAL: Credential = { kind: 'static_token', token: GRANT, appSecret: APP_SECRET };

type Row = Record<string, unknown>;
interface Sent {
  readonly method: string;
  /** Path and raw query string exactly as sent. */
  readonly url: string;
  readonly headers: Headers;
}
/** [status, body (object: JSON, string or Buffer: raw), headers]. */
type Reply = [number, unknown, Record<string, string>?];

const sent: Sent[] = [];
const methods = new Set<string>();

/** The fake: every request is recorded and answered by `respond` (undefined: a 404 JSON body). */
function upstream(respond: (sent: Sent) => Reply | undefined) {
  nock(ORIGIN)
    .get(/.*/)
    .reply(async (request: Request) => {
      const url = new URL(request.url);
      const entry: Sent = { method: request.method, url: url.pathname + url.search, headers: request.headers };
      sent.push(entry);
      const [status, body, headers] = respond(entry) ?? [
        404,
        { message: 'Not found.', httpStatusCode: 404, logId: 'x' },
      ];
      const raw = Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body);
      return [status, raw, { 'content-type': 'application/json', ...headers }] as [
        number,
        string,
        Record<string, string>,
      ];
    })
    .persist();
}
const always = (reply: Reply) => upstream(() => reply);

function collection(rows: Row[], pagination: Row = {}): Row {
  return {
    collection: rows,
    pagination: {
      maxPageSizeAllowed: 1000,
      skipPages: 0,
      pageSize: 20,
      results: rows.length,
      resultsWithoutFilter: rows.length,
      firstPage: `${ORIGIN}/x`,
      lastPage: `${ORIGIN}/x`,
      ...pagination,
    },
    self: `${ORIGIN}/x`,
  };
}

function context(tool: InvoicingToolName, credential: Credential | null = CREDENTIAL): TestToolContext {
  return testContext({
    descriptor: invoicingDescriptor,
    tool,
    credential,
    baseUrl: ORIGIN,
    wrapUpstream: recordingMethods(methods),
  });
}

const validator = (name: string) => (validators as unknown as Record<string, CompiledValidator>)[name]!;

async function call<K extends InvoicingToolName>(
  tool: K,
  raw: Row,
  credential?: Credential,
): Promise<InvoicingTools[K]['result']> {
  const checked = checkArguments({ coerce: [] }, validator(`input_${tool}`), raw);
  if (!checked.ok) throw new Error(`arguments refused by the schema: ${checked.reason}`);
  const handler = invoicingHandlers[tool] as (
    args: unknown,
    ctx: TestToolContext,
  ) => Promise<InvoicingTools[K]['result']>;
  const result = await handler(checked.args, context(tool, credential));
  const output = validator(`output_${tool}`);
  output(result);
  expect(output.errors ?? [], `output_${tool}`).toEqual([]);
  expect(JSON.stringify(result)).not.toContain(GRANT);
  expect(JSON.stringify(result)).not.toContain(APP_SECRET);
  return result;
}

const texts = new ConnectorTexts(invoicingDescriptor, platformDescriptor);

/**
 * The failure of a call, with the text the runtime answers it with (a ToolError's code, or the `upstream:` mapping).
 */
async function failure(tool: InvoicingToolName, raw: Row): Promise<{ error: unknown; code?: string; text: string }> {
  const error = await call(tool, raw).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should fail').toBeDefined();
  const message = String((error as Error)?.message ?? error);
  expect(message).not.toContain(GRANT);
  expect(message).not.toContain(APP_SECRET);
  if (error instanceof ToolError) return { error, code: error.code, text: texts.render(error.code, error.params) };
  if (error instanceof UpstreamError) {
    const descriptor = invoicingDescriptor.tools.find((t) => t.name === tool)!;
    const code = texts.forUpstream(descriptor, error.kind);
    if (code) return { error, code, text: texts.render(code, { status: error.status ?? 502 }) };
  }
  return { error, text: platformDescriptor.errors.generic!.text };
}

const READ_TOOLS = invoicingDescriptor.tools.filter((t) => !t.write).map((t) => t.name as InvoicingToolName);

beforeAll(() => nock.disableNetConnect());
afterAll(() => {
  nock.enableNetConnect();
  // No request with a method other than GET ever left, in any test of this file.
  expect([...methods]).toEqual(['GET']);
});
beforeEach(() => {
  sent.length = 0;
});
afterEach(() => {
  nock.cleanAll();
});

describe('the read tools', () => {
  it('are the 23 tools of the spec that do not write, and no invoicing tool is pending any more', () => {
    expect(READ_TOOLS).toHaveLength(23);
    expect(pendingHandlers['invoicing']).toEqual([]);
  });
});

describe('request shapes', () => {
  const LISTS: Array<[InvoicingToolName, Row, string, Row]> = [
    ['list_invoices_overdue', {}, '/invoices/overdue', { bookedInvoiceNumber: 1 }],
    ['list_customers', {}, '/customers', { customerNumber: 1 }],
    ['list_booked_invoices', {}, '/invoices/booked', { bookedInvoiceNumber: 1 }],
    ['list_draft_invoices', {}, '/invoices/drafts', { draftInvoiceNumber: 1 }],
    ['list_chart_of_accounts', {}, '/accounts', { accountNumber: 1000 }],
    [
      'list_year_account_totals',
      { year: '2024' },
      '/accounting-years/2024/totals',
      { account: { accountNumber: 1000 }, totalInBaseCurrency: 5 },
    ],
    ['list_accounting_years', {}, '/accounting-years', { year: '2024', fromDate: '2024-01-01', toDate: '2024-12-31' }],
    ['list_accounting_periods', { year: '2024' }, '/accounting-years/2024/periods', { periodNumber: 13 }],
    [
      'list_account_entries',
      { accountNumber: 5820, year: '2024' },
      '/accounts/5820/accounting-years/2024/entries',
      { entryNumber: 1, amount: 10 },
    ],
    ['list_products', {}, '/products', { productNumber: 'A-100' }],
    ['list_suppliers', {}, '/suppliers', { supplierNumber: 3 }],
    ['list_vat_accounts', {}, '/vat-accounts', { vatCode: 'U25', ratePercentage: 25 }],
    ['list_customer_groups', {}, '/customer-groups', { customerGroupNumber: 1 }],
    ['list_payment_terms', {}, '/payment-terms', { paymentTermsNumber: 1, paymentTermsType: 'net' }],
    ['list_vat_zones', {}, '/vat-zones', { vatZoneNumber: 1, name: 'Domestic' }],
    ['list_layouts', {}, '/layouts', { layoutNumber: 19 }],
    ['list_units', {}, '/units', { unitNumber: 1, name: 'stk.' }],
  ];

  it.each(LISTS)(
    '%s: GET %s with skippages=0&pagesize=20, both tokens, items = collection',
    async (tool, args, path, row) => {
      always([200, collection([row])]);
      const result = (await call(tool, args)) as { items: Row[]; pagination: Row };
      expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([`GET ${path}?skippages=0&pagesize=20`]);
      expect(sent[0]!.headers.get('x-appsecrettoken')).toBe(APP_SECRET);
      expect(sent[0]!.headers.get('x-agreementgranttoken')).toBe(GRANT);
      expect(sent[0]!.headers.get('accept')).toBe('application/json');
      expect(result.items).toEqual([row]);
      expect(result.pagination).toEqual({ results: 1, pageSize: 20, skipPages: 0, hasMore: false });
    },
  );

  it('the list tools are exactly the 17 read tools with `items`', () => {
    const lists = READ_TOOLS.filter(
      (t) =>
        invoicingDescriptor.tools.find((d) => d.name === t)!.inputSchema['properties'] &&
        'pagesize' in (invoicingDescriptor.tools.find((d) => d.name === t)!.inputSchema['properties'] as Row),
    );
    expect(lists.sort()).toEqual(LISTS.map(([tool]) => tool).sort());
  });

  it('pagesize, skippages, filter and sort go upstream lower-case, each percent-encoded as a whole', async () => {
    always([200, collection([], { pageSize: 1000, skipPages: 3, results: 0 })]);
    await call('list_customers', {
      pagesize: 1000,
      skippages: 3,
      filter: 'name$like:*acme a/s*$and:city$eq:Aarhus C',
      sort: '-balance,~name',
    });
    expect(sent.map((s) => s.url)).toEqual([
      '/customers?skippages=3&pagesize=1000&' +
        `filter=${encodeURIComponent('name$like:*acme a/s*$and:city$eq:Aarhus C')}&` +
        `sort=${encodeURIComponent('-balance,~name')}`,
    ]);
    expect(new URL(ORIGIN + sent[0]!.url).searchParams.get('filter')).toBe('name$like:*acme a/s*$and:city$eq:Aarhus C');
  });

  it('a pagesize over the upstream maximum (1000) or below 1, or a negative skippages, is refused', () => {
    for (const args of [{ pagesize: 1001 }, { pagesize: 0 }, { skippages: -1 }])
      expect(checkArguments({ coerce: [] }, validator('input_list_customers'), args).ok).toBe(false);
    expect(checkArguments({ coerce: [] }, validator('input_list_customers'), { pagesize: 1000 }).ok).toBe(true);
  });

  it('single reads: customer, booked invoice (with lines), totals, account year total, the root', async () => {
    const customer = { customerNumber: 42, name: 'Acme', balance: 100, self: `${ORIGIN}/customers/42` };
    const invoice = {
      bookedInvoiceNumber: 7,
      netAmount: 100,
      lines: [{ lineNumber: 1, product: { productNumber: 'A-1' }, quantity: 2 }],
    };
    const totals = {
      drafts: { invoiceCount: 2, netAmountInBaseCurrency: 50 },
      booked: { invoiceCount: 9, unpaid: { grossRemainderInBaseCurrency: 10 } },
    };
    const yearTotal = {
      account: { accountNumber: 1010 },
      fromDate: '2023-07-01',
      toDate: '2024-06-30',
      totalInBaseCurrency: -5,
    };
    upstream((s) => {
      const routes: Record<string, Reply> = {
        '/customers/42': [200, customer],
        '/invoices/booked/7': [200, invoice],
        '/invoices/totals': [200, totals],
        '/accounts/1010/accounting-years/2023_6_2024/totals': [200, yearTotal],
        '/': [200, { customers: `${ORIGIN}/customers` }],
      };
      return routes[s.url];
    });
    expect(await call('get_customer', { customerNumber: 42 })).toEqual(customer);
    expect(await call('get_booked_invoice', { bookedInvoiceNumber: 7 })).toEqual(invoice);
    expect(await call('get_invoice_totals', {})).toEqual(totals);
    expect(await call('get_account_year_total', { accountNumber: 1010, year: '2023/2024' })).toEqual(yearTotal);
    expect(await call('validate_connection', {})).toEqual({ connected: true });
    expect(sent.map((s) => s.url)).toEqual([
      '/customers/42',
      '/invoices/booked/7',
      '/invoices/totals',
      '/accounts/1010/accounting-years/2023_6_2024/totals',
      '/',
    ]);
  });

  it('a customer without dueAmount (older schema) is fine', async () => {
    always([200, { customerNumber: 5, name: 'Old', balance: 0 }]);
    expect(await call('get_customer', { customerNumber: 5 })).toEqual({ customerNumber: 5, name: 'Old', balance: 0 });
  });

  it('the app secret token is the deployment setting (credential.appSecret), the grant token stored', async () => {
    always([200, {}]);
    await call('validate_connection', {});
    expect(sent[0]!.headers.get('x-appsecrettoken')).toBe(APP_SECRET);
    expect(sent[0]!.headers.get('x-agreementgranttoken')).toBe(GRANT);
  });

  it('a token stored as `<appSecret>:<grant>` before the setting existed keeps its own app secret', async () => {
    always([200, {}]);
    await call(
      'validate_connection',
      {},
      { kind: 'static_token', token: `${APP_SECRET}:${GRANT}`, appSecret: 'Other9deploymentSecret' },
    );
    expect(sent[0]!.headers.get('x-appsecrettoken')).toBe(APP_SECRET);
    expect(sent[0]!.headers.get('x-agreementgranttoken')).toBe(GRANT);
  });

  it('the demo agreement: `demo` as the deployment app secret and as the grant', async () => {
    always([200, {}]);
    await call('validate_connection', {}, { kind: 'static_token', token: 'demo', appSecret: 'demo' });
    expect(sent[0]!.headers.get('x-appsecrettoken')).toBe('demo');
    expect(sent[0]!.headers.get('x-agreementgranttoken')).toBe('demo');
  });

  it('a plain grant without an app secret (the runtime refuses such a call first) sends nothing', async () => {
    always([200, {}]);
    const error = await (invoicingHandlers.validate_connection as (a: unknown, c: TestToolContext) => Promise<unknown>)(
      {},
      context('validate_connection', { kind: 'static_token', token: GRANT }),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(sent).toEqual([]);
  });
});

describe('the list envelope', () => {
  it('hasMore follows nextPage', async () => {
    always([
      200,
      collection([{ customerNumber: 1 }], {
        results: 41,
        pageSize: 1,
        skipPages: 0,
        nextPage: `${ORIGIN}/customers?skippages=1&pagesize=1`,
      }),
    ]);
    expect((await call('list_customers', { pagesize: 1 })).pagination).toEqual({
      results: 41,
      pageSize: 1,
      skipPages: 0,
      hasMore: true,
    });
  });

  it('a linked nextPage alone says hasMore, whatever the counts', async () => {
    always([
      200,
      collection([{ customerNumber: 1 }], {
        results: undefined,
        pageSize: 20,
        skipPages: 0,
        nextPage: `${ORIGIN}/customers?skippages=1`,
      }),
    ]);
    expect((await call('list_customers', {})).pagination).toEqual({
      results: 1,
      pageSize: 20,
      skipPages: 0,
      hasMore: true,
    });
  });

  it('the last page has no nextPage: hasMore false; the count is the filtered total, not the unfiltered', async () => {
    always([
      200,
      collection([{ customerNumber: 41 }], {
        results: 41,
        resultsWithoutFilter: 57,
        pageSize: 20,
        skipPages: 2,
        previousPage: `${ORIGIN}/p`,
      }),
    ]);
    expect((await call('list_customers', { skippages: 2 })).pagination).toEqual({
      results: 41,
      pageSize: 20,
      skipPages: 2,
      hasMore: false,
    });
  });

  it('without nextPage the counts still tell a further page (fallback of §3 #2)', async () => {
    always([200, collection([{ customerNumber: 1 }], { results: 41, pageSize: 20, skipPages: 0 })]);
    expect((await call('list_customers', {})).pagination.hasMore).toBe(true);
  });

  it('a body without `collection`, or a row without its number, is the generic text', async () => {
    always([200, { items: [] }]);
    expect((await failure('list_customers', {})).text).toBe('Tool invocation failed.');
    nock.cleanAll();
    always([200, collection([{ name: 'no number' }])]);
    expect((await failure('list_customers', {})).code).toBeUndefined();
  });
});

describe('answers read in every documented reading (audit against invoicing.md)', () => {
  it('a year, product number or VAT code written as a JSON number is kept as its string', async () => {
    upstream((s) =>
      s.url.startsWith('/accounting-years?')
        ? [200, collection([{ year: 2024, fromDate: '2024-01-01', toDate: '2024-12-31' }, { year: '2023/2024' }])]
        : s.url.startsWith('/products?')
          ? [200, collection([{ productNumber: 7, name: 'Seven' }])]
          : [200, collection([{ vatCode: 25 }])],
    );
    expect((await call('list_accounting_years', {})).items.map((r) => r.year)).toEqual(['2024', '2023/2024']);
    expect((await call('list_products', {})).items).toEqual([{ productNumber: '7', name: 'Seven' }]);
    expect((await call('list_vat_accounts', {})).items).toEqual([{ vatCode: '25' }]);
  });

  it('get_account_year_total: a single object (the docs), or its row in the collection envelope', async () => {
    const total = {
      account: { accountNumber: 1010 },
      fromDate: '2024-01-01',
      toDate: '2024-12-31',
      totalInBaseCurrency: 12.5,
    };
    always([200, collection([total])]);
    expect(await call('get_account_year_total', { accountNumber: 1010, year: '2024' })).toEqual(total);
    nock.cleanAll();
    always([200, collection([])]);
    expect((await failure('get_account_year_total', { accountNumber: 1010, year: '2024' })).text).toBe(
      'Tool invocation failed.',
    );
  });

  it('an $in: list written with spaces goes upstream in the documented form [2,5,7]', async () => {
    expect(normalizeFilter('customerNumber$in:[2, 5 ,7]', 200)).toBe('customerNumber$in:[2,5,7]');
    always([200, collection([])]);
    await call('list_customers', { filter: 'customerNumber$nin:[ 1 , 2 ]' });
    expect(new URL(ORIGIN + sent[0]!.url).searchParams.get('filter')).toBe('customerNumber$nin:[1,2]');
  });
});

describe('accounting-year path encoding (§2, §3 #1)', () => {
  it('the §2 table, and standard URL-encoding for anything else', () => {
    expect(encodeIdentifier('<>*%:&/\\_ ?.#+')).toBe('_0__1__2__3__4__5__6__7__8__9__10__11__12__13_');
    expect(encodeIdentifier('2023/2024')).toBe('2023_6_2024');
    expect(encodeIdentifier('A-100')).toBe('A-100');
    expect(encodeIdentifier('æ"é')).toBe('%C3%A6%22%C3%A9');
    expect(encodeIdentifier(42)).toBe('42');
  });

  it.each([
    ['list_accounting_periods', { year: '2023/2024' }, '/accounting-years/2023_6_2024/periods'],
    ['list_year_account_totals', { year: '2023/2024' }, '/accounting-years/2023_6_2024/totals'],
    [
      'list_account_entries',
      { accountNumber: 5820, year: '2023/2024' },
      '/accounts/5820/accounting-years/2023_6_2024/entries',
    ],
  ] as Array<[InvoicingToolName, Row, string]>)(
    '%s: a split year goes as _6_, never as a slash or its percent-encoding',
    async (tool, args, path) => {
      always([200, collection([])]);
      await call(tool, args);
      expect(sent.map((s) => s.url)).toEqual([`${path}?skippages=0&pagesize=20`]);
      expect(sent[0]!.url).not.toMatch(/%2F/i);
    },
  );

  it('a year that tries to climb out of its path segment stays one segment', async () => {
    always([200, collection([])]);
    await call('list_accounting_periods', { year: '../../customers?x=1#' });
    expect(sent.map((s) => s.url)).toEqual([
      '/accounting-years/_11__11__6__11__11__6_customers_10_x%3D1_12_/periods?skippages=0&pagesize=20',
    ]);
  });
});

describe('the filter grammar', () => {
  const ok = (input: string) => normalizeFilter(input, 200);
  const refused = (input: string) => expect(() => ok(input), input).toThrow('filter syntax');

  it('keeps well-formed expressions of the spec as they are', () => {
    for (const f of [
      'name$like:*acme*',
      'date$gte:2024-01-01$and:date$lte:2024-12-31',
      'customer.customerNumber$eq:5',
      '(name$like:a$or:name$like:b)$and:barred$eq:true',
      'customerNumber$in:[2,5,7]',
      'balance$nin:[-1.5,0]',
      'email$eq:$null:',
      'name$eq:a$,b$(c$)',
    ])
      expect(ok(f)).toBe(f);
  });

  it('escapes grammar characters inside a value, so a value cannot open or close a group or add list items', () => {
    expect(ok('name$eq:Smith (Holdings)')).toBe('name$eq:Smith $(Holdings$)');
    expect(ok('(name$eq:Smith (X))')).toBe('(name$eq:Smith $(X$))');
    expect(ok('name$eq:a,b[1]')).toBe('name$eq:a$,b$[1$]');
    expect(ok('name$eq:5*')).toBe('name$eq:5$*');
    expect(ok('name$like:*5*')).toBe('name$like:*5*');
    expect(ok('name$eq:100$ off')).toBe('name$eq:100$$ off');
    expect(ok('name$eq:x)$or:customerNumber$gt:0')).toBe('name$eq:x$)$or:customerNumber$gt:0');
  });

  it('refuses what is not the grammar', () => {
    for (const f of [
      '',
      ' ',
      'name',
      'name:acme',
      'name$contains:x',
      'name$eq:',
      '$eq:x',
      'na me$eq:x',
      'name$eq:x$and:',
      'name$eq:x$or:(customerNumber$gt:0',
      '(name$eq:x',
      'name$eq:x\n$or:y$eq:1',
      'name$eq:a\u0000',
      'customerNumber$in:2,5',
      'customerNumber$in:[2,x]',
      'customerNumber$in:[]',
      'customerNumber$in:[1]$foo',
      `customerNumber$in:[${Array.from({ length: 201 }, (_, i) => i).join(',')}]`,
    ])
      refused(f);
    expect(ok(`customerNumber$in:[${Array.from({ length: 200 }, (_, i) => i).join(',')}]`)).toContain('$in:[0,1,');
  });

  it('an injection attempt through the query string is one encoded filter value, never another parameter', async () => {
    always([200, collection([])]);
    await call('list_customers', { filter: 'name$like:*a*&pagesize=1000&sort=name#frag' });
    const url = new URL(ORIGIN + sent[0]!.url);
    expect([...url.searchParams.keys()]).toEqual(['skippages', 'pagesize', 'filter']);
    expect(url.searchParams.get('pagesize')).toBe('20');
    expect(url.searchParams.get('filter')).toBe('name$like:*a*&pagesize=1000&sort=name#frag');
  });

  it('an escaped value reaches the upstream escaped', async () => {
    always([200, collection([])]);
    await call('list_booked_invoices', { filter: 'notes.heading$eq:Order (12)' });
    expect(new URL(ORIGIN + sent[0]!.url).searchParams.get('filter')).toBe('notes.heading$eq:Order $(12$)');
  });

  it('a refused filter (an unclosed group) is `invalid_filter` with the position, unsent, unmetered', async () => {
    always([200, collection([])]);
    const { error, code, text } = await failure('list_customers', { filter: 'name$eq:x$or:(city$eq:y' });
    expect(error).toBeInstanceOf(ArgumentRefusal);
    expect(code).toBe('invalid_filter');
    expect(text).toBe(
      'The filter was not sent to e-conomic: it is not a valid filter expression near character 24 ' +
        '(`name$eq:x$or:(city$eq:y`). Write clauses as `field$operator:value` (operators `$eq:` `$ne:` `$gt:` ' +
        '`$gte:` `$lt:` `$lte:` `$like:` `$in:` `$nin:`), for example `name$like:*acme*`, joined with `$and:` or ' +
        '`$or:` and grouped with balanced parentheses; `$in:` and `$nin:` take a list of at most 200 numbers ' +
        'such as `[2,5,7]`.',
    );
    expect(sent).toEqual([]);
  });

  it('a control character in a refused filter is shown as ?', async () => {
    const { text } = await failure('list_account_entries', { accountNumber: 1, year: '2024', filter: 'text$eq:a\nb' });
    expect(text).toContain('(`?b`)');
    expect(sent).toEqual([]);
  });
});

describe('the sort grammar', () => {
  it('field, -field, ~field, comma-separated go through', async () => {
    always([200, collection([])]);
    await call('list_products', { sort: '-salesPrice,~name,productNumber' });
    expect(new URL(ORIGIN + sent[0]!.url).searchParams.get('sort')).toBe('-salesPrice,~name,productNumber');
  });

  it.each(['name&filter=x', 'name desc', '', '-', 'name,', '--name', 'a;b'])(
    '%j is refused with `invalid_sort`, nothing sent',
    async (sort) => {
      always([200, collection([])]);
      const { error, code, text } = await failure('list_customers', { sort });
      expect(error).toBeInstanceOf(ArgumentRefusal);
      expect(code).toBe('invalid_sort');
      expect(text).toBe(
        `The sort \`${sort}\` was not sent to e-conomic: give field names separated by commas, each optionally ` +
          `prefixed with \`-\` (descending) or \`~\` (alphabetical), for example \`-date,name\`.`,
      );
      expect(sent).toEqual([]);
    },
  );
});

describe('PDFs', () => {
  it('download_invoice_pdf: GET /invoices/booked/{n}/pdf, the raw bytes base64-encoded', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0, 1, 2, 255, 254]), Buffer.from('\n%%EOF')]);
    upstream((s) =>
      s.url === '/invoices/booked/7/pdf' ? [200, pdf, { 'content-type': 'application/pdf' }] : undefined,
    );
    const result = await call('download_invoice_pdf', { bookedInvoiceNumber: 7 });
    expect(result).toEqual({
      bookedInvoiceNumber: 7,
      contentType: 'application/pdf',
      pdfBase64: pdf.toString('base64'),
    });
    expect(Buffer.from(result.pdfBase64, 'base64').equals(pdf)).toBe(true);
    expect(sent[0]!.headers.get('accept')).toBe('application/pdf');
    expect(sent[0]!.headers.get('x-agreementgranttoken')).toBe(GRANT);
  });

  it('the documented path answering 404: the invoice is read, its pdf.download (or self) link followed', async () => {
    const pdf = Buffer.from('%PDF-1.7\n%%EOF');
    for (const key of ['download', 'self']) {
      nock.cleanAll();
      sent.length = 0;
      upstream((s) =>
        s.url === '/invoices/booked/7'
          ? [200, { bookedInvoiceNumber: 7, pdf: { [key]: `${ORIGIN}/invoices/booked/7/document` } }]
          : s.url === '/invoices/booked/7/document'
            ? [200, pdf, { 'content-type': 'application/pdf' }]
            : undefined,
      );
      const result = await call('download_invoice_pdf', { bookedInvoiceNumber: 7 });
      expect(result.pdfBase64).toBe(pdf.toString('base64'));
      expect(sent.map((s) => s.url)).toEqual([
        '/invoices/booked/7/pdf',
        '/invoices/booked/7',
        '/invoices/booked/7/document',
      ]);
    }
  });

  it('a 404 whose invoice links the same path, no PDF, or is missing is the generic text without a loop', async () => {
    for (const invoice of [
      { bookedInvoiceNumber: 7, pdf: { self: `${ORIGIN}/invoices/booked/7/pdf` } },
      { bookedInvoiceNumber: 7 },
      undefined,
    ]) {
      nock.cleanAll();
      sent.length = 0;
      upstream((s) => (s.url === '/invoices/booked/7' && invoice ? [200, invoice] : undefined));
      expect((await failure('download_invoice_pdf', { bookedInvoiceNumber: 7 })).text).toBe('Tool invocation failed.');
      expect(sent.map((s) => s.url)).toEqual(['/invoices/booked/7/pdf', '/invoices/booked/7']);
    }
  });

  it('a link to another host (by a proxy or fake) is asked of the configured upstream: tokens stay there', async () => {
    const pdf = Buffer.from('%PDF-1.7\n%%EOF');
    upstream((s) =>
      s.url === '/invoices/booked/7'
        ? [
            200,
            {
              bookedInvoiceNumber: 7,
              pdf: { download: 'https://restapi.e-conomic.com/invoices/booked/7/document?x=1' },
            },
          ]
        : s.url === '/invoices/booked/7/document?x=1'
          ? [200, pdf]
          : undefined,
    );
    expect((await call('download_invoice_pdf', { bookedInvoiceNumber: 7 })).pdfBase64).toBe(pdf.toString('base64'));
    expect(sent.map((s) => s.url)).toEqual([
      '/invoices/booked/7/pdf',
      '/invoices/booked/7',
      '/invoices/booked/7/document?x=1',
    ]);
    // The same path on another host is the path already tried; a link that is no http(s) URL is not followed.
    for (const download of [
      'https://restapi.e-conomic.com/invoices/booked/7/pdf',
      'mailto:x@example.test',
      'not a link',
    ]) {
      nock.cleanAll();
      sent.length = 0;
      upstream((s) =>
        s.url === '/invoices/booked/7' ? [200, { bookedInvoiceNumber: 7, pdf: { download } }] : undefined,
      );
      expect((await failure('download_invoice_pdf', { bookedInvoiceNumber: 7 })).text, download).toBe(
        'Tool invocation failed.',
      );
      expect(sent.map((s) => s.url)).toEqual(['/invoices/booked/7/pdf', '/invoices/booked/7']);
    }
  });

  it('a body that is not a PDF is the generic text', async () => {
    always([200, '<html>login</html>', { 'content-type': 'text/html' }]);
    const { code, text } = await failure('download_invoice_pdf', { bookedInvoiceNumber: 7 });
    expect(code).toBeUndefined();
    expect(text).toBe('Tool invocation failed.');
  });
});

describe('errors', () => {
  const reconnect = (status: number) =>
    `e-conomic refused the stored grant token (HTTP ${status}): it is invalid or has ` +
    'been revoked. Reconnect this account from the portal, then try again.';

  it.each(READ_TOOLS.map((tool) => [tool]))(
    '%s: 401 and 403 end in reconnect_required (declared `upstream: [auth]`, `reconnect: true`)',
    async (tool) => {
      const args: Row = { customerNumber: 1, bookedInvoiceNumber: 1, accountNumber: 1, year: '2024' };
      const properties = Object.keys(
        (invoicingDescriptor.tools.find((t) => t.name === tool)!.inputSchema['properties'] ?? {}) as Row,
      );
      const own = Object.fromEntries(Object.entries(args).filter(([k]) => properties.includes(k)));
      for (const status of [401, 403]) {
        nock.cleanAll();
        always([
          status,
          {
            message: 'Unauthorized.',
            developerHint: 'Grant revoked.',
            logId: 'l',
            httpStatusCode: status,
            logTime: 't',
          },
        ]);
        const { error, code, text } = await failure(tool, own);
        expect(error).toBeInstanceOf(UpstreamError);
        expect(code).toBe('reconnect_required');
        expect(text).toBe(reconnect(status));
        expect(invoicingDescriptor.errors.reconnect_required.reconnect).toBe(true);
      }
    },
  );

  it('an annotated 400 names each rejected field with its message (arrayIndex → lines[i])', async () => {
    always([
      400,
      {
        message: 'Validation error.',
        developerHint: 'Inspect the errors.',
        logId: 'u',
        httpStatusCode: 400,
        errors: {
          currency: { errors: [{ errorCode: 'E06000', message: 'Currency not found.', value: 'ZUL' }] },
          lines: [
            { arrayIndex: 2, unitNetPrice: { errors: [{ errorCode: 'E04740', message: 'At most 2 decimals.' }] } },
          ],
          recipient: { vatZone: { errors: [{ errorCode: 'E06000', message: 'VAT zone not found.' }] } },
        },
      },
    ]);
    const { code, text } = await failure('get_customer', { customerNumber: 1 });
    expect(code).toBe('upstream_rejected');
    expect(text).toBe(
      'e-conomic rejected the request: currency: Currency not found.; ' +
        'lines[2].unitNetPrice: At most 2 decimals.; recipient.vatZone: VAT zone not found.',
    );
  });

  it('the query-string 400 joins its errors and names the fields that may be used', async () => {
    always([
      400,
      {
        message: 'Could not parse query string filter.',
        developerHint: 'x',
        logId: 'u',
        httpStatusCode: 400,
        errors: ["Filtering is not allowed on property 'shoeSize'."],
        allowedFilteringFields: ['name', 'email', 'customerNumber'],
      },
    ]);
    const { code, text } = await failure('list_customers', { filter: 'shoeSize$eq:42' });
    expect(code).toBe('upstream_rejected');
    expect(text).toBe(
      'e-conomic rejected the request: Filtering is not allowed on property ' +
        "'shoeSize'.; fields that may be used: name, email, customerNumber",
    );
  });

  it('a 400 with only a message passes the message; a non-JSON 400 passes its text', () => {
    const allowed = (fields: string) => `allowed: ${fields}`;
    expect(rejectionDetails({ message: 'Sorting is not allowed on property x.' }, allowed)).toBe(
      'Sorting is not allowed on property x.',
    );
    expect(rejectionDetails('Bad Request', allowed)).toBe('Bad Request');
    expect(rejectionDetails(null, allowed)).toBe('HTTP 400');
    // Not the documented shapes: a multi-line text is one line, a proxy's HTML page is not passed on.
    expect(rejectionDetails('  Bad\r\n  Request \n', allowed)).toBe('Bad Request');
    expect(rejectionDetails('<html><body><h1>400 Bad Request</h1></body></html>', allowed)).toBe('HTTP 400');
    expect(rejectionDetails('<!DOCTYPE html><html></html>', allowed)).toBe('HTTP 400');
    // An annotated entry that is a bare string still names its field.
    expect(rejectionDetails({ errors: { currency: { errors: ['Currency not found.'] } } }, allowed)).toBe(
      'currency: Currency not found.',
    );
  });

  it('a long 400 is capped at rejectionDetailsMaxChars', async () => {
    always([400, { errors: { name: { errors: [{ message: 'x'.repeat(5000) }] } } }]);
    const { text } = await failure('list_suppliers', {});
    expect(text.length).toBeLessThanOrEqual(
      'e-conomic rejected the request: '.length + invoicingDescriptor.limits.rejectionDetailsMaxChars!,
    );
    expect(text.endsWith('…')).toBe(true);
  });

  it('tools whose spec lists no upstream_rejected (totals, the root) answer a 400 with the generic text', async () => {
    always([400, { message: 'Validation error.' }]);
    for (const tool of ['get_invoice_totals', 'validate_connection'] as const)
      expect((await failure(tool, {})).text).toBe('Tool invocation failed.');
  });

  it('404, 5xx and a body that is not JSON end in the generic text', async () => {
    always([404, { message: 'Not found.' }]);
    expect((await failure('get_customer', { customerNumber: 999 })).text).toBe('Tool invocation failed.');
    nock.cleanAll();
    always([500, { message: 'Oops.' }]);
    expect((await failure('list_units', {})).text).toBe('Tool invocation failed.');
    nock.cleanAll();
    always([200, 'not json']);
    expect((await failure('get_booked_invoice', { bookedInvoiceNumber: 1 })).text).toBe('Tool invocation failed.');
  });

  it('429, 501 and a proxy HTML page end in the generic text after one request (no retry: spec policy)', async () => {
    for (const reply of [
      [429, { message: 'Too many requests.' }, { 'retry-after': '0' }],
      [429, 'slow down', { 'content-type': 'text/plain', 'token-limit-10000-per-60-seconds': '10000/10000' }],
      [501, { message: 'Not implemented.', httpStatusCode: 501 }],
      [502, '<html><body>Bad Gateway</body></html>', { 'content-type': 'text/html' }],
    ] as Reply[]) {
      nock.cleanAll();
      sent.length = 0;
      always(reply);
      expect((await failure('list_customers', {})).text, String(reply[0])).toBe('Tool invocation failed.');
      expect(sent, String(reply[0])).toHaveLength(1);
    }
  });

  it('a connection without a static token is the generic text and sends nothing', async () => {
    always([200, {}]);
    const error = await (invoicingHandlers.validate_connection as (a: unknown, c: TestToolContext) => Promise<unknown>)(
      {},
      context('validate_connection', null),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ToolError);
    expect(sent).toEqual([]);
  });

  it('the spec texts rendered here are the descriptor texts', () => {
    expect(formatText(invoicingDescriptor.errors.upstream_rejected.text, { upstream: 'e-conomic', details: 'd' })).toBe(
      'e-conomic rejected the request: d',
    );
  });
});

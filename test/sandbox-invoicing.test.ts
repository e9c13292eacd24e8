// The e-conomic (invoicing) sandbox, tested through its own HTTP interface, item by item of
// ../shared/upstreams/invoicing.md §4: both token headers and the demo/read-only grants, 415/405
// and the log of DELETEs and booking attempts, the exact pagination block with absolute links,
// the filter and sort grammar with both 400 forms, the identifier path encoding, customer and
// draft writes with their annotated 400s, PDFs, totals and overdue against an injectable "today",
// the fault switches, the demo data, the request and write logs, and the sandbox record.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  INVOICING_CREDIT_NOTE_NUMBER,
  INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT,
  INVOICING_DEMO_COUNTS,
  INVOICING_DUE_DATE_TERMS,
  INVOICING_SHORT_YEAR,
  INVOICING_SPLIT_YEAR,
  type InvoicingData,
} from '../sandbox/invoicing/data.ts';
import { sandboxEnv } from '../bin/demo.ts';
import type { SandboxSet } from '../sandbox/index.ts';
import { sandbox as invoicingSandboxRecord } from '../sandbox/invoicing/index.ts';
import {
  INVOICING_DEFAULT_SLOW_DELAY_MS,
  INVOICING_SANDBOX_APP_SECRET,
  INVOICING_SANDBOX_GRANT,
  INVOICING_SANDBOX_READONLY_GRANT,
  type InvoicingSandbox,
  startInvoicingSandbox,
} from '../sandbox/invoicing/server.ts';

type Row = Record<string, any>;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: () => any;
}

interface CallOptions {
  secret?: string | null;
  grant?: string | null;
  method?: string;
  body?: unknown;
  contentType?: string | null;
  signal?: AbortSignal;
}

const PUBLIC = 'https://restapi.example.test';
let sb: InvoicingSandbox;
let direct: InvoicingSandbox;
/** The live data, loosely typed for assertions. */
type LooseData = { [K in Exclude<keyof InvoicingData, 'entries' | 'periods'>]: Row[] } & Pick<
  InvoicingData,
  'entries' | 'periods'
>;
const data = (): LooseData => sb.data;

async function call(path: string, options: CallOptions = {}, on: InvoicingSandbox = sb): Promise<Reply> {
  const headers: Record<string, string> = {};
  const secret = options.secret === undefined ? INVOICING_SANDBOX_APP_SECRET : options.secret;
  const grant = options.grant === undefined ? INVOICING_SANDBOX_GRANT : options.grant;
  if (secret !== null) headers['x-appsecrettoken'] = secret;
  if (grant !== null) headers['x-agreementgranttoken'] = grant;
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
  if (options.body !== undefined && contentType !== null) headers['content-type'] = contentType;
  const res = await fetch(on.url + path, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const get = async (path: string, options: CallOptions = {}): Promise<any> => {
  const r = await call(path, options);
  expect(r.status, r.text).toBe(200);
  return r.json();
};
const f = (expr: string): string => `filter=${encodeURIComponent(expr)}`;
const numbers = (body: Row, key = 'customerNumber'): unknown[] => body.collection.map((r: Row) => r[key]);

function expectErrorBody(body: Row, status: number): void {
  expect(body).toMatchObject({
    message: expect.any(String),
    developerHint: expect.any(String),
    httpStatusCode: status,
    logTime: expect.any(String),
  });
  expect(body.logId).toMatch(/^[0-9a-f-]{36}$/);
}

beforeAll(async () => {
  sb = await startInvoicingSandbox({ publicUrl: PUBLIC });
  direct = await startInvoicingSandbox();
});
afterAll(async () => {
  await sb.close();
  await direct.close();
});
afterEach(() => {
  sb.resetSwitches();
});

describe('authentication: both token headers', () => {
  it('answers 401 with the documented body when either header is missing or unknown', async () => {
    for (const options of [
      { secret: null },
      { grant: null },
      { secret: null, grant: null },
      { secret: 'not-the-secret-Kq3' },
      { grant: 'unknown-grant-Zr8' },
    ]) {
      const r = await call('/customers', options);
      expect(r.status).toBe(401);
      expectErrorBody(r.json(), 401);
      expect(r.json().developerHint).toContain(`${PUBLIC}/customers?demo=true`);
    }
  });

  it('accepts the grant and the secret together', async () => {
    expect((await call('/customers')).status).toBe(200);
    expect((await call('/')).json().resources.map((r: Row) => r.name)).toContain('customers');
    expect(await get('/self')).toMatchObject({
      agreementNumber: expect.any(Number),
      company: { name: expect.any(String) },
      user: expect.any(Object),
    });
  });

  it('demo/demo and ?demo=true read but may not write', async () => {
    expect((await call('/customers', { secret: 'demo', grant: 'demo' })).status).toBe(200);
    expect((await call('/customers?demo=true', { secret: null, grant: null })).status).toBe(200);
    const before = data().customers.length;
    const w = await call('/customers', { secret: 'demo', grant: 'demo', method: 'POST', body: { name: 'X' } });
    expect(w.status).toBe(403);
    expectErrorBody(w.json(), 403);
    expect(data().customers.length).toBe(before);
  });

  it('a read-only grant reads and gets 403 on POST and PUT', async () => {
    expect((await call('/customers', { grant: INVOICING_SANDBOX_READONLY_GRANT })).status).toBe(200);
    expect(
      (await call('/customers', { grant: INVOICING_SANDBOX_READONLY_GRANT, method: 'POST', body: {} })).status,
    ).toBe(403);
    expect(
      (await call('/customers/1001', { grant: INVOICING_SANDBOX_READONLY_GRANT, method: 'PUT', body: {} })).status,
    ).toBe(403);
    expect(
      (await call('/invoices/drafts', { grant: INVOICING_SANDBOX_READONLY_GRANT, method: 'POST', body: {} })).status,
    ).toBe(403);
  });

  it('a revoked grant answers 401 from then on', async () => {
    const other = await startInvoicingSandbox();
    try {
      expect((await call('/customers', {}, other)).status).toBe(200);
      other.revokeGrant(INVOICING_SANDBOX_GRANT);
      expect((await call('/customers', {}, other)).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('methods: 415, 405, and no DELETE or booking', () => {
  it('a write without a JSON content type is 415', async () => {
    const r = await call('/customers', {
      method: 'POST',
      body: 'name=x',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(r.status).toBe(415);
    expectErrorBody(r.json(), 415);
    expect((await call('/customers', { method: 'POST', body: '{}', contentType: null })).status).toBe(415);
  });

  it('unsupported methods are 405; every DELETE and booking attempt is logged', async () => {
    sb.resetStats();
    expect((await call('/customers/1001', { method: 'PATCH', body: {} })).status).toBe(405);
    expect((await call('/customers', { method: 'PUT', body: {} })).status).toBe(405);
    expect(sb.stats.forbidden).toEqual([]);
    const del = await call('/customers/1001', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect((await call('/invoices/drafts/1', { method: 'DELETE' })).status).toBe(405);
    const book = await call('/invoices/booked', { method: 'POST', body: { draftInvoice: { draftInvoiceNumber: 1 } } });
    expect(book.status).toBe(405);
    expect(sb.stats.forbidden.map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
      'DELETE /customers/1001 405',
      'DELETE /invoices/drafts/1 405',
      'POST /invoices/booked 405',
    ]);
    expect(sb.stats.forbidden[2]!.body).toEqual({ draftInvoice: { draftInvoiceNumber: 1 } });
    // Nothing was deleted or booked.
    expect(data().customers.some((c) => c.customerNumber === 1001)).toBe(true);
    expect(data().booked.length).toBe(INVOICING_DEMO_COUNTS.booked);
    // Even unauthenticated attempts are logged.
    await call('/customers/1002', { method: 'DELETE', secret: null });
    expect(sb.stats.forbidden).toHaveLength(4);
  });
});

describe('the pagination block', () => {
  it('first, middle and last pages of the 60 customers at the default page size', async () => {
    const first = await get('/customers');
    expect(first.collection).toHaveLength(20);
    expect(first.pagination).toEqual({
      maxPageSizeAllowed: 1000,
      skipPages: 0,
      pageSize: 20,
      results: 60,
      resultsWithoutFilter: 60,
      firstPage: `${PUBLIC}/customers?skippages=0&pagesize=20`,
      nextPage: `${PUBLIC}/customers?skippages=1&pagesize=20`,
      lastPage: `${PUBLIC}/customers?skippages=2&pagesize=20`,
    });
    expect(first.self).toBe(`${PUBLIC}/customers?skippages=0&pagesize=20`);
    expect(first.metaData.create.href).toBe(`${PUBLIC}/customers`);
    const middle = await get('/customers?skippages=1');
    expect(middle.pagination.previousPage).toBe(`${PUBLIC}/customers?skippages=0&pagesize=20`);
    expect(middle.pagination.nextPage).toBe(`${PUBLIC}/customers?skippages=2&pagesize=20`);
    const last = await get('/customers?skippages=2');
    expect(last.pagination).not.toHaveProperty('nextPage');
    expect(last.collection).toHaveLength(20);
    const all = [...first.collection, ...middle.collection, ...last.collection].map((c: Row) => c.customerNumber);
    expect(new Set(all).size).toBe(60);
  });

  it('absolute self links on every record; the links of a plain sandbox can be followed', async () => {
    const page = await get('/customers?pagesize=1');
    expect(page.collection[0].self).toBe(`${PUBLIC}/customers/${page.collection[0].customerNumber}`);
    expect(page.collection[0].customerGroup.self).toMatch(new RegExp(`^${PUBLIC}/customer-groups/\\d$`));
    const d = await call('/customers?pagesize=25', {}, direct);
    const next = d.json().pagination.nextPage as string;
    expect(next.startsWith(direct.url)).toBe(true);
    const r = await fetch(next, {
      headers: { 'x-appsecrettoken': INVOICING_SANDBOX_APP_SECRET, 'x-agreementgranttoken': INVOICING_SANDBOX_GRANT },
    });
    expect(((await r.json()) as Row).pagination.skipPages).toBe(1);
  });

  it('results counts the filter, resultsWithoutFilter does not; links keep filter and sort', async () => {
    const body = await get(`/customers?pagesize=5&${f('currency$eq:DKK')}&sort=-name`);
    expect(body.pagination.results).toBe(data().customers.filter((c) => c.currency === 'DKK').length);
    expect(body.pagination.results).toBeLessThan(60);
    expect(body.pagination.resultsWithoutFilter).toBe(60);
    expect(body.pagination.nextPage).toContain('filter=currency%24eq%3ADKK');
    expect(body.pagination.nextPage).toContain('sort=-name');
  });

  it('no previousPage on the first page, no nextPage when everything fits', async () => {
    const body = await get('/vat-zones');
    expect(body.pagination).not.toHaveProperty('previousPage');
    expect(body.pagination).not.toHaveProperty('nextPage');
    expect(body.pagination.lastPage).toBe(body.pagination.firstPage);
  });

  it('pagesize above 1000: clamped by default, 400 when switched; invalid values are 400', async () => {
    expect((await get('/invoices/booked?pagesize=5000')).pagination.pageSize).toBe(1000);
    expect((await get('/invoices/booked?pagesize=1000')).collection).toHaveLength(150);
    sb.setSwitches({ pageSizeOverMax: 'reject' });
    const r = await call('/invoices/booked?pagesize=1001');
    expect(r.status).toBe(400);
    expect(Array.isArray(r.json().errors)).toBe(true);
    for (const q of ['pagesize=0', 'pagesize=abc', 'skippages=-1'])
      expect((await call(`/customers?${q}`)).status).toBe(400);
  });
});

describe('the filter grammar', () => {
  const count = async (resource: string, expr: string): Promise<number> =>
    (await get(`/${resource}?pagesize=1000&${f(expr)}`)).pagination.results;

  it('every comparison operator', async () => {
    const c = data().customers;
    expect(await count('customers', 'customerNumber$eq:1010')).toBe(1);
    expect(await count('customers', 'customerNumber$ne:1010')).toBe(59);
    expect(await count('customers', 'customerNumber$gt:1050')).toBe(10);
    expect(await count('customers', 'customerNumber$gte:1050')).toBe(11);
    expect(await count('customers', 'customerNumber$lt:1005')).toBe(4);
    expect(await count('customers', 'customerNumber$lte:1005')).toBe(5);
    expect(await count('customers', 'balance$gt:0')).toBe(c.filter((x) => x.balance > 0).length);
    expect(await count('invoices/booked', 'date$gte:2024-07-01$and:date$lte:2024-12-31')).toBe(
      data().booked.filter((b) => b.date >= '2024-07-01' && b.date <= '2024-12-31').length,
    );
  });

  it('$like: with wildcards, without (contains), case-insensitive; $eq: on strings is case-insensitive', async () => {
    const body = await get(`/customers?${f('name$like:acme*')}`);
    expect(body.collection.map((x: Row) => x.name)).toEqual(['Acme (Nordic) ApS']);
    expect(await count('customers', 'name$like:NORDIC')).toBe(
      data().customers.filter((x) => /nordic/i.test(x.name)).length,
    );
    expect(await count('customers', 'name$like:*aps')).toBe(
      data().customers.filter((x) => /aps$/i.test(x.name)).length,
    );
    // Without a wildcard `$like:` is "contains"; with a trailing one it is "starts with".
    expect(await count('customers', 'name$like:nordic')).toBeGreaterThan(await count('customers', 'name$like:nordic*'));
    expect(await count('customers', 'name$like:nordic*')).toBe(
      data().customers.filter((x) => /^nordic/i.test(x.name)).length,
    );
    expect(await count('customers', 'currency$eq:dkk')).toBe(
      data().customers.filter((x) => x.currency === 'DKK').length,
    );
  });

  it('$in: and $nin: take numeric lists of at most 200 items', async () => {
    expect(numbers(await get(`/customers?${f('customerNumber$in:[1002,1005,1007]')}`))).toEqual([1002, 1005, 1007]);
    expect(await count('customers', 'customerNumber$nin:[1002,1005,1007]')).toBe(57);
    expect((await call(`/customers?${f('name$in:[a,b]')}`)).status).toBe(400);
    const many = Array.from({ length: 201 }, (_, i) => i + 1).join(',');
    expect((await call(`/customers?${f(`customerNumber$in:[${many}]`)}`)).status).toBe(400);
    expect(
      (await call(`/customers?${f(`customerNumber$in:[${many.split(',').slice(0, 200).join(',')}]`)}`)).status,
    ).toBe(200);
  });

  it('$null: matches a missing value; escapes keep special characters literal', async () => {
    const withoutEmail = data().customers.filter((x) => x.email === undefined).length;
    expect(withoutEmail).toBeGreaterThan(0);
    expect(await count('customers', 'email$eq:$null:')).toBe(withoutEmail);
    expect(await count('customers', 'email$ne:$null:')).toBe(60 - withoutEmail);
    expect(await count('customers', 'name$eq:Acme $(Nordic$) ApS')).toBe(1);
    expect((await call(`/customers?${f('name$eq:Acme (Nordic) ApS')}`)).status).toBe(400);
    // `$*` is a literal star, not a wildcard; `$$ $, $[ $]` are literal characters, not syntax.
    expect(await count('customers', 'name$like:Acme$*')).toBe(0);
    expect(await count('customers', 'name$like:Acme*')).toBe(1);
    for (const expr of ['name$eq:a$$b', 'name$like:$[x$,y$]']) expect(await count('customers', expr)).toBe(0);
    expect((await call(`/customers?${f('name$eq:a$b')}`)).status).toBe(400);
  });

  it('$and: binds tighter than $or:; parentheses group', async () => {
    const c = data().customers;
    const expected = c.filter(
      (x) => x.customerNumber === 1001 || (x.currency === 'EUR' && x.customerNumber > 1030),
    ).length;
    expect(await count('customers', 'customerNumber$eq:1001$or:currency$eq:EUR$and:customerNumber$gt:1030')).toBe(
      expected,
    );
    const grouped = c.filter(
      (x) => (x.customerNumber === 1001 || x.currency === 'EUR') && x.customerNumber > 1030,
    ).length;
    expect(await count('customers', '(customerNumber$eq:1001$or:currency$eq:EUR)$and:customerNumber$gt:1030')).toBe(
      grouped,
    );
    expect(grouped).not.toBe(expected);
  });

  it('booleans omitted when false still filter as false; nested invoice fields filter', async () => {
    const barred = data().customers.filter((x) => x.barred === true).length;
    expect(barred).toBeGreaterThan(0);
    expect(await count('customers', 'barred$eq:true')).toBe(barred);
    expect(await count('customers', 'barred$eq:false')).toBe(60 - barred);
    expect(await count('invoices/booked', 'customer.customerNumber$eq:1017')).toBe(
      data().booked.filter((b) => b.customer.customerNumber === 1017).length,
    );
  });

  it('a non-filterable property is the string-array 400 with allowedFilteringFields', async () => {
    const r = await call(`/customers?${f('balanceSecret$eq:1')}`);
    expect(r.status).toBe(400);
    const body = r.json();
    expectErrorBody(body, 400);
    expect(body.message).toBe('Could not parse query string filter.');
    expect(body.errors).toEqual(["Filtering is not allowed on property 'balanceSecret'."]);
    expect(body.allowedFilteringFields).toContain('name');
    expect(body.allowedFilteringFields).not.toContain('balanceSecret');
  });

  it('malformed expressions and injection attempts are 400, never a widened result', async () => {
    for (const expr of [
      'name',
      'name$xx:1',
      'name$eq:a$and:',
      '(name$eq:a',
      'name$eq:a)',
      'name$eq:a$or:self$eq:x',
      'name$eq:a$',
      'name$eq:a$and:(x$eq:1)',
    ]) {
      const r = await call(`/customers?${f(expr)}`);
      expect(r.status, expr).toBe(400);
      expect(Array.isArray(r.json().errors), expr).toBe(true);
    }
  });
});

describe('sort', () => {
  it('ascending, descending, multi-key and alphabetical', async () => {
    const asc = numbers(await get('/customers?sort=customerNumber&pagesize=3'));
    expect(asc).toEqual([1001, 1002, 1003]);
    expect(numbers(await get('/customers?sort=-customerNumber&pagesize=3'))).toEqual([1060, 1059, 1058]);
    const multi = (await get('/customers?sort=-currency,name&pagesize=100')).collection as Row[];
    const text = (x: string, y: string): number =>
      x.toLowerCase() < y.toLowerCase() ? -1 : x.toLowerCase() > y.toLowerCase() ? 1 : 0;
    const expected = [...data().customers].sort((a, b) =>
      a.currency === b.currency ? text(a.name, b.name) : a.currency < b.currency ? 1 : -1,
    );
    expect(multi.map((c) => c.customerNumber)).toEqual(expected.map((c) => c.customerNumber));
    // `~` sorts numbers as text: draft 10 comes before draft 2.
    const alpha = (await get('/vat-accounts?sort=~ratePercentage')).collection.map((r: Row) =>
      String(r.ratePercentage),
    );
    expect(alpha).toEqual([...alpha].sort());
    const numeric = (await get('/invoices/drafts?sort=~draftInvoiceNumber&pagesize=1000')).collection.map((r: Row) =>
      String(r.draftInvoiceNumber),
    );
    expect(numeric.slice(0, 3)).toEqual(['1', '10', '2']);
    expect(numeric).toEqual([...numeric].sort());
    expect(numbers(await get('/invoices/drafts?sort=draftInvoiceNumber&pagesize=3'), 'draftInvoiceNumber')).toEqual([
      1, 2, 3,
    ]);
  });

  it('a non-sortable property is 400 naming the allowed fields', async () => {
    const r = await call('/customers?sort=-nope');
    expect(r.status).toBe(400);
    expect(r.json().errors).toEqual(["Sorting is not allowed on property 'nope'."]);
    expect(r.json().allowedSortingFields).toContain('name');
  });
});

describe('identifier path encoding', () => {
  it('the split year is addressed as 2023_6_2024; a raw slash or %2F is 404', async () => {
    const year = await get('/accounting-years/2023_6_2024');
    expect(year).toMatchObject({
      year: INVOICING_SPLIT_YEAR,
      fromDate: '2023-07-01',
      toDate: '2024-06-30',
      self: `${PUBLIC}/accounting-years/2023_6_2024`,
    });
    for (const path of [
      '/accounting-years/2023/2024',
      '/accounting-years/2023%2F2024',
      '/accounting-years/2023%2f2024/periods',
      '/accounting-years/2023_99_2024',
    ]) {
      const r = await call(path);
      expect(r.status, path).toBe(404);
      expectErrorBody(r.json(), 404);
    }
  });

  it('string identifiers decode every table entry', async () => {
    expect((await get('/products/SVC_6_HOUR_9_1')).productNumber).toBe('SVC/HOUR 1');
    expect((await get('/products/P-100')).productNumber).toBe('P-100');
    expect((await call('/products/SVC%2FHOUR%201')).status).toBe(404);
    expect((await call('/products/SVC_HOUR')).status).toBe(404);
  });
});

describe('customers: writes', () => {
  const NEW = {
    name: 'Zebra Tools ApS',
    currency: 'DKK',
    customerGroup: { customerGroupNumber: 1 },
    paymentTerms: { paymentTermsNumber: 1 },
    vatZone: { vatZoneNumber: 1 },
    layout: { layoutNumber: 19 },
  };

  it('POST without the required set is an annotated 400 naming each field, and writes nothing', async () => {
    const before = data().customers.length;
    const r = await call('/customers', { method: 'POST', body: { email: 'x@example.com' } });
    expect(r.status).toBe(400);
    const body = r.json();
    expectErrorBody(body, 400);
    expect(body.message).toBe('Validation error.');
    expect(Object.keys(body.errors).sort()).toEqual(['currency', 'customerGroup', 'name', 'paymentTerms', 'vatZone']);
    expect(body.errors.name.errors[0]).toMatchObject({
      errorCode: expect.stringMatching(/^E\d{5}$/),
      message: expect.any(String),
    });
    expect(data().customers.length).toBe(before);
  });

  it('unknown currency and references are E06000 with the value', async () => {
    const r = await call('/customers', {
      method: 'POST',
      body: { ...NEW, currency: 'ZUL', vatZone: { vatZoneNumber: 9 } },
    });
    expect(r.status).toBe(400);
    expect(r.json().errors.currency.errors[0]).toMatchObject({ errorCode: 'E06000', value: 'ZUL' });
    expect(r.json().errors.vatZone.errors[0]).toMatchObject({ errorCode: 'E06000', value: 9 });
  });

  it('null anywhere is 400 (omit the key instead)', async () => {
    const r = await call('/customers', { method: 'POST', body: { ...NEW, email: null } });
    expect(r.status).toBe(400);
    expect(r.json().errors.email.errors[0].value).toBeNull();
  });

  it('POST assigns the next number, answers 201 + Location with the full body; the record reads back', async () => {
    sb.resetStats();
    const max = Math.max(...data().customers.map((c) => c.customerNumber));
    const r = await call('/customers', { method: 'POST', body: { ...NEW, balance: 999, barred: false, self: 'x' } });
    expect(r.status).toBe(201);
    const body = r.json();
    expect(body.customerNumber).toBe(max + 1);
    expect(r.headers.get('location')).toBe(`${PUBLIC}/customers/${max + 1}`);
    expect(body.self).toBe(`${PUBLIC}/customers/${max + 1}`);
    expect(body.balance).toBe(0); // read-only, ignored
    expect(body).not.toHaveProperty('barred'); // false booleans are omitted
    expect(body.customerGroup).toEqual({ customerGroupNumber: 1, self: `${PUBLIC}/customer-groups/1` });
    expect(await get(`/customers/${max + 1}`)).toEqual(body);
    expect(sb.stats.writeLog).toEqual([
      { method: 'POST', path: '/customers', body: { ...NEW, balance: 999, barred: false, self: 'x' }, status: 201 },
    ]);
  });

  it('POST by `self` reference and with a chosen number; a taken number is 400', async () => {
    const r = await call('/customers', {
      method: 'POST',
      body: { ...NEW, customerNumber: 777_001, customerGroup: { self: `${PUBLIC}/customer-groups/2` } },
    });
    expect(r.status).toBe(201);
    expect(r.json().customerGroup.customerGroupNumber).toBe(2);
    expect((await call('/customers', { method: 'POST', body: { ...NEW, customerNumber: 777_001 } })).status).toBe(400);
    expect((await call('/customers', { method: 'POST', body: { ...NEW, customerNumber: 0 } })).status).toBe(400);
  });

  it('PUT replaces the whole document (omitted fields go), ignores read-only fields, 404 for unknown', async () => {
    const current = await get('/customers/1003');
    expect(current.email).toBeDefined();
    const { email: _email, ...rest } = current;
    const r = await call('/customers/1003', {
      method: 'PUT',
      body: { ...rest, name: 'Renamed A/S', balance: 1, dueAmount: 2, barred: true },
    });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body.name).toBe('Renamed A/S');
    expect(body).not.toHaveProperty('email');
    expect(body.barred).toBe(true);
    expect(body.balance).toBe(current.balance);
    expect(body.dueAmount).toBe(current.dueAmount);
    expect(r.headers.get('location')).toBeNull();
    expect(await get('/customers/1003')).toEqual(body);
    expect((await call('/customers/1003', { method: 'PUT', body: { name: 'only a name' } })).status).toBe(400);
    expect((await call('/customers/9999999', { method: 'PUT', body: rest })).status).toBe(404);
    expect((await call('/customers/1003', { method: 'PUT', body: { ...rest, customerNumber: 1004 } })).status).toBe(
      400,
    );
  });
});

describe('draft invoices: writes', () => {
  const DRAFT = {
    currency: 'DKK',
    customer: { customerNumber: 1001 },
    date: '2025-06-20',
    layout: { layoutNumber: 19 },
    paymentTerms: { paymentTermsNumber: 1 },
    recipient: { name: 'Blue Energy Ltd', vatZone: { vatZoneNumber: 1 } },
    notes: { heading: 'Consulting' },
    lines: [
      { description: 'Bike', product: { productNumber: 'P-100' }, quantity: 2, unitNetPrice: 100.5 },
      {
        description: 'Hours',
        product: { productNumber: 'SVC/HOUR 1' },
        quantity: 3,
        unitNetPrice: 800,
        discountPercentage: 10,
        unit: { unitNumber: 2 },
      },
    ],
  };

  it('creates a draft: 201 + Location, computed net, 25 % domestic VAT and gross', async () => {
    const r = await call('/invoices/drafts', { method: 'POST', body: DRAFT });
    expect(r.status).toBe(201);
    const body = r.json();
    expect(body.draftInvoiceNumber).toBe(11);
    expect(r.headers.get('location')).toBe(`${PUBLIC}/invoices/drafts/11`);
    expect(body).toMatchObject({
      netAmount: 2361,
      vatAmount: 590.25,
      grossAmount: 2951.25,
      dueDate: '2025-06-28',
      recipient: { name: 'Blue Energy Ltd' },
    });
    expect(body.lines[1]).toMatchObject({
      totalNetAmount: 2160,
      unit: { unitNumber: 2, name: 'timer' },
      product: { productNumber: 'SVC/HOUR 1' },
    });
    expect(await get('/invoices/drafts/11')).toEqual(body);
    expect((await get('/invoices/drafts')).pagination.results).toBe(11);
  });

  it('no VAT outside the domestic zone', async () => {
    const r = await call('/invoices/drafts', {
      method: 'POST',
      body: { ...DRAFT, recipient: { name: 'EU AB', vatZone: { vatZoneNumber: 2 } } },
    });
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ netAmount: 2361, vatAmount: 0, grossAmount: 2361 });
  });

  it('the required set, including recipient.name and recipient.vatZone, mirrored in the error body', async () => {
    const r = await call('/invoices/drafts', { method: 'POST', body: { recipient: {} } });
    expect(r.status).toBe(400);
    const errors = r.json().errors;
    expect(Object.keys(errors).sort()).toEqual(['currency', 'customer', 'date', 'layout', 'paymentTerms', 'recipient']);
    expect(Object.keys(errors.recipient).sort()).toEqual(['name', 'vatZone']);
  });

  it('E06000 for an unknown currency, customer, product and unit', async () => {
    const r = await call('/invoices/drafts', {
      method: 'POST',
      body: {
        ...DRAFT,
        currency: 'ZUL',
        customer: { customerNumber: 5 },
        lines: [
          { description: 'x', product: { productNumber: 'NOPE' }, quantity: 1 },
          { description: 'y', quantity: 1, unitNetPrice: 1, unit: { unitNumber: 99 } },
        ],
      },
    });
    expect(r.status).toBe(400);
    const e = r.json().errors;
    expect(e.currency.errors[0].errorCode).toBe('E06000');
    expect(e.customer.errors[0].errorCode).toBe('E06000');
    expect(e.lines).toEqual([
      { arrayIndex: 0, product: { errors: [expect.objectContaining({ errorCode: 'E06000', value: 'NOPE' })] } },
      { arrayIndex: 1, unit: { errors: [expect.objectContaining({ errorCode: 'E06000', value: 99 })] } },
    ]);
  });

  it('E04740 for over 2 decimals, E04730 product without quantity, E04500 without id, with arrayIndex', async () => {
    const r = await call('/invoices/drafts', {
      method: 'POST',
      body: {
        ...DRAFT,
        lines: [
          { description: 'a', quantity: 1, unitNetPrice: 1.234 },
          { description: 'b', product: { productNumber: 'P-100' } },
          { description: 'c', product: { name: 'x' }, quantity: 1 },
        ],
      },
    });
    expect(r.status).toBe(400);
    const lines = r.json().errors.lines as Row[];
    expect(lines.map((l) => l.arrayIndex)).toEqual([0, 1, 2]);
    expect(lines[0]!.unitNetPrice.errors[0]).toMatchObject({ errorCode: 'E04740', value: 1.234 });
    expect(lines[1]!.quantity.errors[0].errorCode).toBe('E04730');
    expect(lines[2]!.product.errors[0].errorCode).toBe('E04500');
    expect(
      (
        await call('/invoices/drafts', {
          method: 'POST',
          body: { ...DRAFT, lines: [{ description: 'a', quantity: 1, unitNetPrice: 1.2 }] },
        })
      ).status,
    ).toBe(201);
  });

  it('a product line without description is 400 naming lines[i].description (switchable)', async () => {
    const body = { ...DRAFT, lines: [{ product: { productNumber: 'P-100' }, quantity: 1 }] };
    const r = await call('/invoices/drafts', { method: 'POST', body });
    expect(r.status).toBe(400);
    expect(r.json().errors.lines[0]).toMatchObject({ arrayIndex: 0, description: { errors: [expect.any(Object)] } });
    sb.setSwitches({ lineDescriptionRequired: false });
    expect((await call('/invoices/drafts', { method: 'POST', body })).status).toBe(201);
  });

  it('dueDate is required for payment terms of type dueDate', async () => {
    const body = { ...DRAFT, paymentTerms: { paymentTermsNumber: INVOICING_DUE_DATE_TERMS } };
    const r = await call('/invoices/drafts', { method: 'POST', body });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json().errors)).toEqual(['dueDate']);
    const ok = await call('/invoices/drafts', { method: 'POST', body: { ...body, dueDate: '2025-07-31' } });
    expect(ok.status).toBe(201);
    expect(ok.json().dueDate).toBe('2025-07-31');
  });
});

describe('reads: invoices, PDFs, totals, overdue', () => {
  it('booked invoices: lines only on the single GET; pdf.self is followed to %PDF bytes', async () => {
    const list = await get('/invoices/booked?pagesize=3');
    expect(list.collection[0]).not.toHaveProperty('lines');
    const one = await get('/invoices/booked/20001');
    expect(one.lines.length).toBeGreaterThan(0);
    expect(one.pdf.self).toBe(`${PUBLIC}/invoices/booked/20001/pdf`);
    const r = await fetch(`${sb.url}/invoices/booked/20001/pdf`, {
      headers: { 'x-appsecrettoken': INVOICING_SANDBOX_APP_SECRET, 'x-agreementgranttoken': INVOICING_SANDBOX_GRANT },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const missing = await call('/invoices/booked/99999/pdf');
    expect(missing.status).toBe(404);
    expectErrorBody(missing.json(), 404);
  });

  it('totals and overdue are computed from the data against the injectable today', async () => {
    const today = '2025-06-15';
    const open = data().booked.filter((b) => b.remainder !== 0);
    const overdue = open.filter((b) => b.dueDate < today);
    const totals = await get('/invoices/totals');
    expect(totals.booked.invoiceCount).toBe(150);
    expect(totals.booked.unpaid.invoiceCount).toBe(open.length);
    expect(totals.booked.unpaid.overdue.invoiceCount).toBe(overdue.length);
    expect(totals.booked.unpaid.notOverdue.invoiceCount).toBe(open.length - overdue.length);
    expect(totals.booked.paid.invoiceCount + open.length).toBe(150);
    expect(totals.drafts.invoiceCount).toBe(data().drafts.length);
    expect((await get('/invoices/overdue?pagesize=1000')).pagination.results).toBe(overdue.length);
    expect((await get('/invoices/not-due?pagesize=1000')).pagination.results).toBe(open.length - overdue.length);
    expect((await get('/invoices/paid?pagesize=1000')).pagination.results).toBe(150 - open.length);
    expect((await get('/invoices/unpaid?pagesize=1000')).pagination.results).toBe(open.length);
    sb.setSwitches({ today: '2024-08-01' });
    const earlier = open.filter((b) => b.dueDate < '2024-08-01').length;
    expect(earlier).toBeLessThan(overdue.length);
    expect((await get('/invoices/overdue?pagesize=1000')).pagination.results).toBe(earlier);
    expect((await get('/invoices/totals')).booked.unpaid.overdue.invoiceCount).toBe(earlier);
  });

  it('accounting years, periods, year totals, account year total and entries', async () => {
    const years = (await get('/accounting-years')).collection as Row[];
    expect(years.map((y) => y.year)).toEqual([
      '2022',
      INVOICING_SHORT_YEAR,
      INVOICING_SPLIT_YEAR,
      '2024/2025',
      '2025/2026',
    ]);
    const short = (await get(`/accounting-years/${INVOICING_SHORT_YEAR}/periods`)).collection as Row[];
    expect(short.map((p) => p.periodNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    const split = (await get('/accounting-years/2023_6_2024/periods')).collection as Row[];
    expect(split).toHaveLength(12);
    expect(split[0]).toMatchObject({ fromDate: '2023-07-01', closed: true });
    expect(await get('/accounting-years/2023_6_2024/periods/12')).toMatchObject({ toDate: '2024-06-30' });
    const totals = await get('/accounting-years/2023_6_2024/totals?pagesize=1000');
    const accountNumber = totals.collection[0].account.accountNumber;
    const entries = await get(`/accounts/${accountNumber}/accounting-years/2023_6_2024/entries?pagesize=1000`);
    expect(entries.collection.length).toBeGreaterThan(0);
    const sum = Math.round(entries.collection.reduce((s: number, e: Row) => s + e.amountInBaseCurrency, 0) * 100) / 100;
    expect(totals.collection[0].totalInBaseCurrency).toBe(sum);
    const one = await get(`/accounts/${accountNumber}/accounting-years/2023_6_2024/totals`);
    expect(one).toMatchObject({
      account: { accountNumber },
      fromDate: '2023-07-01',
      toDate: '2024-06-30',
      totalInBaseCurrency: sum,
    });
    expect(Array.isArray(one.collection)).toBe(false);
    expect(
      (await get(`/accounts/${accountNumber}/accounting-years/2023_6_2024/entries?${f('amount$gt:0')}&pagesize=1000`))
        .pagination.results,
    ).toBe(entries.collection.filter((e: Row) => e.amount > 0).length);
    expect((await call(`/accounts/${accountNumber}/accounting-years/2023/2024/entries`)).status).toBe(404);
    expect((await get('/accounting-years/2023_6_2024/entries?pagesize=1')).pagination.results).toBeGreaterThan(
      entries.collection.length,
    );
  });

  it('lookups and the other lists answer in the envelope', async () => {
    for (const [path, key] of [
      ['/products', 'productNumber'],
      ['/suppliers', 'supplierNumber'],
      ['/vat-accounts', 'vatCode'],
      ['/customer-groups', 'customerGroupNumber'],
      ['/payment-terms', 'paymentTermsNumber'],
      ['/vat-zones', 'vatZoneNumber'],
      ['/layouts', 'layoutNumber'],
      ['/units', 'unitNumber'],
      ['/accounts', 'accountNumber'],
      ['/invoices/drafts', 'draftInvoiceNumber'],
      ['/invoices/sent', 'bookedInvoiceNumber'],
    ] as const) {
      const body = await get(`${path}?pagesize=1000`);
      expect(body.collection.length, path).toBeGreaterThan(0);
      expect(body.collection[0], path).toHaveProperty(key);
      expect(body.collection[0].self, path).toMatch(new RegExp(`^${PUBLIC}/`));
      expect(body.pagination.maxPageSizeAllowed).toBe(1000);
    }
    const missing = await call('/customers/9999999');
    expect(missing.status).toBe(404);
    expectErrorBody(missing.json(), 404);
  });
});

describe('faults', () => {
  it('429 with and without Retry-After, limited by count and path', async () => {
    sb.setSwitches({ fault: 'throttled', faultCount: 1 });
    const r = await call('/customers');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expectErrorBody(r.json(), 429);
    expect((await call('/customers')).status).toBe(200);
    sb.setSwitches({ fault: 'throttled', retryAfterSeconds: 7, faultPath: '/invoices' });
    expect((await call('/customers')).status).toBe(200);
    const t = await call('/invoices/booked');
    expect(t.status).toBe(429);
    expect(t.headers.get('retry-after')).toBe('7');
  });

  it('500 on a write records the attempt without storing it', async () => {
    sb.resetStats();
    const before = data().customers.length;
    sb.setSwitches({ fault: 'serverError' });
    const r = await call('/customers', { method: 'POST', body: { name: 'x' } });
    expect(r.status).toBe(500);
    expectErrorBody(r.json(), 500);
    expect(data().customers.length).toBe(before);
    expect(sb.stats.writeLog.map((w) => w.status)).toEqual([500]);
  });

  it('slow answers wait past the connector timeout (the client gives up first)', async () => {
    expect(INVOICING_DEFAULT_SLOW_DELAY_MS).toBeGreaterThan(15_000);
    sb.setSwitches({ fault: 'slow', slowDelayMs: 600_000 });
    sb.resetStats();
    const controller = new AbortController();
    const pending = call('/customers', { signal: controller.signal });
    await expect.poll(() => sb.stats.requests).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    sb.setSwitches({ fault: 'slow', slowDelayMs: 0 });
    expect((await call('/customers')).status).toBe(200);
  });

  it('switches are validated and reachable over HTTP; reset restores them', async () => {
    expect(() => sb.setSwitches({ fault: 'nope' as never })).toThrow();
    const post = await fetch(`${sb.url}/__sandbox/switches`, {
      method: 'POST',
      body: JSON.stringify({ today: '2025-01-01' }),
    });
    expect(((await post.json()) as Row).today).toBe('2025-01-01');
    const refused = await fetch(`${sb.url}/__sandbox/switches`, {
      method: 'POST',
      body: JSON.stringify({ unknown: 1 }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: 'unknown switch "unknown"',
      switches: expect.arrayContaining(['today', 'fault', 'slowDelayMs']),
    });
    expect(sb.switches.today).toBe('2025-01-01');
    const reset = await fetch(`${sb.url}/__sandbox/reset`, { method: 'POST' });
    expect(await reset.json()).toEqual({ reset: true });
    expect(sb.switches.today).toBe('2025-06-15');
    const missing = await fetch(`${sb.url}/__sandbox/nothing`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Row).controls).toContain('GET /__sandbox/requests');
  });
});

describe('strictness and the remaining faults (audit against invoicing.md)', () => {
  const CUSTOMER = {
    name: 'Strict ApS',
    currency: 'DKK',
    customerGroup: { customerGroupNumber: 1 },
    paymentTerms: { paymentTermsNumber: 1 },
    vatZone: { vatZoneNumber: 1 },
    layout: { layoutNumber: 19 },
  };

  it('403 on reads too, 501, an HTML error page and a 200 that is not JSON', async () => {
    sb.setSwitches({ fault: 'forbidden' });
    const forbidden = await call('/customers');
    expect(forbidden.status).toBe(403);
    expectErrorBody(forbidden.json(), 403);
    sb.setSwitches({ fault: 'notImplemented' });
    const notImplemented = await call('/invoices/booked');
    expect(notImplemented.status).toBe(501);
    expectErrorBody(notImplemented.json(), 501);
    sb.setSwitches({ fault: 'htmlError' });
    const html = await call('/customers');
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.text).toMatch(/^<html>/);
    sb.setSwitches({ fault: 'notJson' });
    const notJson = await call('/customers');
    expect(notJson.status).toBe(200);
    expect(() => notJson.json()).toThrow();
  });

  it('a query parameter the docs omit is 400 and recorded; `ignore` answers as if it were absent', async () => {
    sb.resetStats();
    for (const query of ['pageSize=5', 'page=1', 'skipPages=1', 'SORT=name']) {
      const r = await call(`/customers?${query}`);
      expect(r.status, query).toBe(400);
      expectErrorBody(r.json(), 400);
      expect(Array.isArray(r.json().errors)).toBe(true);
    }
    expect(sb.stats.undocumentedQuery).toEqual(['pageSize', 'page', 'skipPages', 'SORT']);
    expect((await call('/customers?skippages=1&pagesize=5&sort=name&demo=false')).status).toBe(200);
    sb.setSwitches({ unknownQuery: 'ignore' });
    expect((await get('/customers?pageSize=5')).pagination.pageSize).toBe(20);
    expect(sb.stats.undocumentedQuery).toHaveLength(5);
  });

  it('an undocumented write-body property is 400 naming it (customer, draft, line); `ignore` takes it', async () => {
    sb.resetStats();
    const customer = await call('/customers', { method: 'POST', body: { ...CUSTOMER, customerGroupNumber: 1 } });
    expect(customer.status).toBe(400);
    expect(customer.json().errors.customerGroupNumber.errors[0]).toMatchObject({
      errorCode: expect.stringMatching(/^E\d{5}$/),
    });
    const draft = await call('/invoices/drafts', {
      method: 'POST',
      body: {
        currency: 'DKK',
        customer: { customerNumber: 1001 },
        date: '2025-06-20',
        layout: { layoutNumber: 19 },
        paymentTerms: { paymentTermsNumber: 1 },
        recipient: { name: 'X', vatZone: { vatZoneNumber: 1 } },
        recipientName: 'X',
        lines: [{ description: 'Bike', productNumber: 'P-100', quantity: 1, unitNetPrice: 1 }],
      },
    });
    expect(draft.status).toBe(400);
    expect(draft.json().errors.recipientName).toBeDefined();
    expect(draft.json().errors.lines[0]).toMatchObject({
      arrayIndex: 0,
      productNumber: { errors: [expect.any(Object)] },
    });
    expect(sb.stats.undocumentedProperties).toEqual([
      'customer.customerGroupNumber',
      'draft.recipientName',
      'line.productNumber',
    ]);
    sb.setSwitches({ unknownProperties: 'ignore' });
    expect((await call('/customers', { method: 'POST', body: { ...CUSTOMER, shoeSize: 42 } })).status).toBe(201);
    expect(sb.stats.undocumentedProperties).toContain('customer.shoeSize');
  });

  it('read-only fields on a PUT: ignored, or 400 under readOnlyOnPut: reject (§5); a stripped GET passes', async () => {
    const current = await get('/customers/1005');
    sb.setSwitches({ readOnlyOnPut: 'reject' });
    const r = await call('/customers/1005', { method: 'PUT', body: current });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json().errors)).toEqual(
      expect.arrayContaining(['balance', 'lastUpdated', 'self', 'contacts', 'invoices', 'totals', 'templates']),
    );
    const {
      balance: _b,
      dueAmount: _d,
      lastUpdated: _l,
      self: _s,
      contacts: _c,
      deliveryLocations: _dl,
      invoices: _i,
      totals: _t,
      templates: _tp,
      ...writable
    } = current;
    expect((await call('/customers/1005', { method: 'PUT', body: writable })).status).toBe(200);
  });

  it('vatNumber on a customer write: accepted, or 400 naming it under vatNumberPolicy: reject (§3 #4)', async () => {
    expect((await call('/customers', { method: 'POST', body: { ...CUSTOMER, vatNumber: 'DK12345678' } })).status).toBe(
      201,
    );
    sb.setSwitches({ vatNumberPolicy: 'reject' });
    const r = await call('/customers', { method: 'POST', body: { ...CUSTOMER, vatNumber: 'DK12345678' } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.json().errors)).toEqual(['vatNumber']);
    expect(
      (await call('/customers', { method: 'POST', body: { ...CUSTOMER, corporateIdentificationNumber: '12345678' } }))
        .status,
    ).toBe(201);
  });

  it('pdfPath: linkOnly serves the PDF only where the invoice links it (pdf.download); the path is 404', async () => {
    sb.setSwitches({ pdfPath: 'linkOnly' });
    expect((await call('/invoices/booked/20001/pdf')).status).toBe(404);
    const invoice = await get('/invoices/booked/20001');
    expect(invoice.pdf).toEqual({ download: `${PUBLIC}/invoices/booked/20001/document` });
    const pdf = await call('/invoices/booked/20001/document');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.text.startsWith('%PDF-')).toBe(true);
  });

  it('writeAnswer: empty answers POST 201 + Location and PUT 204 without a body; the record is stored', async () => {
    sb.setSwitches({ writeAnswer: 'empty' });
    const created = await call('/customers', { method: 'POST', body: CUSTOMER });
    expect(created.status).toBe(201);
    expect(created.text).toBe('');
    const location = created.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${PUBLIC}/customers/\\d+$`));
    const path = new URL(location).pathname;
    const record = await get(path);
    expect(record.name).toBe('Strict ApS');
    const {
      balance: _b,
      dueAmount: _d,
      lastUpdated: _l,
      self: _s,
      contacts: _c,
      deliveryLocations: _dl,
      invoices: _i,
      totals: _t,
      templates: _tp,
      ...writable
    } = record;
    const put = await call(path, { method: 'PUT', body: { ...writable, name: 'Strict A/S' } });
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    expect((await get(path)).name).toBe('Strict A/S');
  });

  it('a bare [ ] or , in a scalar filter value is 400 (the docs make them escapes $[ $] $,)', async () => {
    for (const expr of ['name$eq:a,b', 'name$eq:[x]', 'name$like:a]'])
      expect((await call(`/customers?${f(expr)}`)).status, expr).toBe(400);
    for (const expr of ['name$eq:a$,b', 'name$eq:$[x$]'])
      expect((await call(`/customers?${f(expr)}`)).status, expr).toBe(200);
  });
});

describe('demo data', () => {
  it('has the documented shape and sizes', async () => {
    const d = data();
    expect(d.customers.filter((c) => c.customerNumber <= 1060)).toHaveLength(60);
    expect(d.customers.find((c) => c.customerNumber === INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT)).not.toHaveProperty(
      'dueAmount',
    );
    expect(d.customers.filter((c) => c.customerNumber <= 1060 && !('dueAmount' in c))).toHaveLength(1);
    expect(d.booked).toHaveLength(150);
    const credit = d.booked.find((b) => b.bookedInvoiceNumber === INVOICING_CREDIT_NOTE_NUMBER)!;
    expect(credit.netAmount).toBeLessThan(0);
    expect(credit.grossAmount).toBeLessThan(0);
    expect(d.booked.filter((b) => b.netAmount < 0)).toHaveLength(1);
    expect(d.accounts).toHaveLength(80);
    expect(new Set(d.accounts.map((a) => a.accountType))).toEqual(
      new Set(['profitAndLoss', 'status', 'totalFrom', 'heading', 'headingStart', 'sumInterval', 'sumAlpha']),
    );
    expect(d.entries.size).toBeGreaterThan(20);
    expect(d.vatZones).toHaveLength(3);
    expect(d.paymentTerms.filter((t) => t.paymentTermsType === 'dueDate')).toHaveLength(1);
    expect(d.layouts.length).toBeGreaterThan(0);
    expect(d.units.length).toBeGreaterThan(0);
    expect(d.years.some((y) => y.year === INVOICING_SPLIT_YEAR)).toBe(true);
  });

  it('is deterministic: two sandboxes answer the same pages', async () => {
    const other = await startInvoicingSandbox({ publicUrl: PUBLIC });
    try {
      const path = '/invoices/booked?pagesize=10&skippages=3';
      const a = (await call(path, {}, other)).json();
      const b = (await call(path, {}, direct)).json();
      expect(a.collection).toEqual(JSON.parse(JSON.stringify(b.collection).replaceAll(direct.url, PUBLIC)));
    } finally {
      await other.close();
    }
  });
});

describe('request log and sandbox record', () => {
  it('records method, path, query and headers of each upstream request (control calls excluded)', async () => {
    sb.resetStats();
    await call(`/customers?pagesize=2&${f('name$like:a')}`);
    await fetch(`${sb.url}/__sandbox/stats`);
    expect(sb.requests).toHaveLength(1);
    expect(sb.requests[0]).toMatchObject({
      method: 'GET',
      path: '/customers',
      query: { pagesize: '2', filter: 'name$like:a' },
    });
    expect(sb.requests[0]!.headers['x-agreementgranttoken']).toBe(INVOICING_SANDBOX_GRANT);
    const logged = (await (await fetch(`${sb.url}/__sandbox/requests`)).json()) as Row[];
    expect(logged).toHaveLength(1);
    expect(((await (await fetch(`${sb.url}/__sandbox/stats`)).json()) as Row).byStatus).toEqual({ 200: 1 });
  });

  it('the sandbox record starts a server the demo credential opens, with examples', async () => {
    expect(invoicingSandboxRecord.connector).toBe('invoicing');
    expect(invoicingSandboxRecord.examples.length).toBeGreaterThanOrEqual(2);
    const running = await invoicingSandboxRecord.start({ host: '127.0.0.1', port: 0 });
    try {
      // The connect form's one field is the agreement grant token; the app secret token is the
      // deployment's (CONNECTOR_INVOICING_APP_SECRET_TOKEN, wired by bin/demo.ts from `appSecret`).
      expect(running.tenantCredential).toEqual({ token: INVOICING_SANDBOX_GRANT });
      expect(running.appSecret).toBe(INVOICING_SANDBOX_APP_SECRET);
      const set: SandboxSet = {
        started: new Map([['invoicing', { sandbox: invoicingSandboxRecord, running }]]),
        close: async () => {},
      };
      expect(sandboxEnv(set)).toMatchObject({
        CONNECTOR_INVOICING_BASE_URL: running.url,
        CONNECTOR_INVOICING_APP_SECRET_TOKEN: INVOICING_SANDBOX_APP_SECRET,
      });
      const demoHeaders = {
        'x-appsecrettoken': running.appSecret!,
        'x-agreementgranttoken': running.tenantCredential!.token!,
      };
      const r = await fetch(`${running.url}/accounting-years/2023_6_2024/periods`, { headers: demoHeaders });
      expect(r.status).toBe(200);
      const filter = invoicingSandboxRecord.examples.find((e) => e.tool === 'list_customers')!.args.filter as string;
      const c = await fetch(`${running.url}/customers?filter=${encodeURIComponent(filter)}`, { headers: demoHeaders });
      expect(((await c.json()) as Row).collection.length).toBeGreaterThan(0);
    } finally {
      await running.close();
    }
  });
});

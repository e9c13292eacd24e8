// The ERP (Business Central API v2.0) sandbox, tested through its own HTTP interface, item by item
// of ../shared/upstreams/erp.md §4: base URL and both path forms, environments, companies and
// companyInformation, the demo data, the service document, server-driven paging, $filter and its
// 400 cases, $select/$expand/$orderby/$top/$skip/$count, etags and single reads, the error bodies
// of 401/403/404/400, every switch, the read-only method rule and the request log.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ERP_APOSTROPHE_CUSTOMER,
  ERP_DEMO_COMPANY_ID,
  ERP_DEMO_COUNTS,
  ERP_FOREIGN_ENV,
  ERP_OMITTED_SET,
  ERP_REAL_NAMES,
  ERP_SANDBOX_COMPANY_ID,
  ERP_SECOND_COMPANY_ID,
  ERP_SERVED_ALLOW_LISTED,
  ERP_SPEC_ALLOW_LIST,
  ERP_SUBSCRIPTION_CLIENT_STATE,
  ERP_TENANT_DOMAIN,
  ERP_TENANT_ID,
  ERP_UNKNOWN_COMPANY_ID,
} from '../sandbox/erp/data.ts';
import { sandbox as erpSandboxRecord } from '../sandbox/erp/index.ts';
import {
  ERP_DEFAULT_SLOW_DELAY_MS,
  ERP_SANDBOX_TOKEN,
  ERP_SANDBOX_UNLICENSED_TOKEN,
  type ErpSandbox,
  type ErpTokenVerdict,
  startErpSandbox,
} from '../sandbox/erp/server.ts';

type Row = Record<string, any>;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: () => any;
}

interface CallOptions {
  token?: string | null;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  signal?: AbortSignal;
}

/** Tokens the verifier knows (any other token is invalid for it). */
const VERIFIED: Record<string, ErpTokenVerdict> = {
  'idp-token-valid-Zq81': { valid: true },
  'idp-token-other-Mw52': { valid: true },
  'idp-token-expired-Pe37': { valid: true, expired: true },
  'idp-token-nolicence-Xr90': { valid: true, licensed: false },
};

let sb: ErpSandbox;
const CORRELATION = / CorrelationId: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.$/;

async function call(url: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const token = options.token === undefined ? ERP_SANDBOX_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const api = (env = 'Production') => `${sb.url}/v2.0/${env}/api/v2.0`;
const company = (id = ERP_DEMO_COMPANY_ID, env = 'Production') => `${api(env)}/companies(${id})`;
const pageOf = (size: number) => ({ prefer: `odata.maxpagesize=${size}` });

/** Reads a whole set with one big page. */
async function all(set: string, query = '', id = ERP_DEMO_COMPANY_ID): Promise<Row[]> {
  const r = await call(`${company(id)}/${set}${query}`);
  expect(r.status, r.text).toBe(200);
  expect(r.json()['@odata.nextLink']).toBeUndefined();
  return r.json().value as Row[];
}

async function filtered(set: string, filter: string): Promise<Row[]> {
  return all(set, `?$filter=${encodeURIComponent(filter)}`);
}

function expectError(r: Reply, status: number, code: string): { code: string; message: string } {
  expect(r.status, r.text).toBe(status);
  const body = r.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(CORRELATION);
  return body.error;
}

beforeAll(async () => {
  sb = await startErpSandbox({ verifyToken: (token) => VERIFIED[token] ?? { valid: false } });
});

afterAll(async () => {
  await sb.close();
});

afterEach(() => {
  sb.resetSwitches();
  sb.resetStats();
});

describe('base URL and path forms', () => {
  it('serves /v2.0/{tenant}/{env}/… and /v2.0/{env}/… alike, the tenant as GUID or domain', async () => {
    const bare = await call(`${api()}/companies`);
    const withTenant = await call(`${sb.url}/v2.0/${ERP_TENANT_ID}/Production/api/v2.0/companies`);
    const withDomain = await call(`${sb.url}/v2.0/${ERP_TENANT_DOMAIN}/Production/api/v2.0/companies`);
    expect(bare.status).toBe(200);
    expect(withTenant.json().value).toEqual(bare.json().value);
    expect(withDomain.json().value).toEqual(bare.json().value);
    expect(withTenant.json()['@odata.context']).toBe(
      `${sb.url}/v2.0/${ERP_TENANT_ID}/Production/api/v2.0/$metadata#companies`,
    );
    expect(bare.json()['@odata.context']).toBe(`${sb.url}/v2.0/Production/api/v2.0/$metadata#companies`);
    expect(bare.headers.get('odata-version')).toBe('4.0');
    expectError(
      await call(`${sb.url}/v2.0/11111111-2222-4333-8444-555555555555/Production/api/v2.0/companies`),
      401,
      'Authentication_InvalidCredentials',
    );
  });

  it('serves under a configured base path and puts the configured public origin into absolute links', async () => {
    const other = await startErpSandbox({ basePath: '/bc', publicUrl: 'http://erp.test.invalid:8443' });
    try {
      expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/bc$/);
      expect(other.publicUrl).toBe('http://erp.test.invalid:8443/bc');
      const origin = other.url.slice(0, -'/bc'.length);
      expect((await call(`${origin}/v2.0/Production/api/v2.0/companies`)).status).toBe(404);
      const r = await call(`${other.url}/v2.0/Production/api/v2.0/companies(${ERP_DEMO_COMPANY_ID})/customers`, {
        headers: pageOf(50),
      });
      expect(r.status).toBe(200);
      expect(r.json()['@odata.context']).toBe(
        'http://erp.test.invalid:8443/bc/v2.0/Production/api/v2.0/' +
          `$metadata#companies(${ERP_DEMO_COMPANY_ID})/customers`,
      );
      expect(r.json()['@odata.nextLink']).toMatch(
        /^http:\/\/erp\.test\.invalid:8443\/bc\/v2\.0\/Production\/api\/v2\.0\/companies\(/,
      );
      expect((await call(`${other.url}/environments/v1.2`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('environments', () => {
  it('lists Production (type production), Sandbox without countryCode, one foreign applicationFamily', async () => {
    const r = await call(`${sb.url}/environments/v1.2`);
    expect(r.status).toBe(200);
    const envs = r.json().value as Row[];
    const byName = new Map(envs.map((e) => [e.name, e]));
    expect(byName.get('Production')).toMatchObject({
      type: 'production',
      applicationFamily: 'BusinessCentral',
      countryCode: 'DK',
      aadTenantId: ERP_TENANT_ID,
    });
    expect(byName.get('Sandbox')).toMatchObject({ applicationFamily: 'BusinessCentral' });
    expect('countryCode' in byName.get('Sandbox')!).toBe(false);
    const foreign = envs.filter((e) => e.applicationFamily !== 'BusinessCentral');
    expect(foreign.map((e) => e.name)).toEqual([ERP_FOREIGN_ENV]);
    for (const e of envs)
      for (const key of [
        'aadTenantId',
        'applicationFamily',
        'type',
        'name',
        'webServiceUrl',
        'webClientLoginUrl',
        'ringName',
      ])
        expect(e).toHaveProperty(key);
  });

  it('answers 404 for an unknown or foreign environment and 403 on the admin API', async () => {
    expectError(await call(`${api('Staging')}/companies`), 404, 'BadRequest_NotFound');
    expectError(await call(`${api(ERP_FOREIGN_ENV)}/companies`), 404, 'BadRequest_NotFound');
    expectError(
      await call(`${sb.url}/admin/v2.24/applications/BusinessCentral/environments`),
      403,
      'Authorization_InsufficientPermissions',
    );
  });
});

describe('companies and companyInformation', () => {
  it('has 2 companies in Production and 1 in Sandbox, with the documented fields', async () => {
    const prod = (await call(`${api()}/companies`)).json().value as Row[];
    const sandboxEnv = (await call(`${api('Sandbox')}/companies`)).json().value as Row[];
    expect(prod.map((c) => c.id)).toEqual([ERP_DEMO_COMPANY_ID, ERP_SECOND_COMPANY_ID]);
    expect(sandboxEnv.map((c) => c.id)).toEqual([ERP_SANDBOX_COMPANY_ID]);
    for (const c of [...prod, ...sandboxEnv]) {
      expect(Object.keys(c).sort()).toEqual(
        [
          '@odata.etag',
          'id',
          'systemVersion',
          'timestamp',
          'name',
          'displayName',
          'businessProfileId',
          'systemCreatedAt',
          'systemCreatedBy',
          'systemModifiedAt',
          'systemModifiedBy',
        ].sort(),
      );
    }
    expect(new Set(prod.map((c) => c['@odata.etag'])).size).toBe(2);
    // A company of one environment is unknown in the other.
    expectError(await call(`${company(ERP_SANDBOX_COMPANY_ID)}/customers`), 404, 'Internal_CompanyNotFound');
  });

  it('returns a one-row companyInformation collection, except for one company whose collection is empty', async () => {
    const demo = (await call(`${company()}/companyInformation`)).json();
    expect(demo['@odata.context']).toBe(`${api()}/$metadata#companies(${ERP_DEMO_COMPANY_ID})/companyInformation`);
    expect(demo.value).toHaveLength(1);
    for (const key of [
      'id',
      'displayName',
      'addressLine1',
      'addressLine2',
      'city',
      'state',
      'country',
      'postalCode',
      'phoneNumber',
      'faxNumber',
      'email',
      'website',
      'taxRegistrationNumber',
      'currencyCode',
      'currentFiscalYearStartDate',
      'industry',
      'lastModifiedDateTime',
      'picture@odata.mediaReadLink',
    ]) {
      expect(demo.value[0]).toHaveProperty([key]);
    }
    expect((await call(`${company(ERP_SANDBOX_COMPANY_ID, 'Sandbox')}/companyInformation`)).json().value).toHaveLength(
      1,
    );
    const empty = await call(`${company(ERP_SECOND_COMPANY_ID)}/companyInformation`);
    expect(empty.status).toBe(200);
    expect(empty.json().value).toEqual([]);
  });
});

describe('demo data', () => {
  it('has the checklist sizes in the demo company, and a few rows in the others', async () => {
    for (const [set, n] of Object.entries(ERP_DEMO_COUNTS)) {
      const r = await call(`${company()}/${set}?$count=true&$top=1`);
      expect(r.json()['@odata.count'], set).toBe(n);
    }
    const second = await all('customers', '', ERP_SECOND_COMPANY_ID);
    expect(second.length).toBeGreaterThan(0);
    expect(second.length).toBeLessThan(20);
    const demoIds = new Set((await all('customers')).map((c) => c.id));
    expect(second.some((c) => demoIds.has(c.id))).toBe(false);
  });

  it('keeps invoice totals equal to their lines and aged receivables equal to open invoices', async () => {
    const invoices = await all('salesInvoices', '?$expand=salesInvoiceLines');
    expect(invoices).toHaveLength(ERP_DEMO_COUNTS.salesInvoices);
    let lineCount = 0;
    for (const inv of invoices) {
      expect(inv.salesInvoiceLines.length).toBeGreaterThan(0);
      lineCount += inv.salesInvoiceLines.length;
      const net = inv.salesInvoiceLines.reduce((s: number, l: Row) => s + l.amountExcludingTax, 0);
      expect(inv.totalAmountExcludingTax).toBeCloseTo(net, 2);
      for (const line of inv.salesInvoiceLines) expect(line.documentId).toBe(inv.id);
    }
    expect(await all('salesInvoiceLines')).toHaveLength(lineCount);
    const aged = await all('agedAccountsReceivables');
    expect(aged.length).toBeGreaterThan(0);
    const open = new Map<string, number>();
    for (const inv of invoices)
      if (inv.status === 'Open')
        open.set(inv.customerId, (open.get(inv.customerId) ?? 0) + inv.totalAmountIncludingTax);
    expect(new Set(aged.map((a) => a.customerId))).toEqual(new Set(open.keys()));
    for (const a of aged) {
      expect(a.balanceDue).toBeCloseTo(open.get(a.customerId)!, 2);
      expect(a.currentAmount + a.period1Amount + a.period2Amount + a.period3Amount).toBeCloseTo(a.balanceDue, 2);
    }
  });

  it('serves every other allow-listed set empty, under its real v2.0 name', async () => {
    const withData = new Set([
      'customers',
      'vendors',
      'items',
      'generalLedgerEntries',
      'salesInvoices',
      'salesInvoiceLines',
      'agedAccountsReceivables',
      'companyInformation',
    ]);
    for (const set of ERP_SERVED_ALLOW_LISTED) {
      if (set === 'subscriptions') continue;
      const r = await call(`${company()}/${set}`);
      expect(r.status, set).toBe(200);
      if (!withData.has(set)) expect(r.json().value, set).toEqual([]);
    }
    expectError(await call(`${company()}/agedAccountsReceivable`), 404, 'BadRequest_ResourceNotFound');
    expectError(await call(`${company()}/salespersonsPurchasers`), 404, 'BadRequest_ResourceNotFound');
  });
});

describe('service document and $metadata', () => {
  it('lists real names incl. companies, subscriptions, pdfDocument; one allow-listed set is 404', async () => {
    const r = await call(api());
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body['@odata.context']).toBe(`${api()}/$metadata`);
    const names = (body.value as Row[]).map((e) => e.name);
    for (const e of body.value as Row[]) expect(e).toEqual({ name: e.name, kind: 'EntitySet', url: e.name });
    for (const n of [
      'companies',
      'subscriptions',
      'pdfDocument',
      'agedAccountsReceivables',
      'agedAccountsPayables',
      'salespeoplePurchasers',
      'customers',
      'generalLedgerEntries',
    ])
      expect(names).toContain(n);
    for (const n of ['agedAccountsReceivable', 'agedAccountsPayable', 'salespersonsPurchasers', ERP_OMITTED_SET])
      expect(names).not.toContain(n);
    const missing = ERP_SPEC_ALLOW_LIST.map((n) => ERP_REAL_NAMES[n] ?? n).filter((n) => !names.includes(n));
    expect(ERP_SPEC_ALLOW_LIST).toHaveLength(85);
    expect(missing).toEqual([ERP_OMITTED_SET]);
    expectError(await call(`${company()}/${ERP_OMITTED_SET}`), 404, 'BadRequest_ResourceNotFound');
  });

  it('serves an EDMX document with the entity types', async () => {
    const r = await call(`${api()}/$metadata`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(r.text).toContain('<EntitySet Name="customers" EntityType="Microsoft.NAV.customer" />');
    expect(r.text).toContain(
      '<NavigationProperty Name="salesInvoiceLines" Type="Collection(Microsoft.NAV.salesInvoiceLine)" />',
    );
  });

  it('lists environment subscriptions (with clientState), reads one by string key, 404 for a GUID key', async () => {
    const list = await call(`${api()}/subscriptions`);
    expect(list.status).toBe(200);
    const rows = list.json().value as Row[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.clientState).toBe(ERP_SUBSCRIPTION_CLIENT_STATE);
    const one = await call(`${api()}/subscriptions('${rows[0]!.subscriptionId}')`);
    expect(one.json()['@odata.context']).toBe(`${api()}/$metadata#subscriptions/$entity`);
    expect(one.json().subscriptionId).toBe(rows[0]!.subscriptionId);
    expectError(await call(`${api()}/subscriptions(${ERP_UNKNOWN_COMPANY_ID})`), 404, 'Internal_RecordNotFound');
    expectError(await call(`${api()}/customers`), 400, 'Internal_CompanyNotFound');
  });
});

describe('paging', () => {
  it('pages customers in 3 pages at 50 through absolute nextLinks that keep the other options', async () => {
    const reference = await all('customers', '?$orderby=number desc&$select=id,number,displayName');
    const first =
      `${company()}/customers?$select=id,number,displayName&` +
      `$orderby=number desc&$filter=${encodeURIComponent("number ne 'X'")}`;
    const seen: Row[] = [];
    const sizes: number[] = [];
    let next: string | undefined = first;
    while (next !== undefined) {
      const r = await call(next, { headers: pageOf(50) });
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('preference-applied')).toBe('odata.maxpagesize=50');
      const body = r.json();
      sizes.push(body.value.length);
      seen.push(...body.value);
      next = body['@odata.nextLink'];
      if (next !== undefined) {
        const link = new URL(next);
        expect(`${link.origin}${link.pathname}`).toBe(`${company()}/customers`);
        expect(link.searchParams.get('$select')).toBe('id,number,displayName');
        expect(link.searchParams.get('$orderby')).toBe('number desc');
        expect(link.searchParams.get('$filter')).toBe("number ne 'X'");
        expect(link.searchParams.get('$skiptoken')).toMatch(/^[\w-]+\.[\w-]+$/);
      }
    }
    expect(sizes).toEqual([50, 50, 20]);
    expect(seen.map((c) => c.id)).toEqual(reference.map((c) => c.id));
    for (const row of seen) expect(Object.keys(row)).toEqual(['@odata.etag', 'id', 'number', 'displayName']);
  });

  it('lets the page size change on a continuation, and refuses an altered skip token', async () => {
    const reference = await all('customers', '?$select=id');
    const one = (await call(`${company()}/customers?$select=id`, { headers: pageOf(50) })).json();
    const two = (await call(one['@odata.nextLink'], { headers: pageOf(30) })).json();
    expect(two.value.map((c: Row) => c.id)).toEqual(reference.slice(50, 80).map((c) => c.id));
    const three = (await call(two['@odata.nextLink'])).json();
    expect(three.value.map((c: Row) => c.id)).toEqual(reference.slice(80).map((c) => c.id));
    expect(three['@odata.nextLink']).toBeUndefined();
    const link = new URL(one['@odata.nextLink']);
    const token = link.searchParams.get('$skiptoken')!;
    link.searchParams.set('$skiptoken', `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
    expectError(await call(link.toString(), { headers: pageOf(50) }), 400, 'BadRequest');
  });

  it('returns no nextLink with $top, caps the page at 20,000, and pages $skip', async () => {
    const top = (await call(`${company()}/customers?$top=70`, { headers: pageOf(50) })).json();
    expect(top.value).toHaveLength(70);
    expect(top['@odata.nextLink']).toBeUndefined();
    const capped = await call(`${company()}/generalLedgerEntries`, { headers: pageOf(50_000) });
    expect(capped.headers.get('preference-applied')).toBe('odata.maxpagesize=20000');
    expect(capped.json().value).toHaveLength(ERP_DEMO_COUNTS.generalLedgerEntries);
    const reference = await all('customers', '?$select=id');
    const skipped = (await call(`${company()}/customers?$select=id&$skip=100`, { headers: pageOf(15) })).json();
    expect(skipped.value.map((c: Row) => c.id)).toEqual(reference.slice(100, 115).map((c) => c.id));
    const rest = (await call(skipped['@odata.nextLink'], { headers: pageOf(15) })).json();
    expect(new URL(skipped['@odata.nextLink']).searchParams.has('$skip')).toBe(false);
    expect(rest.value.map((c: Row) => c.id)).toEqual(reference.slice(115).map((c) => c.id));
  });

  it('reports @odata.count only with $count=true', async () => {
    expect((await call(`${company()}/vendors`, { headers: pageOf(10) })).json()).not.toHaveProperty(['@odata.count']);
    const counted = (
      await call(`${company()}/vendors?$count=true&$filter=${encodeURIComponent('balance gt 20000')}`, {
        headers: pageOf(10),
      })
    ).json();
    expect(counted['@odata.count']).toBe((await filtered('vendors', 'balance gt 20000')).length);
    expect((await call(`${company()}/customers/$count`)).text).toBe(String(ERP_DEMO_COUNTS.customers));
  });
});

describe('$filter', () => {
  let customers: Row[];
  let gl: Row[];
  beforeAll(async () => {
    customers = await all('customers');
    gl = await all('generalLedgerEntries');
  });

  const ids = (rows: Row[]) => rows.map((r) => r.id);
  const expectSubset = async (set: string, filter: string, reference: Row[], predicate: (r: Row) => boolean) => {
    const got = await filtered(set, filter);
    const want = reference.filter(predicate);
    expect(want.length, `${filter} must select something`).toBeGreaterThan(0);
    expect(want.length, `${filter} must not select everything`).toBeLessThan(reference.length);
    expect(ids(got)).toEqual(ids(want));
  };

  it('compares with eq ne gt ge lt le on strings, numbers and booleans', async () => {
    const c = customers[10]!;
    await expectSubset('customers', `number eq '${c.number}'`, customers, (r) => r.number === c.number);
    await expectSubset('customers', `city ne '${c.city}'`, customers, (r) => r.city !== c.city);
    await expectSubset('customers', 'creditLimit gt 10000', customers, (r) => r.creditLimit > 10000);
    await expectSubset('customers', 'creditLimit ge 10000', customers, (r) => r.creditLimit >= 10000);
    await expectSubset('customers', 'creditLimit lt 25000', customers, (r) => r.creditLimit < 25000);
    await expectSubset('customers', 'creditLimit le 25000', customers, (r) => r.creditLimit <= 25000);
    await expectSubset('customers', 'taxLiable eq false', customers, (r) => r.taxLiable === false);
    await expectSubset('customers', "number gt 'C00500'", customers, (r) => r.number > 'C00500');
  });

  it('combines with and, or on one field, not and parentheses', async () => {
    await expectSubset(
      'customers',
      "creditLimit ge 10000 and city eq 'Aarhus C'",
      customers,
      (r) => r.creditLimit >= 10000 && r.city === 'Aarhus C',
    );
    await expectSubset(
      'customers',
      "(city eq 'Aarhus C' or city eq 'Vejle') and taxLiable eq true",
      customers,
      (r) => (r.city === 'Aarhus C' || r.city === 'Vejle') && r.taxLiable,
    );
    await expectSubset('customers', "not (city eq 'Aarhus C')", customers, (r) => r.city !== 'Aarhus C');
  });

  it('applies contains, startswith, endswith, substring, tolower and toupper', async () => {
    await expectSubset('customers', "contains(displayName,'Trading')", customers, (r) =>
      r.displayName.includes('Trading'),
    );
    await expectSubset('customers', "startswith(displayName,'Nordic')", customers, (r) =>
      r.displayName.startsWith('Nordic'),
    );
    await expectSubset('customers', "endswith(displayName,'ApS')", customers, (r) => r.displayName.endsWith('ApS'));
    await expectSubset('customers', "substring(number,1,2) eq '01'", customers, (r) => r.number.slice(1, 3) === '01');
    await expectSubset('customers', "tolower(city) eq 'vejle'", customers, (r) => r.city.toLowerCase() === 'vejle');
    await expectSubset('customers', "contains(toupper(displayName),'TRADING')", customers, (r) =>
      r.displayName.toUpperCase().includes('TRADING'),
    );
    await expectSubset(
      'customers',
      "contains(displayName,'Trading') eq false",
      customers,
      (r) => !r.displayName.includes('Trading'),
    );
  });

  it('reads doubled quotes inside string literals', async () => {
    const got = await filtered('customers', `displayName eq '${ERP_APOSTROPHE_CUSTOMER.replace(/'/g, "''")}'`);
    expect(got.map((c) => c.displayName)).toEqual([ERP_APOSTROPHE_CUSTOMER]);
    await expectSubset('customers', "contains(displayName,'''')", customers, (r) => r.displayName.includes("'"));
  });

  it('takes bare dates and datetimes', async () => {
    await expectSubset('generalLedgerEntries', 'postingDate ge 2026-01-01', gl, (r) => r.postingDate >= '2026-01-01');
    await expectSubset(
      'generalLedgerEntries',
      'postingDate ge 2025-03-01 and postingDate lt 2025-04-01',
      gl,
      (r) => r.postingDate >= '2025-03-01' && r.postingDate < '2025-04-01',
    );
    await expectSubset(
      'generalLedgerEntries',
      'lastModifiedDateTime gt 2026-01-01T00:00:00Z',
      gl,
      (r) => Date.parse(r.lastModifiedDateTime) > Date.parse('2026-01-01T00:00:00Z'),
    );
    await expectSubset(
      'customers',
      'lastModifiedDateTime lt 2025-06-01T12:00:00+02:00',
      customers,
      (r) => Date.parse(r.lastModifiedDateTime) < Date.parse('2025-06-01T10:00:00Z'),
    );
    const account = gl[0]!.accountId;
    await expectSubset('generalLedgerEntries', `accountId eq ${account}`, gl, (r) => r.accountId === account);
  });

  it('answers 400 BadRequest for a quoted date, an unknown or two-field filter, an unknown $select', async () => {
    const bad = async (query: string) =>
      expectError(await call(`${company()}/generalLedgerEntries?${query}`), 400, 'BadRequest');
    expect((await bad(`$filter=${encodeURIComponent("postingDate ge '2026-01-01'")}`)).message).toContain(
      "'Edm.Date' and 'Edm.String'",
    );
    expect((await bad(`$filter=${encodeURIComponent('postingDat ge 2026-01-01')}`)).message).toContain(
      "Could not find a property named 'postingDat'",
    );
    expect(
      (await bad(`$filter=${encodeURIComponent("accountNumber eq '2910' or documentType eq 'Payment'")}`)).message,
    ).toContain("'or'");
    expect((await bad('$select=entryNumber,amount')).message).toContain("Could not find a property named 'amount'");
    // or on one field stays allowed; and across fields too.
    expect(
      (
        await call(
          `${company()}/generalLedgerEntries?` +
            `$filter=${encodeURIComponent("accountNumber eq '2910' or accountNumber eq '1110'")}`,
        )
      ).status,
    ).toBe(200);
    await bad(`$orderby=amount desc`);
    await bad(`$filter=${encodeURIComponent("displayName eq 'unterminated")}`);
    await bad(`$filter=${encodeURIComponent('entryNumber eq')}`);
    await bad(`$filter=${encodeURIComponent("entryNumber eq '5'")}`);
    await bad('$expand=nothing');
    await bad('$frobnicate=1');
  });
});

describe('$select, $expand, $orderby', () => {
  it('orders by one or more fields, ascending or descending', async () => {
    const rows = await all('items', '?$orderby=unitPrice desc,number');
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.unitPrice).toBeGreaterThanOrEqual(rows[i]!.unitPrice);
    const byNumber = await all('items', '?$orderby=number asc');
    expect(byNumber.map((r) => r.number)).toEqual([...byNumber.map((r) => r.number)].sort());
  });

  it('expands nested navigations with their own $select, $filter and $expand', async () => {
    const query =
      '?$select=number,customerId&$expand=salesInvoiceLines($select=quantity,itemId;' +
      '$filter=quantity gt 5;$expand=item($select=number,id)),customer($select=id,displayName)';
    const rows = await all('salesInvoices', query.replace(/ /g, '%20'));
    let children = 0;
    for (const inv of rows) {
      expect(Object.keys(inv)).toEqual(['@odata.etag', 'number', 'customerId', 'salesInvoiceLines', 'customer']);
      expect(inv.customer.id).toBe(inv.customerId);
      expect(inv.customer['@odata.etag']).toMatch(/^W\/"/);
      for (const line of inv.salesInvoiceLines) {
        children++;
        expect(line.quantity).toBeGreaterThan(5);
        expect(Object.keys(line)).toEqual(['@odata.etag', 'quantity', 'itemId', 'item']);
        expect(line.item.id).toBe(line.itemId);
      }
    }
    expect(children).toBeGreaterThan(0);
    expect(children).toBeLessThan((await all('salesInvoiceLines')).length);
  });
});

describe('rows and single reads', () => {
  it('gives every row an @odata.etag and a single read a bare object with an $entity context', async () => {
    const customers = await all('customers');
    for (const c of customers) expect(c['@odata.etag']).toMatch(/^W\/".+"$/);
    const target = customers[42]!;
    const r = await call(`${company()}/customers(${target.id})`);
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body).not.toHaveProperty('value');
    expect(body['@odata.context']).toBe(`${api()}/$metadata#companies(${ERP_DEMO_COMPANY_ID})/customers/$entity`);
    expect(body).toEqual({ '@odata.context': body['@odata.context'], ...target });
    const upper = await call(`${company()}/customers(${String(target.id).toUpperCase()})?$select=number`);
    expect(Object.keys(upper.json())).toEqual(['@odata.context', '@odata.etag', 'number']);
    const invoice = (await all('salesInvoices'))[0]!;
    const expanded = (await call(`${company()}/salesInvoices(${invoice.id})?$expand=salesInvoiceLines`)).json();
    expect(expanded.salesInvoiceLines.length).toBeGreaterThan(0);
    const lines = (await call(`${company()}/salesInvoices(${invoice.id})/salesInvoiceLines`)).json();
    expect(lines.value.map((l: Row) => l.id)).toEqual(expanded.salesInvoiceLines.map((l: Row) => l.id));
    const company1 = (await call(company())).json();
    expect(company1['@odata.context']).toBe(`${api()}/$metadata#companies/$entity`);
    expect(company1.id).toBe(ERP_DEMO_COMPANY_ID);
  });

  it('answers 400 for a non-GUID key and 404 for an unknown row', async () => {
    expectError(await call(`${company()}/customers(C00010)`), 400, 'BadRequest');
    expectError(await call(`${company()}/customers('${ERP_UNKNOWN_COMPANY_ID}')`), 400, 'BadRequest');
    expectError(await call(`${api()}/companies(not-a-guid)/customers`), 400, 'BadRequest');
    expectError(await call(`${company()}/customers(${ERP_UNKNOWN_COMPANY_ID})`), 404, 'Internal_RecordNotFound');
  });
});

describe('authentication and not-found errors', () => {
  it('answers 401 Authentication_InvalidCredentials for a missing, invalid or expired bearer', async () => {
    const url = `${company()}/customers`;
    expectError(await call(url, { token: null }), 401, 'Authentication_InvalidCredentials');
    expectError(await call(url, { token: 'not-a-token' }), 401, 'Authentication_InvalidCredentials');
    expectError(await call(url, { token: 'idp-token-expired-Pe37' }), 401, 'Authentication_InvalidCredentials');
    expectError(await call(`${sb.url}/environments/v1.2`, { token: null }), 401, 'Authentication_InvalidCredentials');
    const r = await call(url, {
      headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      token: null,
    });
    expectError(r, 401, 'Authentication_InvalidCredentials');
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
    sb.setSwitches({ tokenExpired: true });
    expectError(await call(url), 401, 'Authentication_InvalidCredentials');
    expect(sb.stats.unauthorized).toBe(6);
  });

  it('accepts tokens the verifier passes, and answers 403 for an unlicensed user', async () => {
    expect((await call(`${company()}/customers?$top=1`, { token: 'idp-token-valid-Zq81' })).status).toBe(200);
    expectError(
      await call(`${company()}/customers`, { token: 'idp-token-nolicence-Xr90' }),
      403,
      'Authorization_InsufficientPermissions',
    );
    expectError(
      await call(`${company()}/customers`, { token: ERP_SANDBOX_UNLICENSED_TOKEN }),
      403,
      'Authorization_InsufficientPermissions',
    );
    expect(sb.stats.forbidden).toBe(2);
  });

  it('accepts no static token when told so', async () => {
    const strict = await startErpSandbox({
      accessToken: null,
      verifyToken: (t) => ({ valid: t === 'only-this-one-Jd62' }),
    });
    try {
      expectError(await call(`${strict.url}/environments/v1.2`), 401, 'Authentication_InvalidCredentials');
      expect((await call(`${strict.url}/environments/v1.2`, { token: 'only-this-one-Jd62' })).status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('answers 404 for an unknown company (400 with the switch) and an unknown set', async () => {
    expectError(await call(`${company(ERP_UNKNOWN_COMPANY_ID)}/customers`), 404, 'Internal_CompanyNotFound');
    sb.setSwitches({ unknownCompanyStatus: 400 });
    expectError(await call(`${company(ERP_UNKNOWN_COMPANY_ID)}/customers`), 400, 'Internal_CompanyNotFound');
    expectError(await call(`${company()}/Customers`), 404, 'BadRequest_ResourceNotFound');
  });
});

describe('switches', () => {
  it('rejects Data-Access-Intent: ReadOnly with 400 on the switched set only', async () => {
    sb.setSwitches({ readOnlyIntentRejectedSet: 'generalLedgerEntries' });
    const intent = { 'data-access-intent': 'ReadOnly' };
    expectError(await call(`${company()}/generalLedgerEntries?$top=1`, { headers: intent }), 400, 'BadRequest');
    expect((await call(`${company()}/generalLedgerEntries?$top=1`)).status).toBe(200);
    expect((await call(`${company()}/customers?$top=1`, { headers: intent })).status).toBe(200);
    expect(sb.stats.readOnlyIntentRejections).toBe(1);
  });

  it('throttles per token in a sliding window, with each Retry-After form', async () => {
    const url = `${company()}/customers?$top=1`;
    sb.setSwitches({ rateLimitRequests: 2, rateLimitWindowMs: 3_600_000 });
    expect((await call(url)).status).toBe(200);
    expect((await call(url)).status).toBe(200);
    const absent = await call(url);
    expectError(absent, 429, 'Application_TooManyRequests');
    expect(absent.headers.get('retry-after')).toBeNull();
    // Another user's token has its own window.
    expect((await call(url, { token: 'idp-token-other-Mw52' })).status).toBe(200);
    sb.setSwitches({ retryAfter429: 'seconds', retryAfterSeconds: 2 });
    expect((await call(url)).headers.get('retry-after')).toBe('2');
    sb.setSwitches({ retryAfter429: 'httpDate' });
    const dated = (await call(url)).headers.get('retry-after')!;
    expect(dated).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(Number.isNaN(Date.parse(dated))).toBe(false);
    sb.setSwitches({ retryAfter429: 'overCap' });
    expect(Number((await call(url)).headers.get('retry-after'))).toBeGreaterThan(5);
    expect(sb.stats.throttled).toBe(4);
    sb.setSwitches({ rateLimitRequests: 0 });
    expect((await call(url)).status).toBe(200);
  });

  it('injects 429, 503 with Retry-After, 408, 504, HTML 502 and non-JSON 200 for a counted few requests', async () => {
    const url = `${company()}/customers?$top=1`;
    sb.setSwitches({ fault: 'throttled', faultCount: 1, retryAfter429: 'seconds' });
    expect((await call(url)).status).toBe(429);
    expect((await call(url)).status).toBe(200);
    expect(sb.switches.fault).toBe('none');
    sb.setSwitches({ fault: 'unavailable', retryAfterSeconds: 3 });
    const unavailable = await call(url);
    expectError(unavailable, 503, 'ServiceUnavailable');
    expect(unavailable.headers.get('retry-after')).toBe('3');
    expect((await call(url)).status).toBe(503);
    sb.setSwitches({ fault: 'requestTimeout' });
    expect((await call(url)).status).toBe(408);
    sb.setSwitches({ fault: 'gatewayTimeout' });
    expect((await call(url)).status).toBe(504);
    sb.setSwitches({ fault: 'badGatewayHtml' });
    const html = await call(url);
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    sb.setSwitches({ fault: 'nonJson' });
    const nonJson = await call(url);
    expect(nonJson.status).toBe(200);
    expect(() => JSON.parse(nonJson.text)).toThrow();
    // Scoped to a path: the environments list still answers.
    sb.setSwitches({ fault: 'gatewayTimeout', faultPath: '/customers' });
    expect((await call(`${sb.url}/environments/v1.2`)).status).toBe(200);
    expect((await call(url)).status).toBe(504);
  });

  it('delays answers with the slow fault (over 30 s by default) and answers normally after the delay', async () => {
    expect(ERP_DEFAULT_SLOW_DELAY_MS).toBeGreaterThan(30_000);
    sb.setSwitches({ fault: 'slow' });
    expect(sb.switches.slowDelayMs).toBe(ERP_DEFAULT_SLOW_DELAY_MS);
    const abort = new AbortController();
    let settled = false;
    const pending = call(`${company()}/customers?$top=1`, { signal: abort.signal }).finally(() => {
      settled = true;
    });
    while (sb.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    abort.abort();
    await expect(pending).rejects.toThrow();
    sb.setSwitches({ slowDelayMs: 1 });
    const r = await call(`${company()}/customers?$top=1`);
    expect(r.status).toBe(200);
    expect(r.json().value).toHaveLength(1);
  });

  it('takes switches over the control API, refuses unknown ones, and resets', async () => {
    const post = (body: unknown) =>
      fetch(`${sb.url}/__sandbox/switches`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ fault: 'gatewayTimeout' })).status).toBe(200);
    expect(sb.switches.fault).toBe('gatewayTimeout');
    expect((await post({ fault: 'meltdown' })).status).toBe(400);
    expect((await post({ nonsense: true })).status).toBe(400);
    expect((await fetch(`${sb.url}/__sandbox/reset`, { method: 'POST' })).status).toBe(200);
    expect(sb.switches.fault).toBe('none');
    expect(sb.stats.requests).toBe(0);
  });
});

describe('read-only and the request log', () => {
  it('answers 405 to every method but GET and records each attempt', async () => {
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
      const r = await call(`${company()}/customers`, {
        method,
        body: method === 'DELETE' ? undefined : '{"displayName":"x"}',
        headers: { 'content-type': 'application/json' },
      });
      expectError(r, 405, 'BadRequest_MethodNotAllowed');
    }
    await call(`${company()}/customers?$top=1`);
    expect(sb.stats.writeLog.map((w) => w.method)).toEqual(['POST', 'PATCH', 'PUT', 'DELETE']);
    expect(sb.stats.writeLog[0]!.body).toEqual({ displayName: 'x' });
    const stats = (await (await fetch(`${sb.url}/__sandbox/stats`)).json()) as { writeLog: unknown[] };
    expect(stats.writeLog).toHaveLength(4);
  });

  it('records method, path, decoded query and headers of every upstream request', async () => {
    await call(`${company()}/customers?$filter=${encodeURIComponent("city eq 'Vejle'")}&$select=id`, {
      headers: { ...pageOf(7), 'data-access-intent': 'ReadOnly' },
    });
    const [entry] = sb.requests;
    expect(entry).toMatchObject({
      method: 'GET',
      path: `/v2.0/Production/api/v2.0/companies(${ERP_DEMO_COMPANY_ID})/customers`,
      query: { $filter: "city eq 'Vejle'", $select: 'id' },
    });
    expect(entry!.headers.prefer).toBe('odata.maxpagesize=7');
    expect(entry!.headers['data-access-intent']).toBe('ReadOnly');
    expect(entry!.headers.authorization).toBe(`Bearer ${ERP_SANDBOX_TOKEN}`);
    const over = (await (await fetch(`${sb.url}/__sandbox/requests`)).json()) as Row[];
    expect(over).toHaveLength(1);
    expect(sb.stats.byStatus).toEqual({ 200: 1 });
  });
});

describe('the sandbox record', () => {
  it('starts through the Sandbox convention and its examples name real data', async () => {
    expect(erpSandboxRecord.connector).toBe('erp');
    const running = await erpSandboxRecord.start({ host: '127.0.0.1', port: 0 });
    try {
      const example = erpSandboxRecord.examples.find((e) => e.tool === 'query_entity')!;
      const r = await call(
        `${running.url}/v2.0/Production/api/v2.0/companies(${example.args.companyId as string})/` +
          `${example.args.entity as string}?$select=${(example.args.select as string[]).join(',')}`,
      );
      expect(r.status).toBe(200);
      expect(r.json().value).toHaveLength(ERP_DEMO_COUNTS.customers);
      expect(erpSandboxRecord.examples.some((e) => e.tool === 'list_companies')).toBe(true);
    } finally {
      await running.close();
    }
  });
});

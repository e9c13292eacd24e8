// The ERP handlers against a nock-faked Business Central API v2.0 (upstreams/erp.md §2–3): exact
// request shapes (paths, OData options, Authorization, Prefer, Data-Access-Intent and its one
// retry), every text of doc 000's ERP error table, the allow-list with both spellings, cursors
// (paging and every kind of tampering), the size caps and the removal of OData annotations.
// Arguments go through the generated input validator (defaults filled in) and every result through
// the output validator. Every request any test makes is recorded: only GETs ever leave.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ErpToolName, ErpTools } from '../generated/erp/contract.ts';
import { erpDescriptor } from '../generated/erp/descriptor.ts';
import { erpHandlers } from '../generated/erp/handlers.ts';
import * as validators from '../generated/erp/validators.js';
import { closestEntitySets, resolveEntitySet, SPEC_ENTITY_SETS } from '../handlers/erp/allow-list.ts';
import { cursorBinding } from '../handlers/erp/cursor.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import type { Credential } from '../runtime/handler-api/tool-context.ts';
import { ArgumentRefusal, formatText, ToolError } from '../runtime/handler-api/tool-error.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';
import { recordingMethods, testContext, type TestToolContext } from './support/tool-context.ts';

const ORIGIN = 'https://bc.test';
const SECRET = 'eyJ0eXAi.Zq7-erp-access-9x';
const CREDENTIAL: Credential = {
  kind: 'oauth2',
  accessToken: SECRET,
  refreshToken: 'rt-Zq7-refresh-4k',
  expiresAt: 4102444800,
};
const COMPANY = '5a1f2e3d-0000-4000-8000-00000000c0de';
const OTHER_COMPANY = '5a1f2e3d-0000-4000-8000-0000000000ff';
const RECORD = '0f0e0d0c-1111-4222-8333-444455556666';
const API = `/v2.0/Production/api/v2.0`;
const SET = (set: string) => `${API}/companies(${COMPANY})/${set}`;

type Row = Record<string, unknown>;
interface Sent {
  readonly method: string;
  /** Path and raw query string exactly as sent. */
  readonly url: string;
  readonly headers: Headers;
}
/** [status, body (object: JSON, string: raw), headers]. */
type Reply = [number, unknown, Record<string, string>?];
type Responder = (sent: Sent, attempt: number) => Reply | undefined;

const sent: Sent[] = [];
/** Every method any handler asked the upstream client for (across the whole file). */
const methods = new Set<string>();

const ENVIRONMENTS = {
  value: [
    {
      aadTenantId: 'tenant-1',
      applicationFamily: 'BusinessCentral',
      type: 'production',
      name: 'Production',
      countryCode: 'DK',
      webServiceUrl: 'x',
      ringName: 'PROD',
    },
    { aadTenantId: 'tenant-1', applicationFamily: 'Business Central', type: 'Sandbox', name: 'Sandbox' },
    { aadTenantId: 'tenant-1', applicationFamily: 'Retail', type: 'Production', name: 'Shop', countryCode: 'DK' },
  ],
};

/**
 * The fake: `/environments/v1.2` answers the list above unless `respond` answers it; every other
 * GET is `respond`'s (undefined: 404 BadRequest_ResourceNotFound). `attempt` counts same-URL requests.
 */
function upstream(respond: Responder = () => undefined) {
  const attempts = new Map<string, number>();
  nock(ORIGIN)
    .get(/.*/)
    .reply(async (request: Request) => {
      const url = new URL(request.url);
      const entry: Sent = { method: request.method, url: url.pathname + url.search, headers: request.headers };
      sent.push(entry);
      const attempt = (attempts.get(entry.url) ?? 0) + 1;
      attempts.set(entry.url, attempt);
      const reply =
        respond(entry, attempt) ??
        (url.pathname === '/environments/v1.2'
          ? [200, ENVIRONMENTS]
          : [
              404,
              { error: { code: 'BadRequest_ResourceNotFound', message: 'Resource not found. CorrelationId: 1.' } },
            ]);
      const [status, body, headers] = reply;
      return [
        status,
        typeof body === 'string' ? body : JSON.stringify(body),
        { 'content-type': 'application/json', 'odata-version': '4.0', ...headers },
      ] as [number, string, Record<string, string>];
    })
    .persist();
}

const route =
  (routes: Record<string, Reply | ((sent: Sent, attempt: number) => Reply)>): Responder =>
  (s, attempt) => {
    const r = routes[s.url];
    return typeof r === 'function' ? r(s, attempt) : r;
  };

const dataRequests = () => sent.filter((s) => !s.url.includes('/environments/'));

interface CallOptions {
  readonly accountId?: string;
  readonly instanceId?: string;
  readonly credential?: Credential | null;
  readonly baseUrl?: string;
}

function context<K extends ErpToolName>(tool: K, options: CallOptions = {}): TestToolContext {
  return testContext({
    descriptor: erpDescriptor,
    tool,
    credential: options.credential === undefined ? CREDENTIAL : options.credential,
    baseUrl: options.baseUrl ?? ORIGIN,
    ...(options.accountId ? { accountId: options.accountId } : {}),
    ...(options.instanceId ? { instanceId: options.instanceId } : {}),
    wrapUpstream: recordingMethods(methods),
  });
}

/** Calls one tool with its arguments validated (defaults filled in) and its result validated. */
async function call<K extends ErpToolName>(
  tool: K,
  raw: Row,
  options: CallOptions = {},
): Promise<ErpTools[K]['result']> {
  const input = (validators as unknown as Record<string, CompiledValidator>)[`input_${tool}`]!;
  const checked = checkArguments({ coerce: [] }, input, raw);
  if (!checked.ok) throw new Error(`arguments refused by the schema: ${checked.reason}`);
  const handler = erpHandlers[tool] as (args: unknown, ctx: TestToolContext) => Promise<ErpTools[K]['result']>;
  const result = await handler(checked.args, context(tool, options));
  const output = (validators as unknown as Record<string, CompiledValidator>)[`output_${tool}`]!;
  output(result);
  expect(output.errors ?? [], `output_${tool}`).toEqual([]);
  expect(JSON.stringify(result)).not.toContain(SECRET);
  return result;
}

/** The failure of a call, with the text the runtime renders from the spec. */
async function failure(
  tool: ErpToolName,
  raw: Row,
  options: CallOptions = {},
): Promise<{ error: unknown; code?: string; text?: string }> {
  const error = await call(tool, raw, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should fail').toBeDefined();
  expect(String((error as Error)?.message ?? error)).not.toContain(SECRET);
  if (!(error instanceof ToolError)) return { error };
  const entry = erpDescriptor.errors[error.code as keyof typeof erpDescriptor.errors];
  // As the default instance answers it: sibling tools named `erp__<tool>`.
  return {
    error,
    code: error.code,
    text: formatText(renderToolReferences(entry.text, erpDescriptor.defaultId), {
      upstream: erpDescriptor.upstream.name,
      ...error.params,
    }),
  };
}

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

describe('request shapes', () => {
  it('every request carries the bearer token, Accept JSON and Data-Access-Intent: ReadOnly', async () => {
    upstream(route({ [`${API}/companies`]: [200, { value: [] }] }));
    await call('list_companies', {});
    expect(sent.map((s) => s.url)).toEqual(['/environments/v1.2', `${API}/companies`]);
    for (const s of sent) {
      expect(s.method).toBe('GET');
      expect(s.headers.get('authorization')).toBe(`Bearer ${SECRET}`);
      expect(s.headers.get('accept')).toBe('application/json');
      expect(s.headers.get('data-access-intent')).toBe('ReadOnly');
      expect(s.headers.get('prefer')).toBeNull();
    }
  });

  it('query_entity sends $filter, $select, $expand, $orderby percent-encoded and the page size in Prefer', async () => {
    upstream((s) => (s.url.startsWith(SET('customers')) ? [200, { value: [] }] : undefined));
    await call('query_entity', {
      companyId: COMPANY,
      entity: 'customers',
      filter: "displayName eq 'O''Brien' and lastModifiedDateTime gt 2024-01-01T00:00:00Z",
      select: ['id', 'number', 'displayName'],
      expand: 'customerFinancialDetails',
      orderby: 'number desc',
      pageSize: 25,
    });
    const read = dataRequests();
    expect(read).toHaveLength(1);
    // The quotes leave as %27 (the WHATWG URL parser encodes them in a query); the ERP decodes them.
    expect(read[0]!.url).toBe(
      `${SET('customers')}?` +
        '$filter=displayName%20eq%20%27O%27%27Brien%27%20and%20lastModifiedDateTime%20gt%202024-01-01T00:00:00Z&' +
        '$select=id,number,displayName&$expand=customerFinancialDetails&$orderby=number%20desc',
    );
    expect(read[0]!.headers.get('prefer')).toBe('odata.maxpagesize=25');
    expect(read[0]!.headers.get('data-access-intent')).toBe('ReadOnly');
  });

  it('the default page size is 50; without options no query string is sent', async () => {
    upstream(route({ [SET('vendors')]: [200, { value: [] }] }));
    await call('query_entity', { companyId: COMPANY, entity: 'vendors' });
    expect(dataRequests()[0]!.url).toBe(SET('vendors'));
    expect(dataRequests()[0]!.headers.get('prefer')).toBe('odata.maxpagesize=50');
  });

  it('the environment is checked against /environments/v1.2 first and sent in its canonical spelling', async () => {
    upstream(route({ [`/v2.0/Sandbox/api/v2.0/companies`]: [200, { value: [] }] }));
    const result = await call('list_companies', { environment: 'sANDBOX' });
    expect(sent.map((s) => s.url)).toEqual(['/environments/v1.2', '/v2.0/Sandbox/api/v2.0/companies']);
    expect(result.context).toEqual({ environment: 'Sandbox' });
  });

  it('a configured base with a path prefix is kept', async () => {
    upstream(route({ '/bc/environments/v1.2': [200, ENVIRONMENTS], [`/bc${API}/companies`]: [200, { value: [] }] }));
    await call('list_companies', {}, { baseUrl: `${ORIGIN}/bc` });
    expect(sent.map((s) => s.url)).toEqual(['/bc/environments/v1.2', `/bc${API}/companies`]);
  });
});

describe('list_environments', () => {
  it('keeps only the Business Central family, normalises `type` and turns missing fields into null', async () => {
    upstream();
    const result = await call('list_environments', {});
    expect(result).toEqual({
      count: 2,
      items: [
        { name: 'Production', type: 'Production', countryCode: 'DK', aadTenantId: 'tenant-1' },
        { name: 'Sandbox', type: 'Sandbox', countryCode: null, aadTenantId: 'tenant-1' },
      ],
    });
    expect(sent.map((s) => s.url)).toEqual(['/environments/v1.2']);
  });

  it('an empty list is a result, not a failure', async () => {
    upstream(route({ '/environments/v1.2': [200, { value: [] }] }));
    expect(await call('list_environments', {})).toEqual({ count: 0, items: [] });
  });
});

describe('list_companies', () => {
  const companies: Reply = [
    200,
    {
      '@odata.context': `${ORIGIN}${API}/$metadata#companies`,
      value: [
        {
          id: COMPANY,
          systemVersion: '24.1',
          name: 'CRONUS DK',
          displayName: 'Cronus Danmark A/S',
          businessProfileId: '',
        },
        { id: OTHER_COMPANY, systemVersion: '24.1', name: 'My Company', displayName: 'CRONUS Test' },
        { id: '5a1f2e3d-0000-4000-8000-000000000077', systemVersion: '24.1', name: 'Other Ltd', displayName: null },
      ],
    },
  ];

  it('lists id, name, displayName and systemVersion; ambiguous is false without a search', async () => {
    upstream(route({ [`${API}/companies`]: companies }));
    const result = await call('list_companies', {});
    expect(result.count).toBe(3);
    expect(result.ambiguous).toBe(false);
    expect(result.items[0]).toEqual({
      id: COMPANY,
      name: 'CRONUS DK',
      displayName: 'Cronus Danmark A/S',
      systemVersion: '24.1',
    });
    expect(result.items[2]!.displayName).toBeNull();
  });

  it('search matches name and displayName case-insensitively; ambiguous when more than one matched', async () => {
    upstream(route({ [`${API}/companies`]: companies }));
    const two = await call('list_companies', { search: 'cronus' });
    expect(two.items.map((c) => c.id)).toEqual([COMPANY, OTHER_COMPANY]);
    expect(two.ambiguous).toBe(true);
    const one = await call('list_companies', { search: 'OTHER' });
    expect(one).toMatchObject({ count: 1, ambiguous: false, context: { environment: 'Production' } });
    const none = await call('list_companies', { search: 'nothing like it' });
    expect(none).toMatchObject({ count: 0, items: [], ambiguous: false });
  });
});

describe('get_company_information', () => {
  it('returns value[0] with OData annotations removed (prop@odata.* too) and echoes the context', async () => {
    upstream(
      route({
        [SET('companyInformation')]: [
          200,
          {
            '@odata.context': 'x',
            value: [
              {
                '@odata.etag': 'W/"1"',
                id: 'ci',
                displayName: 'Cronus',
                city: 'Kbh',
                'picture@odata.mediaReadLink': `${ORIGIN}/pic`,
                currentFiscalYearStartDate: '2024-01-01',
              },
            ],
          },
        ],
      }),
    );
    const result = await call('get_company_information', { companyId: COMPANY });
    expect(result).toEqual({
      context: { environment: 'Production', companyId: COMPANY },
      companyInformation: { id: 'ci', displayName: 'Cronus', city: 'Kbh', currentFiscalYearStartDate: '2024-01-01' },
    });
  });

  it('is null when the collection is empty', async () => {
    upstream(route({ [SET('companyInformation')]: [200, { value: [] }] }));
    expect((await call('get_company_information', { companyId: COMPANY })).companyInformation).toBeNull();
  });

  it('a wrong companyId is the 404 text (never another company), also as a 400 with a not-found code', async () => {
    upstream(
      route({
        [SET('companyInformation')]: [
          400,
          { error: { code: 'Internal_CompanyNotFound', message: 'The company does not exist. CorrelationId: 2.' } },
        ],
      }),
    );
    const { code, text } = await failure('get_company_information', { companyId: COMPANY });
    expect(code).toBe('not_found_404');
    expect(text).toBe(
      'The company id or resource path does not exist in environment ' +
        "'Production' (404). Get a valid companyId from erp__list_companies.",
    );
  });
});

describe('list_entity_metadata', () => {
  const serviceDocument: Reply = [
    200,
    {
      '@odata.context': `${ORIGIN}${API}/$metadata`,
      value: [
        { name: 'customers', kind: 'EntitySet', url: 'customers' },
        { name: 'companies', kind: 'EntitySet', url: 'companies' },
        { name: 'agedAccountsPayables', kind: 'EntitySet', url: 'agedAccountsPayables' },
        { name: 'salespeoplePurchasers', kind: 'EntitySet', url: 'salespeoplePurchasers' },
        { name: 'subscriptions', kind: 'EntitySet', url: 'subscriptions' },
        { name: 'pdfDocument', kind: 'EntitySet', url: 'pdfDocument' },
        { name: 'workflows', url: 'workflows' },
        { name: 'contosoCustomApi', kind: 'EntitySet', url: 'contosoCustomApi' },
      ],
    },
  ];

  it('reads the service document at {B}/api/v2.0 and marks the allow-listed sets queryable', async () => {
    upstream(route({ [API]: serviceDocument }));
    const result = await call('list_entity_metadata', {});
    expect(dataRequests().map((s) => s.url)).toEqual([API]);
    expect(Object.fromEntries(result.items.map((i) => [i.name, i.queryable]))).toEqual({
      customers: true,
      companies: false,
      agedAccountsPayables: true,
      salespeoplePurchasers: true,
      subscriptions: true,
      pdfDocument: false,
      workflows: false,
      contosoCustomApi: false,
    });
    expect(result.items.find((i) => i.name === 'workflows')).toEqual({
      name: 'workflows',
      kind: 'EntitySet',
      url: 'workflows',
      queryable: false,
    });
    expect(result).toMatchObject({ context: { environment: 'Production' }, count: 8 });
  });

  it('search matches the name case-insensitively', async () => {
    upstream(route({ [API]: serviceDocument }));
    const result = await call('list_entity_metadata', { search: 'PURCHASERS' });
    expect(result.items.map((i) => i.name)).toEqual(['salespeoplePurchasers']);
  });

  it('a result over 40,000 JSON characters is refused with the generic text (and one under it is not)', async () => {
    const name = (i: number) => `customSet${String(i).padStart(5, '0')}`;
    const many = (n: number) => ({
      value: Array.from({ length: n }, (_, i) => ({ name: name(i), kind: 'EntitySet', url: name(i) })),
    });
    const size = (n: number) =>
      JSON.stringify({
        context: { environment: 'Production' },
        count: n,
        items: many(n).value.map((i) => ({ ...i, queryable: false })),
      }).length;
    let under = 1;
    while (size(under + 1) <= 40_000) under++;
    upstream(route({ [API]: [200, many(under)] }));
    expect((await call('list_entity_metadata', {})).count).toBe(under);
    nock.cleanAll();
    upstream(route({ [API]: [200, many(under + 1)] }));
    const { code } = await failure('list_entity_metadata', {});
    expect(code).toBe('generic');
  });
});

describe('query_entity: allow-list', () => {
  it.each([
    ['customers', 'customers'],
    ['CUSTOMERS', 'customers'],
    ['agedAccountsPayable', 'agedAccountsPayables'],
    ['agedaccountspayables', 'agedAccountsPayables'],
    ['agedAccountsReceivable', 'agedAccountsReceivables'],
    ['salespersonsPurchasers', 'salespeoplePurchasers'],
    ['SalespeoplePurchasers', 'salespeoplePurchasers'],
    ['generalLedgerEntries', 'generalLedgerEntries'],
  ])('%s is read as the real set %s', async (entity, real) => {
    upstream(route({ [SET(real)]: [200, { value: [{ id: 'x' }] }] }));
    const result = await call('query_entity', { companyId: COMPANY, entity });
    expect(dataRequests().map((s) => s.url)).toEqual([SET(real)]);
    expect(result).toMatchObject({ count: 1, items: [{ id: 'x' }] });
  });

  it('holds the 85 spec names, every one resolving, `companies` not among them', () => {
    expect(SPEC_ENTITY_SETS).toHaveLength(85);
    expect(new Set(SPEC_ENTITY_SETS).size).toBe(85);
    for (const name of SPEC_ENTITY_SETS) expect(resolveEntitySet(name)).toBeDefined();
    expect(resolveEntitySet('companies')).toBeUndefined();
  });

  it.each(['cust-omers', 'customers ', "customers'", 'customers(1)', 'customers/../companies', 'kundér'])(
    'an entity %j with other characters than letters and digits is `Invalid entity`, before any request',
    async (entity) => {
      upstream();
      const { error, code, text } = await failure('query_entity', { companyId: COMPANY, entity });
      expect(error).toBeInstanceOf(ArgumentRefusal);
      expect(code).toBe('invalid_entity');
      expect(text).toBe(
        `Invalid entity '${entity}': an entity name contains only letters and ` +
          'digits. Call erp__list_entity_metadata for the entity set names.',
      );
      expect(sent).toHaveLength(0);
    },
  );

  it('a name outside the list is `Unknown entity` with up to five near matches of both spellings, unsent', async () => {
    upstream();
    const { error, code, text } = await failure('query_entity', { companyId: COMPANY, entity: 'companies' });
    expect(error).toBeInstanceOf(ArgumentRefusal);
    expect(code).toBe('unknown_entity');
    expect(text).toMatch(
      /^Unknown entity 'companies'\. Closest matches: [A-Za-z, ]+\. Call erp__list_entity_metadata /,
    );
    expect(text).toMatch(/[a-z]\. Call erp__list_entity_metadata to see the entity sets and which are queryable\.$/);
    expect(text!.split('Closest matches: ')[1]!.split('. ')[0]!.split(', ').length).toBeLessThanOrEqual(5);
    expect(sent).toHaveLength(0);

    const typo = await failure('query_entity', { companyId: COMPANY, entity: 'agedAccountPayable' });
    expect(typo.text).toContain('Closest matches: agedAccountsPayable, agedAccountsPayables');
    const plural = await failure('query_entity', { companyId: COMPANY, entity: 'customer' });
    expect(plural.text).toMatch(/^Unknown entity 'customer'\. Closest matches: customers, /);
    expect(sent).toHaveLength(0);
  });

  it('closest matches are at most five', () => {
    expect(closestEntitySets('sales', 5)).toHaveLength(5);
    expect(closestEntitySets('sales', 5).every((n) => n.toLowerCase().includes('sales'))).toBe(true);
    expect(closestEntitySets('zzzzzzzzzzzzzzzzzzzz', 5)).toHaveLength(5);
    expect(closestEntitySets('salespeoplePurchaser', 2)).toEqual(['salespeoplePurchasers', 'salespersonsPurchasers']);
  });
});

describe('query_entity: reads', () => {
  it('one record by id: {set}({id}) with $select/$expand only, no Prefer, a bare $entity object', async () => {
    const url = `${SET('salesInvoices')}(${RECORD})?$select=id,number&$expand=salesInvoiceLines`;
    upstream(
      route({
        [url]: [
          200,
          {
            '@odata.context': `${ORIGIN}${API}/$metadata#companies(${COMPANY})/salesInvoices/$entity`,
            '@odata.etag': 'W/"9"',
            id: RECORD,
            number: 'S1',
            salesInvoiceLines: [{ '@odata.etag': 'W/"1"', lineNo: 1 }],
          },
        ],
      }),
    );
    const result = await call('query_entity', {
      companyId: COMPANY,
      entity: 'salesInvoices',
      id: RECORD,
      select: ['id', 'number'],
      expand: 'salesInvoiceLines',
      filter: 'number eq 1',
      orderby: 'number',
      pageSize: 3,
    });
    expect(result).toEqual({
      context: { environment: 'Production', companyId: COMPANY },
      item: { id: RECORD, number: 'S1', salesInvoiceLines: [{ lineNo: 1 }] },
    });
    expect(dataRequests().map((s) => s.url)).toEqual([url]);
    expect(dataRequests()[0]!.headers.get('prefer')).toBeNull();
  });

  it('one record wrapped in `value` is accepted too; an empty `value` is the 404 text', async () => {
    upstream(
      route({
        [`${SET('items')}(${RECORD})`]: [200, { value: [{ id: RECORD }] }],
        [`${SET('vendors')}(${RECORD})`]: [200, { value: [] }],
      }),
    );
    expect(await call('query_entity', { companyId: COMPANY, entity: 'items', id: RECORD })).toMatchObject({
      item: { id: RECORD },
    });
    expect((await failure('query_entity', { companyId: COMPANY, entity: 'vendors', id: RECORD })).code).toBe(
      'not_found_404',
    );
  });

  it('removes @odata.* keys at every depth, and prop@odata.* annotations, keeping every other key', async () => {
    upstream(
      route({
        [`${SET('salesInvoices')}?$expand=salesInvoiceLines`]: [
          200,
          {
            '@odata.context': 'ctx',
            value: [
              {
                '@odata.etag': 'W/"1"',
                id: 'a',
                odataLike: 'kept',
                'note@example': 'kept',
                'picture@odata.mediaReadLink': 'gone',
                'picture@odata.mediaEditLink': 'gone',
                salesInvoiceLines: [
                  {
                    '@odata.etag': 'W/"2"',
                    lineNo: 1,
                    item: {
                      '@odata.etag': 'W/"3"',
                      '@odata.id': 'gone',
                      number: 'I1',
                      deep: [[{ '@odata.type': '#x', v: 1 }]],
                    },
                  },
                ],
                'salesInvoiceLines@odata.nextLink': `${ORIGIN}/gone`,
                customer: { '@odata.etag': 'W/"4"', name: 'C' },
              },
            ],
          },
        ],
      }),
    );
    const result = await call('query_entity', {
      companyId: COMPANY,
      entity: 'salesInvoices',
      expand: 'salesInvoiceLines',
    });
    expect(result).toEqual({
      context: { environment: 'Production', companyId: COMPANY },
      count: 1,
      items: [
        {
          id: 'a',
          odataLike: 'kept',
          'note@example': 'kept',
          salesInvoiceLines: [{ lineNo: 1, item: { number: 'I1', deep: [[{ v: 1 }]] } }],
          customer: { name: 'C' },
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
  });

  it('subscriptions are read at the environment level and lose their clientState', async () => {
    upstream(
      route({
        [`${API}/subscriptions`]: [
          200,
          {
            value: [
              {
                subscriptionId: 's1',
                notificationUrl: 'https://hook',
                clientState: 'webhook-secret-Zq7',
                '@odata.etag': 'x',
              },
            ],
          },
        ],
      }),
    );
    const result = await call('query_entity', { companyId: COMPANY, entity: 'subscriptions' });
    expect(dataRequests().map((s) => s.url)).toEqual([`${API}/subscriptions`]);
    expect(result).toMatchObject({ items: [{ subscriptionId: 's1', notificationUrl: 'https://hook' }] });
    expect(JSON.stringify(result)).not.toContain('webhook-secret');
  });

  it('a page over 100,000 JSON characters is refused with the generic text (and one under it is not)', async () => {
    const rows = (n: number) => ({
      value: Array.from({ length: n }, (_, i) => ({ id: String(i).padStart(6, '0'), pad: 'x'.repeat(80) })),
    });
    const size = (n: number) =>
      JSON.stringify({
        context: { environment: 'Production', companyId: COMPANY },
        count: n,
        items: rows(n).value,
        nextCursor: null,
        hasMore: false,
      }).length;
    let under = 1;
    while (size(under + 1) <= 100_000) under++;
    upstream(route({ [SET('customers')]: [200, rows(under)] }));
    expect((await call('query_entity', { companyId: COMPANY, entity: 'customers' })).count).toBe(under);
    nock.cleanAll();
    upstream(route({ [SET('customers')]: [200, rows(under + 1)] }));
    expect((await failure('query_entity', { companyId: COMPANY, entity: 'customers' })).code).toBe('generic');
  });
});

describe('query_entity: cursors', () => {
  const page2Link = `${ORIGIN}${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=eyJrZXkiOiJDMDA1MCJ9`;
  const page1 = (link: unknown = page2Link): Reply => [
    200,
    { value: [{ id: 'c1', '@odata.etag': 'e' }], '@odata.nextLink': link },
  ];

  async function firstCursor(link: unknown = page2Link, options: CallOptions = {}): Promise<string> {
    upstream((s) =>
      s.url.startsWith(SET('customers')) && !s.url.includes('skiptoken')
        ? page1(link)
        : s.url.includes('skiptoken')
          ? [200, { value: [{ id: 'c2' }] }]
          : undefined,
    );
    const result = await call(
      'query_entity',
      { companyId: COMPANY, entity: 'customers', filter: 'balance gt 0', select: ['id'] },
      options,
    );
    expect(result).toMatchObject({ count: 1, hasMore: true });
    const cursor = (result as { nextCursor: string | null }).nextCursor;
    expect(typeof cursor).toBe('string');
    sent.length = 0;
    return cursor!;
  }

  it('wraps @odata.nextLink opaquely; the continuation sends it verbatim with the new page size only', async () => {
    const cursor = await firstCursor();
    expect(cursor).not.toContain('skiptoken');
    expect(cursor).not.toContain('bc.test');
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain('skiptoken');
    const result = await call('query_entity', {
      companyId: COMPANY,
      entity: 'customers',
      cursor,
      environment: 'Sandbox',
      filter: 'other eq 1',
      pageSize: 7,
      id: RECORD,
    });
    expect(sent.map((s) => s.url)).toEqual([page2Link.slice(ORIGIN.length)]);
    expect(sent[0]!.headers.get('prefer')).toBe('odata.maxpagesize=7');
    expect(sent[0]!.headers.get('data-access-intent')).toBe('ReadOnly');
    expect(result).toEqual({
      context: { environment: 'Production', companyId: COMPANY },
      count: 1,
      items: [{ id: 'c2' }],
      nextCursor: null,
      hasMore: false,
    });
  });

  it('the entity may be passed in the other spelling or case on the continuation', async () => {
    upstream(
      route({
        [SET('agedAccountsPayables')]: [
          200,
          { value: [], '@odata.nextLink': `${ORIGIN}${SET('agedAccountsPayables')}?$skiptoken=1` },
        ],
        [`${SET('agedAccountsPayables')}?$skiptoken=1`]: [200, { value: [] }],
      }),
    );
    const first = (await call('query_entity', { companyId: COMPANY, entity: 'agedAccountsPayable' })) as {
      nextCursor: string;
    };
    const next = await call('query_entity', {
      companyId: COMPANY.toUpperCase(),
      entity: 'AGEDACCOUNTSPAYABLES',
      cursor: first.nextCursor,
    });
    expect(next).toMatchObject({ count: 0, hasMore: false });
  });

  const refusals: Array<[string, (cursor: string) => { args?: Row; options?: CallOptions; cursor?: string }]> = [
    ['altered in one character', (c) => ({ cursor: c.slice(0, 20) + (c[20] === 'A' ? 'B' : 'A') + c.slice(21) })],
    ['cut short', (c) => ({ cursor: c.slice(0, -2) })],
    ['not a cursor at all', () => ({ cursor: 'bm90IGEgY3Vyc29y' })],
    ['built by hand from the next link', () => ({ cursor: Buffer.from(page2Link).toString('base64url') })],
    ['from another account', () => ({ options: { accountId: 'acc_other' } })],
    ['from another instance of the connector', () => ({ options: { instanceId: 'erp-2' } })],
    ['for another company', () => ({ args: { companyId: OTHER_COMPANY } })],
    ['for another entity', () => ({ args: { entity: 'vendors' } })],
  ];

  it.each(refusals)('a cursor %s is `Invalid cursor`, before any request', async (_name, change) => {
    const cursor = await firstCursor();
    const { args = {}, options = {}, cursor: altered = cursor } = change(cursor);
    const { error, code, text } = await failure(
      'query_entity',
      { companyId: COMPANY, entity: 'customers', cursor: altered, ...args },
      options,
    );
    expect(error).toBeInstanceOf(ArgumentRefusal);
    expect(code).toBe('invalid_cursor');
    expect(text).toBe('Invalid cursor. Restart the query without a cursor to get a fresh first page.');
    expect(sent).toHaveLength(0);
  });

  /**
   * A cursor sealed here as the handler seals one: what a tampered link inside a valid cursor looks like (or a cursor
   * of an older build).
   */
  const sealed = (payload: Row, options: CallOptions = {}) =>
    context('query_entity', options).tokens.seal(JSON.stringify(payload), cursorBinding(COMPANY, 'customers'));
  const SENT = { $filter: 'balance gt 0', $select: 'id' };

  const elsewhere: Array<[string, string]> = [
    ['another origin', `https://evil.test${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    ['another port', `https://bc.test:8443${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    ['plain http', `http://bc.test${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    ['userinfo', `https://user:pw@bc.test${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    [
      'another company',
      `${ORIGIN}${API}/companies(${OTHER_COMPANY})/customers?$filter=balance%20gt%200&$select=id&$skiptoken=1`,
    ],
    ['another set', `${ORIGIN}${SET('vendors')}?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    ['a record instead of the set', `${ORIGIN}${SET('customers')}(${RECORD})`],
    ['a deeper path', `${ORIGIN}${SET('customers')}/x?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    [
      'a dot-segment escape',
      `${ORIGIN}${SET('customers')}/../../../companies?$filter=balance%20gt%200&$select=id&$skiptoken=1`,
    ],
    [
      'an encoded slash',
      `${ORIGIN}${API}/companies(${COMPANY})%2Fcustomers?$filter=balance%20gt%200&$select=id&$skiptoken=1`,
    ],
    [
      'another environment',
      `${ORIGIN}/v2.0/Sandbox/api/v2.0/companies(${COMPANY})/customers?` +
        '$filter=balance%20gt%200&$select=id&$skiptoken=1',
    ],
    [
      'another API',
      `${ORIGIN}/v2.0/Production/api/contoso/app/v1.0/companies(${COMPANY})/` +
        'customers?$filter=balance%20gt%200&$select=id&$skiptoken=1',
    ],
    ['a fragment', `${ORIGIN}${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=1#x`],
    ['a relative link', `${SET('customers')}?$filter=balance%20gt%200&$select=id&$skiptoken=1`],
  ];
  const q = `${ORIGIN}${SET('customers')}?`;
  // The first page sent `$filter=balance gt 0&$select=id`; paging may add one `$skiptoken` and nothing else.
  const foreignOptions: Array<[string, string]> = [
    ['an added $expand', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&$expand=*`],
    ['an added $top (bigger than any page)', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&$top=100000`],
    ['a callback parameter', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&callback=x`],
    [
      "the issue's $expand, $top and callback together",
      `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&$expand=*&$top=100000&callback=x`,
    ],
    ['a changed $filter', `${q}$filter=balance%20gt%20-1&$select=id&$skiptoken=1`],
    ['a widened $select', `${q}$filter=balance%20gt%200&$select=id,balance&$skiptoken=1`],
    ['a dropped $filter', `${q}$select=id&$skiptoken=1`],
    ['a repeated $filter', `${q}$filter=balance%20gt%200&$filter=balance%20gt%200&$select=id&$skiptoken=1`],
    ['a duplicate $skiptoken', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&$skiptoken=2`],
    ['no $skiptoken', `${q}$filter=balance%20gt%200&$select=id`],
    ['an empty $skiptoken', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=`],
    ['an added $count', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&$count=true`],
    ['a bare extra name', `${q}$filter=balance%20gt%200&$select=id&$skiptoken=1&debug`],
  ];

  it.each([...elsewhere, ...foreignOptions])(
    'an upstream next link with %s ends the first page with `Invalid cursor` (metered: the page was read) and is ' +
      'never requested',
    async (_name, link) => {
      upstream((s) =>
        s.url.startsWith(SET('customers')) && !s.url.includes('skiptoken')
          ? page1(link)
          : s.url.includes('skiptoken')
            ? [200, { value: [{ id: 'c2' }] }]
            : undefined,
      );
      const { error, code, text } = await failure('query_entity', {
        companyId: COMPANY,
        entity: 'customers',
        filter: 'balance gt 0',
        select: ['id'],
      });
      expect(error).toBeInstanceOf(ToolError);
      expect(error).not.toBeInstanceOf(ArgumentRefusal);
      expect(code).toBe('invalid_cursor');
      expect(text).toBe('Invalid cursor. Restart the query without a cursor to get a fresh first page.');
      expect(dataRequests().map((s) => s.url)).toEqual([`${SET('customers')}?$filter=balance%20gt%200&$select=id`]);
    },
  );

  it.each([...elsewhere, ...foreignOptions])(
    'a cursor whose link has %s is `Invalid cursor` when followed, before any request',
    async (_name, link) => {
      upstream(() => [200, { value: [{ id: 'c2' }] }]);
      const { error, code } = await failure('query_entity', {
        companyId: COMPANY,
        entity: 'customers',
        cursor: sealed({ link, environment: 'Production', query: SENT }),
      });
      expect(error).toBeInstanceOf(ArgumentRefusal);
      expect(code).toBe('invalid_cursor');
      expect(sent).toHaveLength(0);
    },
  );

  it('the same checks pass a clean link: the sent options in any order and encoding, plus one $skiptoken', async () => {
    const clean = [
      page2Link,
      `${q}$skiptoken=abc&$select=id&$filter=balance%20gt%200`,
      `${q}%24filter=balance+gt+0&%24select=id&%24skiptoken=abc`,
    ];
    for (const link of clean) {
      upstream(() => [200, { value: [{ id: 'c2' }] }]);
      expect(
        await call('query_entity', {
          companyId: COMPANY,
          entity: 'customers',
          cursor: sealed({ link, environment: 'Production', query: SENT }),
        }),
      ).toMatchObject({ items: [{ id: 'c2' }] });
      expect(sent).toHaveLength(1);
      sent.length = 0;
      nock.cleanAll();
    }
  });

  it('a cursor minted before sent options were recorded (no `query`) is `Invalid cursor`, unsent', async () => {
    upstream(() => [200, { value: [] }]);
    for (const payload of [
      { link: page2Link, environment: 'Production' },
      { link: page2Link, environment: 'Production', query: { $filter: 1 } },
    ]) {
      const { error, code } = await failure('query_entity', {
        companyId: COMPANY,
        entity: 'customers',
        cursor: sealed(payload),
      });
      expect(error).toBeInstanceOf(ArgumentRefusal);
      expect(code).toBe('invalid_cursor');
    }
    expect(sent).toHaveLength(0);
  });

  it("every page of a chain keeps the first page's options: a tampered third-page link ends page two", async () => {
    const link = (token: string, extra = '') => `${q}$filter=balance%20gt%200&$select=id&$skiptoken=${token}${extra}`;
    upstream((s) => {
      if (!s.url.startsWith(SET('customers'))) return undefined;
      if (s.url.includes('skiptoken=p2')) return [200, { value: [{ id: 'c2' }], '@odata.nextLink': link('p3') }];
      if (s.url.includes('skiptoken=p3'))
        return [200, { value: [{ id: 'c3' }], '@odata.nextLink': link('p4', '&$top=100000') }];
      return [200, { value: [{ id: 'c1' }], '@odata.nextLink': link('p2') }];
    });
    const first = (await call('query_entity', {
      companyId: COMPANY,
      entity: 'customers',
      filter: 'balance gt 0',
      select: ['id'],
    })) as { nextCursor: string };
    const second = (await call('query_entity', {
      companyId: COMPANY,
      entity: 'customers',
      cursor: first.nextCursor,
      pageSize: 5,
    })) as { nextCursor: string; items: Row[] };
    expect(second.items).toEqual([{ id: 'c2' }]);
    const third = await failure('query_entity', { companyId: COMPANY, entity: 'customers', cursor: second.nextCursor });
    expect(third.code).toBe('invalid_cursor');
    expect(dataRequests().map((s) => s.url)).toEqual([
      `${SET('customers')}?$filter=balance%20gt%200&$select=id`,
      link('p2').slice(ORIGIN.length),
      link('p3').slice(ORIGIN.length),
    ]);
  });

  it('a next link with the tenant segment, on a base with a path prefix, is followed', async () => {
    const base = `${ORIGIN}/bc`;
    const link = `${base}/v2.0/tenant-1/Production/api/v2.0/companies(${COMPANY})/customers?$skiptoken=2`;
    upstream(
      route({
        '/bc/environments/v1.2': [200, ENVIRONMENTS],
        [`/bc${SET('customers')}`]: [200, { value: [], '@odata.nextLink': link }],
        [link.slice(ORIGIN.length)]: [200, { value: [{ id: 'z' }] }],
      }),
    );
    const first = (await call('query_entity', { companyId: COMPANY, entity: 'customers' }, { baseUrl: base })) as {
      nextCursor: string;
    };
    expect(
      await call(
        'query_entity',
        { companyId: COMPANY, entity: 'customers', cursor: first.nextCursor },
        { baseUrl: base },
      ),
    ).toMatchObject({ items: [{ id: 'z' }] });
    // The same cursor against a base without that prefix points elsewhere.
    expect(
      (await failure('query_entity', { companyId: COMPANY, entity: 'customers', cursor: first.nextCursor })).code,
    ).toBe('invalid_cursor');
  });
});

describe('the ERP error table', () => {
  const customers = { companyId: COMPANY, entity: 'customers' };

  it('no usable stored access: the expired text (reconnect)', async () => {
    upstream();
    for (const credential of [
      null,
      { kind: 'oauth2', accessToken: '' } as Credential,
      { kind: 'api_key', apiKey: 'k' } as Credential,
    ]) {
      const { code, text } = await failure('list_companies', {}, { credential });
      expect(code).toBe('access_expired');
      expect(text).toBe(
        'The access token has expired and could not be refreshed. The connection must be ' +
          're-established from the portal: call connect_account to reconnect.',
      );
      expect(erpDescriptor.errors.access_expired.reconnect).toBe(true);
    }
    expect(sent).toHaveLength(0);
  });

  it.each([
    ['the environments list', '/environments/v1.2'],
    ['the data read', SET('customers')],
  ])('401 on %s: the rejected-token text (reconnect)', async (_name, path) => {
    upstream(
      route({
        [path]: [
          401,
          {
            error: {
              code: 'Authentication_InvalidCredentials',
              message: 'The server has rejected the client credentials. CorrelationId: 3.',
            },
          },
        ],
      }),
    );
    const { code, text } = await failure('query_entity', customers);
    expect(code).toBe('access_rejected_401');
    expect(text).toBe(
      'The access token was rejected (401). The connection must be ' +
        're-established from the portal: call connect_account to reconnect.',
    );
    expect(erpDescriptor.errors.access_rejected_401.reconnect).toBe(true);
  });

  it('403: the permission text, not a reconnect', async () => {
    upstream(
      route({ [SET('customers')]: [403, { error: { code: 'Authorization_NoLicense', message: 'no licence' } }] }),
    );
    const { code, text } = await failure('query_entity', customers);
    expect(code).toBe('forbidden_403');
    expect(text).toBe(
      'The connected user lacks a licence, the permission set, or access to this ' +
        'company or environment (403). Reconnecting will not fix this.',
    );
    expect(erpDescriptor.errors.forbidden_403.reconnect).toBe(false);
  });

  it('unknown environment: named, with the available ones, before any data request', async () => {
    upstream();
    const args: Record<string, Row> = {
      list_companies: {},
      get_company_information: { companyId: COMPANY },
      list_entity_metadata: {},
      query_entity: customers,
    };
    for (const tool of ['list_companies', 'get_company_information', 'list_entity_metadata', 'query_entity'] as const) {
      const { code, text } = await failure(tool, { ...args[tool], environment: 'Shop' });
      expect(code).toBe('unknown_environment');
      expect(text).toBe(
        "Environment 'Shop' not found. Available: Production, Sandbox. Pass one of " +
          'these names as `environment`, or call erp__list_environments.',
      );
    }
    expect(dataRequests()).toHaveLength(0);
  });

  it.each([
    'Internal_CompanyNotFound',
    'Internal_RecordNotFound',
    'BadRequest_NotFound',
    'BadRequest_ResourceNotFound',
  ])('a 400 with %s is the 404 text', async (errorCode) => {
    upstream(route({ [SET('customers')]: [400, { error: { code: errorCode, message: 'not there' } }] }));
    const { code, text } = await failure('query_entity', customers);
    expect(code).toBe('not_found_404');
    expect(text).toBe(
      'The company id or resource path does not exist in environment ' +
        "'Production' (404). Get a valid companyId from erp__list_companies.",
    );
  });

  it('404 is the 404 text naming the environment as spelled by the ERP', async () => {
    upstream(
      route({
        [`/v2.0/Sandbox/api/v2.0/companies(${COMPANY})/customers`]: [
          404,
          { error: { code: 'BadRequest_ResourceNotFound', message: 'x' } },
        ],
      }),
    );
    const { code, text } = await failure('query_entity', { ...customers, environment: 'sandbox' });
    expect(code).toBe('not_found_404');
    expect(text).toContain("in environment 'Sandbox' (404)");
  });

  it('a 400 with the read-only header is retried once without it; a success then is the result', async () => {
    upstream(
      route({
        [SET('customers')]: (s) =>
          s.headers.get('data-access-intent')
            ? [400, { error: { code: 'BadRequest', message: 'Data-Access-Intent not allowed' } }]
            : [200, { value: [{ id: 'ok' }] }],
      }),
    );
    expect(await call('query_entity', customers)).toMatchObject({ items: [{ id: 'ok' }] });
    expect(
      dataRequests().map((s) => [
        s.url,
        s.headers.get('data-access-intent'),
        s.headers.get('prefer'),
        s.headers.get('authorization'),
      ]),
    ).toEqual([
      [SET('customers'), 'ReadOnly', 'odata.maxpagesize=50', `Bearer ${SECRET}`],
      [SET('customers'), null, 'odata.maxpagesize=50', `Bearer ${SECRET}`],
    ]);
  });

  it('a 400 after the retry: `Business Central rejected the request (400 <code>): <message>` (≤ 500)', async () => {
    const message = `Invalid filter expression 'postingDate ge '2024-01-01''. ${'m'.repeat(600)} CorrelationId: 4.`;
    upstream(
      route({
        [`${SET('customers')}?$filter=bad`]: [400, { error: { code: 'Application_FilterErrorException', message } }],
      }),
    );
    const { code, text } = await failure('query_entity', { ...customers, filter: 'bad' });
    expect(code).toBe('bad_request_400');
    expect(text).toBe(
      `Business Central rejected the request (400 Application_FilterErrorException): ${message.slice(0, 500)}`,
    );
    expect(dataRequests()).toHaveLength(2);
    expect(dataRequests()[1]!.headers.get('data-access-intent')).toBeNull();
  });

  it('a 400 without an OData error body still names a code', async () => {
    upstream(route({ [SET('customers')]: [400, 'Bad Request', { 'content-type': 'text/plain' }] }));
    expect((await failure('query_entity', customers)).text).toBe(
      'Business Central rejected the request (400 BadRequest): Bad Request',
    );
  });

  it('429 twice: the throttle text after exactly one retry', async () => {
    upstream(
      route({ [SET('customers')]: [429, { error: { code: 'Application_TooManyRequests', message: 'slow down' } }] }),
    );
    const { code, text } = await failure('query_entity', customers);
    expect(code).toBe('throttled');
    expect(text).toBe(
      'The ERP rate limit was hit (429), also after one retry. Wait a moment, then try again asking for fewer rows.',
    );
    expect(dataRequests()).toHaveLength(2);
  });

  it('429 then 200: the retry answers', async () => {
    upstream(
      route({
        [SET('customers')]: (_s, attempt) => (attempt === 1 ? [429, '', { 'retry-after': '2' }] : [200, { value: [] }]),
      }),
    );
    expect(await call('query_entity', customers)).toMatchObject({ count: 0 });
    expect(dataRequests()).toHaveLength(2);
  });

  it.each<[string, Reply, UpstreamError['kind']]>([
    ['500', [500, { error: { code: 'Internal_ServerError', message: 'x' } }], 'server'],
    ['502 HTML', [502, '<html>Bad gateway</html>', { 'content-type': 'text/html' }], 'server'],
    ['503', [503, '', { 'retry-after': '1' }], 'server'],
    ['504', [504, ''], 'server'],
    ['408', [408, ''], 'server'],
    ['a 200 that is not JSON', [200, '<html>login</html>', { 'content-type': 'text/html' }], 'bad_body'],
  ])('%s ends in the generic text (no spec text declared for it), without the retry', async (_name, reply, kind) => {
    upstream(route({ [SET('customers')]: reply }));
    const { error } = await failure('query_entity', customers);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe(kind);
    expect(dataRequests()).toHaveLength(1);
    for (const code of erpDescriptor.tools.find((t) => t.name === 'query_entity')!.errors)
      expect(erpDescriptor.errors[code as keyof typeof erpDescriptor.errors]?.upstream ?? []).toEqual([]);
  });

  it('a 200 without a `value` array ends in the generic text', async () => {
    upstream(route({ [SET('customers')]: [200, { rows: [] }] }));
    const { error } = await failure('query_entity', customers);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ToolError);
  });
});

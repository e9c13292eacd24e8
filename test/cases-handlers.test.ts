// The case-management handlers against nock: the exact documents and variables sent upstream,
// the schema differences of upstreams/cases.md §3, periods, and every error text.
import { parse, print } from 'graphql';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { casesDescriptor } from '../generated/cases/descriptor.ts';
import { casesHandlers } from '../generated/cases/handlers.ts';
import { clearSchemaMaps } from '../handlers/cases/schema-map.ts';
import { localMidnightUnix } from '../handlers/cases/period.ts';
import { ArgumentRefusal, ToolError, formatText } from '../runtime/handler-api/tool-error.ts';
import { testContext } from './support/tool-context.ts';

const BASE = 'https://cases.test/graphql';
type Body = { query: string; variables?: Record<string, unknown> };
type Responder = (body: Body) => [number, unknown] | [number, unknown, Record<string, string>];

const sent: Body[] = [];
const flat = (query: string) => query.replace(/\s+/g, ' ');
function upstream(respond: Responder) {
  nock('https://cases.test')
    .post('/graphql')
    // nock 15 calls a reply function with the request (a fetch Request).
    .reply(async (request: Request) => {
      const b = (await request.json()) as Body;
      sent.push(b);
      return respond(b) as [number, string];
    })
    .persist();
}

const EXTENDED_DISCOVERY = {
  caseType: {
    fields: [
      'id',
      'caseNumber',
      'description',
      'status',
      'caseType',
      'customer',
      'foreman',
      'responsibleUser',
      'offerTotal',
      'parentCaseId',
      'subCases',
      'economy',
    ].map((name) => ({ name })),
  },
  economyType: {
    fields: [
      'hoursCostprice',
      'hoursSalesprice',
      'offer',
      'revisedOffer',
      'materialsCostprice',
      'materialsSalesprice',
      'expectedCoverageRatio',
      'revenue',
    ].map((name) => ({ name })),
  },
  hourColumns: { enumValues: [{ name: 'startTime' }, { name: 'createdAt' }] },
  queryType: { fields: [] },
};
const PUBLIC_DISCOVERY = {
  ...EXTENDED_DISCOVERY,
  caseType: {
    fields: ['id', 'caseNumber', 'description', 'status', 'caseType', 'customer', 'responsibleUser', 'economy'].map(
      (name) => ({ name }),
    ),
  },
  economyType: {
    fields: ['hoursCostprice', 'hoursSalesprice', 'offer', 'revisedOffer', 'materialsCostprice'].map((name) => ({
      name,
    })),
  },
  hourColumns: { enumValues: [{ name: 'START_TIME' }, { name: 'CREATED_AT' }] },
};

const ctx = (tool: string, now = new Date('2026-11-22T12:00:00Z')) =>
  testContext({
    descriptor: casesDescriptor,
    tool,
    credential: { kind: 'api_key', apiKey: 'secret-key-123' },
    baseUrl: BASE,
    now: () => now,
  });
const texts = casesDescriptor.errors;
async function errorText(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ToolError)
      return formatText((texts as Record<string, { text: string }>)[error.code]!.text, {
        upstream: 'Ordrestyring',
        ...error.params,
      });
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  throw new Error('expected a failure');
}

describe('case-management handlers (nock)', () => {
  beforeEach(() => {
    sent.length = 0;
    clearSchemaMaps();
  });
  afterEach(() => nock.cleanAll());

  it('list_cases sends the key as a bearer token, the cursor and orderBy in the single-object form', async () => {
    let auth = '';
    nock('https://cases.test', {
      reqheaders: {
        authorization: (v: string | null) => {
          auth = String(v);
          return true;
        },
      },
    })
      .post('/graphql')
      .reply(async (request: Request) => {
        const b = (await request.json()) as Body;
        sent.push(b);
        if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
        return [
          200,
          {
            data: {
              cases: {
                items: [
                  {
                    id: 7,
                    caseNumber: 'S-7',
                    description: 'Tag',
                    status: { text: 'Åben' },
                    foreman: { fullName: 'Ib' },
                    offerTotal: 1200.5,
                    economy: { hoursCostprice: 10 },
                  },
                ],
                nextCursor: 'abc',
              },
            },
          },
        ];
      })
      .persist();
    const result = await casesHandlers.list_cases(
      { limit: 2, orderBy: 'id', direction: 'ASC', cursor: 'c1' },
      ctx('list_cases'),
    );
    expect(auth).toBe('Bearer secret-key-123');
    const last = sent.at(-1)!;
    expect(last.variables).toEqual({ cursor: 'c1', limit: 2 });
    // The official guide's form: it validates against `orderBy: OrderByInput` and `[OrderByInput]` alike.
    expect(flat(last.query)).toContain('orderBy: { field: "id", direction: ASC }');
    expect(flat(last.query)).toContain('foreman { fullName }');
    expect(result).toMatchObject({
      count: 1,
      nextCursor: 'abc',
      hasMore: true,
      items: [{ id: 7, caseNumber: 'S-7', status: { text: 'Åben' }, foreman: { fullName: 'Ib' }, offerTotal: 1200.5 }],
    });
    expect(result.amountsNote).toBe(casesDescriptor.texts.amountsNote);
  });

  it('never asks for a spec-only field the upstream lacks, and fills it from its public source', async () => {
    upstream((b) =>
      b.query.includes('CaseConnectorDiscovery')
        ? [200, { data: PUBLIC_DISCOVERY }]
        : [
            200,
            {
              data: {
                caseById: {
                  id: 3,
                  caseNumber: '3',
                  responsibleUser: { fullName: 'Anne' },
                  economy: { offer: 100, revisedOffer: 150, materialsCostprice: 5 },
                },
              },
            },
          ],
    );
    const result = await casesHandlers.get_case({ id: 3 }, ctx('get_case'));
    const q = sent.at(-1)!.query;
    for (const f of [
      'foreman',
      'offerTotal',
      'parentCaseId',
      'subCases',
      'expectedCoverageRatio',
      'revenue',
      'materialsSalesprice',
    ])
      expect(q).not.toContain(f);
    expect(result).toMatchObject({
      id: 3,
      foreman: { fullName: 'Anne' },
      offerTotal: 150,
      subCases: null,
      economy: { materialsCostprice: 5, revenue: null },
    });
  });

  it('introspection: scalar status/caseType, object orderBy, an input-object filter of another name', async () => {
    const scalar = { kind: 'SCALAR', name: 'String', ofType: null };
    const discovery = {
      ...PUBLIC_DISCOVERY,
      caseType: {
        fields: [
          { name: 'id', type: { kind: 'SCALAR', name: 'Int' } },
          { name: 'caseNumber', type: scalar },
          { name: 'status', type: { kind: 'NON_NULL', name: null, ofType: scalar } },
          { name: 'caseType', type: { kind: 'ENUM', name: 'CaseTypeEnum' } },
          { name: 'customer', type: { kind: 'OBJECT', name: 'Customer' } },
        ],
      },
      hoursFilter: null,
      queryType: {
        fields: [
          {
            name: 'cases',
            type: { kind: 'OBJECT', name: 'CaseConnection' },
            args: [{ name: 'orderBy', type: { kind: 'INPUT_OBJECT', name: 'OrderByInput' } }],
          },
          {
            name: 'hours',
            type: { kind: 'OBJECT', name: 'HourConnection' },
            args: [{ name: 'filters', type: { kind: 'INPUT_OBJECT', name: 'TimeFilter' } }],
          },
        ],
      },
    };
    const timeFilter = {
      name: 'TimeFilter',
      inputFields: [
        {
          name: 'case',
          type: {
            kind: 'NON_NULL',
            name: null,
            inputFields: null,
            ofType: {
              kind: 'INPUT_OBJECT',
              name: 'CaseRef',
              inputFields: [
                { name: 'caseId', type: { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'ID' } } },
                { name: 'includeSubcases', type: { kind: 'SCALAR', name: 'Boolean' } },
              ],
            },
          },
        },
      ],
    };
    const day = localMidnightUnix('2025-10-26', 'Europe/Copenhagen');
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: discovery }];
      if (b.query.includes('CaseConnectorInput')) return [200, { data: { t: timeFilter } }];
      if (b.query.includes('CaseHours'))
        return [200, { data: { hours: { items: [{ costPrice: 2, startTime: day }], nextCursor: null } } }];
      return [
        200,
        {
          data: {
            cases: { items: [{ id: 1, caseNumber: '1', status: 'Åben', caseType: 'SERVICE' }], nextCursor: null },
          },
        },
      ];
    });
    const cases = await casesHandlers.list_cases(
      { limit: 1, orderBy: 'updatedAt', direction: 'DESC' },
      ctx('list_cases'),
    );
    expect(cases.items[0]).toMatchObject({ status: { text: 'Åben' }, caseType: { text: 'SERVICE' } });
    const listDocument = flat(sent.at(-1)!.query);
    expect(listDocument).toContain('items { id caseNumber status caseType customer { name } }');
    expect(listDocument).toContain('orderBy: { field: "updatedAt", direction: DESC }');
    expect(sent.filter((b) => b.query.includes('CaseConnectorInput'))).toHaveLength(1);
    expect(sent.find((b) => b.query.includes('CaseConnectorInput'))!.query).toContain('"TimeFilter"');
    const hours = await casesHandlers.list_case_hours(
      { caseId: 5, from: '2025-10-26', to: '2025-10-26', maxRows: 500 },
      ctx('list_case_hours'),
    );
    expect(hours).toMatchObject({ count: 1, costPriceTotal: 2 });
    const hoursDocument = flat(sent.at(-1)!.query);
    expect(hoursDocument).toContain('$caseId: ID!');
    expect(hoursDocument).toContain('filters: { case: { caseId: $caseId, includeSubcases: false } }');
    expect(sent.at(-1)!.variables).toMatchObject({ caseId: 5 });
    // Cached: the second call asks nothing about the schema.
    const before = sent.length;
    await casesHandlers.list_case_hours(
      { caseId: 5, from: '2025-10-26', to: '2025-10-26', maxRows: 500 },
      ctx('list_case_hours'),
    );
    expect(sent.slice(before).map((b) => b.query.match(/query (\w+)/)![1])).toEqual(['CaseHours']);
  });

  it('learns the shapes from a graphql-php validation answer without introspection, once per connection', async () => {
    upstream((b) => {
      if (b.query.includes('__type'))
        return [
          200,
          { errors: [{ message: 'GraphQL introspection is not allowed, but the query contained __schema or __type' }] },
        ];
      if (flat(b.query).includes('status { text }'))
        return [
          200,
          {
            errors: [
              { message: 'Field "status" must not have a selection since type "String!" has no subfields.' },
              { message: 'Field "caseType" must not have a selection since type "String" has no subfields.' },
            ],
          },
        ];
      if (flat(b.query).includes('filters: { case: $caseId }'))
        return [
          200,
          { errors: [{ message: 'Variable "$caseId" of type "Int!" used in position expecting type "CaseFilter!".' }] },
        ];
      if (b.query.includes('CaseHours')) return [200, { data: { hours: { items: [], nextCursor: null } } }];
      return [200, { data: { caseById: { id: 9, caseNumber: '9', status: 'Lukket', caseType: 'Tilbud' } } }];
    });
    expect(await casesHandlers.get_case({ id: 9 }, ctx('get_case'))).toMatchObject({
      status: { text: 'Lukket' },
      caseType: { text: 'Tilbud' },
    });
    expect(await casesHandlers.get_case({ id: 9 }, ctx('get_case'))).toMatchObject({ status: { text: 'Lukket' } });
    const getCases = sent.filter((b) => b.query.includes('GetCase'));
    expect(getCases.map((b) => flat(b.query).includes('status { text }'))).toEqual([true, false, false]);
    await casesHandlers.list_case_hours({ caseId: 5, from: '2000-01-01', maxRows: 500 }, ctx('list_case_hours'));
    await casesHandlers.list_case_hours({ caseId: 5, from: '2000-01-01', maxRows: 500 }, ctx('list_case_hours'));
    const hourDocuments = sent.filter((b) => b.query.includes('CaseHours')).map((b) => flat(b.query));
    expect(hourDocuments).toHaveLength(3);
    expect(hourDocuments[0]).toContain('filters: { case: $caseId }');
    for (const q of hourDocuments.slice(1)) expect(q).toContain('filters: { case: { id: $caseId } }');
  });

  it('falls back to the public names when introspection is disabled', async () => {
    upstream((b) =>
      b.query.includes('__type')
        ? [200, { errors: [{ message: 'GraphQL introspection is not allowed' }] }]
        : [200, { data: { caseById: { id: 1, caseNumber: '1' } } }],
    );
    expect(await casesHandlers.get_case({ id: 1 }, ctx('get_case'))).toMatchObject({ id: 1 });
    expect(flat(sent.at(-1)!.query)).toContain('responsibleUser { fullName }');
  });

  it('never caches a fallback taken after a failed discovery (500, garbage, a GraphQL error)', async () => {
    for (const failure of [
      [500, '<html>Server Error</html>'],
      [200, 'not json at all'],
      [200, { errors: [{ message: 'SQLSTATE[HY000]: General error' }] }],
    ] as Array<[number, unknown]>) {
      nock.cleanAll();
      clearSchemaMaps();
      sent.length = 0;
      let discoveries = 0;
      upstream((b) => {
        if (b.query.includes('CaseConnectorDiscovery'))
          return discoveries++ === 0 ? failure : [200, { data: PUBLIC_DISCOVERY }];
        return [
          200,
          {
            data: {
              hours: {
                items: [{ costPrice: 1, startTime: localMidnightUnix('2025-10-26', 'Europe/Copenhagen') }],
                nextCursor: null,
              },
            },
          },
        ];
      });
      const args = { caseId: 5, from: '2025-10-26', to: '2025-10-26', maxRows: 500 };
      await casesHandlers.list_case_hours(args, ctx('list_case_hours'));
      expect(flat(sent.at(-1)!.query)).toContain('field: startTime');
      await casesHandlers.list_case_hours(args, ctx('list_case_hours'));
      expect(discoveries, JSON.stringify(failure)).toBe(2);
      expect(flat(sent.at(-1)!.query)).toContain('field: START_TIME');
    }
  });

  it('maps an unknown case id to the upstream validation text, both error layouts', async () => {
    upstream((b) =>
      b.query.includes('CaseConnectorDiscovery')
        ? [200, { data: EXTENDED_DISCOVERY }]
        : [
            200,
            {
              data: { caseById: null },
              errors: [
                {
                  message: 'validation',
                  path: ['caseById'],
                  extensions: { validation: { id: ['The selected id is invalid.'] } },
                },
              ],
            },
          ],
    );
    expect(await errorText(casesHandlers.get_case({ id: 999999 }, ctx('get_case')))).toBe(
      'Ordrestyring rejected the request: id: The selected id is invalid.',
    );
    nock.cleanAll();
    upstream((b) =>
      b.query.includes('CaseConnectorDiscovery')
        ? [200, { data: EXTENDED_DISCOVERY }]
        : [
            200,
            {
              data: { caseById: null },
              errors: [
                { message: 'validation', type: 'ValidationError', validation: { id: ['The selected id is invalid.'] } },
              ],
            },
          ],
    );
    expect(await errorText(casesHandlers.get_case({ id: 999999 }, ctx('get_case')))).toBe(
      'Ordrestyring rejected the request: id: The selected id is invalid.',
    );
    upstream(() => [200, { data: { caseById: null } }]);
  });

  it('answers a rejected key (401, 403 and inside a 200) with the reconnect text', async () => {
    const reconnect = texts.key_rejected.text.replace('{upstream}', 'Ordrestyring');
    for (const reply of [
      [401, { message: 'Unauthenticated.' }],
      [403, 'no'],
      [200, { data: null, errors: [{ message: 'Unauthenticated.', extensions: { category: 'authentication' } }] }],
    ] as const) {
      nock.cleanAll();
      clearSchemaMaps();
      upstream(() => [reply[0], reply[1]]);
      expect(
        await errorText(
          casesHandlers.list_cases({ limit: 5, orderBy: 'updatedAt', direction: 'DESC' }, ctx('list_cases')),
        ),
      ).toBe(reconnect);
    }
  });

  it('retries a throttled request once (429 or a throttle exception in a 200), then the throttle text', async () => {
    let n = 0;
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
      n++;
      return n === 1
        ? [
            429,
            { errors: [{ message: 'Too Many Attempts.', type: 'ThrottleRequestsException' }] },
            { 'retry-after': '2' },
          ]
        : [200, { data: { cases: { items: [], nextCursor: null } } }];
    });
    expect(
      await casesHandlers.list_cases({ limit: 5, orderBy: 'updatedAt', direction: 'DESC' }, ctx('list_cases')),
    ).toMatchObject({ count: 0, hasMore: false });
    expect(n).toBe(2);
    nock.cleanAll();
    upstream((b) =>
      b.query.includes('CaseConnectorDiscovery')
        ? [200, { data: EXTENDED_DISCOVERY }]
        : [200, { errors: [{ message: 'Too Many Attempts.', type: 'ThrottleRequestsException' }] }],
    );
    expect(
      await errorText(
        casesHandlers.list_cases({ limit: 5, orderBy: 'updatedAt', direction: 'DESC' }, ctx('list_cases')),
      ),
    ).toBe(texts.throttled.text.replace('{upstream}', 'Ordrestyring'));
  });

  it('filters hours on start time with the learnt enum spelling and next local midnight, bound excluded', async () => {
    const from = localMidnightUnix('2025-10-26', 'Europe/Copenhagen');
    const to = localMidnightUnix('2025-10-27', 'Europe/Copenhagen');
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: PUBLIC_DISCOVERY }];
      return [
        200,
        {
          data: {
            hours: {
              items: [
                { costPrice: 10, startTime: from },
                { costPrice: 20.5, startTime: to - 1 },
                { costPrice: 99, startTime: to },
              ],
              nextCursor: null,
            },
          },
        },
      ];
    });
    const result = await casesHandlers.list_case_hours(
      { caseId: 5, from: '2025-10-26', to: '2025-10-26', maxRows: 500 },
      ctx('list_case_hours'),
    );
    const last = sent.at(-1)!;
    expect(flat(last.query)).toContain('between: { field: START_TIME, from: $from, to: $to }');
    expect(last.variables).toEqual({ caseId: 5, from, to, cursor: null, limit: 200 });
    expect(to - from).toBe(25 * 3600);
    expect(result).toMatchObject({
      caseId: 5,
      count: 2,
      costPriceTotal: 30.5,
      truncated: false,
      items: [{ costPrice: 10 }, { costPrice: 20.5 }],
    });
    expect(result.period).toEqual({
      from: '2025-10-26',
      to: '2025-10-26',
      fromUnix: from,
      toUnix: to,
      toIsExclusive: true,
      timeZone: 'Europe/Copenhagen',
    });
  });

  it('sums money exactly in the precision of the values: no floating-point noise in any total', async () => {
    const day = localMidnightUnix('2025-10-26', 'Europe/Copenhagen');
    const hours = [
      ...Array.from({ length: 300 }, (_, i) => ({ costPrice: 1234.57, startTime: day + i })),
      { costPrice: null, startTime: day },
    ];
    const invoices = [
      ...Array.from({ length: 100 }, (_, i) => ({ id: i + 1, amount: 1234.57, date: day })),
      { id: 'x', amount: 0.1, date: day },
      { id: 'y', amount: 0.2, date: day },
    ];
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
      if (b.query.includes('CaseHours')) return [200, { data: { hours: { items: hours, nextCursor: null } } }];
      if (b.query.includes('CaseSalesInvoices'))
        return [200, { data: { salesInvoices: { items: invoices, nextCursor: null } } }];
      return [200, { data: { caseById: { economy: { materialsCostprice: 5.5 } } } }];
    });
    const period = { from: '2025-10-26', to: '2025-10-26' };
    expect(
      (await casesHandlers.list_case_hours({ caseId: 5, ...period, maxRows: 2000 }, ctx('list_case_hours')))
        .costPriceTotal,
    ).toBe(370371);
    expect(
      (
        await casesHandlers.list_case_sales_invoices(
          { caseId: 5, ...period, maxRows: 2000 },
          ctx('list_case_sales_invoices'),
        )
      ).amountTotal,
    ).toBe(123457.3);
    const summary = await casesHandlers.get_case_work_summary({ caseId: 5, ...period }, ctx('get_case_work_summary'));
    expect(summary.hours).toMatchObject({ rows: 301, costPriceTotal: 370371 });
    expect(summary.salesInvoices).toMatchObject({ count: 102, amountTotal: 123457.3 });
  });

  it('fails data-sized case tools with the generic text over resultMaxChars; find_cases gives what fits', async () => {
    const day = localMidnightUnix('2025-10-26', 'Europe/Copenhagen');
    const long = 'x'.repeat(1000);
    const cases = Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      caseNumber: String(i + 1),
      description: `e ${long}`,
    }));
    const invoices = Array.from({ length: 200 }, (_, i) => ({ id: `${long}-${i}`, amount: 1, date: day }));
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
      if (b.query.includes('CaseHours')) return [200, { data: { hours: { items: [], nextCursor: null } } }];
      if (b.query.includes('CaseSalesInvoices'))
        return [200, { data: { salesInvoices: { items: invoices, nextCursor: null } } }];
      if (b.query.includes('CaseMaterials'))
        return [200, { data: { caseById: { economy: { materialsCostprice: 1 } } } }];
      if (b.query.includes('caseById'))
        return [200, { data: { caseById: { ...cases[0], description: long.repeat(200) } } }];
      return [200, { data: { cases: { items: cases, nextCursor: null } } }];
    });
    const period = { from: '2025-10-26', to: '2025-10-26' };
    const generic = texts.generic.text;
    expect(
      await errorText(
        casesHandlers.list_cases({ limit: 200, orderBy: 'updatedAt', direction: 'DESC' }, ctx('list_cases')),
      ),
    ).toBe(generic);
    const cap = casesDescriptor.limits.resultMaxChars!;
    const broad = await casesHandlers.find_cases({ text: 'e', maxPages: 1 }, ctx('find_cases'));
    expect(broad.matched).toBe(200);
    expect(broad.count).toBeGreaterThan(0);
    expect(broad.count).toBeLessThan(200);
    expect(broad.items.map((c) => c.id)).toEqual(cases.slice(0, broad.count).map((c) => c.id));
    expect(broad.note).toBe(
      formatText(casesDescriptor.texts.findCasesOverflow!, {
        matched: 200,
        scanned: 200,
        count: broad.count,
        max_chars: cap,
      }),
    );
    const size = JSON.stringify(broad).length;
    expect(size).toBeLessThanOrEqual(cap);
    // The largest prefix: one more case would not fit (each case here is over 1,000 characters).
    expect(size + JSON.stringify(broad.items[0]).length).toBeGreaterThan(cap);
    expect(await errorText(casesHandlers.get_case({ id: 1 }, ctx('get_case')))).toBe(generic);
    expect(
      await errorText(
        casesHandlers.list_case_sales_invoices({ caseId: 5, ...period, maxRows: 500 }, ctx('list_case_sales_invoices')),
      ),
    ).toBe(generic);
    expect(
      await errorText(casesHandlers.get_case_work_summary({ caseId: 5, ...period }, ctx('get_case_work_summary'))),
    ).toBe(generic);
    // Under the cap the same tools answer.
    expect(await casesHandlers.find_cases({ text: '7', maxPages: 1 }, ctx('find_cases'))).toMatchObject({
      pagesScanned: 1,
    });
    expect(
      await casesHandlers.list_case_sales_invoices(
        { caseId: 5, ...period, maxRows: 20 },
        ctx('list_case_sales_invoices'),
      ),
    ).toMatchObject({ count: 20, truncated: true });
  });

  it('refuses `from` after `to` without any upstream request', async () => {
    upstream(() => [200, { data: {} }]);
    expect(
      await errorText(
        casesHandlers.list_case_hours(
          { caseId: 5, from: '2025-02-01', to: '2025-01-31', maxRows: 500 },
          ctx('list_case_hours'),
        ),
      ),
    ).toBe('Tool invocation failed.');
    expect(sent).toHaveLength(0);
  });

  it('accumulates pages of 200 up to maxRows and sets truncated when rows are left behind', async () => {
    let page = 0;
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
      page++;
      const items = Array.from({ length: 200 }, (_, i) => ({
        costPrice: 1,
        startTime: 1_700_000_000 + page * 1000 + i,
      }));
      return [200, { data: { hours: { items, nextCursor: page < 5 ? `p${page}` : null } } }];
    });
    const r = await casesHandlers.list_case_hours(
      { caseId: 1, from: '2023-01-01', to: '2026-01-01', maxRows: 450 },
      ctx('list_case_hours'),
    );
    expect(r).toMatchObject({ count: 450, costPriceTotal: 450, truncated: true });
    expect(sent.filter((b) => b.query.includes('CaseHours')).map((b) => b.variables?.cursor)).toEqual([
      null,
      'p1',
      'p2',
    ]);
  });

  it('refuses every document that could write before the upstream, as a refusal of the arguments', async () => {
    upstream(() => [200, { data: { updateCase: { id: 1 } } }]);
    for (const query of [
      'mutation { updateCase(id: 1, description: "x") { id } }',
      'subscription { x }',
      'query A { a } mutation B { updateCase(id: 1) { id } }',
      'type Query { x: Int }',
      '{ a',
      'x'.repeat(65_537),
    ]) {
      const refusal = await casesHandlers.graphql_query({ query }, ctx('graphql_query')).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal, query.slice(0, 40)).toBeInstanceOf(ArgumentRefusal);
      expect((refusal as ArgumentRefusal).code).toBe('generic');
    }
    expect(sent).toHaveLength(0);
  });

  it('graphql_query returns data unchanged; fails on any GraphQL error, even with data, or over 100,000', async () => {
    upstream((b) => {
      if (b.query.includes('Partial'))
        return [200, { data: { caseById: { id: 1 } }, errors: [{ message: 'SQLSTATE[42000]: syntax error' }] }];
      if (b.query.includes('Big')) return [200, { data: { x: 'y'.repeat(100_001) } }];
      return [200, { data: { caseById: { id: 1, caseNumber: 'A' } } }];
    });
    expect(
      await casesHandlers.graphql_query(
        { query: 'query Q($id: Int!) { caseById(id: $id) { id caseNumber } }', variables: { id: 1 } },
        ctx('graphql_query'),
      ),
    ).toEqual({
      caseById: { id: 1, caseNumber: 'A' },
    });
    expect(sent.at(-1)).toEqual({
      query: print(parse('query Q($id: Int!) { caseById(id: $id) { id caseNumber } }')),
      variables: { id: 1 },
    });
    expect(
      await errorText(
        casesHandlers.graphql_query({ query: 'query Partial { caseById(id: 1) { id } }' }, ctx('graphql_query')),
      ),
    ).toMatch(/^GraphQLError: SQLSTATE/);
    expect(await errorText(casesHandlers.graphql_query({ query: 'query Big { x }' }, ctx('graphql_query')))).toBe(
      'Tool invocation failed.',
    );
  });

  it('introspect_schema gives one-line signatures by search; describe_type its sections or found: false', async () => {
    const t = (name: string) => ({ kind: 'SCALAR', name, ofType: null });
    const nn = (inner: unknown) => ({ kind: 'NON_NULL', name: null, ofType: inner });
    upstream((b) => {
      if (b.query.includes('IntrospectSchema')) {
        return [
          200,
          {
            data: {
              __schema: {
                queryType: {
                  name: 'Query',
                  fields: [
                    {
                      name: 'caseById',
                      description: 'One case',
                      args: [{ name: 'id', type: nn(t('Int')), defaultValue: null }],
                      type: { kind: 'OBJECT', name: 'Case', ofType: null },
                    },
                    {
                      name: 'hours',
                      description: 'Hour registrations',
                      args: [],
                      type: { kind: 'OBJECT', name: 'HourConnection', ofType: null },
                    },
                  ],
                },
                types: [{ name: 'Case' }, { name: 'Hour' }, { name: '__Type' }],
              },
            },
          },
        ];
      }
      if (b.variables?.name === 'Nope') return [200, { data: { __type: null } }];
      return [
        200,
        {
          data: {
            __type: {
              kind: 'OBJECT',
              name: 'Case',
              description: null,
              fields: [{ name: 'id', description: null, args: [], type: nn(t('Int')) }],
              inputFields: null,
              enumValues: null,
              interfaces: [],
              possibleTypes: null,
            },
          },
        },
      ];
    });
    expect(
      await casesHandlers.introspect_schema(
        { search: 'case', limit: 25, includeTypes: true },
        ctx('introspect_schema'),
      ),
    ).toEqual({
      queryTypeName: 'Query',
      total: 1,
      returned: 1,
      truncated: false,
      fields: [{ name: 'caseById', description: 'One case', signature: 'caseById(id: Int!): Case' }],
      typeNames: ['Case'],
      typeNamesTruncated: false,
    });
    expect(await casesHandlers.describe_type({ name: 'Case', limit: 60 }, ctx('describe_type'))).toEqual({
      name: 'Case',
      kind: 'OBJECT',
      description: null,
      found: true,
      fields: {
        total: 1,
        returned: 1,
        truncated: false,
        items: [{ name: 'id', description: null, signature: 'id: Int!' }],
      },
      inputFields: { total: 0, returned: 0, truncated: false, items: [] },
      enumValues: { total: 0, returned: 0, truncated: false, items: [] },
    });
    expect(await casesHandlers.describe_type({ name: 'Nope', limit: 60 }, ctx('describe_type'))).toEqual({
      name: 'Nope',
      found: false,
    });
  });

  it('refuses schema-discovery results over 40,000 characters with the generic text', async () => {
    const field = (i: number) => ({
      name: `field${i}`,
      description: 'd'.repeat(450),
      args: [],
      type: { kind: 'SCALAR', name: 'String', ofType: null },
    });
    upstream((b) =>
      b.query.includes('IntrospectSchema')
        ? [
            200,
            {
              data: {
                __schema: { queryType: { name: 'Query', fields: Array.from({ length: 150 }, (_, i) => field(i)) } },
              },
            },
          ]
        : [
            200,
            {
              data: {
                __type: {
                  kind: 'OBJECT',
                  name: 'Big',
                  description: null,
                  fields: Array.from({ length: 200 }, (_, i) => field(i)),
                  inputFields: null,
                  enumValues: null,
                  interfaces: [],
                  possibleTypes: null,
                },
              },
            },
          ],
    );
    expect(
      await errorText(casesHandlers.introspect_schema({ limit: 100, includeTypes: false }, ctx('introspect_schema'))),
    ).toBe('Tool invocation failed.');
    expect(await errorText(casesHandlers.describe_type({ name: 'Big', limit: 200 }, ctx('describe_type')))).toBe(
      'Tool invocation failed.',
    );
    // The same schema with a smaller limit fits.
    expect((await casesHandlers.describe_type({ name: 'Big', limit: 60 }, ctx('describe_type'))).found).toBe(true);
  });

  it('work summary: a failing section becomes unavailable, a rejected key fails the whole call', async () => {
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
      if (b.query.includes('CaseHours'))
        return [200, { data: { hours: { items: [{ costPrice: 5, startTime: 1_750_000_000 }], nextCursor: null } } }];
      if (b.query.includes('CaseMaterials'))
        return [200, { data: { caseById: { economy: { materialsCostprice: 42 } } } }];
      return [200, { data: null, errors: [{ message: `SQLSTATE[42000]: ${'x'.repeat(400)}` }] }];
    });
    const r = await casesHandlers.get_case_work_summary(
      { caseId: 9, from: '2025-01-01', to: '2025-12-31' },
      ctx('get_case_work_summary'),
    );
    expect(r.hours).toEqual({ rows: 1, costPriceTotal: 5, truncated: false });
    expect(r.materials).toEqual({ totalCostPrice: 42, scope: casesDescriptor.texts.materialsScope });
    const unavailable = (r.salesInvoices as { unavailable: string }).unavailable;
    // The upstream's own words are not the spec's: the section says what failed with the generic text.
    expect(unavailable).toBe(`GraphQLError: ${texts.generic.text}`);
    nock.cleanAll();
    upstream((b) =>
      b.query.includes('CaseConnectorDiscovery')
        ? [200, { data: EXTENDED_DISCOVERY }]
        : b.query.includes('CaseMaterials')
          ? [401, 'no']
          : [200, { data: { hours: { items: [], nextCursor: null }, salesInvoices: { items: [], nextCursor: null } } }],
    );
    expect(
      await errorText(
        casesHandlers.get_case_work_summary({ caseId: 9, from: '2000-01-01' }, ctx('get_case_work_summary')),
      ),
    ).toBe(texts.key_rejected.text.replace('{upstream}', 'Ordrestyring'));
  });

  it('work summary: a section names its failure with a spec text, cut at the spec limit', async () => {
    const noMaterials = { ...EXTENDED_DISCOVERY, economyType: { fields: [{ name: 'hoursCostprice' }] } };
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: noMaterials }];
      if (b.query.includes('CaseHours')) return [200, { data: { hours: { items: [], nextCursor: null } } }];
      return [
        200,
        {
          data: null,
          errors: [{ message: 'validation', extensions: { validation: { caseId: [`unknown ${'y'.repeat(300)}`] } } }],
        },
      ];
    });
    const r = await casesHandlers.get_case_work_summary(
      { caseId: 9, from: '2025-01-01', to: '2025-12-31' },
      ctx('get_case_work_summary'),
    );
    expect(r.materials).toEqual({ unavailable: `UpstreamSchemaError: ${texts.materials_total_unknown.text}` });
    const invoices = (r.salesInvoices as { unavailable: string }).unavailable;
    expect(invoices.startsWith('UpstreamValidationError: Ordrestyring rejected the request: caseId: unknown yyy')).toBe(
      true,
    );
    expect(invoices.length).toBe('UpstreamValidationError: '.length + 200);
    nock.cleanAll();
    clearSchemaMaps();
    upstream((b) => {
      if (b.query.includes('CaseConnectorDiscovery')) return [200, { data: EXTENDED_DISCOVERY }];
      if (b.query.includes('CaseMaterials')) return [200, { data: { caseById: null } }];
      return [
        200,
        { data: { hours: { items: [], nextCursor: null }, salesInvoices: { items: [], nextCursor: null } } },
      ];
    });
    const missing = await casesHandlers.get_case_work_summary(
      { caseId: 9, from: '2025-01-01', to: '2025-12-31' },
      ctx('get_case_work_summary'),
    );
    expect(missing.materials).toEqual({ unavailable: `CaseNotFoundError: ${texts.case_not_found.text}` });
  });

  it('never puts the API key into a result or an error text', async () => {
    upstream(() => [200, { data: null, errors: [{ message: 'Unauthenticated.' }] }]);
    const text = await errorText(
      casesHandlers.list_cases({ limit: 1, orderBy: 'id', direction: 'ASC' }, ctx('list_cases')),
    );
    expect(text).not.toContain('secret-key-123');
  });
});

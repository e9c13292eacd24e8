// The four invoicing write tools and their guardrails (docs/decisions/upstream-calls.md, 'Writes: a preview without
// confirmation, one send with it'; spec doc 001 "Guardrail
// rules", upstreams/invoicing.md §2 "Writes" and §3 #6–#11, DECISIONS §3, §11, §17): preview
// without a request (or only the live read), `confirm` only as the boolean true, update merges over
// the current record (allow-list, server fields stripped, no prototype pollution), duplicate strips
// numbers, amounts and booking fields, a 400 names the field, a write is never retried, and
// identical confirmed writes on two replicas at once reach the upstream once.
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { invoicingDescriptor as descriptor } from '../generated/invoicing/descriptor.ts';
import type { CreateDraftInvoiceArgs } from '../generated/invoicing/types.ts';
import { createCustomer } from '../handlers/invoicing/create-customer.ts';
import { createDraftInvoice } from '../handlers/invoicing/create-draft-invoice.ts';
import { duplicateInvoice } from '../handlers/invoicing/duplicate-invoice.ts';
import { updateCustomer } from '../handlers/invoicing/update-customer.ts';
import { ToolError } from '../runtime/handler-api/tool-error.ts';
import { UpstreamError } from '../runtime/handler-api/upstream-types.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { canonicalJson, writeKey } from '../runtime/pipeline/write-guard.ts';
import {
  connectTenant,
  createTenant,
  rpc,
  startGateway,
  usageOf,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { testContext } from './support/tool-context.ts';
import { DATABASE_URL, needs } from './support/services.ts';

const BASE = 'https://economic-writes.test';
const SECRET = 'Zq8appSecretXv';
const GRANT = 'Kp3grantTokenWm';
const credential = { kind: 'static_token' as const, token: GRANT, appSecret: SECRET };
const headers = { 'x-appsecrettoken': SECRET, 'x-agreementgranttoken': GRANT };

function ctxFor(tool: string, confirmed: boolean, policy = descriptor.upstream) {
  return testContext({
    descriptor,
    tool,
    credential,
    baseUrl: BASE,
    confirmed,
    policy,
    now: () => new Date('2026-03-04T10:00:00Z'),
  });
}

const customerArgs = {
  name: 'Acme ApS',
  currency: 'DKK',
  customerGroupNumber: 1,
  paymentTermsNumber: 2,
  vatZoneNumber: 1,
  layoutNumber: 19,
  email: 'billing@acme.test',
};
const draftArgs: Omit<CreateDraftInvoiceArgs, 'confirm'> = {
  customerNumber: 101,
  currency: 'DKK',
  paymentTermsNumber: 2,
  layoutNumber: 19,
  recipientName: 'Acme ApS',
  recipientVatZoneNumber: 1,
  lines: [{ productNumber: 'A-100', quantity: 2, unitNetPrice: 150.5 }],
};
const createdDraft = {
  draftInvoiceNumber: 31,
  netAmount: 301,
  grossAmount: 376.25,
  vatAmount: 75.25,
  currency: 'DKK',
  self: `${BASE}/invoices/drafts/31`,
};

/** The current customer as the upstream returns it, with server-owned fields, links and hostile keys. */
const currentCustomer = JSON.parse(
  JSON.stringify({
    customerNumber: 101,
    name: 'Acme ApS',
    currency: 'DKK',
    balance: 1234.5,
    dueAmount: 200,
    lastUpdated: '2026-01-01T10:00:00Z',
    address: 'Old Street 1',
    city: 'Aarhus',
    creditLimit: 5000,
    barred: null,
    customerGroup: { customerGroupNumber: 1, self: `${BASE}/customer-groups/1` },
    paymentTerms: { paymentTermsNumber: 2, self: `${BASE}/payment-terms/2` },
    vatZone: { vatZoneNumber: 1, self: `${BASE}/vat-zones/1` },
    layout: { layoutNumber: 19, self: `${BASE}/layouts/19` },
    contacts: `${BASE}/customers/101/contacts`,
    deliveryLocations: `${BASE}/customers/101/delivery-locations`,
    invoices: { drafts: `${BASE}/customers/101/invoices/drafts`, booked: `${BASE}/customers/101/invoices/booked` },
    totals: { self: `${BASE}/customers/101/totals` },
    templates: { self: `${BASE}/customers/101/templates` },
    self: `${BASE}/customers/101`,
  }).replace(
    '"city"',
    '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true},"city"',
  ),
);

afterEach(() => {
  nock.cleanAll();
});

describe('previews: nothing is written without confirm: true', () => {
  it('create_customer previews the exact POST locally, with no request at all', async () => {
    const scope = nock(BASE).post(/.*/).reply(201, {}).get(/.*/).reply(200, {});
    const result = await createCustomer({ ...customerArgs, confirm: false }, ctxFor('create_customer', false));
    expect(result).toEqual({
      preview: {
        action: 'create_customer',
        summary: 'Create the customer "Acme ApS" (currency DKK).',
        request: {
          method: 'POST',
          path: '/customers',
          body: {
            name: 'Acme ApS',
            currency: 'DKK',
            customerGroup: { customerGroupNumber: 1 },
            paymentTerms: { paymentTermsNumber: 2 },
            vatZone: { vatZoneNumber: 1 },
            layout: { layoutNumber: 19 },
            email: 'billing@acme.test',
          },
        },
        confirmHint: expect.stringContaining('`confirm: true`'),
      },
    });
    expect(scope.pendingMocks()).toHaveLength(2);
  });

  it('create_draft_invoice previews the nested POST body (today in Copenhagen, no invented text), unsent', async () => {
    const scope = nock(BASE).post(/.*/).reply(201, createdDraft);
    const result = await createDraftInvoice(
      { ...draftArgs, notesHeading: 'March', confirm: false },
      ctxFor('create_draft_invoice', false),
    );
    expect(result).toMatchObject({
      preview: {
        action: 'create_draft_invoice',
        request: {
          method: 'POST',
          path: '/invoices/drafts',
          body: {
            date: '2026-03-04',
            currency: 'DKK',
            customer: { customerNumber: 101 },
            paymentTerms: { paymentTermsNumber: 2 },
            layout: { layoutNumber: 19 },
            recipient: { name: 'Acme ApS', vatZone: { vatZoneNumber: 1 } },
            notes: { heading: 'March' },
            lines: [{ product: { productNumber: 'A-100' }, quantity: 2, unitNetPrice: 150.5 }],
          },
        },
      },
    });
    expect(JSON.stringify(result)).not.toContain('description');
    expect(scope.isDone()).toBe(false);
  });

  it('update_customer previews after one live GET: merged, server fields and links stripped, allow-list', async () => {
    let put = 0;
    const scope = nock(BASE, { reqheaders: headers })
      .get('/customers/101')
      .reply(200, currentCustomer)
      .put(/.*/)
      .reply(() => {
        put++;
        return [200, {}];
      });
    const result = await updateCustomer(
      { customerNumber: 101, email: 'new@acme.test', vatZoneNumber: 2, confirm: false },
      ctxFor('update_customer', false),
    );
    expect(put).toBe(0);
    expect(scope.pendingMocks()).toHaveLength(1); // the PUT
    const preview = (
      result as {
        preview: { request: { method: string; path: string; body: Record<string, unknown> }; summary: string };
      }
    ).preview;
    expect(preview.request.method).toBe('PUT');
    expect(preview.request.path).toBe('/customers/101');
    expect(preview.summary).toBe(
      'Replace customer 101 with its current record merged with the changed fields: email, vatZoneNumber.',
    );
    expect(preview.request.body).toEqual({
      customerNumber: 101,
      name: 'Acme ApS',
      currency: 'DKK',
      address: 'Old Street 1',
      city: 'Aarhus',
      creditLimit: 5000,
      customerGroup: { customerGroupNumber: 1 },
      paymentTerms: { paymentTermsNumber: 2 },
      vatZone: { vatZoneNumber: 2 },
      layout: { layoutNumber: 19 },
      email: 'new@acme.test',
    });
    const body = preview.request.body;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(
      Object.hasOwn(body, '__proto__') || Object.hasOwn(body, 'constructor') || Object.hasOwn(body, 'prototype'),
    ).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((body as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('duplicate_invoice previews after one live GET of the source: numbers, amounts, booking stripped', async () => {
    const booked = {
      bookedInvoiceNumber: 20001,
      date: '2026-01-10',
      dueDate: '2026-02-09',
      currency: 'DKK',
      exchangeRate: 100,
      netAmount: 1000,
      grossAmount: 1250,
      vatAmount: 250,
      roundingAmount: 0,
      remainder: 1250,
      remainderInBaseCurrency: 1250,
      netAmountInBaseCurrency: 1000,
      customer: { customerNumber: 101, self: `${BASE}/customers/101` },
      recipient: { name: 'Acme ApS', vatZone: { vatZoneNumber: 1, self: `${BASE}/vat-zones/1` } },
      notes: { heading: 'January' },
      paymentTerms: {
        paymentTermsNumber: 2,
        daysOfCredit: 30,
        name: 'Net 30',
        paymentTermsType: 'net',
        self: `${BASE}/payment-terms/2`,
      },
      layout: { layoutNumber: 19, self: `${BASE}/layouts/19` },
      pdf: { self: `${BASE}/invoices/booked/20001/pdf` },
      sent: `${BASE}/invoices/booked/20001/sent`,
      lines: [
        {
          lineNumber: 1,
          sortKey: 1,
          description: 'Widget',
          product: { productNumber: 'A-100', self: 'x' },
          quantity: 4,
          unit: { unitNumber: 1, name: 'pcs' },
          unitNetPrice: 250,
          discountPercentage: 0,
          unitCostPrice: 100,
          totalNetAmount: 1000,
          marginInBaseCurrency: 600,
        },
      ],
      self: `${BASE}/invoices/booked/20001`,
    };
    const scope = nock(BASE, { reqheaders: headers })
      .get('/invoices/booked/20001')
      .reply(200, booked)
      .post(/.*/)
      .reply(201, createdDraft);
    const result = await duplicateInvoice(
      { source: 'booked', invoiceNumber: 20001, date: '2026-03-01', confirm: false },
      ctxFor('duplicate_invoice', false),
    );
    expect(scope.pendingMocks()).toHaveLength(1); // the POST
    expect((result as { preview: { request: unknown } }).preview.request).toEqual({
      method: 'POST',
      path: '/invoices/drafts',
      body: {
        currency: 'DKK',
        date: '2026-03-01',
        dueDate: '2026-02-09',
        recipient: { name: 'Acme ApS', vatZone: { vatZoneNumber: 1 } },
        customer: { customerNumber: 101 },
        paymentTerms: { paymentTermsNumber: 2 },
        layout: { layoutNumber: 19 },
        notes: { heading: 'January' },
        lines: [
          {
            description: 'Widget',
            product: { productNumber: 'A-100' },
            quantity: 4,
            unitNetPrice: 250,
            discountPercentage: 0,
            unit: { unitNumber: 1 },
          },
        ],
      },
    });
    const text = JSON.stringify(result);
    for (const stripped of [
      'bookedInvoiceNumber',
      'netAmount',
      'grossAmount',
      'vatAmount',
      'remainder',
      'roundingAmount',
      'exchangeRate',
      'pdf',
      'sent',
      'self',
      'totalNetAmount',
      'unitCostPrice',
      'margin',
      'lineNumber',
    ])
      expect(text).not.toContain(stripped);
  });

  it('a preview whose live read fails surfaces the read error (401 → reconnect), and writes nothing', async () => {
    nock(BASE).get('/invoices/drafts/7').reply(401, { message: 'Unauthorized', httpStatusCode: 401 });
    const error = await duplicateInvoice(
      { source: 'draft', invoiceNumber: 7, confirm: false },
      ctxFor('duplicate_invoice', false),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: 'reconnect_required', params: { status: 401 } });
  });
});

describe('confirmed writes', () => {
  it('create_customer with confirm: true POSTs the previewed body once and returns the created customer', async () => {
    const preview = (await createCustomer({ ...customerArgs, confirm: false }, ctxFor('create_customer', false))) as {
      preview: { request: { body: unknown } };
    };
    let sent: unknown;
    nock(BASE, { reqheaders: { ...headers, 'content-type': 'application/json' } })
      .post('/customers')
      .reply(async (request: Request) => {
        sent = await request.json();
        return [
          201,
          { customerNumber: 5001, ...(sent as object), balance: 0, self: `${BASE}/customers/5001` },
          { Location: `${BASE}/customers/5001` },
        ];
      });
    const result = await createCustomer({ ...customerArgs, confirm: true }, ctxFor('create_customer', true));
    expect(sent).toEqual(preview.preview.request.body);
    expect(result).toMatchObject({ customerNumber: 5001, name: 'Acme ApS' });
  });

  it('update_customer with confirm: true GETs, then PUTs the merged record, returning the customer', async () => {
    let sent: Record<string, unknown> | undefined;
    nock(BASE)
      .get('/customers/101')
      .reply(200, currentCustomer)
      .put('/customers/101')
      .reply(async (request: Request) => {
        sent = (await request.json()) as Record<string, unknown>;
        return [200, { ...sent, balance: 1234.5 }];
      });
    const result = await updateCustomer(
      { customerNumber: 101, name: 'Acme A/S', confirm: true },
      ctxFor('update_customer', true),
    );
    expect(sent).toMatchObject({
      customerNumber: 101,
      name: 'Acme A/S',
      city: 'Aarhus',
      vatZone: { vatZoneNumber: 1 },
    });
    expect(Object.keys(sent!)).not.toContain('balance');
    expect(result).toMatchObject({ customerNumber: 101, name: 'Acme A/S' });
  });

  it('duplicate_invoice with confirm: true and replaceLines creates a fresh draft with only new lines', async () => {
    let sent: Record<string, unknown> | undefined;
    nock(BASE)
      .get('/invoices/drafts/31')
      .reply(200, {
        draftInvoiceNumber: 31,
        currency: 'EUR',
        customer: { customerNumber: 101 },
        date: '2026-01-01',
        lines: [{ description: 'old', quantity: 1, unitNetPrice: 1 }],
        netAmount: 1,
      })
      .post('/invoices/drafts')
      .reply(async (request: Request) => {
        sent = (await request.json()) as Record<string, unknown>;
        return [201, { ...createdDraft, draftInvoiceNumber: 32 }];
      });
    const result = await duplicateInvoice(
      {
        source: 'draft',
        invoiceNumber: 31,
        newCustomerNumber: 202,
        replaceLines: [{ productNumber: '7', quantity: 1, unitNetPrice: 10, unitNumber: 2 }],
        confirm: true,
      },
      ctxFor('duplicate_invoice', true),
    );
    expect(sent).toEqual({
      currency: 'EUR',
      date: '2026-01-01',
      customer: { customerNumber: 202 },
      lines: [{ product: { productNumber: '7' }, quantity: 1, unitNetPrice: 10, unit: { unitNumber: 2 } }],
    });
    expect(result).toMatchObject({ draftInvoiceNumber: 32, netAmount: 301, grossAmount: 376.25, vatAmount: 75.25 });
  });

  it('an upstream 400 is passed through naming the rejected field (annotated form, with arrayIndex)', async () => {
    nock(BASE)
      .post('/invoices/drafts')
      .reply(400, {
        message: 'Validation error.',
        httpStatusCode: 400,
        logId: 'abc',
        errors: {
          currency: { errors: [{ errorCode: 'E06000', message: 'Currency not found.', value: 'ZUL' }] },
          lines: [
            {
              arrayIndex: 0,
              unitNetPrice: { errors: [{ errorCode: 'E04740', message: 'Maximum 2 decimals allowed.' }] },
            },
          ],
        },
      });
    const error = await createDraftInvoice({ ...draftArgs, confirm: true }, ctxFor('create_draft_invoice', true)).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'upstream_rejected',
      params: { details: 'currency: Currency not found.; lines[0].unitNetPrice: Maximum 2 decimals allowed.' },
    });
  });

  it('a 403 to the write says the grant may lack write permission; a 403 to the live read: reconnect', async () => {
    nock(BASE).post('/customers').reply(403, { message: 'Forbidden', httpStatusCode: 403 });
    const write = await createCustomer({ ...customerArgs, confirm: true }, ctxFor('create_customer', true)).catch(
      (e: unknown) => e,
    );
    expect(write).toMatchObject({ code: 'write_forbidden' });
    nock(BASE).get('/customers/9').reply(403, { message: 'Forbidden', httpStatusCode: 403 });
    const read = await updateCustomer(
      { customerNumber: 9, name: 'x', confirm: true },
      ctxFor('update_customer', true),
    ).catch((e: unknown) => e);
    expect(read).toMatchObject({ code: 'reconnect_required', params: { status: 403 } });
  });

  it('a 429 to a write is not retried, even where the connector policy retries a throttled read once', async () => {
    const retrying = { ...descriptor.upstream, retry: { ...descriptor.upstream.retry, onThrottle: 'once' as const } };
    let posts = 0;
    nock(BASE)
      .post('/customers')
      .times(2)
      .reply(() => {
        posts++;
        return [429, { message: 'Too many requests' }, { 'Retry-After': '0' }];
      });
    const error = await createCustomer(
      { ...customerArgs, confirm: true },
      ctxFor('create_customer', true, retrying),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).status).toBe(429);
    expect(posts).toBe(1);
    // The same policy does retry a throttled read once (the opt-out is the write's, not the policy's).
    let gets = 0;
    nock(BASE)
      .get('/customers/101')
      .times(2)
      .reply(() => {
        gets++;
        return gets === 1 ? [429, {}, { 'Retry-After': '0' }] : [200, currentCustomer];
      });
    await updateCustomer({ customerNumber: 101, confirm: false }, ctxFor('update_customer', false, retrying));
    expect(gets).toBe(2);
  });

  it('an answer without a body (201 with Location, 204 to the PUT) is read back from where the record is', async () => {
    nock(BASE)
      .post('/customers')
      .reply(201, '', { Location: `${BASE}/customers/5002` })
      .get('/customers/5002')
      .reply(200, { customerNumber: 5002, name: 'Acme ApS', currency: 'DKK' });
    expect(await createCustomer({ ...customerArgs, confirm: true }, ctxFor('create_customer', true))).toMatchObject({
      customerNumber: 5002,
    });
    // A Location on another host (the public one) is read on the configured upstream.
    nock(BASE)
      .post('/customers')
      .reply(201, '', { Location: 'https://restapi.e-conomic.com/customers/5003' })
      .get('/customers/5003')
      .reply(200, { customerNumber: 5003, name: 'Acme ApS', currency: 'DKK' });
    expect(
      await createCustomer(
        { ...customerArgs, email: 'other@acme.test', confirm: true },
        ctxFor('create_customer', true),
      ),
    ).toMatchObject({ customerNumber: 5003 });
    nock(BASE)
      .get('/customers/101')
      .reply(200, currentCustomer)
      .put('/customers/101')
      .reply(204)
      .get('/customers/101')
      .reply(200, { ...currentCustomer, name: 'Acme A/S' });
    expect(
      await updateCustomer({ customerNumber: 101, name: 'Acme A/S', confirm: true }, ctxFor('update_customer', true)),
    ).toMatchObject({ customerNumber: 101, name: 'Acme A/S' });
    // A read back that fails (here 404, then 401) is not the write's failure: no status, so the dedup key is kept.
    for (const status of [404, 401]) {
      nock(BASE)
        .post('/customers')
        .reply(201, '', { Location: `${BASE}/customers/5004` })
        .get('/customers/5004')
        .reply(status, { message: 'x' });
      const error = await createCustomer(
        { ...customerArgs, city: `City ${status}`, confirm: true },
        ctxFor('create_customer', true),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ kind: 'bad_body', status: undefined });
    }
    // Without a Location there is nowhere to read from: the generic text (the write may have happened).
    nock(BASE).post('/invoices/drafts').reply(201, '');
    expect(
      await createDraftInvoice({ ...draftArgs, confirm: true }, ctxFor('create_draft_invoice', true)).catch(
        (e: unknown) => e,
      ),
    ).toMatchObject({ kind: 'bad_body' });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('duplicate_invoice writes recipient and references as a write takes them ({ xNumber } or { self })', async () => {
    const source = {
      draftInvoiceNumber: 40,
      currency: 'DKK',
      date: '2026-01-05',
      customer: { customerNumber: 101, self: `${BASE}/customers/101` },
      recipient: {
        name: 'Acme ApS',
        address: 'Old Street 1',
        vatZone: {
          name: 'Domestic',
          vatZoneNumber: 1,
          enabledForCustomer: true,
          enabledForSupplier: true,
          self: `${BASE}/vat-zones/1`,
        },
        attention: { customerContactNumber: 3, self: `${BASE}/customers/101/contacts/3` },
      },
      references: {
        other: 'PO-1',
        salesPerson: { employeeNumber: 2, name: 'Sales', self: `${BASE}/employees/2` },
        customerContact: { self: `${BASE}/customers/101/contacts/4` },
        vendorReference: { name: 'Buyer', self: `${BASE}/employees/9` },
      },
      delivery: { address: 'Dock 4', city: 'Aarhus', deliveryDate: '2026-01-06' },
      lines: [],
      self: `${BASE}/invoices/drafts/40`,
    };
    nock(BASE).get('/invoices/drafts/40').reply(200, source);
    const result = (await duplicateInvoice(
      { source: 'draft', invoiceNumber: 40, confirm: false },
      ctxFor('duplicate_invoice', false),
    )) as { preview: { request: { body: Record<string, unknown> } } };
    expect(result.preview.request.body).toEqual({
      currency: 'DKK',
      date: '2026-01-05',
      customer: { customerNumber: 101 },
      recipient: {
        name: 'Acme ApS',
        address: 'Old Street 1',
        vatZone: { vatZoneNumber: 1 },
        attention: { customerContactNumber: 3 },
      },
      references: {
        other: 'PO-1',
        salesPerson: { employeeNumber: 2 },
        customerContact: { self: `${BASE}/customers/101/contacts/4` },
        vendorReference: { self: `${BASE}/employees/9` },
      },
      delivery: { address: 'Dock 4', city: 'Aarhus', deliveryDate: '2026-01-06' },
      lines: [],
    });
  });

  it('update_customer writes each reference of the record as a write takes it, also ones the docs omit', async () => {
    nock(BASE)
      .get('/customers/101')
      .reply(200, {
        ...currentCustomer,
        salesPerson: { employeeNumber: 5, name: 'Sales', self: `${BASE}/employees/5` },
        priceGroup: { priceGroupNumber: 2, name: 'Retail' },
        defaultDeliveryLocation: { self: `${BASE}/customers/101/delivery-locations/1` },
      });
    const result = (await updateCustomer(
      { customerNumber: 101, confirm: false },
      ctxFor('update_customer', false),
    )) as { preview: { request: { body: Record<string, unknown> } } };
    expect(result.preview.request.body).toMatchObject({
      salesPerson: { employeeNumber: 5 },
      priceGroup: { priceGroupNumber: 2 },
      defaultDeliveryLocation: { self: `${BASE}/customers/101/delivery-locations/1` },
    });
    expect(result.preview.request.body.salesPerson).toEqual({ employeeNumber: 5 });
  });

  it('a write tool cannot write through its own client: ctx.upstream refuses anything but GET', async () => {
    const ctx = ctxFor('create_customer', true);
    const scope = nock(BASE).post('/customers').reply(201, {});
    await expect(ctx.upstream.request({ method: 'POST', path: '/customers', json: {} })).rejects.toThrow(/ctx\.write/);
    expect(scope.isDone()).toBe(false);
    // and a read tool cannot write at all
    await expect(
      ctxFor('list_customers', true).write.send(
        { method: 'POST', path: '/customers', body: {} },
        { summary: '', confirmHint: '' },
      ),
    ).rejects.toThrow();
  });
});

describe('no DELETE and no booking path anywhere in the client', () => {
  const files = [
    ...readdirSync('handlers/invoicing').map((f) => `handlers/invoicing/${f}`),
    ...readdirSync('runtime/upstream').map((f) => `runtime/upstream/${f}`),
    'runtime/handler-api/upstream-types.ts',
    'runtime/pipeline/write-guard.ts',
  ];
  it('no file of the invoicing handlers or the upstream client names the DELETE method', () => {
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toMatch(/\bDELETE\b|['"`]delete['"`]/);
  });
  it('no POST or PUT of the invoicing handlers goes anywhere but /customers and /invoices/drafts', () => {
    const writes: string[] = [];
    for (const file of files.filter((f) => f.startsWith('handlers/'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/method:\s*'(POST|PUT|PATCH)',\s*path(?::\s*([^,}]+))?/g))
        writes.push(`${match[1]} ${match[2]?.trim() ?? 'path'}`);
    }
    expect(writes.sort()).toEqual([
      "POST '/customers'",
      "POST '/invoices/drafts'",
      "POST '/invoices/drafts'",
      'PUT path',
    ]);
    // The one PUT's path is the customer's.
    expect(readFileSync('handlers/invoicing/update-customer.ts', 'utf8')).toMatch(
      /const path = `\/customers\/\$\{args\.customerNumber\}`;/,
    );
    // A line that sends anything but a GET never names the booked-invoice collection.
    for (const file of files)
      for (const line of readFileSync(file, 'utf8').split('\n'))
        if (/'(POST|PUT|PATCH)'/.test(line)) expect(line, file).not.toMatch(/booked/);
  });
  it('the upstream request type has no DELETE method', () => {
    const types = readFileSync('runtime/handler-api/upstream-types.ts', 'utf8');
    const method = /readonly method: ([^;]+);/.exec(types)![1]!;
    expect(method).not.toMatch(/DELETE/);
  });
});

describe('write dedup key', () => {
  it('is the same for the same arguments in any key order, and differs per account, instance, tool and value', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: 2 } })).toBe(
      '{"a":{"c":2,"d":[1,{"e":2,"f":1}]},"b":1}',
    );
    const key = writeKey('acc', 'invoicing', 'create_customer', { name: 'x', currency: 'DKK', confirm: true });
    expect(writeKey('acc', 'invoicing', 'create_customer', { confirm: true, currency: 'DKK', name: 'x' })).toBe(key);
    for (const other of [
      writeKey('acc2', 'invoicing', 'create_customer', { name: 'x', currency: 'DKK', confirm: true }),
      writeKey('acc', 'invoicing-2', 'create_customer', { name: 'x', currency: 'DKK', confirm: true }),
      writeKey('acc', 'invoicing', 'update_customer', { name: 'x', currency: 'DKK', confirm: true }),
      writeKey('acc', 'invoicing', 'create_customer', { name: 'y', currency: 'DKK', confirm: true }),
    ])
      expect(other).not.toBe(key);
  });
});

const GW_BASE = 'https://economic-replicas.test';

describe('through two gateway replicas on PostgreSQL', needs('postgres'), () => {
  const schema = `invwrites_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;
  /** Calls of claimWrite per store, to hold the upstream until both replicas have claimed. */
  const claims = { count: 0, waiters: [] as Array<() => void> };
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    for (const store of stores) {
      const claim = store.writes.claimWrite.bind(store.writes);
      store.writes.claimWrite = async (...args) => {
        const answer = await claim(...args);
        claims.count++;
        for (const wake of claims.waiters.splice(0)) wake();
        return answer;
      };
    }
    const env = {
      CONNECTOR_INVOICING_BASE_URL: GW_BASE,
      CONNECTOR_INVOICING_APP_SECRET_TOKEN: SECRET,
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
    };
    a = await startGateway(stores[0]!, { env });
    b = await startGateway(stores[1]!, { env });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  async function tenant(): Promise<Tenant> {
    const t = await createTenant(stores[0]!, { subscribe: ['invoicing'] });
    await connectTenant(a, t, 'invoicing', { token: GRANT });
    await b.app.context.state.refresh();
    return t;
  }

  async function call(
    gw: StartedGateway,
    t: Tenant,
    tool: string,
    args: unknown,
  ): Promise<{ text: string; isError: boolean }> {
    const r = await rpc(gw.url, 'invoicing', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: `invoicing__${tool}`, arguments: args },
    });
    const result = (r.json as { result: { content: Array<{ text: string }>; isError?: boolean } }).result;
    return { text: result.content.map((c) => c.text).join('\n'), isError: result.isError === true };
  }

  function untilClaims(n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (claims.count >= n ? resolve() : claims.waiters.push(check));
      check();
    });
  }

  it('confirm as "true" or 1 is not a confirmation: refused as an invalid argument, unsent, unmetered', async () => {
    const t = await tenant();
    const scope = nock(GW_BASE).post(/.*/).reply(201, createdDraft).get(/.*/).reply(200, {});
    for (const confirm of ['true', 1, 'yes', null]) {
      const r = await call(a, t, 'create_draft_invoice', { ...draftArgs, confirm });
      expect(r).toEqual({ text: 'Tool invocation failed.', isError: true });
    }
    expect(scope.pendingMocks()).toHaveLength(2);
    await a.app.context.meter.flush();
    expect((await usageOf(a.url, t.token)).usage.totalCalls).toBe(0);
  });

  it('without confirm the gateway answers the preview and the upstream sees nothing', async () => {
    const t = await tenant();
    const scope = nock(GW_BASE).post(/.*/).reply(201, createdDraft);
    const r = await call(b, t, 'create_draft_invoice', draftArgs);
    expect(r.isError).toBe(false);
    expect(JSON.parse(r.text)).toMatchObject({
      preview: { action: 'create_draft_invoice', request: { method: 'POST', path: '/invoices/drafts' } },
    });
    expect(scope.isDone()).toBe(false);
    // The preview shows the request, never the credential headers.
    expect(r.text).not.toContain(SECRET);
    expect(r.text).not.toContain(GRANT);
  });

  it('a prototype-pollution attempt in the arguments is refused by the closed schema: nothing sent', async () => {
    const t = await tenant();
    const scope = nock(GW_BASE).get(/.*/).reply(200, currentCustomer).put(/.*/).reply(200, {});
    for (const raw of [
      '{"customerNumber":101,"__proto__":{"polluted":true},"confirm":true}',
      '{"customerNumber":101,"constructor":{"prototype":{"polluted":true}},"confirm":true}',
    ]) {
      const r = await call(a, t, 'update_customer', JSON.parse(raw));
      expect(r).toEqual({ text: 'Tool invocation failed.', isError: true });
    }
    expect(scope.pendingMocks()).toHaveLength(2);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('identical confirmed writes on both replicas: one upstream POST, one result; repeats write nothing', async () => {
    const t = await tenant();
    let posts = 0;
    const before = claims.count;
    nock(GW_BASE)
      .post('/invoices/drafts')
      .times(3)
      .reply(async () => {
        posts++;
        // Hold the write until the other replica has tried to claim it too.
        await untilClaims(before + 2);
        return [201, { ...createdDraft, draftInvoiceNumber: 900 + posts }];
      });
    const args = { ...draftArgs, confirm: true };
    const [first, second] = await Promise.all([
      call(a, t, 'create_draft_invoice', args),
      call(b, t, 'create_draft_invoice', {
        ...args,
        lines: [{ unitNetPrice: 150.5, quantity: 2, productNumber: 'A-100' }],
      }),
    ]);
    expect(posts).toBe(1);
    expect(first.isError).toBe(false);
    expect(second).toEqual(first);
    expect(JSON.parse(first.text)).toMatchObject({ draftInvoiceNumber: 901 });
    const again = await call(b, t, 'create_draft_invoice', args);
    expect(again).toEqual(first);
    expect(posts).toBe(1);
    // A different write is not deduplicated.
    const other = await call(a, t, 'create_draft_invoice', { ...args, notesHeading: 'other' });
    expect(JSON.parse(other.text)).toMatchObject({ draftInvoiceNumber: 902 });
    expect(posts).toBe(2);
  });

  it('an upstream 400 names the field through the gateway; the corrected call is not deduplicated away', async () => {
    const t = await tenant();
    nock(GW_BASE)
      .post('/customers')
      .reply(400, {
        message: 'Validation error.',
        httpStatusCode: 400,
        errors: {
          vatNumber: { errors: [{ errorCode: 'E07000', message: 'VAT number is not allowed on this agreement.' }] },
        },
      });
    const args = { ...customerArgs, vatNumber: 'DK123', confirm: true };
    const rejected = await call(a, t, 'create_customer', args);
    expect(rejected).toEqual({
      text: 'e-conomic rejected the request: vatNumber: VAT number is not allowed on this agreement.',
      isError: true,
    });
    // Nothing was written, so the same call may be tried again (the upstream answers it anew).
    let posts = 0;
    nock(GW_BASE)
      .post('/customers')
      .reply(() => {
        posts++;
        return [201, { customerNumber: 7001, name: 'Acme ApS' }];
      });
    const retried = await call(b, t, 'create_customer', args);
    expect(posts).toBe(1);
    expect(JSON.parse(retried.text)).toMatchObject({ customerNumber: 7001 });
  });
});

describe('on the embedded store (one process)', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let clock = Date.parse('2026-03-04T10:00:00Z');
  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, {
      env: { CONNECTOR_INVOICING_BASE_URL: GW_BASE, CONNECTOR_INVOICING_APP_SECRET_TOKEN: SECRET },
      now: () => new Date(clock),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('claims a key once; others see null until an outcome is stored; an outcome not reused frees it', async () => {
    const at = clock;
    expect(await store.writes.claimWrite('k1', at, at - 60_000)).toEqual({ claimed: true });
    expect(await store.writes.claimWrite('k1', at + 1, at + 1 - 60_000)).toEqual({ claimed: false, outcome: null });
    await store.writes.finishWrite('k1', '{"result":1}', true);
    expect(await store.writes.claimWrite('k1', at + 2, at + 2 - 60_000)).toEqual({
      claimed: false,
      outcome: '{"result":1}',
    });
    // After the window the key is claimed anew (and its old outcome is gone).
    expect(await store.writes.claimWrite('k1', at + 60_001, at + 1)).toEqual({ claimed: true });
    expect(await store.writes.writeOutcome('k1')).toBeNull();
    await store.writes.finishWrite('k1', '{"failed":true}', false);
    expect(await store.writes.writeOutcome('k1')).toBe('{"failed":true}');
    expect(await store.writes.claimWrite('k1', at + 60_002, at + 2)).toEqual({ claimed: true });
    expect(await store.writes.writeOutcome('k2')).toBeUndefined();
  });

  it('identical confirmed writes at once reach the upstream once; after the 60 s window it is sent again', async () => {
    const t = await createTenant(store, { subscribe: ['invoicing'] });
    await connectTenant(gw, t, 'invoicing', { token: GRANT });
    let posts = 0;
    nock(GW_BASE)
      .post('/customers')
      .times(3)
      .reply(() => {
        posts++;
        return [201, { customerNumber: 8000 + posts, name: 'Acme ApS' }];
      });
    const call = () =>
      rpc(gw.url, 'invoicing', t.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'invoicing__create_customer', arguments: { ...customerArgs, confirm: true } },
      });
    const results = (await Promise.all([call(), call(), call()])).map((r) => JSON.stringify(r.json));
    expect(posts).toBe(1);
    expect(new Set(results).size).toBe(1);
    expect(results[0]).toContain('8001');
    clock += 59_999;
    await call();
    expect(posts).toBe(1);
    clock += 2;
    const later = await call();
    expect(posts).toBe(2);
    expect(JSON.stringify(later.json)).toContain('8002');
  });
});

// The invoicing connector end to end, as the new user tries it: an MCP client (the SDK
// Client over streamable HTTP) → the gateway → the e-conomic sandbox over HTTP. Every one of the 23
// read tools answers in the result shape of spec doc 001 (table below, and the generated output
// validator); the 27 tools carry the annotations of DECISIONS §3; the assistant previews a draft
// invoice (nothing written), creates it with `confirm: true` (one write), and a repeated
// confirmation within a minute creates nothing new; a revoked grant is reconnect-required and a
// read-only grant's write says it may lack write permission, both with a reconnect link; a hanging
// upstream ends the call at the connector's deadline, once.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvoicingToolName } from '../generated/invoicing/contract.ts';
import { invoicingDescriptor } from '../generated/invoicing/descriptor.ts';
import * as validators from '../generated/invoicing/validators.js';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { registry } from '../generated/registry.ts';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT,
  INVOICING_DEMO_COUNTS,
  INVOICING_SPLIT_YEAR,
} from '../sandbox/invoicing/data.ts';
import {
  INVOICING_SANDBOX_APP_SECRET,
  INVOICING_SANDBOX_GRANT,
  INVOICING_SANDBOX_READONLY_GRANT,
  startInvoicingSandbox,
} from '../sandbox/invoicing/server.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  reconnectParts,
  resultJson,
  resultText,
  startGateway,
  type StartedGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';

type Row = Record<string, unknown>;
const REVOCABLE_GRANT = 'inv-revocable-grant-Jx5w';
const WRITE_TOOLS = ['create_customer', 'update_customer', 'create_draft_invoice', 'duplicate_invoice'];
const READ_TOOLS = invoicingDescriptor.tools.filter((t) => !t.write).map((t) => t.name as InvoicingToolName);
const validator = (name: string) => (validators as unknown as Record<string, CompiledValidator>)[name]!;
const allTexts = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((c) => c.text);
const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown) => typeof v === 'string' && v !== '';

/** Identifiers read from the demo agreement before the table runs. */
interface Ids {
  customerNumber: number;
  bookedInvoiceNumber: number;
  accountNumber: number;
  year: string;
}

/**
 * Spec doc 001's list result: `{ items, pagination: { results, pageSize, skipPages, hasMore } }`, and each row's named
 * fields.
 */
function listShape(row: (item: Row) => void, expected: { pageSize?: number; skipPages?: number } = {}) {
  return (body: Row) => {
    expect(Object.keys(body).sort()).toEqual(['items', 'pagination']);
    const pagination = body.pagination as Row;
    expect(Object.keys(pagination).sort()).toEqual(['hasMore', 'pageSize', 'results', 'skipPages']);
    expect(
      isInt(pagination.results) &&
        isInt(pagination.pageSize) &&
        isInt(pagination.skipPages) &&
        typeof pagination.hasMore === 'boolean',
    ).toBe(true);
    expect(pagination.pageSize).toBe(expected.pageSize ?? 20);
    expect(pagination.skipPages).toBe(expected.skipPages ?? 0);
    const items = body.items as Row[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(pagination.pageSize as number);
    expect(pagination.hasMore).toBe(
      ((pagination.skipPages as number) + 1) * (pagination.pageSize as number) < (pagination.results as number),
    );
    for (const item of items) row(item);
  };
}

const invoiceRow = (item: Row) => {
  expect(isInt(item.bookedInvoiceNumber)).toBe(true);
  expect(isStr(item.date) && isStr(item.dueDate)).toBe(true);
  for (const amount of ['netAmount', 'grossAmount', 'vatAmount', 'remainder'])
    expect(isNum(item[amount]), amount).toBe(true);
  expect(isInt((item.customer as Row).customerNumber)).toBe(true);
  expect(item).not.toHaveProperty('lines');
};
const lookup = (key: string) => (item: Row) => {
  expect(isInt(item[key]), key).toBe(true);
  expect(isStr(item.name)).toBe(true);
};

/** Per read tool: its arguments and what spec doc 001 says its result holds. */
const READS: Readonly<Record<string, { args: (ids: Ids) => Row; check: (body: Row, ids: Ids) => void }>> = {
  get_invoice_totals: {
    args: () => ({}),
    check: (body) => {
      const drafts = body.drafts as Row;
      const booked = body.booked as Row;
      expect(drafts.invoiceCount).toBe(INVOICING_DEMO_COUNTS.drafts);
      expect(isNum(drafts.netAmountInBaseCurrency)).toBe(true);
      expect(booked.invoiceCount).toBe(INVOICING_DEMO_COUNTS.booked);
      const unpaid = booked.unpaid as Row;
      expect(isNum(unpaid.grossRemainderInBaseCurrency)).toBe(true);
      expect(isInt((unpaid.overdue as Row).invoiceCount) && isInt((unpaid.notOverdue as Row).invoiceCount)).toBe(true);
      expect(
        ((unpaid.overdue as Row).invoiceCount as number) + ((unpaid.notOverdue as Row).invoiceCount as number),
      ).toBe(unpaid.invoiceCount);
      expect(isInt((booked.paid as Row).invoiceCount)).toBe(true);
    },
  },
  list_invoices_overdue: {
    args: () => ({}),
    check: listShape((item) => {
      invoiceRow(item);
      expect(item.remainder).not.toBe(0);
      expect((item.dueDate as string) < '2025-06-15').toBe(true);
    }),
  },
  list_customers: {
    args: () => ({ skippages: 1 }),
    check: (body) => {
      listShape(
        (item) => {
          expect(isInt(item.customerNumber) && isStr(item.name) && isStr(item.currency) && isNum(item.balance)).toBe(
            true,
          );
          expect(
            isInt((item.paymentTerms as Row).paymentTermsNumber) &&
              isInt((item.customerGroup as Row).customerGroupNumber) &&
              isInt((item.vatZone as Row).vatZoneNumber),
          ).toBe(true);
        },
        { skipPages: 1 },
      )(body);
      expect((body.pagination as Row).hasMore).toBe(true);
    },
  },
  get_customer: {
    args: (ids) => ({ customerNumber: ids.customerNumber }),
    check: (body, ids) => {
      expect(body.customerNumber).toBe(ids.customerNumber);
      expect(isStr(body.name) && isStr(body.currency) && isNum(body.balance) && isNum(body.dueAmount)).toBe(true);
    },
  },
  list_booked_invoices: { args: () => ({ pagesize: 50 }), check: listShape(invoiceRow, { pageSize: 50 }) },
  get_booked_invoice: {
    args: (ids) => ({ bookedInvoiceNumber: ids.bookedInvoiceNumber }),
    check: (body, ids) => {
      expect(body.bookedInvoiceNumber).toBe(ids.bookedInvoiceNumber);
      for (const amount of ['netAmount', 'grossAmount', 'vatAmount', 'remainder'])
        expect(isNum(body[amount]), amount).toBe(true);
      const lines = body.lines as Row[];
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines)
        expect(isStr(line.description) && isNum(line.quantity) && isNum(line.unitNetPrice)).toBe(true);
    },
  },
  download_invoice_pdf: {
    args: (ids) => ({ bookedInvoiceNumber: ids.bookedInvoiceNumber }),
    check: (body, ids) => {
      expect(Object.keys(body).sort()).toEqual(['bookedInvoiceNumber', 'contentType', 'pdfBase64']);
      expect(body.bookedInvoiceNumber).toBe(ids.bookedInvoiceNumber);
      expect(body.contentType).toBe('application/pdf');
      expect(
        Buffer.from(body.pdfBase64 as string, 'base64')
          .subarray(0, 5)
          .toString('latin1'),
      ).toBe('%PDF-');
    },
  },
  list_draft_invoices: {
    args: () => ({}),
    check: listShape((item) => {
      expect(isInt(item.draftInvoiceNumber)).toBe(true);
      for (const amount of ['netAmount', 'grossAmount', 'vatAmount']) expect(isNum(item[amount]), amount).toBe(true);
    }),
  },
  list_chart_of_accounts: {
    args: () => ({ sort: '-accountNumber' }),
    check: listShape((item) => {
      expect(isInt(item.accountNumber) && isStr(item.name) && isStr(item.accountType) && isNum(item.balance)).toBe(
        true,
      );
      expect(['profitAndLoss', 'status', 'totalFrom', 'heading', 'headingStart', 'sumInterval', 'sumAlpha']).toContain(
        item.accountType,
      );
      // Headings carry no debit/credit side upstream; every other account does.
      if (!String(item.accountType).startsWith('heading')) expect(['debit', 'credit']).toContain(item.debitCredit);
    }),
  },
  list_year_account_totals: {
    args: (ids) => ({ year: ids.year }),
    check: listShape((item) => {
      expect(
        isInt((item.account as Row).accountNumber) &&
          isStr(item.fromDate) &&
          isStr(item.toDate) &&
          isNum(item.totalInBaseCurrency),
      ).toBe(true);
    }),
  },
  get_account_year_total: {
    args: (ids) => ({ accountNumber: ids.accountNumber, year: ids.year }),
    check: (body, ids) => {
      expect((body.account as Row).accountNumber).toBe(ids.accountNumber);
      expect(isStr(body.fromDate) && isStr(body.toDate) && isNum(body.totalInBaseCurrency)).toBe(true);
    },
  },
  list_accounting_years: {
    args: () => ({}),
    check: (body) => {
      listShape((item) => expect(isStr(item.year) && isStr(item.fromDate) && isStr(item.toDate)).toBe(true))(body);
      expect((body.items as Row[]).map((y) => y.year)).toContain(INVOICING_SPLIT_YEAR);
    },
  },
  list_accounting_periods: {
    args: (ids) => ({ year: ids.year }),
    check: listShape((item) =>
      expect(isInt(item.periodNumber) && isStr(item.fromDate) && isStr(item.toDate)).toBe(true),
    ),
  },
  list_account_entries: {
    args: (ids) => ({ accountNumber: ids.accountNumber, year: ids.year, filter: 'amount$ne:0' }),
    check: listShape((item) => {
      expect(isInt(item.entryNumber) && isStr(item.date) && isNum(item.amount)).toBe(true);
      expect((item.account as Row).accountNumber).toBeDefined();
    }),
  },
  list_products: {
    args: () => ({}),
    check: listShape((item) =>
      expect(isStr(item.productNumber) && isStr(item.name) && isNum(item.salesPrice) && isNum(item.costPrice)).toBe(
        true,
      ),
    ),
  },
  list_suppliers: {
    args: () => ({}),
    check: listShape((item) =>
      expect(isInt(item.supplierNumber) && isStr(item.name) && isStr(item.currency)).toBe(true),
    ),
  },
  list_vat_accounts: {
    args: () => ({}),
    check: listShape((item) =>
      expect(isStr(item.vatCode) && isStr(item.name) && isNum(item.ratePercentage)).toBe(true),
    ),
  },
  list_customer_groups: { args: () => ({}), check: listShape(lookup('customerGroupNumber')) },
  list_payment_terms: {
    args: () => ({}),
    check: (body) => {
      listShape(lookup('paymentTermsNumber'))(body);
      expect((body.items as Row[]).map((t) => t.paymentTermsType)).toContain('dueDate');
    },
  },
  list_vat_zones: { args: () => ({}), check: listShape(lookup('vatZoneNumber')) },
  list_layouts: { args: () => ({}), check: listShape(lookup('layoutNumber')) },
  list_units: { args: () => ({}), check: listShape(lookup('unitNumber')) },
  validate_connection: { args: () => ({}), check: (body) => expect(body).toEqual({ connected: true }) },
};

describe('invoicing end to end against its sandbox', () => {
  let store: PlatformStore;
  let sandbox: Awaited<ReturnType<typeof startInvoicingSandbox>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  let client: Client;
  const ids: Ids = { customerNumber: 0, bookedInvoiceNumber: 0, accountNumber: 0, year: INVOICING_SPLIT_YEAR };
  const call = (name: string, args: Record<string, unknown> = {}, c: Client = client) =>
    c.callTool({ name: `invoicing__${name}`, arguments: args });
  /** The rows of a list tool's result. */
  const rows = async (name: string, args: Record<string, unknown> = {}): Promise<Row[]> => {
    const result = await call(name, args);
    expect(result.isError ?? false, resultText(result)).toBe(false);
    const body = resultJson(result) as { items?: Row[] };
    expect(Array.isArray(body.items), name).toBe(true);
    return body.items!;
  };
  /** Another tenant of the same gateway, connected with `token`. */
  async function tenantWith(token: string): Promise<Client> {
    const other = await createTenant(store, { subscribe: ['invoicing'] });
    await connectTenant(gw, other, 'invoicing', { token });
    return mcpClient(gw.url, 'invoicing', other.token);
  }

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startInvoicingSandbox({
      grants: {
        [INVOICING_SANDBOX_GRANT]: 'readWrite',
        [INVOICING_SANDBOX_READONLY_GRANT]: 'readOnly',
        [REVOCABLE_GRANT]: 'readWrite',
      },
    });
    gw = await startGateway(store, {
      env: {
        CONNECTOR_INVOICING_BASE_URL: sandbox.url,
        CONNECTOR_INVOICING_APP_SECRET_TOKEN: INVOICING_SANDBOX_APP_SECRET,
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_SECOND: '10000',
      },
    });
    tenant = await createTenant(store, { subscribe: ['invoicing'] });
    // The connect form stores the grant token alone; the app secret token is the deployment's.
    await connectTenant(gw, tenant, 'invoicing', { token: INVOICING_SANDBOX_GRANT });
    client = await mcpClient(gw.url, 'invoicing', tenant.token);
    const customers = await rows('list_customers', { filter: 'dueAmount$gt:0', pagesize: 1 });
    ids.customerNumber = customers[0]!.customerNumber as number;
    ids.bookedInvoiceNumber = (await rows('list_booked_invoices', { pagesize: 1 }))[0]!.bookedInvoiceNumber as number;
    ids.accountNumber = (
      (await rows('list_year_account_totals', { year: INVOICING_SPLIT_YEAR, pagesize: 1 }))[0]!.account as Row
    ).accountNumber as number;
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  describe('tools/list', () => {
    it('lists the 27 tools (23 reads, 4 writes), no connect_account', async () => {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(27);
      expect(tools.map((t) => t.name).sort()).toEqual(
        invoicingDescriptor.tools.map((t) => `invoicing__${t.name}`).sort(),
      );
      expect(READ_TOOLS).toHaveLength(23);
      expect(Object.keys(READS).sort()).toEqual([...READ_TOOLS].sort());
      expect(invoicingDescriptor.tools.filter((t) => t.write).map((t) => t.name)).toEqual(WRITE_TOOLS);
    });

    it('annotations (DECISIONS §3): reads read-only, closed-world; writes not idempotent; 1 destructive', async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) {
        const name = tool.name.slice('invoicing__'.length);
        expect(isStr(tool.title) && isStr(tool.description), name).toBe(true);
        const expected = WRITE_TOOLS.includes(name)
          ? {
              title: tool.title,
              readOnlyHint: false,
              destructiveHint: name === 'update_customer',
              idempotentHint: false,
              openWorldHint: false,
            }
          : { title: tool.title, readOnlyHint: true, destructiveHint: false, openWorldHint: false };
        expect(tool.annotations, name).toEqual(expected);
      }
      expect(tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name)).toEqual([
        'invoicing__update_customer',
      ]);
    });
  });

  describe('every read tool through the SDK client, in the result shape of spec doc 001', () => {
    it.each(READ_TOOLS.map((tool) => [tool]))('%s', async (tool) => {
      const writes = sandbox.stats.writeLog.length;
      const entry = READS[tool]!;
      const result = await call(tool, entry.args(ids));
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect(result.content).toHaveLength(1);
      const body = resultJson(result) as Row;
      const output = validator(`output_${tool}`);
      output(body);
      expect(output.errors ?? [], `output_${tool}`).toEqual([]);
      entry.check(body, ids);
      expect(resultText(result)).not.toContain(INVOICING_SANDBOX_GRANT);
      expect(resultText(result)).not.toContain(INVOICING_SANDBOX_APP_SECRET);
      // A read never writes.
      expect(sandbox.stats.writeLog.length).toBe(writes);
      expect(sandbox.stats.forbidden).toEqual([]);
    });

    it('the customer without dueAmount (older schema) still reads', async () => {
      const result = await call('get_customer', { customerNumber: INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT });
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect(resultJson(result)).not.toHaveProperty('dueAmount');
    });

    it('the last page of the customers says hasMore false', async () => {
      const last = resultJson(await call('list_customers', { skippages: 2 })) as { items: Row[]; pagination: Row };
      expect(last.pagination).toEqual({
        results: INVOICING_DEMO_COUNTS.customers,
        pageSize: 20,
        skipPages: 2,
        hasMore: false,
      });
      expect(last.items).toHaveLength(20);
    });

    it('a filter on a field the upstream cannot filter on is its 400, naming the fields that may be used', async () => {
      const result = await call('list_customers', { filter: 'shoeSize$eq:42' });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /^e-conomic rejected the request: .*shoeSize.*; fields that may be used: .*customerNumber/,
      );
    });
  });

  describe('filter-grammar injection attempts, end to end', () => {
    it('query-string characters in a value stay one filter value: no other parameter reaches upstream', async () => {
      sandbox.resetStats();
      const result = await call('list_customers', { filter: 'name$like:*a*&pagesize=1000&sort=-customerNumber#x' });
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect((resultJson(result) as { pagination: Row }).pagination).toMatchObject({
        results: 0,
        pageSize: 20,
        hasMore: false,
      });
      expect(sandbox.requests).toHaveLength(1);
      expect(sandbox.requests[0]!.query).toEqual({
        skippages: '0',
        pagesize: '20',
        filter: 'name$like:*a*&pagesize=1000&sort=-customerNumber#x',
      });
    });

    it('a value cannot close a group or add list items: grammar characters reach the upstream escaped', async () => {
      sandbox.resetStats();
      const result = await call('list_customers', {
        filter: '(name$eq:Smith (Holdings))$or:customerNumber$in:[1001,1002]',
      });
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect(sandbox.requests[0]!.query.filter).toBe('(name$eq:Smith $(Holdings$))$or:customerNumber$in:[1001,1002]');
      expect((resultJson(result) as { items: Row[] }).items.map((c) => c.customerNumber)).toEqual([1001, 1002]);
    });

    it('an unbalanced group is refused before any request, and not metered', async () => {
      sandbox.resetStats();
      const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
      const result = await call('list_customers', { filter: 'name$eq:x$or:(customerNumber$gt:0' });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /^The filter was not sent to e-conomic: it is not a valid filter expression near character \d+/,
      );
      expect(sandbox.stats.requests).toBe(0);
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before);
    });
  });

  it('previews a draft invoice without writing, creates it once confirmed; a repeat adds nothing', async () => {
    const [customer] = await rows('list_customers', { pagesize: 5 });
    const [product] = await rows('list_products', { pagesize: 5 });
    const [layout] = await rows('list_layouts');
    const [terms] = await rows('list_payment_terms', { filter: 'paymentTermsType$ne:dueDate' });
    const [zone] = await rows('list_vat_zones');
    const args = {
      customerNumber: customer!.customerNumber,
      currency: 'DKK',
      layoutNumber: layout!.layoutNumber,
      paymentTermsNumber: terms!.paymentTermsNumber,
      recipientName: String(customer!.name ?? 'Customer'),
      recipientVatZoneNumber: zone!.vatZoneNumber,
      lines: [
        { productNumber: String(product!.productNumber), quantity: 2, unitNetPrice: 150, description: 'Consulting' },
      ],
    };
    const writesBefore = sandbox.stats.writeLog.length;

    const preview = await call('create_draft_invoice', args);
    expect(preview.isError ?? false, resultText(preview)).toBe(false);
    expect(resultText(preview)).toContain('/invoices/drafts');
    expect(sandbox.stats.writeLog.length).toBe(writesBefore);

    const created = await call('create_draft_invoice', { ...args, confirm: true });
    expect(created.isError ?? false, resultText(created)).toBe(false);
    const draft = resultJson(created) as { draftInvoiceNumber?: number };
    expect(typeof draft.draftInvoiceNumber).toBe('number');
    expect(sandbox.stats.writeLog.length).toBe(writesBefore + 1);

    const again = await call('create_draft_invoice', { ...args, confirm: true });
    expect(resultJson(again)).toEqual(resultJson(created));
    expect(sandbox.stats.writeLog.length).toBe(writesBefore + 1);
    expect(sandbox.stats.forbidden).toEqual([]);
  });

  it("every tool passes the sandbox's strictest documented readings (unknown or read-only fields, PDF)", async () => {
    sandbox.setSwitches({
      unknownQuery: 'reject',
      unknownProperties: 'reject',
      readOnlyOnPut: 'reject',
      pdfPath: 'linkOnly',
      writeAnswer: 'empty',
    });
    try {
      sandbox.resetStats();
      const pdf = await call('download_invoice_pdf', { bookedInvoiceNumber: ids.bookedInvoiceNumber });
      expect(pdf.isError ?? false, resultText(pdf)).toBe(false);
      expect(
        Buffer.from((resultJson(pdf) as { pdfBase64: string }).pdfBase64, 'base64')
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      for (const tool of READ_TOOLS)
        expect((await call(tool, READS[tool]!.args(ids))).isError ?? false, tool).toBe(false);
      const updated = await call('update_customer', {
        customerNumber: ids.customerNumber,
        city: 'Odense',
        confirm: true,
      });
      expect(updated.isError ?? false, resultText(updated)).toBe(false);
      const duplicated = await call('duplicate_invoice', {
        source: 'booked',
        invoiceNumber: ids.bookedInvoiceNumber,
        date: '2025-06-30',
        confirm: true,
      });
      expect(duplicated.isError ?? false, resultText(duplicated)).toBe(false);
      expect(sandbox.stats.undocumentedQuery).toEqual([]);
      expect(sandbox.stats.undocumentedProperties).toEqual([]);
      // Both writes answered without a body (a PUT 204, a POST 201 + Location): read back.
      expect(resultJson(updated)).toMatchObject({ customerNumber: ids.customerNumber, city: 'Odense' });
      expect(resultJson(duplicated)).toMatchObject({
        draftInvoiceNumber: expect.any(Number),
        netAmount: expect.any(Number),
      });
      expect(sandbox.stats.writeLog.map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
        `PUT /customers/${ids.customerNumber} 204`,
        'POST /invoices/drafts 201',
      ]);
      expect(sandbox.stats.forbidden).toEqual([]);
    } finally {
      sandbox.resetSwitches();
    }
  });

  describe('reconnect-required and write permission, with a reconnect link', () => {
    /**
     * The spec's text of a reconnect answer, checking the instruction and link that follow it in the same (one) text
     * block.
     */
    const reconnectText = (result: unknown): string => {
      const { text, instruction } = reconnectParts(result);
      expect(instruction).toMatch(/^Reconnect Invoicing for the endpoint invoicing here \(open it in a browser /);
      expect(instruction).toMatch(/ within 10 minutes; it works once\): http:\/\/.+\/portal\/connect\//);
      return text;
    };

    it('a grant revoked upstream (401) answers reconnect_required on a read', async () => {
      const other = await tenantWith(REVOCABLE_GRANT);
      try {
        expect((await call('validate_connection', {}, other)).isError ?? false).toBe(false);
        sandbox.revokeGrant(REVOCABLE_GRANT);
        const result = await call('list_customers', {}, other);
        expect(result.isError).toBe(true);
        const text = reconnectText(result);
        expect(text).toBe(
          formatText(invoicingDescriptor.errors.reconnect_required.text, { upstream: 'e-conomic', status: 401 }),
        );
        // validate_connection is the spec's revoked-grant check: the same answer.
        expect(reconnectText(await call('validate_connection', {}, other))).toBe(text);
        // A write's live read (update_customer's preview) says the same, and nothing is written.
        const writes = sandbox.stats.writeLog.length;
        expect(
          reconnectText(
            await call('update_customer', { customerNumber: ids.customerNumber, city: 'Aarhus', confirm: true }, other),
          ),
        ).toBe(text);
        expect(sandbox.stats.writeLog.length).toBe(writes);
      } finally {
        await other.close();
      }
    });

    it('a read-only grant reads; its write 403 is write_forbidden (the grant may lack write permission)', async () => {
      const other = await tenantWith(INVOICING_SANDBOX_READONLY_GRANT);
      try {
        expect((await call('get_customer', { customerNumber: ids.customerNumber }, other)).isError ?? false).toBe(
          false,
        );
        const writes = sandbox.stats.writeLog.length;
        const args = {
          name: 'Read Only ApS',
          currency: 'DKK',
          customerGroupNumber: 1,
          paymentTermsNumber: 1,
          vatZoneNumber: 1,
          layoutNumber: 19,
        };
        // The preview writes nothing, whatever the grant.
        expect((await call('create_customer', args, other)).isError ?? false).toBe(false);
        expect(sandbox.stats.writeLog.length).toBe(writes);
        const result = await call('create_customer', { ...args, confirm: true }, other);
        expect(result.isError).toBe(true);
        expect(reconnectText(result)).toBe(
          formatText(invoicingDescriptor.errors.write_forbidden.text, { upstream: 'e-conomic' }),
        );
        // The one POST was refused upstream (403), not retried.
        expect(sandbox.stats.writeLog.slice(writes).map((w) => `${w.method} ${w.path} ${w.status}`)).toEqual([
          'POST /customers 403',
        ]);
      } finally {
        await other.close();
      }
    });

    it('a token stored as `<appSecret>:<grant>` before the deployment setting existed still works', async () => {
      const other = await tenantWith(`${INVOICING_SANDBOX_APP_SECRET}:${INVOICING_SANDBOX_GRANT}`);
      try {
        sandbox.resetStats();
        expect(resultJson(await call('validate_connection', {}, other))).toEqual({ connected: true });
        expect(
          sandbox.requests.map((r) => [r.headers['x-appsecrettoken'], r.headers['x-agreementgranttoken']]),
        ).toEqual([[INVOICING_SANDBOX_APP_SECRET, INVOICING_SANDBOX_GRANT]]);
      } finally {
        await other.close();
      }
    });
  });
});

describe('the 15 s upstream timeout', () => {
  /** The spec's deadline, shortened for this test only: the runtime takes it from the descriptor. */
  const TIMEOUT_MS = 300;
  let store: PlatformStore;
  let sandbox: Awaited<ReturnType<typeof startInvoicingSandbox>>;
  let gw: StartedGateway;
  let client: Client;

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startInvoicingSandbox({});
    const invoicing = registry.invoicing;
    const shortened = {
      ...registry,
      invoicing: {
        ...invoicing,
        descriptor: { ...invoicing.descriptor, upstream: { ...invoicing.descriptor.upstream, timeoutMs: TIMEOUT_MS } },
      },
    } as typeof registry;
    gw = await startGateway(store, {
      registry: shortened,
      env: {
        CONNECTOR_INVOICING_BASE_URL: sandbox.url,
        CONNECTOR_INVOICING_APP_SECRET_TOKEN: INVOICING_SANDBOX_APP_SECRET,
        RATE_LIMIT_BURST: '1000',
        RATE_LIMIT_PER_SECOND: '1000',
      },
    });
    const tenant = await createTenant(store, { subscribe: ['invoicing'] });
    await connectTenant(gw, tenant, 'invoicing', { token: INVOICING_SANDBOX_GRANT });
    client = await mcpClient(gw.url, 'invoicing', tenant.token);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('is the spec value: 15 s, no retry', () => {
    expect(invoicingDescriptor.upstream.timeoutMs).toBe(15_000);
    expect(invoicingDescriptor.upstream.retry.onThrottle).toBe('none');
  });

  it('a hanging upstream ends the call at the deadline in the generic text, after exactly one request', async () => {
    sandbox.setSwitches({ fault: 'slow', slowDelayMs: 600_000, faultPath: '/customers' });
    sandbox.resetStats();
    const result = await client.callTool({ name: 'invoicing__list_customers', arguments: {} });
    expect(result.isError).toBe(true);
    expect(allTexts(result)).toEqual([platformDescriptor.errors.generic!.text]);
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /customers']);
  });

  it('a hanging confirmed write is not retried either', async () => {
    sandbox.setSwitches({ fault: 'slow', slowDelayMs: 600_000, faultPath: '/customers' });
    sandbox.resetStats();
    const args = {
      name: 'Slow ApS',
      currency: 'DKK',
      customerGroupNumber: 1,
      paymentTermsNumber: 1,
      vatZoneNumber: 1,
      layoutNumber: 19,
      confirm: true,
    };
    const result = await client.callTool({ name: 'invoicing__create_customer', arguments: args });
    expect(allTexts(result)).toEqual([platformDescriptor.errors.generic!.text]);
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /customers']);
  });
});

// The invoicing connector end to end, as the new user tries it: an MCP client → the
// gateway → the e-conomic sandbox over HTTP. The assistant looks up a customer, a product, a layout,
// payment terms and a VAT zone, previews a draft invoice (nothing is written), creates it with
// `confirm: true` (one write), and a repeated confirmation within a minute creates nothing new.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/platform/open-store.ts';
import type { PlatformStore } from '../runtime/platform/store.ts';
import { INVOICING_SANDBOX_APP_SECRET, INVOICING_SANDBOX_GRANT, startInvoicingSandbox } from '../sandbox/invoicing/server.ts';
import { connectTenant, createTenant, mcpClient, resultJson, resultText, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';

type Row = Record<string, unknown>;

describe('invoicing end to end against its sandbox', () => {
  let store: PlatformStore;
  let sandbox: Awaited<ReturnType<typeof startInvoicingSandbox>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  let client: Client;
  const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name: `invoicing__${name}`, arguments: args });
  /** The rows of a list tool's result. */
  const rows = async (name: string, args: Record<string, unknown> = {}): Promise<Row[]> => {
    const result = await call(name, args);
    expect(result.isError ?? false, resultText(result)).toBe(false);
    const body = resultJson(result) as { items?: Row[] };
    expect(Array.isArray(body.items), name).toBe(true);
    return body.items!;
  };

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startInvoicingSandbox({});
    gw = await startGateway(store, { env: { CONNECTOR_INVOICING_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' } });
    tenant = await createTenant(store, { subscribe: ['invoicing'] });
    await connectTenant(gw, tenant, 'invoicing', { token: `${INVOICING_SANDBOX_APP_SECRET}:${INVOICING_SANDBOX_GRANT}` });
    client = await mcpClient(gw.url, 'invoicing', tenant.token);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('previews a draft invoice without writing, creates it once confirmed, and a repeated confirmation creates nothing new', async () => {
    const [customer] = await rows('list_customers', { pagesize: 5 });
    const [product] = await rows('list_products', { pagesize: 5 });
    const [layout] = await rows('list_layouts');
    const [terms] = await rows('list_payment_terms');
    const [zone] = await rows('list_vat_zones');
    const args = {
      customerNumber: customer!.customerNumber,
      currency: 'DKK',
      layoutNumber: layout!.layoutNumber,
      paymentTermsNumber: terms!.paymentTermsNumber,
      recipientName: String(customer!.name ?? 'Customer'),
      recipientVatZoneNumber: zone!.vatZoneNumber,
      lines: [{ productNumber: String(product!.productNumber), quantity: 2, unitNetPrice: 150, description: 'Consulting' }],
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

  it('reads a customer, its booked invoices and an invoice PDF', async () => {
    const [customer] = await rows('list_customers', { pagesize: 1 });
    const one = resultJson(await call('get_customer', { customerNumber: customer!.customerNumber })) as Row;
    expect(one.customerNumber).toBe(customer!.customerNumber);
    const [invoice] = await rows('list_booked_invoices', { pagesize: 1 });
    const pdf = await call('download_invoice_pdf', { bookedInvoiceNumber: invoice!.bookedInvoiceNumber });
    expect(pdf.isError ?? false, resultText(pdf)).toBe(false);
    const body = resultJson(pdf) as { bookedInvoiceNumber: number; contentType: string; pdfBase64: string };
    expect(body.bookedInvoiceNumber).toBe(invoice!.bookedInvoiceNumber);
    expect(Buffer.from(body.pdfBase64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
  });
});

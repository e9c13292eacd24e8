// The real connectors through the official clients' progress and elicitation handlers, where
// test/progress-cancel.test.ts (1.x; 2.x pinned to 2026-07-28 and in auto mode: ledger `aggregate`
// progress) and test/person-confirm-e2e.test.ts (2.x pinned to 2026-07-28; 1.x on 2025-06-18:
// `invoicing__create_draft_invoice` with `confirm: true`) leave a gap: the 2.x client in legacy mode
// (2025-11-25: progress and elicitation on the call's event stream), and one client holding
// both handlers on one confirmed write, on either era (docs/decisions/person-confirmed-writes.md,
// 'The person confirms a write through elicitation'; progress-and-cancellation.md).
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  INVOICING_SANDBOX_APP_SECRET,
  INVOICING_SANDBOX_GRANT,
  startInvoicingSandbox,
} from '../sandbox/invoicing/server.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { type LedgerSandbox, startLedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  resultJson,
  resultText,
  type StartedGateway,
  startGateway,
  type Tenant,
} from './support/gateway.ts';

type Row = Record<string, unknown>;
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };
type Mode = 'legacy' | { pin: string };
const LEGACY: Mode = 'legacy';
const MODERN: Mode = { pin: '2026-07-28' };
const WRITE = 'invoicing__create_draft_invoice';
const AGGREGATE = {
  entity: 'GLTransClient',
  groupBy: ['Account'],
  sum: ['Amount'],
  fromDate: '2025-01-01',
  toDate: '2025-12-31',
};

describe('the official clients with progress and elicitation handlers on real connectors', () => {
  let store: PlatformStore;
  let ledger: LedgerSandbox;
  let invoicing: Awaited<ReturnType<typeof startInvoicingSandbox>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  let base: Record<string, unknown>;
  const argsWith = (quantity: number) => ({
    ...base,
    lines: [{ ...(base.lines as Row[])[0], quantity }],
    confirm: true,
  });
  const posts = () => invoicing.stats.writeLog.length;
  const auth = () => ({ requestInit: { headers: { authorization: `Bearer ${tenant.token}` } } });

  beforeAll(async () => {
    store = await openStore({});
    ledger = await startLedgerSandbox({});
    invoicing = await startInvoicingSandbox({ grants: { [INVOICING_SANDBOX_GRANT]: 'readWrite' } });
    gw = await startGateway(store, {
      env: {
        CONNECTOR_LEDGER_BASE_URL: ledger.url,
        CONNECTOR_INVOICING_BASE_URL: invoicing.url,
        CONNECTOR_INVOICING_APP_SECRET_TOKEN: INVOICING_SANDBOX_APP_SECRET,
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_SECOND: '10000',
      },
    });
    tenant = await createTenant(store, { subscribe: ['ledger', 'invoicing'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });
    await connectTenant(gw, tenant, 'invoicing', { token: INVOICING_SANDBOX_GRANT });
    const reader = await mcpClient(gw.url, 'invoicing', tenant.token);
    const first = async (name: string, args: Row = {}) =>
      (resultJson(await reader.callTool({ name: `invoicing__${name}`, arguments: args })) as { items: Row[] })
        .items[0] as Row;
    const customer = await first('list_customers', { pagesize: 1 });
    const product = await first('list_products', { pagesize: 1 });
    const layout = await first('list_layouts');
    const terms = await first('list_payment_terms', { filter: 'paymentTermsType$ne:dueDate' });
    const zone = await first('list_vat_zones');
    await reader.close();
    base = {
      customerNumber: customer.customerNumber,
      currency: 'DKK',
      layoutNumber: layout.layoutNumber,
      paymentTermsNumber: terms.paymentTermsNumber,
      recipientName: String(customer.name ?? 'Customer'),
      recipientVatZoneNumber: zone.vatZoneNumber,
      lines: [
        { productNumber: String(product.productNumber), quantity: 1, unitNetPrice: 150, description: 'Consulting' },
      ],
    };
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await ledger?.close();
    await invoicing?.close();
    await store?.close();
  });

  /** A 2.x client in `mode`, with an elicitation handler answering `reply()`. */
  async function modern(mode: Mode, instance: string, reply: () => Answer, asked: string[]) {
    const client = new ModernClient(
      { name: 'official-2x', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return reply();
    });
    await client.connect(new ModernTransport(new URL(`${gw.url}/${instance}/mcp`), auth()));
    expect(client.getNegotiatedProtocolVersion()).toBe(mode === LEGACY ? '2025-11-25' : '2026-07-28');
    return client;
  }

  it('2.x in legacy mode (2025-11-25): aggregate progress reaches onprogress, growing', async () => {
    ledger.setSwitches({ latencyMs: 120 });
    const client = await modern(LEGACY, 'ledger', () => ({ action: 'decline' }), []);
    try {
      const seen: number[] = [];
      const result = await client.callTool({ name: 'ledger__aggregate', arguments: AGGREGATE }, {
        onprogress: (p: { progress: number }) => seen.push(p.progress),
        timeout: 60_000,
      } as never);
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect(resultJson(result).entity).toBe('GLTransClient');
      expect(seen.length).toBeGreaterThan(1);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
    } finally {
      ledger.setSwitches({ latencyMs: 0 });
      await client.close();
    }
  }, 90_000);

  it('2.x in legacy mode (2025-11-25): asked on the call stream: decline writes 0, accept 1', async () => {
    const asked: string[] = [];
    let reply: Answer = { action: 'decline' };
    const client = await modern(LEGACY, 'invoicing', () => reply, asked);
    try {
      const before = posts();
      const declined = await client.callTool({ name: WRITE, arguments: argsWith(21) });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('/invoices/drafts');
      expect(resultText(declined)).toMatch(/^Nothing has been written/);
      expect(posts()).toBe(before);
      reply = { action: 'accept', content: { confirm: true } };
      const accepted = await client.callTool({ name: WRITE, arguments: argsWith(22) });
      expect(asked).toHaveLength(2);
      expect(accepted.isError ?? false, resultText(accepted)).toBe(false);
      expect(resultJson(accepted).draftInvoiceNumber).toEqual(expect.any(Number));
      expect(posts()).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['2.x pinned to 2026-07-28 (input_required)', MODERN],
    ['2.x in legacy mode (2025-11-25) (the call stream)', LEGACY],
  ])('%s: one confirmed write with both handlers asks once and writes once', async (_name, mode) => {
    const asked: string[] = [];
    const client = await modern(mode, 'invoicing', () => ({ action: 'accept', content: { confirm: true } }), asked);
    try {
      const before = posts();
      const result = await client.callTool({ name: WRITE, arguments: argsWith(mode === MODERN ? 23 : 24) }, {
        onprogress: () => {},
        timeout: 60_000,
      } as never);
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect(resultJson(result).draftInvoiceNumber).toEqual(expect.any(Number));
      expect(asked).toHaveLength(1);
      expect(posts()).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  it('1.x (2025-06-18): one confirmed write with both handlers asks once and writes once', async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'official-1x', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/invoicing/mcp`), auth()));
    try {
      const before = posts();
      const result = await client.callTool({ name: WRITE, arguments: argsWith(25) }, undefined, {
        onprogress: () => {},
      });
      expect(result.isError ?? false, resultText(result)).toBe(false);
      expect(resultJson(result).draftInvoiceNumber).toEqual(expect.any(Number));
      expect(asked).toHaveLength(1);
      expect(posts()).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});

// Writes the person confirms, end to end (docs/decisions/person-confirmed-writes.md): the official
// 2.x client pinned to 2026-07-28 with an elicitation handler → the gateway → the invoicing sandbox.
// `invoicing__create_draft_invoice` with `confirm: true` shows the person the preview; declining
// writes nothing (the sandbox records no POST); accepting writes exactly once; replaying the
// accepted requestState, a tampered state and changed arguments write nothing more. A client
// without the elicitation capability keeps the `confirm: true` flow.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  INVOICING_SANDBOX_APP_SECRET,
  INVOICING_SANDBOX_GRANT,
  startInvoicingSandbox,
} from '../sandbox/invoicing/server.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  resultJson,
  resultText,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';

type Row = Record<string, unknown>;
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };
const MODERN = '2026-07-28';
const TOOL = 'invoicing__create_draft_invoice';
const text = (code: keyof typeof platformDescriptor.errors, params: Record<string, string | number> = {}) =>
  formatText(platformDescriptor.errors[code]!.text, params);

describe('person-confirmed writes end to end (2.x client, 2026-07-28)', () => {
  let store: PlatformStore;
  let sandbox: Awaited<ReturnType<typeof startInvoicingSandbox>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  let legacy: Client;
  let base: Record<string, unknown>;
  /** The draft invoice's arguments with `quantity` units of the one line (distinct per test: no dedup). */
  const argsWith = (quantity: number) => ({
    ...base,
    lines: [{ ...(base.lines as Row[])[0], quantity }],
    confirm: true,
  });
  const posts = () => sandbox.stats.writeLog.length;

  async function modern(answer: (message: string) => Answer, seen: string[]): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'person-confirm-test', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string };
      seen.push(params.message);
      return answer(params.message);
    });
    await client.connect(
      new ModernTransport(new URL(`${gw.url}/invoicing/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tenant.token}` } },
      }),
    );
    return client;
  }

  /** One raw 2026 tools/call (to hold the requestState in hand). */
  const raw = (params: Record<string, unknown>, capabilities: Record<string, unknown> = { elicitation: {} }) =>
    rpc(
      gw.url,
      'invoicing',
      tenant.token,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: TOOL,
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          },
        },
      },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': TOOL },
    );
  const resultOf = (r: Awaited<ReturnType<typeof raw>>) => (r.json as { result: any }).result;

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startInvoicingSandbox({ grants: { [INVOICING_SANDBOX_GRANT]: 'readWrite' } });
    gw = await startGateway(store, {
      env: {
        CONNECTOR_INVOICING_BASE_URL: sandbox.url,
        CONNECTOR_INVOICING_APP_SECRET_TOKEN: INVOICING_SANDBOX_APP_SECRET,
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_SECOND: '10000',
      },
    });
    tenant = await createTenant(store, { subscribe: ['invoicing'] });
    await connectTenant(gw, tenant, 'invoicing', { token: INVOICING_SANDBOX_GRANT });
    legacy = await mcpClient(gw.url, 'invoicing', tenant.token);
    const first = async (name: string, args: Row = {}) =>
      (resultJson(await legacy.callTool({ name: `invoicing__${name}`, arguments: args })) as { items: Row[] })
        .items[0] as Row;
    const customer = await first('list_customers', { pagesize: 1 });
    const product = await first('list_products', { pagesize: 1 });
    const layout = await first('list_layouts');
    const terms = await first('list_payment_terms', { filter: 'paymentTermsType$ne:dueDate' });
    const zone = await first('list_vat_zones');
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
    await legacy?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('declining the preview writes nothing; the person saw the request and its amounts', async () => {
    const seen: string[] = [];
    const client = await modern(() => ({ action: 'decline' }), seen);
    const before = posts();
    const result = await client.callTool({ name: TOOL, arguments: argsWith(2) });
    expect(resultText(result)).toBe(text('confirm_declined', { action: 'create_draft_invoice' }));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('POST /invoices/drafts');
    expect(seen[0]).toContain('"unitNetPrice": 150');
    expect(seen[0]).toContain('"quantity": 2');
    expect(posts()).toBe(before);
    await client.close();
    // In the account's call log as a call answered before any write: refused, with its code.
    await gw.app.context.callLog.flush();
    const [logged] = await store.callLog.listCalls(tenant.account.id, { outcome: 'refused' }, 1, 0);
    expect(logged).toMatchObject({ tool: 'create_draft_invoice', outcome: 'refused', detail: 'confirm_declined' });
  });

  it('an accept without the box ticked and a cancel write nothing', async () => {
    for (const answer of [{ action: 'accept', content: { confirm: false } }, { action: 'cancel' }] as Answer[]) {
      const client = await modern(() => answer, []);
      const before = posts();
      const result = await client.callTool({ name: TOOL, arguments: argsWith(3) });
      expect(resultText(result)).toBe(text('confirm_declined', { action: 'create_draft_invoice' }));
      expect(posts()).toBe(before);
      await client.close();
    }
  });

  it('accepting writes exactly once', async () => {
    const seen: string[] = [];
    const client = await modern(() => ({ action: 'accept', content: { confirm: true } }), seen);
    const before = posts();
    const result = await client.callTool({ name: TOOL, arguments: argsWith(4) });
    expect(result.isError ?? false, resultText(result)).toBe(false);
    expect(typeof (resultJson(result) as { draftInvoiceNumber?: unknown }).draftInvoiceNumber).toBe('number');
    expect(seen).toHaveLength(1);
    expect(posts()).toBe(before + 1);
    // The write dedup holds across paths: the same arguments with `confirm: true` from a client
    // without the capability, within the window, get the first outcome and write nothing.
    const again = resultOf(await raw({ arguments: argsWith(4) }, {}));
    expect(JSON.parse(again.content[0].text)).toEqual(resultJson(result));
    expect(posts()).toBe(before + 1);
    await client.close();
  });

  it('a replayed, tampered or foreign requestState and changed arguments write nothing', async () => {
    const args = argsWith(5);
    const asked = resultOf(await raw({ arguments: args }));
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests.confirm.method).toBe('elicitation/create');
    expect(asked.inputRequests.confirm.params.requestedSchema.required).toEqual(['confirm']);
    const state = asked.requestState as string;
    const accept = { confirm: { action: 'accept', content: { confirm: true } } };
    const before = posts();

    const changed = resultOf(await raw({ arguments: argsWith(6), requestState: state, inputResponses: accept }));
    expect(changed.content[0].text).toBe(text('confirm_state_invalid'));
    const tampered = `${state.slice(0, -3)}${state.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    const forged = resultOf(await raw({ arguments: args, requestState: tampered, inputResponses: accept }));
    expect(forged.content[0].text).toBe(text('confirm_state_invalid'));
    expect(posts()).toBe(before);

    const written = resultOf(await raw({ arguments: args, requestState: state, inputResponses: accept }));
    expect(written.isError ?? false, JSON.stringify(written)).toBe(false);
    expect(written.resultType).toBe('complete');
    expect(posts()).toBe(before + 1);

    const replayed = resultOf(await raw({ arguments: args, requestState: state, inputResponses: accept }));
    expect(replayed.content[0].text).toBe(text('confirm_state_used'));
    expect(replayed.isError).toBe(true);
    expect(posts()).toBe(before + 1);
  });

  it('a client without the elicitation capability keeps the confirm: true flow', async () => {
    const before = posts();
    const result = resultOf(await raw({ arguments: argsWith(7) }, {}));
    expect(result.resultType).toBe('complete');
    expect(JSON.parse(result.content[0].text).draftInvoiceNumber).toEqual(expect.any(Number));
    expect(posts()).toBe(before + 1);
  });

  it('2025-06-18: the official 1.x client with an elicitation handler is asked on the call stream', async () => {
    const seen: string[] = [];
    let reply: Answer = { action: 'decline' };
    const client = new Client({ name: 'person-confirm-1x', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push(request.params.message);
      return reply;
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/invoicing/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tenant.token}` } },
      }),
    );
    try {
      const before = posts();
      const declined = await client.callTool({ name: TOOL, arguments: argsWith(11) });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('/invoices/drafts');
      expect(resultText(declined)).toMatch(/^Nothing has been written/);
      expect(posts()).toBe(before);
      reply = { action: 'accept', content: { confirm: true } };
      const accepted = await client.callTool({ name: TOOL, arguments: argsWith(12) });
      expect(seen).toHaveLength(2);
      expect(accepted.isError ?? false, resultText(accepted)).toBe(false);
      expect(JSON.parse(resultText(accepted)).draftInvoiceNumber).toEqual(expect.any(Number));
      expect(posts()).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});

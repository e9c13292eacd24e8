// The client's selection of an endpoint's tools (docs/decisions/mcp-surface.md, 'Toolsets and
// read-only chosen by the client, by header or path'), end to end with the official SDK clients
// (1.x Client and the 2.x @modelcontextprotocol/client pinned to 2026-07-28) against a gateway with
// every connector on counting upstream proxies: the X-MCP-Toolsets and X-MCP-Readonly headers, the
// /x/<toolset,…>/ and /readonly/ path forms on first and -2 instances, tools/list and tools/call
// agreeing (a tool outside the selection is "Unknown tool.", with no upstream request and nothing
// metered), the refusal of an unknown toolset and the instructions that name the toolsets.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { startContractEnvironment, type ContractEnvironment } from './support/contract.ts';
import { resultText, rpc } from './support/gateway.ts';
import { issueToken } from '../runtime/auth/caller-tokens.ts';

const books = registry.books.descriptor;
const invoicing = registry.invoicing.descriptor;
const namesOf = (tools: ReadonlyArray<{ name: string }>, instanceId: string) =>
  tools.map((t) => `${instanceId}__${t.name}`).sort();
const booksContacts = books.tools.filter((t) => t.toolset === 'contacts');
const invoicingReads = invoicing.tools.filter((t) => t.annotations.readOnlyHint);
const invoicingWrites = invoicing.tools.filter((t) => !t.annotations.readOnlyHint);

describe('tool selection by the client (header, path, read-only)', () => {
  let env: ContractEnvironment;
  let url: string;
  const opened: Array<{ close(): Promise<void> }> = [];
  const upstreamRequests = () => Object.values(env.upstreams).reduce((sum, u) => sum + u.requests(), 0);
  const metered = async () => (await env.metered(books.defaultId, 'list_organizations')).total;

  /** The 1.x client on a path (`books`, `books/x/contacts`, `invoicing-2/readonly` …) with extra headers. */
  async function legacyClient(path: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'selection-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/${path}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.tenant.token}`, ...headers } },
    });
    await client.connect(transport);
    opened.push(client);
    return client;
  }

  async function modernClient(path: string, headers: Record<string, string> = {}): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'selection-test-2026', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const transport = new ModernTransport(new URL(`${url}/${path}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.tenant.token}`, ...headers } },
    });
    await client.connect(transport);
    opened.push(client);
    return client;
  }

  /** A call the selection hides: "Unknown tool." exactly, no upstream request, nothing metered. */
  async function expectHidden(call: () => Promise<unknown>): Promise<void> {
    const requestsBefore = upstreamRequests();
    const unitsBefore = await metered();
    const result = await call();
    expect((result as { isError?: boolean }).isError).toBe(true);
    expect(resultText(result)).toBe('Unknown tool.');
    expect(upstreamRequests()).toBe(requestsBefore);
    expect(await metered()).toBe(unitsBefore);
  }

  beforeAll(async () => {
    env = await startContractEnvironment();
    url = env.gateway.url;
  }, 120_000);
  afterAll(async () => {
    for (const c of opened) await c.close().catch(() => {});
    await env?.close();
  });

  it('books with the contacts toolset (header, 1.x client) lists only its tools, a few thousand bytes', async () => {
    const client = await legacyClient('books', { 'X-MCP-Toolsets': 'contacts' });
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name).sort()).toEqual(namesOf(booksContacts, 'books'));
    const bytes = Buffer.byteLength(JSON.stringify(list));
    expect(bytes).toBeGreaterThan(1000);
    expect(bytes).toBeLessThan(10_000);
    const whole = Buffer.byteLength(JSON.stringify(await (await env.client('books')).listTools()));
    expect(whole).toBeGreaterThan(5 * bytes);
  });

  it('outside the selection: "Unknown tool.", unmetered, nothing sent upstream; inside: sent upstream', async () => {
    const client = await legacyClient('books', { 'X-MCP-Toolsets': 'contacts' });
    await expectHidden(() => client.callTool({ name: 'books__list_organizations', arguments: {} }));
    // The same call without a selection reaches the upstream: the counters above can move.
    const before = upstreamRequests();
    const unitsBefore = await metered();
    const whole = await env.client('books');
    const result = await whole.callTool({ name: 'books__list_organizations', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(upstreamRequests()).toBeGreaterThan(before);
    expect(await metered()).toBeGreaterThan(unitsBefore);
  });

  it('the 2.x client (2026-07-28), path form: the same tools listed, outside calls refused the same way', async () => {
    const client = await modernClient('books/x/contacts');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(booksContacts, 'books'));
    await expectHidden(() => client.callTool({ name: 'books__list_organizations', arguments: {} }));
  });

  it('two toolsets by header: their tools together; path and header narrow each other', async () => {
    const both = await legacyClient('books', { 'X-MCP-Toolsets': 'organisations, contacts' });
    const expected = namesOf(
      books.tools.filter((t) => t.toolset === 'organisations' || t.toolset === 'contacts'),
      'books',
    );
    expect((await both.listTools()).tools.map((t) => t.name).sort()).toEqual(expected);
    const narrowed = await legacyClient('books/x/organisations,contacts', { 'X-MCP-Toolsets': 'contacts,invoices' });
    expect((await narrowed.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(booksContacts, 'books'));
  });

  it('invoicing read-only (header, 1.x) lists the 23 read tools and refuses the four writes as unknown', async () => {
    expect(invoicingReads).toHaveLength(23);
    expect(invoicingWrites).toHaveLength(4);
    const client = await legacyClient('invoicing', { 'X-MCP-Readonly': 'true' });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(invoicingReads, 'invoicing'));
    for (const tool of invoicingWrites)
      await expectHidden(() => client.callTool({ name: `invoicing__${tool.name}`, arguments: {} }));
  });

  it('invoicing read-only by path (/readonly) on the 2.x client and on the -2 instance', async () => {
    const modern = await modernClient('invoicing/readonly');
    expect((await modern.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(invoicingReads, 'invoicing'));
    await expectHidden(() => modern.callTool({ name: `invoicing__${invoicingWrites[0]!.name}`, arguments: {} }));
    const second = await legacyClient('invoicing-2/readonly');
    expect((await second.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(invoicingReads, 'invoicing-2'));
    await expectHidden(() => second.callTool({ name: `invoicing-2__${invoicingWrites[1]!.name}`, arguments: {} }));
  });

  it('toolsets and read-only combined on a -2 instance: /x/<toolsets>/readonly', async () => {
    const set = invoicing.toolsets.find((s) =>
      invoicing.tools.some((t) => t.toolset === s.id && !t.annotations.readOnlyHint),
    )!;
    const client = await modernClient(`invoicing-2/x/${set.id}/readonly`);
    const expected = invoicing.tools.filter((t) => t.toolset === set.id && t.annotations.readOnlyHint);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(expected, 'invoicing-2'));
  });

  it('connect_account stays listed under any selection, read-only included', async () => {
    const erp = registry.erp.descriptor;
    expect(erp.connectAccount).toBe(true);
    const client = await legacyClient(`${erp.defaultId}/x/${erp.toolsets[0]!.id}/readonly`);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('connect_account');
  });

  it('an unknown toolset: HTTP 400 with the list of valid ones, by header and by path, on both eras', async () => {
    const valid = books.toolsets.map((s) => s.id);
    const before = upstreamRequests();
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const byHeader = await rpc(url, 'books', env.tenant.token, list, { 'X-MCP-Toolsets': 'contacts,nope' });
    expect(byHeader.status).toBe(400);
    expect(byHeader.json).toMatchObject({
      error: {
        code: -32602,
        message: `Unknown toolset nope on books. Valid toolsets: ${valid.join(', ')}.`,
        data: { unknown: ['nope'], valid },
      },
    });
    const byPath = await rpc(url, 'books-2/x/nope', env.tenant.token, list);
    expect(byPath.status).toBe(400);
    expect((byPath.json as { error: { message: string } }).error.message).toContain('Unknown toolset nope on books-2');
    await expect(legacyClient('books/x/nope')).rejects.toThrow(/Unknown toolset nope/);
    // The 2.x client reports a failed server/discover as failed negotiation; the wire shows the refusal.
    await expect(modernClient('books', { 'X-MCP-Toolsets': 'nope' })).rejects.toThrow();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await rpc(
      url,
      'books/x/nope',
      env.tenant.token,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } },
      {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
    );
    expect(modern.status).toBe(400);
    expect(modern.json).toMatchObject({ error: { code: -32602, data: { unknown: ['nope'], valid } } });
    expect(upstreamRequests()).toBe(before);
  });

  it('2026-07-28 lists carry the same cache hints under a selection, and each selection its own tools', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const list = (path: string, headers: Record<string, string> = {}) =>
      rpc(
        url,
        path,
        env.tenant.token,
        { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...headers },
      );
    const whole = (await list('books')).json as {
      result: { tools: Array<{ name: string }>; ttlMs: number; cacheScope: string };
    };
    const contacts = (await list('books', { 'X-MCP-Toolsets': 'contacts' })).json as typeof whole;
    const organisations = (await list('books/x/organisations')).json as typeof whole;
    expect(contacts.result.tools.map((t) => t.name).sort()).toEqual(namesOf(booksContacts, 'books'));
    expect(organisations.result.tools.map((t) => t.name).sort()).toEqual(
      namesOf(
        books.tools.filter((t) => t.toolset === 'organisations'),
        'books',
      ),
    );
    expect(whole.result.tools).toHaveLength(books.tools.length);
    for (const r of [contacts, organisations])
      expect({ ttlMs: r.result.ttlMs, cacheScope: r.result.cacheScope }).toEqual({
        ttlMs: whole.result.ttlMs,
        cacheScope: 'private',
      });
  });

  it('a path that is not one of the forms is no endpoint (404)', async () => {
    for (const path of ['books/x', 'books/readonly/x/contacts', 'books/y/contacts', 'books/x/contacts/extra']) {
      const r = await rpc(url, path, env.tenant.token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      expect(r.status, path).toBe(404);
    }
  });

  it('the instructions name the toolsets and how to select them, on both eras', async () => {
    const legacy = await legacyClient('books');
    const text = legacy.getInstructions() ?? '';
    for (const set of books.toolsets) expect(text).toContain(`${set.id} (${set.title})`);
    expect(text).toContain('X-MCP-Toolsets');
    expect(text).toContain('/books/x/');
    expect(text).toContain('X-MCP-Readonly');
    const modern = await modernClient('books-2/x/contacts');
    expect(modern.getInstructions()).toContain('/books-2/x/');
  });

  it('token scoped to invoicing read-only: 403 insufficient_scope on books, only read tools on invoicing', async () => {
    const store = env.gateway.app.context.store;
    const scope = { connectors: ['invoicing'], readOnly: true };
    const { token } = await issueToken(store, env.tenant.user.id, 'scoped', undefined, scope);
    await env.gateway.app.context.state.refresh();
    const refused = await rpc(
      url,
      'books',
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
    expect(refused.text).toContain('This token may not reach books: its scope allows invoicing.');
    const client = new Client({ name: 'scoped-token', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/invoicing/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    opened.push(client);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(namesOf(invoicingReads, 'invoicing'));
    for (const tool of invoicingWrites)
      await expectHidden(() => client.callTool({ name: `invoicing__${tool.name}`, arguments: {} }));
  });

  it("the account's tool settings of an instance narrow every caller's list, and turn a listed tool away", async () => {
    const { store, state } = env.gateway.app.context;
    const accountId = env.tenant.account.id;
    const customers = invoicing.tools.filter((t) => t.toolset === 'customers').map((t) => t.name);
    const offTool = invoicingReads.find((t) => t.toolset === 'invoices')!.name;
    await store.connections.putToolSettings({
      accountId,
      instanceId: 'invoicing',
      disabledToolsets: ['customers'],
      disabledTools: [offTool],
      readOnly: false,
    });
    await state.refresh();
    try {
      const client = await legacyClient('invoicing');
      const listed = (await client.listTools()).tools.map((t) => t.name);
      const expected = invoicing.tools
        .filter((t) => !customers.includes(t.name) && t.name !== offTool)
        .map((t) => `invoicing__${t.name}`);
      expect(listed.filter((n) => n !== 'invoicing__connect_account').sort()).toEqual(expected.sort());
      await expectHidden(() => client.callTool({ name: `invoicing__${offTool}`, arguments: {} }));
      await expectHidden(() => client.callTool({ name: `invoicing__${customers[0]}`, arguments: {} }));
      // The client asking for the toolset turned off gets nothing of it either.
      const asking = await legacyClient('invoicing', { 'X-MCP-Toolsets': 'customers' });
      expect((await asking.listTools()).tools.filter((t) => t.name !== 'invoicing__connect_account')).toEqual([]);
    } finally {
      await store.connections.putToolSettings({
        accountId,
        instanceId: 'invoicing',
        disabledToolsets: [],
        disabledTools: [],
        readOnly: false,
      });
      await state.refresh();
    }
    expect(await store.connections.getToolSettings(accountId, 'invoicing')).toBeNull();
  });
});

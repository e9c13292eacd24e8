// MCP 2026-07-28 beside the 2025 revisions (docs/decisions/mcp-surface.md), end to end against a started gateway with
// every connector enabled (sandboxes where there are any): the official 2.x client pinned to
// 2026-07-28 and in `auto` mode on every served endpoint (discover, list, call, errors), the raw
// wire rules of the revision (per-request `_meta`, `Mcp-Method`/`Mcp-Name`/`MCP-Protocol-Version`,
// removed methods, error statuses and ids), the cache hints of tools/list for two users with
// different seats on one account, and the 1.x client working exactly as before.
// Sources: the 2026-07-28 specification (basic/index, versioning, transports/streamable-http,
// server/discover, server/tools, server/utilities/caching) and the 2.x SDK's client.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry, type ConnectorKey } from '../generated/registry.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { DEMO_CVR } from '../sandbox/register/data.ts';
import { startRegisterSandbox, type RegisterSandbox } from '../sandbox/register/server.ts';
import { startContractEnvironment, type ContractEnvironment } from './support/contract.ts';
import {
  createTenant,
  mcpClient,
  resultJson,
  resultText,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';

const MODERN = '2026-07-28';
const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'];
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** One real tool call per implemented connector, with what its real result must show. */
const REAL_CALLS: Readonly<
  Partial<Record<ConnectorKey, { tool: string; args: Record<string, unknown>; check: (json: any) => void }>>
> = {
  register: {
    tool: 'hent_virksomhed',
    args: { cvrNummer: String(DEMO_CVR) },
    check: (j) => expect(j).toMatchObject({ cvrNummer: DEMO_CVR, kapitalValuta: 'DKK' }),
  },
  cases: { tool: 'describe_type', args: { name: 'Hour' }, check: (j) => expect(j.found).toBe(true) },
  ledger: {
    tool: 'list_product_groups',
    args: {},
    check: (j) => expect(j.items.map((g: { Group: string }) => g.Group)).toContain('EBIKES'),
  },
};

/**
 * What tools/list names for a subscribed, seated caller: `<instance>__<tool>`, plus the platform's connect_account
 * where the connector lists it.
 */
function expectedTools(instanceId: string, key: ConnectorKey): string[] {
  const { descriptor } = registry[key];
  return [
    ...descriptor.tools.map((t) => `${instanceId}__${t.name}`),
    ...(descriptor.connectAccount ? ['connect_account'] : []),
  ].sort();
}

type Mode = 'auto' | { pin: string };

async function modernClient(
  url: string,
  instanceId: string,
  token: string,
  mode: Mode = { pin: MODERN },
): Promise<ModernClient> {
  const client = new ModernClient({ name: 'gateway-test-2026', version: '2.0.0' }, { versionNegotiation: { mode } });
  const transport = new ModernTransport(new URL(`${url}/${instanceId}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** The per-request envelope of 2026-07-28 (basic/index.mdx, "Per-request protocol fields"). */
function envelope(version = MODERN, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { [PV]: version, [CAPS]: {}, [INFO]: { name: 'raw-test', version: '1.0.0' }, ...extra };
}

/** The standard headers the revision requires for a request (transports/streamable-http, SEP-2243). */
function modernHeaders(method: string, name?: string, version = MODERN): Record<string, string> {
  return { 'mcp-protocol-version': version, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
}

type Raw = Awaited<ReturnType<typeof rpc>>;
const errorOf = (r: Raw) => (r.json as { error?: { code: number; message: string; data?: any } }).error;
const resultOf = (r: Raw) => (r.json as { result?: any }).result;

/** An HTTP 400/404 refusal in the revision's shape: the status, the code and the request id echoed. */
function expectRefusal(r: Raw, status: number, code: number, id: string | number): void {
  expect({ status: r.status, code: errorOf(r)?.code, id: (r.json as { id?: unknown })?.id }, r.text).toEqual({
    status,
    code,
    id,
  });
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
}

const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;

describe('MCP 2026-07-28 end to end (issue 13)', () => {
  let env: ContractEnvironment;
  let url: string;
  let tenant: Tenant;
  /** Every served endpoint: each enabled connector's instances (`<id>`, `<id>-2`, …). */
  let endpoints: Array<{ instanceId: string; key: ConnectorKey; first: boolean }>;
  const modernClients: ModernClient[] = [];
  const open = async (instanceId: string, mode?: Mode, token = tenant.token) => {
    const c = await modernClient(url, instanceId, token, mode);
    modernClients.push(c);
    return c;
  };
  const upstreamRequests = () => Object.values(env.upstreams).reduce((s, u) => s + u.requests(), 0);

  beforeAll(async () => {
    env = await startContractEnvironment();
    url = env.gateway.url;
    tenant = env.tenant;
    endpoints = [...env.gateway.app.context.endpoints.values()].map((e) => ({
      instanceId: e.instanceId,
      key: e.connector.config.key as ConnectorKey,
      first: e.instance === 1,
    }));
  }, 120_000);
  afterAll(async () => {
    for (const c of modernClients) await c.close().catch(() => {});
    await env?.close();
  });

  it('serves every connector of the registry, each on more than one instance', () => {
    expect(new Set(endpoints.map((e) => e.key))).toEqual(new Set(Object.keys(registry)));
    expect(endpoints.length).toBeGreaterThan(Object.keys(registry).length);
  });

  describe('the 2.x client pinned to 2026-07-28 on every endpoint', () => {
    it('connects with server/discover, negotiates 2026-07-28 and lists `<instance>__<tool>` tools', async () => {
      for (const { instanceId, key } of endpoints) {
        const client = await open(instanceId);
        expect(client.getNegotiatedProtocolVersion(), instanceId).toBe(MODERN);
        expect(client.getProtocolEra(), instanceId).toBe('modern');
        const discover = client.getDiscoverResult();
        expect(discover?.supportedVersions, instanceId).toContain(MODERN);
        expect(discover?.capabilities.tools, instanceId).toBeDefined();
        // No subscriptions/listen stream is served, so listChanged must not be promised (server/discover,
        // subscriptions).
        expect(discover?.capabilities.tools?.listChanged, instanceId).not.toBe(true);
        expect(client.getServerVersion()?.name, instanceId).toBeTruthy();
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort(), instanceId).toEqual(expectedTools(instanceId, key));
        for (const t of tools) expect(t.inputSchema.type, t.name).toBe('object');
      }
    });

    it('answers discover with the instructions and identity of the 2025 initialize (entitlement-aware)', async () => {
      for (const { instanceId } of endpoints.filter((e) => e.first)) {
        const modern = await open(instanceId);
        const legacy = await mcpClient(url, instanceId, tenant.token);
        try {
          expect(modern.getInstructions(), instanceId).toBe(legacy.getInstructions());
          expect(modern.getServerVersion()?.name, instanceId).toBe(legacy.getServerVersion()?.name);
          expect(modern.getServerVersion()?.version, instanceId).toBe(legacy.getServerVersion()?.version);
        } finally {
          await legacy.close();
        }
      }
    });

    it('calls a real tool on every implemented connector and gets the real result', async () => {
      for (const [key, call] of Object.entries(REAL_CALLS) as Array<
        [ConnectorKey, NonNullable<(typeof REAL_CALLS)[ConnectorKey]>]
      >) {
        const instanceId = env.instanceIds[key]!;
        const client = await open(instanceId);
        const before = env.upstreams[key]!.requests();
        const result = await client.callTool({ name: `${instanceId}__${call.tool}`, arguments: call.args });
        expect(result.isError, `${key}: ${resultText(result)}`).toBeFalsy();
        call.check(resultJson(result));
        expect(env.upstreams[key]!.requests(), key).toBeGreaterThan(before);
      }
    });

    it('refuses an unknown tool and invalid arguments, with no upstream request and nothing metered', async () => {
      const instanceId = env.instanceIds.register!;
      const client = await open(instanceId);
      const metered = await env.metered(instanceId, 'hent_virksomhed');
      const requests = upstreamRequests();
      // Unknown tool: the revision's JSON-RPC error -32602, or the gateway's in-band "Unknown tool." as for 2025.
      const unknown = await client.callTool({ name: `${instanceId}__no_such_tool`, arguments: {} }).then(
        (r) => ({ isError: r.isError, text: resultText(r) }),
        (e: { code?: number }) => ({ code: e.code }),
      );
      if ('code' in unknown) expect(unknown.code).toBe(-32602);
      else expect(unknown).toEqual({ isError: true, text: 'Unknown tool.' });
      // Invalid arguments are a tool execution error (isError), in both eras.
      const invalid = await client.callTool({
        name: `${instanceId}__hent_virksomhed`,
        arguments: { cvrNummer: 'abc' },
      });
      expect(invalid.isError).toBe(true);
      expect(resultText(invalid)).toBe('Tool invocation failed.');
      expect(upstreamRequests()).toBe(requests);
      expect(await env.metered(instanceId, 'hent_virksomhed')).toEqual(metered);
    });
  });

  describe('the 2.x client in auto mode', () => {
    it('negotiates 2026-07-28 on every endpoint (no fallback to initialize) and lists tools', async () => {
      for (const { instanceId, key } of endpoints) {
        const client = await open(instanceId, 'auto');
        expect(client.getNegotiatedProtocolVersion(), instanceId).toBe(MODERN);
        expect(client.getProtocolEra(), instanceId).toBe('modern');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort(), instanceId).toEqual(expectedTools(instanceId, key));
      }
    });

    it('calls a real tool', async () => {
      const client = await open(env.instanceIds.register!, 'auto');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const result = await client.callTool({
        name: `${env.instanceIds.register}__hent_virksomhed`,
        arguments: { cvrNummer: String(DEMO_CVR) },
      });
      expect(result.isError).toBeFalsy();
      REAL_CALLS.register!.check(resultJson(result));
    });
  });

  describe('the 1.x client (2025 revisions) exactly as before', () => {
    it('initializes, lists and calls on every endpoint with the 2025 handshake', async () => {
      for (const { instanceId, key, first } of endpoints) {
        const client = await mcpClient(url, instanceId, tenant.token);
        try {
          expect(client.getServerVersion()?.name, instanceId).toBe(`connector-gateway/${instanceId}`);
          expect(client.getServerCapabilities(), instanceId).toEqual({ tools: { listChanged: false } });
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name).sort(), instanceId).toEqual(expectedTools(instanceId, key));
          const call = REAL_CALLS[key];
          if (call && first) {
            const result = await client.callTool({ name: `${instanceId}__${call.tool}`, arguments: call.args });
            expect(result.isError, `${key}: ${resultText(result)}`).toBeFalsy();
            call.check(resultJson(result));
          }
        } finally {
          await client.close();
        }
      }
    });

    it('keeps the 2025 wire: initialize, ping and results without the 2026 fields', async () => {
      const id = env.instanceIds.register!;
      for (const version of LEGACY) {
        const init = await rpc(url, id, tenant.token, {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        });
        expect(init.status).toBe(200);
        expect(Object.keys(resultOf(init)).sort()).toEqual([
          'capabilities',
          'instructions',
          'protocolVersion',
          'serverInfo',
        ]);
        expect(resultOf(init).protocolVersion).toBe(version);
        const ping = await rpc(
          url,
          id,
          tenant.token,
          { jsonrpc: '2.0', id: 2, method: 'ping' },
          { 'mcp-protocol-version': version },
        );
        expect(ping.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
        const list = await rpc(
          url,
          id,
          tenant.token,
          { jsonrpc: '2.0', id: 3, method: 'tools/list' },
          { 'mcp-protocol-version': version },
        );
        expect(Object.keys(resultOf(list))).toEqual(['tools']);
        const call = await rpc(
          url,
          id,
          tenant.token,
          { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: `${id}__no_such_tool`, arguments: {} } },
          { 'mcp-protocol-version': version },
        );
        expect(call.json).toEqual({
          jsonrpc: '2.0',
          id: 4,
          result: { content: [{ type: 'text', text: 'Unknown tool.' }], isError: true },
        });
      }
      // No header at all is 2025-03-26, as before; an unknown old version negotiates the latest 2025 one.
      const bare = await rpc(url, id, tenant.token, { jsonrpc: '2.0', id: 5, method: 'tools/list' });
      expect(Object.keys(resultOf(bare))).toEqual(['tools']);
      const old = await rpc(url, id, tenant.token, {
        jsonrpc: '2.0',
        id: 6,
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      expect(resultOf(old).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    });
  });

  describe('the 2026-07-28 wire, raw', () => {
    let id: string;
    const post = (body: unknown, headers: Record<string, string>, token: string = tenant.token) =>
      rpc(url, id, token, body, headers);
    const toolName = () => `${id}__hent_virksomhed`;
    const callBody = (rid: string | number, name = toolName(), meta = envelope()) => ({
      jsonrpc: '2.0',
      id: rid,
      method: 'tools/call',
      params: { name, arguments: { cvrNummer: String(DEMO_CVR) }, _meta: meta },
    });
    beforeAll(() => {
      id = env.instanceIds.register!;
    });

    it('server/discover: versions, capabilities, identity, cache hints and resultType', async () => {
      const r = await post(
        { jsonrpc: '2.0', id: 'discover-1', method: 'server/discover', params: { _meta: envelope() } },
        modernHeaders('server/discover'),
      );
      expect(r.status, r.text).toBe(200);
      const result = resultOf(r);
      expect((r.json as { id: unknown }).id).toBe('discover-1');
      expect(result.resultType).toBe('complete');
      expect(result.supportedVersions).toContain(MODERN);
      expect(result.capabilities.tools).toBeDefined();
      expect(result.capabilities.tools.listChanged).not.toBe(true);
      expect(result.capabilities).not.toHaveProperty('prompts');
      expect(result.capabilities).not.toHaveProperty('resources');
      expect(result._meta?.[SERVER_INFO]).toMatchObject({ name: expect.any(String), version: expect.any(String) });
      expect(Number.isInteger(result.ttlMs) && result.ttlMs >= 0).toBe(true);
      expect(['public', 'private']).toContain(result.cacheScope);
      expect(typeof result.instructions).toBe('string');
    });

    it('tools/list: resultType, serverInfo and private cache hints', async () => {
      const r = await post(
        { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope() } },
        modernHeaders('tools/list'),
      );
      expect(r.status, r.text).toBe(200);
      const result = resultOf(r);
      expect(result.resultType).toBe('complete');
      expect(Number.isInteger(result.ttlMs) && result.ttlMs >= 0).toBe(true);
      expect(result.cacheScope).toBe('private');
      expect(result.tools.map((t: { name: string }) => t.name)).toContain(toolName());
      for (const t of result.tools) expect(t).not.toHaveProperty('execution');
    });

    it('tools/call without clientInfo (optional) is served', async () => {
      const r = await post(
        callBody(8, toolName(), { [PV]: MODERN, [CAPS]: {} }),
        modernHeaders('tools/call', toolName()),
      );
      expect(r.status, r.text).toBe(200);
      expect(resultOf(r).resultType).toBe('complete');
      expect(resultOf(r).isError).toBeFalsy();
    });

    it('missing _meta fields: 400 with -32602, echoing the id', async () => {
      const headers = modernHeaders('tools/list');
      expectRefusal(await post({ jsonrpc: '2.0', id: 'm1', method: 'tools/list' }, headers), 400, -32602, 'm1');
      expectRefusal(
        await post({ jsonrpc: '2.0', id: 'm2', method: 'tools/list', params: {} }, headers),
        400,
        -32602,
        'm2',
      );
      expectRefusal(
        await post({ jsonrpc: '2.0', id: 'm3', method: 'tools/list', params: { _meta: { [CAPS]: {} } } }, headers),
        400,
        -32602,
        'm3',
      );
      expectRefusal(
        await post({ jsonrpc: '2.0', id: 'm4', method: 'tools/list', params: { _meta: { [PV]: MODERN } } }, headers),
        400,
        -32602,
        'm4',
      );
      expectRefusal(
        await post(
          { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { [PV]: MODERN, [CAPS]: 'none' } } },
          headers,
        ),
        400,
        -32602,
        5,
      );
      expectRefusal(
        await post(
          { jsonrpc: '2.0', id: 6, method: 'server/discover', params: { _meta: { [PV]: MODERN } } },
          modernHeaders('server/discover'),
        ),
        400,
        -32602,
        6,
      );
    });

    it('an unsupported version: 400 with -32022, data.supported and data.requested', async () => {
      const discover = resultOf(
        await post(
          { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } },
          modernHeaders('server/discover'),
        ),
      );
      for (const [rid, version] of [
        [11, 'v999.0.0'],
        ['u2', '2099-01-01'],
      ] as const) {
        const r = await post(
          { jsonrpc: '2.0', id: rid, method: 'tools/list', params: { _meta: envelope(version) } },
          modernHeaders('tools/list', undefined, version),
        );
        expectRefusal(r, 400, -32022, rid);
        const data = errorOf(r)!.data;
        expect(data.requested).toBe(version);
        expect(data.supported).toContain(MODERN);
        // Every version the error offers is one discover advertises.
        for (const v of data.supported) expect(discover.supportedVersions).toContain(v);
      }
    });

    it('header/body mismatch: 400 with -32020, echoing the id, and no upstream request', async () => {
      const before = upstreamRequests();
      const list = { jsonrpc: '2.0', id: 'h1', method: 'tools/list', params: { _meta: envelope() } };
      // MCP-Protocol-Version names another version than the body.
      expectRefusal(
        await post({ ...list, params: { _meta: envelope('v999.0.0') } }, modernHeaders('tools/list')),
        400,
        -32020,
        'h1',
      );
      expectRefusal(await post(list, modernHeaders('tools/list', undefined, '2025-11-25')), 400, -32020, 'h1');
      // Mcp-Method: another method, another case (values are case-sensitive), or missing.
      expectRefusal(await post(list, modernHeaders('tools/call')), 400, -32020, 'h1');
      expectRefusal(await post(list, modernHeaders('TOOLS/LIST')), 400, -32020, 'h1');
      expectRefusal(await post(list, { 'mcp-protocol-version': MODERN }), 400, -32020, 'h1');
      // Mcp-Name: another tool, missing, or invalid Base64.
      expectRefusal(await post(callBody(21), modernHeaders('tools/call', `${id}__find_ejere`)), 400, -32020, 21);
      expectRefusal(await post(callBody(22), modernHeaders('tools/call')), 400, -32020, 22);
      expectRefusal(await post(callBody(23), modernHeaders('tools/call', '=?base64?!!!not-base64?=')), 400, -32020, 23);
      expectRefusal(await post(callBody(24), modernHeaders('tools/call', b64(`${id}__find_ejere`))), 400, -32020, 24);
      expect(upstreamRequests()).toBe(before);
    });

    it('Mcp-Name: the Base64 sentinel and surrounding whitespace are accepted; header names ignore case', async () => {
      const sentinel = await post(callBody(31), modernHeaders('tools/call', b64(toolName())));
      expect(sentinel.status, sentinel.text).toBe(200);
      expect(resultOf(sentinel).isError).toBeFalsy();
      const spaced = await post(callBody(32), modernHeaders('tools/call', `  ${toolName()}\t`));
      expect(spaced.status, spaced.text).toBe(200);
      expect(resultOf(spaced).isError).toBeFalsy();
      const shouting = await post(callBody(33), {
        'MCP-PROTOCOL-VERSION': MODERN,
        'MCP-METHOD': 'tools/call',
        'MCP-NAME': toolName(),
      });
      expect(shouting.status, shouting.text).toBe(200);
      // A non-ASCII name can only travel Base64-encoded: it is decoded and compared (an unknown tool, in-band or
      // -32602).
      const unicode = await post(callBody(34, `${id}__søg`), modernHeaders('tools/call', b64(`${id}__søg`)));
      expect(unicode.status, unicode.text).not.toBe(400);
    });

    it('removed and unserved methods with a modern envelope: 404 with -32601, echoing the id', async () => {
      for (const [n, method] of [
        'initialize',
        'ping',
        'logging/setLevel',
        'resources/list',
        'prompts/list',
        'subscriptions/listen',
        'resources/subscribe',
      ].entries()) {
        const params =
          method === 'initialize'
            ? {
                protocolVersion: MODERN,
                capabilities: {},
                clientInfo: { name: 'raw', version: '1' },
                _meta: envelope(),
              }
            : method === 'logging/setLevel'
              ? { level: 'info', _meta: envelope() }
              : { _meta: envelope() };
        expectRefusal(
          await post({ jsonrpc: '2.0', id: `r${n}`, method, params }, modernHeaders(method)),
          404,
          -32601,
          `r${n}`,
        );
      }
    });

    it('authentication is unchanged: 401 without a token on server/discover and tools/list', async () => {
      for (const method of ['server/discover', 'tools/list']) {
        const r = await rpc(
          url,
          id,
          null,
          { jsonrpc: '2.0', id: 1, method, params: { _meta: envelope() } },
          modernHeaders(method),
        );
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    });
  });

  // Product spec (ERP): "A user without a seat still sees the tools, but every call is refused."
  // So a seat changes the calls, not the list; the subscription changes the list (and its hint).
  describe('cache hints of tools/list for two users with different seats on one account', () => {
    let seated: Tenant;
    let unseated: Tenant;
    let instanceId: string;
    const list = async (t: Tenant) => {
      const r = await rpc(
        url,
        instanceId,
        t.token,
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } },
        modernHeaders('tools/list'),
      );
      expect(r.status, r.text).toBe(200);
      const { _meta, ...rest } = resultOf(r) as Record<string, unknown>;
      return rest as { tools: Array<{ name: string }>; ttlMs: number; cacheScope: string };
    };
    const describeHour = async (t: Tenant) => {
      const client = await open(instanceId, undefined, t.token);
      return client.callTool({ name: `${instanceId}__describe_type`, arguments: { name: 'Hour' } });
    };
    beforeAll(async () => {
      const store = env.gateway.store;
      // cases lists connect_account: what it lists depends on the account's entitlements.
      instanceId = env.instanceIds.cases!;
      seated = await createTenant(store, { accountId: tenant.account.id, seats: ['cases'] });
      unseated = await createTenant(store, { accountId: tenant.account.id, seats: [] });
      await env.gateway.app.context.state.refresh();
    });

    it("are private for both users, so no cache serves one user's list to the other", async () => {
      const a = await list(seated);
      const b = await list(unseated);
      expect(a.cacheScope).toBe('private');
      expect(b.cacheScope).toBe('private');
      expect(Number.isInteger(a.ttlMs) && a.ttlMs >= 0).toBe(true);
      expect(Number.isInteger(b.ttlMs) && b.ttlMs >= 0).toBe(true);
      // The user without a seat sees the tools (product spec) and every call is refused, so a kept list grants nothing.
      expect(b.tools.map((t) => t.name)).toEqual(a.tools.map((t) => t.name));
      expect((await describeHour(seated)).isError).toBeFalsy();
      const refused = await describeHour(unseated);
      expect(refused.isError).toBe(true);
    });

    it('change when the account subscribes or unsubscribes: the list and its hint', async () => {
      const own = await createTenant(env.gateway.store, { subscribe: ['cases'] });
      await env.gateway.app.context.state.refresh();
      const subscribed = await list(own);
      await env.gateway.store.accounts.setSubscription(own.account.id, 'cases', false);
      await env.gateway.app.context.state.refresh();
      try {
        const unsubscribed = await list(own);
        expect(unsubscribed.cacheScope).toBe('private');
        expect(unsubscribed.tools.map((t) => t.name)).toEqual(['connect_account']);
        expect(subscribed.tools.length).toBeGreaterThan(1);
        // A list without the tools must not be kept longer than the subscribed one.
        expect(unsubscribed.ttlMs).toBeLessThanOrEqual(subscribed.ttlMs);
        // The 2.x client (its own response cache per client) sees the same.
        const client = await open(instanceId, undefined, own.token);
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['connect_account']);
      } finally {
        await env.gateway.store.accounts.setSubscription(own.account.id, 'cases', true);
        await env.gateway.app.context.state.refresh();
      }
      expect((await list(own)).tools).toEqual(subscribed.tools);
    });

    it('a seat granted lets the calls of the same list through', async () => {
      const before = await list(unseated);
      await env.gateway.store.users.setSeat(unseated.user.id, 'cases', true);
      await env.gateway.app.context.state.refresh();
      try {
        expect((await list(unseated)).tools).toEqual(before.tools);
        expect((await describeHour(unseated)).isError).toBeFalsy();
      } finally {
        await env.gateway.store.users.setSeat(unseated.user.id, 'cases', false);
        await env.gateway.app.context.state.refresh();
      }
    });
  });
});

// Issue 13, item 5: the W3C trace keys of `_meta` (2026) and the `traceparent` header continue to the
// upstream request, so one call can be followed from the assistant to the upstream.
describe('trace context reaches the upstream request (issue 13, item 5)', () => {
  let store: PlatformStore;
  let sandbox: RegisterSandbox;
  let gw: StartedGateway;
  let t: Tenant;
  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
  const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
  const upstreamTraceparent = () => String(sandbox.stats.lastRequest?.headers.traceparent ?? '');
  const call = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: String(DEMO_CVR) } },
  });
  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startRegisterSandbox({ username: 'gw', password: 'sandbox-secret' });
    gw = await startGateway(store, {
      env: { CONNECTOR_REGISTER_BASE_URL: sandbox.url, REGISTER_USERNAME: 'gw', REGISTER_PASSWORD: 'sandbox-secret' },
    });
    t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
  });
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('from `_meta.traceparent` of a 2026 tools/call', async () => {
    const body = call(1);
    (body.params as Record<string, unknown>)._meta = envelope(MODERN, { traceparent, tracestate: 'vendor=1' });
    const r = await rpc(gw.url, 'register', t.token, body, modernHeaders('tools/call', 'register__hent_virksomhed'));
    expect(r.status, r.text).toBe(200);
    expect(resultOf(r).isError).toBeFalsy();
    expect(upstreamTraceparent()).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-0[01]$`));
  });

  it('from the `traceparent` header of a 2025 tools/call', async () => {
    const r = await rpc(gw.url, 'register', t.token, call(2), { 'mcp-protocol-version': '2025-11-25', traceparent });
    expect(r.status, r.text).toBe(200);
    expect(resultOf(r).isError).toBeFalsy();
    expect(upstreamTraceparent()).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-0[01]$`));
  });
});

// Every gateway rule and platform text, end to end over real HTTP: the SDK Client where a real
// assistant would use it, raw JSON-RPC for protocol edge cases. Upstreams: nock.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { createTenant, mcpClient, rpc, startGateway, usageOf, type StartedGateway } from './support/gateway.ts';
import { fetchAs, PortalClient, portalAs } from './support/portal.ts';

const REGISTER = 'https://cvr.test/cvr-permanent';
const ECONOMIC = 'https://economic.test';
const env = {
  REGISTER_USERNAME: 'platform-user',
  REGISTER_PASSWORD: 'platform-secret-pw',
  CONNECTOR_REGISTER_BASE_URL: REGISTER,
  CONNECTOR_INVOICING_BASE_URL: ECONOMIC,
  CONNECTOR_INVOICING_APP_SECRET_TOKEN: 'app-secret-Tn4v',
  RATE_LIMIT_PER_SECOND: '1000',
  RATE_LIMIT_BURST: '1000',
};
const texts = platformDescriptor.errors;
const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;
const prefixOf = (template: string) =>
  template.slice(0, template.indexOf('{') >= 0 ? template.indexOf('{') : undefined);

function esHit(cvr: number) {
  return {
    hits: {
      total: 1,
      hits: [
        {
          _id: '4000' + cvr,
          _source: {
            Vrvirksomhed: {
              cvrNummer: cvr,
              enhedsNummer: 4000,
              reklamebeskyttet: false,
              virksomhedMetadata: { nyesteNavn: { navn: 'Demo Byg ApS' }, sammensatStatus: 'NORMAL' },
            },
          },
        },
      ],
    },
  };
}

describe('gateway platform rules', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, { env, selfServicePurchase: true });
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });
  afterEach(() => nock.cleanAll());

  it('answers initialize, ping and tools/list with titles and annotations through the SDK client', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const client = await mcpClient(gw.url, 'register', t.token);
    expect(client.getServerVersion()?.name).toBe('connector-gateway/register');
    await client.ping();
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([
      'register__find_ejere',
      'register__find_produktionsenheder',
      'register__find_virksomheder_for_person',
      'register__hent_virksomhed',
      'register__soeg_virksomhed',
    ]);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    }
    await client.close();
  });

  it('negotiates the protocol version (echo a served one, else the latest)', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    for (const [asked, got] of [
      ['2025-03-26', '2025-03-26'],
      ['2025-06-18', '2025-06-18'],
      ['2025-11-25', '2025-11-25'],
      ['1999-01-01', '2025-11-25'],
    ]) {
      const r = await rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      expect((r.json as { result: { protocolVersion: string } }).result.protocolVersion).toBe(got);
    }
  });

  it('refuses unknown, bare and foreign tool names with "Unknown tool." and meters nothing', async () => {
    const t = await createTenant(store, { subscribe: ['register', 'cases'] });
    await gw.app.context.state.refresh();
    for (const name of [
      'soeg_virksomhed',
      'cases__list_cases',
      'register__nope',
      'register-2__soeg_virksomhed',
      'connect_account',
    ]) {
      const r = await rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name, arguments: {} },
      });
      expect(r.status).toBe(200);
      expect((r.json as { result: unknown }).result).toEqual({
        content: [{ type: 'text', text: 'Unknown tool.' }],
        isError: true,
      });
    }
    const usage = await usageOf(gw.url, t.token);
    expect(usage.usage.totalCalls).toBe(0);
  });

  it('applies the check order: subscription, then seat, then connection, with working links', async () => {
    const t = await createTenant(store, { subscribe: [] });
    await gw.app.context.state.refresh();
    let r = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: { limit: 5000 } },
    });
    const notSubscribed = textOf((r.json as { result: unknown }).result);
    expect(notSubscribed.startsWith('You are not subscribed to cases. Purchase it here first: ')).toBe(true);
    const purchaseUrl = notSubscribed.slice(notSubscribed.indexOf('http'));
    // The purchase link works for its own user, signed in: it leads to the connectors page, where an
    // admin subscribes (self-service is on in this test). Without a session it shows and does nothing.
    const browser = new PortalClient(gw.url);
    const anonymous = await browser.get(purchaseUrl);
    expect(anonymous.status).toBe(200);
    expect(anonymous.html).not.toContain(t.account.name);
    expect((await browser.post(purchaseUrl, {})).status).toBe(401);
    expect(gw.app.context.state.isSubscribed(t.account.id, 'cases')).toBe(false);
    const portal = await portalAs(gw, t.user);
    const followed = await portal.get(purchaseUrl);
    expect([followed.status, followed.location]).toEqual([303, '/portal/connectors']);
    await portal.get('/portal/connectors');
    expect((await portal.post('/portal/connectors', { connector: 'cases' })).status).toBe(303);
    await store.users.setSeat(t.user.id, 'cases', false);
    await gw.app.context.state.refresh();
    r = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    const noSeat = textOf((r.json as { result: unknown }).result);
    expect(noSeat).toBe(
      formatText(texts.no_seat.text, { connector_id: 'cases', team_url: noSeat.slice(noSeat.lastIndexOf('http')) }),
    );
    const teamUrl = noSeat.slice(noSeat.lastIndexOf('http'));
    expect((await fetch(teamUrl)).status).toBe(200);
    await store.users.setSeat(t.user.id, 'cases', true);
    await gw.app.context.state.refresh();
    r = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    const notConnected = textOf((r.json as { result: unknown }).result);
    expect(notConnected.startsWith('cases is not connected yet. Connect it here: http')).toBe(true);
    r = await rpc(gw.url, 'cases-2', t.token, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'cases-2__list_cases', arguments: {} },
    });
    expect(
      textOf((r.json as { result: unknown }).result).startsWith('cases-2 is not connected yet. Connect it here: http'),
    ).toBe(true);
    const usage = await usageOf(gw.url, t.token);
    expect(usage.usage.totalCalls).toBe(0);
  });

  it('connects through a single-use connect link bound to its instance; -2 uses only its own credential', async () => {
    const t = await createTenant(store, { subscribe: ['cases'] });
    await gw.app.context.state.refresh();
    const client = await mcpClient(gw.url, 'cases-2', t.token);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toContain('cases-2__list_cases');
    expect(tools.map((x) => x.name)).toContain('connect_account');
    const res = await client.callTool({ name: 'connect_account', arguments: {} });
    const { connect_url: url, instructions } = JSON.parse(textOf(res)) as { connect_url: string; instructions: string };
    expect(instructions).toContain('cases-2');
    // The link is bound to its user: the form and its POST need that user signed in.
    const portal = await portalAs(gw, t.user);
    const fetch = (u: string, init?: { method?: string; body?: string; headers?: Record<string, string> }) =>
      fetchAs(portal, u, init);
    const form = await fetch(url);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('name="apiKey"');
    const post = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'apiKey=key-for-instance-2',
    });
    expect(post.status).toBe(200);
    // Single use.
    const again = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'apiKey=other',
    });
    expect(again.status).toBe(400);
    const conn = await store.connections.getConnection(t.account.id, 'cases-2');
    expect(conn?.ciphertext).not.toContain('key-for-instance-2');
    expect(gw.app.context.vault.open(conn!.ciphertext, t.account.id, 'cases-2')).toBe(
      '{"apiKey":"key-for-instance-2"}',
    );
    // The first instance is still not connected: its credential is its own.
    const r = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    expect(textOf((r.json as { result: unknown }).result).startsWith('cases is not connected yet.')).toBe(true);
    await client.close();
  });

  it('serves the connect form of each credential kind: grant token, and username + password + company id', async () => {
    const t = await createTenant(store, { subscribe: ['invoicing', 'ledger'] });
    await gw.app.context.state.refresh();
    const cases: Array<[string, string, string, string]> = [
      ['invoicing', 'name="token"', 'token=grant-123', '{"token":"grant-123"}'],
      [
        'ledger',
        'name="companyId"',
        'username=srv&password=pw&companyId=42',
        '{"username":"srv","password":"pw","companyId":"42"}',
      ],
    ];
    const portal = await portalAs(gw, t.user);
    const fetch = (u: string, init?: { method?: string; body?: string; headers?: Record<string, string> }) =>
      fetchAs(portal, u, init);
    for (const [id, field, form, stored] of cases) {
      const r = await rpc(gw.url, id, t.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: `${id}__${id === 'ledger' ? 'list_companies' : 'list_customers'}`, arguments: {} },
      });
      const message = textOf((r.json as { result: unknown }).result);
      expect(message.startsWith(`${id} is not connected yet. Connect it here: `)).toBe(true);
      const url = message.slice(message.indexOf('http'));
      expect(await (await fetch(url)).text()).toContain(field);
      const missing = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(missing.status).toBe(400); // nothing stored, the link is still usable
      // The invoicing spec checks the grant with one read of the upstream root before storing it.
      const check =
        id === 'invoicing'
          ? nock(ECONOMIC).get('/').matchHeader('x-agreementgranttoken', 'grant-123').reply(200, { resources: [] })
          : undefined;
      expect(
        (
          await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
          })
        ).status,
      ).toBe(200);
      if (check) expect(check.isDone()).toBe(true);
      const conn = await store.connections.getConnection(t.account.id, id);
      expect(gw.app.context.vault.open(conn!.ciphertext, t.account.id, id)).toBe(stored);
    }
  });

  it('refuses expired, tampered and foreign connect links', async () => {
    const t = await createTenant(store, { subscribe: ['cases'] });
    await gw.app.context.state.refresh();
    const r = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'connect_account', arguments: {} },
    });
    const url = (JSON.parse(textOf((r.json as { result: unknown }).result)) as { connect_url: string }).connect_url;
    const token = url.slice(url.lastIndexOf('/') + 1);
    const [body, sig] = token.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, accountId: 'acc_someoneelse' })).toString('base64url');
    expect((await fetch(`${gw.url}/portal/connect/${forged}.${sig}`)).status).toBe(400);
    const expired = Buffer.from(JSON.stringify({ ...payload, exp: 1 })).toString('base64url');
    expect(
      (await fetch(`${gw.url}/portal/connect/${expired}.${gw.app.context.vault.sign(`link:${expired}`)}`)).status,
    ).toBe(410);
    expect((await fetch(url)).status).toBe(200);
  });

  it('refuses connect_account before the terms are accepted, with a working terms page', async () => {
    const t = await createTenant(store, { subscribe: ['cases'], terms: false });
    await gw.app.context.state.refresh();
    const r = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'connect_account', arguments: {} },
    });
    const text = textOf((r.json as { result: unknown }).result);
    expect(text.startsWith(prefixOf(texts.connect_terms_required.text))).toBe(true);
    const termsUrl = text.slice(text.lastIndexOf('http'));
    // Without a session the link accepts nothing; its user, signed in, accepts on the terms page.
    const browser = new PortalClient(gw.url);
    expect((await browser.get(termsUrl)).status).toBe(200);
    expect((await browser.post(termsUrl, {})).status).toBe(401);
    expect((await store.users.getUser(t.user.id))?.termsAcceptedAt ?? null).toBeNull();
    const portal = await portalAs(gw, t.user);
    expect((await portal.get(termsUrl)).location).toBe('/portal/terms');
    await portal.get('/portal/terms');
    expect((await portal.post('/portal/terms', {})).status).toBe(303);
    const again = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'connect_account', arguments: {} },
    });
    expect(JSON.parse(textOf((again.json as { result: unknown }).result)).connect_url).toMatch(/\/portal\/connect\//);
  });

  it('lists only connect_account and explains access in initialize for an account without a subscription', async () => {
    const t = await createTenant(store, { subscribe: [] });
    await gw.app.context.state.refresh();
    const client = await mcpClient(gw.url, 'erp', t.token);
    expect(client.getInstructions()).toContain('not subscribed to erp');
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(['connect_account']);
    await client.close();
  });

  it('authenticates callers: 401 with WWW-Authenticate for a missing, unknown or revoked token', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await rpc(gw.url, 'register', null, ping)).status).toBe(401);
    const bad = await rpc(gw.url, 'register', 'cgw_not-a-real-token-at-all', ping);
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await rpc(gw.url, 'register', t.token, ping)).status).toBe(200);
    const [token] = await store.tokens.listTokens(t.user.id);
    await store.tokens.revokeToken(token!.id, new Date());
    await gw.app.context.state.refresh();
    expect((await rpc(gw.url, 'register', t.token, ping)).status).toBe(401);
    expect((await fetch(`${gw.url}/api/usage`)).status).toBe(401);
  });

  it('answers protocol faults with JSON-RPC errors, never HTML or stack traces', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const malformed = await rpc(gw.url, 'register', t.token, '{"jsonrpc":"2.0", "id": 1, "method": ');
    expect(malformed.status).toBe(400);
    expect((malformed.json as { error: { code: number } }).error.code).toBe(-32700);
    const batch = await rpc(gw.url, 'register', t.token, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect((batch.json as { error: { code: number } }).error.code).toBe(-32600);
    const unknown = await rpc(gw.url, 'register', t.token, { jsonrpc: '2.0', id: 9, method: 'resources/list' });
    expect(unknown.json).toMatchObject({ id: 9, error: { code: -32601 } });
    const huge = await rpc(gw.url, 'register', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'register__soeg_virksomhed', arguments: { query: 'x'.repeat(2 * 1024 * 1024) } },
    });
    expect(huge.status).toBe(413);
    expect((huge.json as { error: { code: number } }).error.code).toBe(-32600);
    const get = await fetch(`${gw.url}/register/mcp`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(get.status).toBe(405);
    const foreign = await rpc(
      gw.url,
      'register',
      t.token,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const note = await rpc(gw.url, 'register', t.token, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    for (const r of [malformed, batch, unknown, huge, foreign]) expect(r.text).not.toMatch(/<html|at .*\.ts:\d+/);
    const usage = await usageOf(gw.url, t.token);
    expect(usage.usage.totalCalls).toBe(0);
  });

  it('refuses invalid arguments with the generic text, making no upstream request and metering nothing', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const scope = nock('https://cvr.test').post(/.*/).reply(200, esHit(12345678));
    for (const args of [
      { query: 'x', size: 51 },
      { query: 'x', size: '10' },
      { size: 3 },
      { query: 5 },
      { query: 'x', extra: true },
    ]) {
      const r = await rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'register__soeg_virksomhed', arguments: args },
      });
      expect((r.json as { result: unknown }).result).toEqual({
        content: [{ type: 'text', text: 'Tool invocation failed.' }],
        isError: true,
      });
    }
    expect(scope.isDone()).toBe(false);
    const usage = await usageOf(gw.url, t.token);
    expect(usage.usage.totalCalls).toBe(0);
  });

  it('meters one unit per call that reached the upstream stage, whatever the outcome', async () => {
    const t = await createTenant(store, { subscribe: ['register', 'cases'] });
    await gw.app.context.state.refresh();
    nock('https://cvr.test').post('/cvr-permanent/virksomhed/_search').times(2).reply(200, esHit(12345678));
    nock('https://cvr.test').post('/cvr-permanent/virksomhed/_search').reply(500, 'boom');
    const client = await mcpClient(gw.url, 'register', t.token);
    await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: '12345678' } });
    await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345678 } });
    const failed = await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345678 } });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('RegisterApiError: the company register answered HTTP 500.');
    // invalid: not metered
    await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: 'abc' } });
    await client.callTool({ name: 'register__nope', arguments: {} }); // unknown: not metered
    await client.listTools();
    await client.close();
    const usage = await usageOf(gw.url, t.token);
    const month = usage.fairUse.month as string;
    expect(usage).toEqual({
      usage: {
        from: `${month}-01`,
        to: expect.stringMatching(new RegExp(`^${month}-\\d{2}$`)),
        totalCalls: 3,
        totalCostUnits: 3,
        byConnector: { register: { calls: 3, costUnits: 3, byTool: { hent_virksomhed: 3 } } },
      },
      fairUse: { withinQuota: true, used: 3, limit: 100000, mode: 'off', month },
    });
    // After a flush the record reads the same from the store.
    await gw.app.context.meter.flush();
    expect(await usageOf(gw.url, t.token)).toEqual(usage);
  });

  it('blocks in hard mode at the quota with the fair-use text, flags in soft mode, ignores in off mode', async () => {
    nock('https://cvr.test').post('/cvr-permanent/virksomhed/_search').times(20).reply(200, esHit(12345678));
    const hard = await createTenant(store, { subscribe: ['register'] });
    await store.accounts.setFairUse(hard.account.id, { mode: 'hard', quota: 2 });
    const soft = await createTenant(store, { subscribe: ['register'] });
    await store.accounts.setFairUse(soft.account.id, { mode: 'soft', quota: 2 });
    await gw.app.context.state.refresh();
    const call = (token: string) =>
      rpc(gw.url, 'register', token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345678 } },
      });
    const hardResults = await Promise.all([call(hard.token), call(hard.token), call(hard.token), call(hard.token)]);
    const blocked = hardResults
      .map((r) => textOf((r.json as { result: unknown }).result))
      .filter((x) => x.startsWith('Fair-use quota reached'));
    expect(blocked).toHaveLength(2);
    expect(blocked[0]).toMatch(/^Fair-use quota reached for register in \d{4}-\d{2}: 2 of 2 cost units used\. /);
    expect(blocked[0]).toContain(
      'cost units used. Calls are refused until the month ends or the operator of this gateway raises',
    );
    const hardUsage = await usageOf(gw.url, hard.token);
    expect(hardUsage.fairUse).toMatchObject({ used: 2, limit: 2, mode: 'hard', withinQuota: true });
    expect(hardUsage.usage.totalCalls).toBe(2);
    for (let i = 0; i < 3; i++)
      expect((await call(soft.token)).json).toMatchObject({ result: { content: [{ type: 'text' }] } });
    const softUsage = await usageOf(gw.url, soft.token);
    expect(softUsage.fairUse).toMatchObject({ used: 3, limit: 2, mode: 'soft', withinQuota: false });
  });

  it('refuses a tampered credential and a ciphertext copied to another account, with the generic text', async () => {
    const a = await createTenant(store, { subscribe: ['cases'] });
    const b = await createTenant(store, { subscribe: ['cases'] });
    const sealed = gw.app.context.vault.seal('{"apiKey":"secret-a"}', a.account.id, 'cases');
    await store.connections.putConnection({
      accountId: a.account.id,
      instanceId: 'cases',
      connectorKey: 'cases',
      ...sealed,
    });
    await store.connections.putConnection({
      accountId: b.account.id,
      instanceId: 'cases',
      connectorKey: 'cases',
      ...sealed,
    });
    const tampered = gw.app.context.vault.seal('{"apiKey":"secret-c"}', a.account.id, 'cases-2');
    const flipped = tampered.ciphertext.slice(0, -3) + (tampered.ciphertext.endsWith('A') ? 'BAA' : 'AAA');
    await store.connections.putConnection({
      accountId: a.account.id,
      instanceId: 'cases-2',
      connectorKey: 'cases',
      ciphertext: flipped,
      keyVersion: tampered.keyVersion,
    });
    await gw.app.context.state.refresh();
    const copied = await rpc(gw.url, 'cases', b.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    expect((copied.json as { result: unknown }).result).toEqual({
      content: [{ type: 'text', text: 'Tool invocation failed.' }],
      isError: true,
    });
    const bad = await rpc(gw.url, 'cases-2', a.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cases-2__list_cases', arguments: {} },
    });
    expect((bad.json as { result: unknown }).result).toEqual({
      content: [{ type: 'text', text: 'Tool invocation failed.' }],
      isError: true,
    });
  });

  it('never puts a credential or the caller token into a response, nor sends the caller token upstream', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    let seenAuth = '';
    nock('https://cvr.test', {
      reqheaders: {
        authorization: (value: string | null) => {
          seenAuth = String(value);
          return true;
        },
      },
    })
      .post('/cvr-permanent/virksomhed/_search')
      .reply(401, 'no');
    const r = await rpc(gw.url, 'register', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345678 } },
    });
    expect(seenAuth).toBe(`Basic ${Buffer.from('platform-user:platform-secret-pw').toString('base64')}`);
    expect(seenAuth).not.toContain(t.token);
    expect(r.text).not.toContain('platform-secret-pw');
    expect(r.text).not.toContain(t.token);
    expect(textOf((r.json as { result: unknown }).result)).toMatch(/^RegisterAuthError: /);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).not.toContain('platform-secret-pw');
    expect(metrics).not.toContain(t.token);
    expect(metrics).toContain('gateway_refusals_total');
  });
});

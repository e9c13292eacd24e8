// CORS of the MCP endpoints over real HTTP (docs/decisions/mcp-surface.md, 'CORS for browser-based MCP clients on
// allowed origins'): an allowed origin's preflight is
// answered and every answer to it — 200, 202, 401, 404, 405, 413, 429 — carries its
// Access-Control-Allow-Origin; a foreign origin gets no allow header and is refused 403 before
// anything reaches the upstream or the meter. The OAuth documents and endpoints a browser client
// fetches are public (`*`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from '../runtime/transport/cors.ts';
import { type CasesSandbox, startCasesSandbox } from '../sandbox/cases/server.ts';
import {
  connectTenant,
  createTenant,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';

const APP = 'https://inspector.example.test';
const FOREIGN = 'https://evil.example.test';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
};
const CALL = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'cases__describe_type', arguments: { name: 'Hour' } },
};

/** The preflight a browser sends before a POST with a bearer token and a JSON body. */
function preflight(url: string, origin: string, method = 'POST') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,mcp-protocol-version',
    },
  });
}

/** The CORS headers of an answer (and Vary). */
function corsHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith('access-control-') || name === 'vary') out[name] = value;
  });
  return out;
}

const ALLOWED_ANSWER = {
  'access-control-allow-origin': APP,
  'access-control-expose-headers': CORS_EXPOSE_HEADERS,
  vary: 'Origin',
};

describe('CORS of the MCP endpoints over HTTP', () => {
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let gw: StartedGateway;
  let tenant: Tenant;

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 100_000 });
    gw = await startGateway(store, {
      env: {
        CONNECTOR_CASES_BASE_URL: sandbox.url,
        ALLOWED_ORIGINS: APP,
        RATE_LIMIT_BURST: '1000',
        RATE_LIMIT_PER_SECOND: '1000',
      },
    });
    tenant = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, tenant, 'cases', { apiKey: sandbox.tokens.demo });
  });
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it("answers an allowed origin's preflight 204 on both path forms with MCP clients' methods, headers", async () => {
    for (const path of ['/cases/mcp', '/cases-2/mcp']) {
      const res = await preflight(`${gw.url}${path}`, APP);
      expect(res.status, path).toBe(204);
      expect(await res.text()).toBe('');
      expect(corsHeaders(res.headers), path).toEqual({
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'POST, GET, DELETE',
        'access-control-allow-headers': CORS_ALLOW_HEADERS,
        'access-control-max-age': '7200',
        vary: 'Origin',
      });
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // The public origin is always allowed.
    const publicOrigin = new URL(gw.app.context.config.publicBaseUrl).origin;
    const own = await preflight(`${gw.url}/cases/mcp`, publicOrigin);
    expect(own.status).toBe(204);
    expect(own.headers.get('access-control-allow-origin')).toBe(publicOrigin);
  });

  it("gives an allowed origin's POSTs allow-origin and exposed headers: initialize, notify, list, call", async () => {
    const headers = { origin: APP };
    const init = await rpc(gw.url, 'cases', tenant.token, INIT, headers);
    expect(init.status).toBe(200);
    expect(corsHeaders(init.headers)).toEqual(ALLOWED_ANSWER);
    const note = await rpc(
      gw.url,
      'cases',
      tenant.token,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      headers,
    );
    expect(note.status).toBe(202);
    expect(corsHeaders(note.headers)).toEqual(ALLOWED_ANSWER);
    const list = await rpc(
      gw.url,
      'cases',
      tenant.token,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...headers, 'mcp-protocol-version': '2025-06-18' },
    );
    expect(list.status).toBe(200);
    expect(corsHeaders(list.headers)).toEqual(ALLOWED_ANSWER);
    expect((list.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toContain(
      'cases__describe_type',
    );
    const call = await rpc(gw.url, 'cases', tenant.token, CALL, { ...headers, 'mcp-protocol-version': '2025-06-18' });
    expect(call.status).toBe(200);
    expect(corsHeaders(call.headers)).toEqual(ALLOWED_ANSWER);
    expect(
      JSON.parse((call.json as { result: { content: { text: string }[] } }).result.content[0]!.text),
    ).toMatchObject({ found: true });
  });

  it("gives an allowed origin's refusals the same headers: 401 with WWW-Authenticate, 405, 404, 413, 400", async () => {
    const unauthorized = await rpc(gw.url, 'cases', null, INIT, { origin: APP });
    expect(unauthorized.status).toBe(401);
    expect(corsHeaders(unauthorized.headers)).toEqual(ALLOWED_ANSWER);
    expect(unauthorized.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/cases/mcp"`,
    );
    // A Streamable HTTP client opens a GET stream after initialize: it must read the 405, not fail.
    const get = await fetch(`${gw.url}/cases/mcp`, {
      headers: { origin: APP, accept: 'text/event-stream', authorization: `Bearer ${tenant.token}` },
    });
    expect(get.status).toBe(405);
    expect(corsHeaders(get.headers)).toEqual(ALLOWED_ANSWER);
    // OPTIONS that is not a preflight (no Access-Control-Request-Method): the endpoint's 405.
    const options = await fetch(`${gw.url}/cases/mcp`, { method: 'OPTIONS', headers: { origin: APP } });
    expect(options.status).toBe(405);
    expect(corsHeaders(options.headers)).toEqual(ALLOWED_ANSWER);
    const unknown = await rpc(gw.url, 'nosuch', tenant.token, INIT, { origin: APP });
    expect(unknown.status).toBe(404);
    expect(corsHeaders(unknown.headers)).toEqual(ALLOWED_ANSWER);
    const huge = await rpc(
      gw.url,
      'cases',
      tenant.token,
      { ...CALL, params: { name: 'cases__describe_type', arguments: { name: 'x'.repeat(2 * 1024 * 1024) } } },
      { origin: APP },
    );
    expect(huge.status).toBe(413);
    expect(corsHeaders(huge.headers)).toEqual(ALLOWED_ANSWER);
    const malformed = await rpc(gw.url, 'cases', tenant.token, '{"jsonrpc":', { origin: APP });
    expect(malformed.status).toBe(400);
    expect(corsHeaders(malformed.headers)).toEqual(ALLOWED_ANSWER);
  });

  it('refuses a foreign origin 403 with no allow header, preflight and POST, before upstream and meter', async () => {
    const before = sandbox.stats.requests;
    const refusedPreflight = await preflight(`${gw.url}/cases/mcp`, FOREIGN);
    expect(refusedPreflight.status).toBe(403);
    expect(corsHeaders(refusedPreflight.headers)).toEqual({ vary: 'Origin' });
    expect(await refusedPreflight.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Origin not allowed.' },
    });
    const post = await rpc(gw.url, 'cases', tenant.token, CALL, { origin: FOREIGN });
    expect(post.status).toBe(403);
    expect(corsHeaders(post.headers)).toEqual({ vary: 'Origin' });
    // A near miss of an allowed origin is foreign too.
    const near = await preflight(`${gw.url}/cases/mcp`, 'http://inspector.example.test');
    expect(near.status).toBe(403);
    expect(near.headers.get('access-control-allow-origin')).toBeNull();
    expect(sandbox.stats.requests).toBe(before);
    expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(1);
  });

  it('adds nothing to a request without Origin (not a browser)', async () => {
    const init = await rpc(gw.url, 'cases', tenant.token, INIT);
    expect(init.status).toBe(200);
    expect(corsHeaders(init.headers)).toEqual({});
    // An OPTIONS without Origin is no preflight: the endpoint's 405 as before.
    const options = await fetch(`${gw.url}/cases/mcp`, {
      method: 'OPTIONS',
      headers: { 'access-control-request-method': 'POST' },
    });
    expect(options.status).toBe(405);
    expect(options.headers.get('allow')).toBe('POST');
    expect(corsHeaders(options.headers)).toEqual({});
  });

  it('serves the OAuth metadata, token and registration endpoints to any origin (public, no credentials)', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/cases/mcp', '/.well-known/oauth-authorization-server']) {
      const pre = await fetch(`${gw.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: FOREIGN,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'mcp-protocol-version',
        },
      });
      expect(pre.status, path).toBe(204);
      expect(pre.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(pre.headers.get('access-control-allow-headers'), path).toBe('mcp-protocol-version');
      const doc = await fetch(`${gw.url}${path}`, { headers: { origin: APP, 'mcp-protocol-version': '2025-06-18' } });
      expect(doc.status, path).toBe(200);
      expect(doc.headers.get('access-control-allow-origin'), path).toBe('*');
    }
    // A client probing for a document the gateway does not publish reads the 404.
    const openid = await fetch(`${gw.url}/.well-known/openid-configuration`, { headers: { origin: APP } });
    expect(openid.status).toBe(404);
    expect(openid.headers.get('access-control-allow-origin')).toBe('*');
    for (const path of ['/oauth/token', '/oauth/register']) {
      const pre = await fetch(`${gw.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: APP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(pre.status, path).toBe(204);
      expect(pre.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(pre.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
    const token = await fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code',
    });
    expect(token.status).toBe(400);
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('CORS of the rate-limit answers', () => {
  let store: PlatformStore;
  let gw: StartedGateway;

  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, {
      env: { ALLOWED_ORIGINS: APP, RATE_LIMIT_BURST: '1', RATE_LIMIT_PER_SECOND: '0.001' },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it("gives an allowed origin's 429 its Access-Control-Allow-Origin and a readable Retry-After", async () => {
    const t = await createTenant(store, { subscribe: ['cases'] });
    await gw.app.context.state.refresh();
    const first = await rpc(gw.url, 'cases', t.token, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: APP });
    expect(first.status).toBe(200);
    const limited = await rpc(gw.url, 'cases', t.token, { jsonrpc: '2.0', id: 2, method: 'ping' }, { origin: APP });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(corsHeaders(limited.headers)).toEqual(ALLOWED_ANSWER);
    expect(CORS_EXPOSE_HEADERS.split(', ')).toContain('retry-after');
  });

  it("gives the authorization server's 429 `*` and exposes its Retry-After", async () => {
    const limit = gw.app.context.platform.limits.mcpAuthRequestsPerMinute!;
    let last: Response | undefined;
    for (let i = 0; i <= limit; i++) {
      last = await fetch(`${gw.url}/.well-known/oauth-authorization-server`, { headers: { origin: APP } });
      if (last.status === 429) break;
    }
    expect(last!.status).toBe(429);
    expect(last!.headers.get('access-control-allow-origin')).toBe('*');
    expect(last!.headers.get('access-control-expose-headers')).toBe('retry-after');
    expect(last!.headers.get('retry-after')).toBe('60');
  });
});

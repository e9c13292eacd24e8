// MCP authorization (docs/decisions/mcp-authorization.md) over HTTP, as a client would see it, with the consent step
// done
// through the portal's forms (the browser suite, mcp-authorization-browser.test.ts, does it in
// chromium with the SDK client's OAuth support): metadata documents, the 401 challenge, dynamic
// registration, PKCE, the resource binding, rotation and reuse of refresh tokens, revocation,
// expiry, client ID metadata documents, rate limits, the portal's list and audit log — and each
// refusal with its standard OAuth error.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { secretHash } from '../runtime/auth/mcp-authorization.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import { sandboxEnv } from '../bin/demo.ts';
import { createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { portalAs, type PortalClient } from './support/portal.ts';
import { casesDescriptor } from '../generated/cases/descriptor.ts';

const REDIRECT = 'http://127.0.0.1:53682/callback';
const verifierOf = () => randomBytes(32).toString('base64url');
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

describe('MCP authorization: the gateway as an OAuth 2.1 authorization server', () => {
  let store: PlatformStore;
  let sandboxes: SandboxSet;
  let gw: StartedGateway;
  let tenant: Tenant;
  let portal: PortalClient;
  let clientId = '';
  const documents = new Map<string, { status: number; body: string }>();
  const fetched: string[] = [];
  let clockOffsetMs = 0;

  const resource = (id: string) => `${gw.url}/${id}/mcp`;

  async function register(body: Record<string, unknown>): Promise<{ status: number; json: any }> {
    const res = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  }

  async function token(form: Record<string, string>): Promise<{ status: number; json: any }> {
    const res = await fetch(`${gw.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, json: await res.json() };
  }

  /** GET /oauth/authorize without following the redirect. */
  async function authorize(params: Record<string, string>): Promise<Response> {
    return fetch(`${gw.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
  }

  /** The whole front channel: authorize, consent as the signed-in portal user, the redirect back. */
  async function consent(
    options: {
      client?: string;
      resourceId?: string;
      verifier?: string;
      decision?: 'allow' | 'deny';
      redirectUri?: string;
      scope?: string;
      consentPage?: (html: string) => void;
    } = {},
  ): Promise<URLSearchParams> {
    const verifier = options.verifier ?? verifierOf();
    const started = await authorize({
      response_type: 'code',
      client_id: options.client ?? clientId,
      redirect_uri: options.redirectUri ?? REDIRECT,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      state: 'st-123',
      resource: resource(options.resourceId ?? 'cases'),
      ...(options.scope ? { scope: options.scope } : {}),
    });
    expect(started.status).toBe(302);
    const consentUrl = started.headers.get('location')!;
    expect(consentUrl.startsWith(`${gw.url}/portal/authorize?request=`)).toBe(true);
    const page = await portal.get(consentUrl);
    expect(page.status).toBe(200);
    options.consentPage?.(page.html);
    const answer = await portal.post(consentUrl, { decision: options.decision ?? 'allow' });
    expect(answer.status).toBe(302);
    const back = new URL(answer.location!);
    expect(`${back.origin}${back.pathname}`).toBe(options.redirectUri ?? REDIRECT);
    return back.searchParams;
  }

  async function tokensFor(resourceId = 'cases', scope?: string, consentPage?: (html: string) => void): Promise<any> {
    const verifier = verifierOf();
    const code = (
      await consent({ verifier, resourceId, ...(scope ? { scope } : {}), ...(consentPage ? { consentPage } : {}) })
    ).get('code')!;
    const res = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: resource(resourceId),
    });
    expect(res.status).toBe(200);
    return res.json;
  }

  const listTools = (id: string, bearer: string) =>
    rpc(
      gw.url,
      id,
      bearer,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-06-18' },
    );

  beforeAll(async () => {
    store = await openStore({});
    sandboxes = await startSandboxes({ connectors: ['cases', 'register'] });
    gw = await startGateway(store, {
      env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
      now: () => new Date(Date.now() + clockOffsetMs),
      fetchClientMetadata: async (url) => {
        fetched.push(url);
        const doc = documents.get(url);
        return new Response(doc?.body ?? 'missing', {
          status: doc?.status ?? 404,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    tenant = await createTenant(store, { subscribe: ['cases', 'register'] });
    portal = await portalAs(gw, tenant.user);
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await sandboxes?.close();
    await store?.close();
  });

  it('publishes protected-resource metadata per endpoint and authorization-server metadata', async () => {
    const prm = await fetch(`${gw.url}/.well-known/oauth-protected-resource/cases/mcp`);
    expect(prm.status).toBe(200);
    const doc = (await prm.json()) as any;
    expect(doc.resource).toBe(resource('cases'));
    expect(doc.authorization_servers).toEqual([gw.url]);
    const as = (await (await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(as.issuer).toBe(gw.url);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.client_id_metadata_document_supported).toBe(true);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['none']);
    expect((await fetch(`${gw.url}/.well-known/oauth-protected-resource/nosuch/mcp`)).status).toBe(404);
  });

  it('answers 401 with the resource metadata URL and nothing else, token or not', async () => {
    const none = await rpc(
      gw.url,
      'cases',
      null,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/cases/mcp"`,
    );
    const bogus = await listTools('cases', `cgwa_${randomBytes(32).toString('base64url')}`);
    const pasted = await listTools('cases', `cgw_${randomBytes(24).toString('base64url')}`);
    expect(bogus.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${gw.url}/.well-known/oauth-protected-resource/cases/mcp"`,
    );
    expect(pasted.headers.get('www-authenticate')).toBe(bogus.headers.get('www-authenticate'));
    expect(bogus.text).toBe(pasted.text);
    // The same under MCP 2026-07-28 (its error code range, the same challenge).
    const modern = await rpc(
      gw.url,
      'cases',
      null,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    expect(modern.status).toBe(401);
    expect(modern.headers.get('www-authenticate')).toBe(none.headers.get('www-authenticate'));
  });

  it('registers a public client dynamically (no secret) and refuses an unusable redirect URI', async () => {
    const ok = await register({
      client_name: 'Test assistant',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(ok.status).toBe(201);
    expect(ok.json.client_secret).toBeUndefined();
    expect(ok.json.token_endpoint_auth_method).toBe('none');
    clientId = ok.json.client_id;
    const bad = await register({ client_name: 'Bad', redirect_uris: ['http://evil.example/cb'] });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_redirect_uri');
    const js = await register({ client_name: 'Bad', redirect_uris: ['javascript:alert(1)'] });
    expect(js.status).toBe(400);
  });

  it('completes the flow: the access token works on its endpoint as the consenting user', async () => {
    const verifier = verifierOf();
    const back = await consent({ verifier });
    expect(back.get('state')).toBe('st-123');
    expect(back.get('iss')).toBe(gw.url);
    const code = back.get('code')!;
    const res = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: resource('cases'),
    });
    expect(res.status).toBe(200);
    expect(res.json.token_type).toBe('Bearer');
    expect(res.json.expires_in).toBe(3600);
    expect(res.json.access_token).toMatch(/^cgwa_/);
    expect(res.json.refresh_token).toMatch(/^cgwr_/);
    const listed = await listTools('cases', res.json.access_token);
    expect(listed.status).toBe(200);
    expect((listed.json as any).result.tools.length).toBeGreaterThan(0);
    // Stored only as hashes.
    expect(await store.mcp.findMcpAccessToken(secretHash(res.json.access_token))).not.toBeNull();
    const audit = await store.audit.listAudit(tenant.account.id, 20);
    expect(audit.some((e) => e.action === 'oauth.grant' && e.detail.includes(`client_id=${clientId}`))).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(res.json.access_token);
    expect(JSON.stringify(audit)).not.toContain(code);
  });

  it('refuses a wrong PKCE verifier, then a replayed code, with invalid_grant', async () => {
    const verifier = verifierOf();
    const code = (await consent({ verifier })).get('code')!;
    const wrong = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifierOf(),
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe('invalid_grant');
    const first = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(first.status).toBe(200);
    expect((await listTools('cases', first.json.access_token)).status).toBe(200);
    const replay = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');
    // The replay revoked what the code had given.
    expect((await listTools('cases', first.json.access_token)).status).toBe(401);
  });

  it('refuses a token on an endpoint it was not issued for, and a resource outside the grant', async () => {
    const tokens = await tokensFor('cases');
    expect((await listTools('cases', tokens.access_token)).status).toBe(200);
    const elsewhere = await listTools('register', tokens.access_token);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/register/mcp');
    // Neither the usage API.
    expect(
      (await fetch(`${gw.url}/api/usage`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status,
    ).toBe(401);
    const verifier = verifierOf();
    const code = (await consent({ verifier })).get('code')!;
    const other = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: resource('register'),
    });
    expect(other.status).toBe(400);
    expect(other.json.error).toBe('invalid_target');
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: resource('register'),
    });
    expect(refresh.json.error).toBe('invalid_target');
  });

  it('narrows a grant to the OAuth scope the assistant asked for, and refuses an unknown scope', async () => {
    const prm = (await (await fetch(`${gw.url}/.well-known/oauth-protected-resource/cases/mcp`)).json()) as any;
    const toolsets = casesDescriptor.toolsets.map((t) => t.id);
    expect(prm.scopes_supported).toEqual(['tools:read', 'tools:write', ...toolsets.map((id) => `toolset:${id}`)]);
    let shown = '';
    const scoped = await tokensFor('cases', `tools:read toolset:${toolsets[0]}`, (html) => (shown = html));
    expect(shown).toContain(`only: cases: ${toolsets[0]} (read-only)`);
    const listed = ((await listTools('cases', scoped.access_token)).json as any).result.tools.map(
      (t: { name: string }) => t.name,
    );
    const expected = casesDescriptor.tools
      .filter((t) => t.toolset === toolsets[0] && t.annotations.readOnlyHint)
      .map((t) => `cases__${t.name}`);
    expect(listed.filter((n: string) => !n.endsWith('connect_account')).sort()).toEqual(expected.sort());
    // Every value offered is everything: an unscoped grant.
    const all = await tokensFor('cases', prm.scopes_supported.join(' '));
    const everything = ((await listTools('cases', all.access_token)).json as any).result.tools;
    expect(everything.length).toBe(casesDescriptor.tools.length + 1);
    const refused = await authorize({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challengeOf(verifierOf()),
      code_challenge_method: 'S256',
      state: 'x',
      resource: resource('cases'),
      scope: 'admin:everything',
    });
    const back = new URL(refused.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('error_description')).toContain('Unknown scope admin:everything');
  });

  it('authorizes a selection path (/cases/x/<toolset>/mcp) as its own resource, for the instance', async () => {
    const toolset = casesDescriptor.toolsets[1]!.id;
    const path = `cases/x/${toolset}`;
    const refused = await rpc(
      gw.url,
      path,
      null,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(refused.status).toBe(401);
    const metadataUrl = `${gw.url}/.well-known/oauth-protected-resource/${path}/mcp`;
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    const prm = (await (await fetch(metadataUrl)).json()) as any;
    expect(prm.resource).toBe(resource(path));
    expect((await fetch(`${gw.url}/.well-known/oauth-protected-resource/cases/y/z/mcp`)).status).toBe(404);
    const tokens = await tokensFor(path);
    const listed = ((await listTools(path, tokens.access_token)).json as any).result.tools.map(
      (t: { name: string }) => t.name,
    );
    const expected = casesDescriptor.tools.filter((t) => t.toolset === toolset).map((t) => `cases__${t.name}`);
    expect(listed.filter((n: string) => !n.endsWith('connect_account')).sort()).toEqual(expected.sort());
    // The grant is for the instance: the same token works on its plain path too.
    expect((await listTools('cases', tokens.access_token)).status).toBe(200);
  });

  it('sends invalid_target back to the client for a resource that is not an endpoint here, or none', async () => {
    const base = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challengeOf(verifierOf()),
      code_challenge_method: 'S256',
      state: 'x',
    };
    for (const params of [{ ...base, resource: 'https://elsewhere.example/mcp' }, base]) {
      const res = await authorize(params);
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_target');
    }
  });

  it('refuses a redirect URI the client did not register, without redirecting there', async () => {
    const res = await authorize({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://attacker.example/cb',
      code_challenge: challengeOf(verifierOf()),
      code_challenge_method: 'S256',
      resource: resource('cases'),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(((await res.json()) as any).error).toBe('invalid_request');
    const unknown = await authorize({
      response_type: 'code',
      client_id: 'no-such-client',
      redirect_uri: REDIRECT,
      code_challenge: 'x',
      code_challenge_method: 'S256',
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error).toBe('invalid_client');
    const plain = await authorize({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: 'abc',
      code_challenge_method: 'plain',
      resource: resource('cases'),
    });
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('rotates refresh tokens; a reused one revokes the grant', async () => {
    const first = await tokensFor();
    const second = await token({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(second.status).toBe(200);
    expect(second.json.refresh_token).not.toBe(first.refresh_token);
    expect((await listTools('cases', second.json.access_token)).status).toBe(200);
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId });
    expect(reuse.status).toBe(400);
    expect(reuse.json.error).toBe('invalid_grant');
    expect((await listTools('cases', second.json.access_token)).status).toBe(401);
    const after = await token({
      grant_type: 'refresh_token',
      refresh_token: second.json.refresh_token,
      client_id: clientId,
    });
    expect(after.json.error).toBe('invalid_grant');
  });

  it('refuses an expired access token', async () => {
    const tokens = await tokensFor();
    expect((await listTools('cases', tokens.access_token)).status).toBe(200);
    // An hour and a bit later (the gateway's clock): refused, whether cached or looked up.
    clockOffsetMs = 3601_000;
    try {
      expect((await listTools('cases', tokens.access_token)).status).toBe(401);
      // The refresh token still gives a new one.
      const renewed = await token({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      expect((await listTools('cases', renewed.json.access_token)).status).toBe(200);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('revokes through the revocation endpoint and through the portal', async () => {
    const a = await tokensFor();
    expect((await listTools('cases', a.access_token)).status).toBe(200);
    const revoked = await fetch(`${gw.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: a.refresh_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    expect((await listTools('cases', a.access_token)).status).toBe(401);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: a.refresh_token, client_id: clientId })).json.error,
    ).toBe('invalid_grant');

    const b = await tokensFor();
    expect((await listTools('cases', b.access_token)).status).toBe(200);
    const page = await portal.get('/portal/tokens');
    expect(page.html).toContain('Test assistant');
    const grant = (await store.mcp.findMcpTokenGrant(secretHash(b.access_token)))!;
    expect((await portal.post('/portal/tokens/revoke-grant', { grant: grant.id })).html).toContain('Disconnect the');
    expect((await listTools('cases', b.access_token)).status).toBe(200);
    const done = await portal.post('/portal/tokens/revoke-grant', { grant: grant.id, confirm: 'yes' });
    expect(done.status).toBe(303);
    expect((await listTools('cases', b.access_token)).status).toBe(401);
    const audit = await store.audit.listAudit(tenant.account.id, 50);
    expect(audit.some((e) => e.action === 'oauth.grant.revoke' && e.target === grant.id)).toBe(true);
  });

  it('lists an assistant that connected twice as one row, revokes it whole, and logs its registration', async () => {
    const first = await tokensFor();
    const second = await tokensFor();
    const page = await portal.get('/portal/tokens');
    expect(page.html.split('>Revoke access of Test assistant<').length - 1).toBe(1);
    const grant = (await store.mcp.findMcpTokenGrant(secretHash(second.access_token)))!;
    await portal.post('/portal/tokens/revoke-grant', { grant: grant.id, confirm: 'yes' });
    expect((await listTools('cases', first.access_token)).status).toBe(401);
    expect((await listTools('cases', second.access_token)).status).toBe(401);
    // The client's registration is in the account's audit log once, from the first consent.
    const audit = await store.audit.listAudit(tenant.account.id, 200);
    const registered = audit.filter((e) => e.action === 'oauth.client.register' && e.target === clientId);
    expect(registered).toHaveLength(1);
    expect(registered[0]!.detail).toContain('client=Test assistant');
  });

  it('sends access_denied back when the user denies', async () => {
    const back = await consent({ decision: 'deny' });
    expect(back.get('error')).toBe('access_denied');
    expect(back.get('code')).toBeNull();
    expect(back.get('iss')).toBe(gw.url);
  });

  it('takes a client ID metadata document as client_id, and refuses one that does not fit', async () => {
    const docUrl = 'https://assistant.example.com/oauth/client.json';
    documents.set(docUrl, {
      status: 200,
      body: JSON.stringify({
        client_id: docUrl,
        client_name: 'Metadata assistant',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    const verifier = verifierOf();
    const code = (await consent({ client: docUrl, verifier })).get('code')!;
    const res = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: docUrl,
      resource: resource('cases'),
    });
    expect(res.status).toBe(200);
    expect((await listTools('cases', res.json.access_token)).status).toBe(200);
    // Another client may not redeem its code.
    expect(fetched).toContain(docUrl);

    const lying = 'https://lying.example.com/client.json';
    documents.set(lying, {
      status: 200,
      body: JSON.stringify({
        client_id: 'https://other.example.com/client.json',
        client_name: 'Liar',
        redirect_uris: [REDIRECT],
      }),
    });
    const r1 = await authorize({
      response_type: 'code',
      client_id: lying,
      redirect_uri: REDIRECT,
      code_challenge: challengeOf(verifierOf()),
      code_challenge_method: 'S256',
      resource: resource('cases'),
    });
    expect(r1.status).toBe(400);
    expect(((await r1.json()) as any).error).toBe('invalid_client');
    // Never fetched: a local address as client_id.
    const before = fetched.length;
    const r2 = await authorize({
      response_type: 'code',
      client_id: 'https://127.0.0.1/client.json',
      redirect_uri: REDIRECT,
      code_challenge: 'x',
      code_challenge_method: 'S256',
    });
    expect(r2.status).toBe(400);
    expect(fetched.length).toBe(before);
  });

  it('rate limits the OAuth endpoints per client address', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 80 && !limited; i++) {
      const res = await fetch(`${gw.url}/.well-known/oauth-authorization-server`);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited?.status).toBe(429);
    expect(((await limited!.json()) as any).error).toBe('too_many_requests');
  });
});

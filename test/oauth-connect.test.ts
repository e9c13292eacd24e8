// OAuth connections end to end over HTTP (docs/decisions/oauth-connections.md), on the ERP connector with a local fake
// identity provider: connect link → authorize redirect (PKCE S256, single-use state bound to the
// browser) → callback → code exchange → granted-scope rule → refresh token required → sealed in
// the vault → a tools/call sees the token. Then refresh ahead of expiry (coalesced, rotating),
// a refused grant (reconnect text, marked, no loop) and token endpoint faults (generic text).
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import type { ConnectorRegistry, ErasedHandler } from '../runtime/handler-api/descriptor-types.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import { storeOAuthGrant } from '../runtime/upstream/oauth.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startFakeIdp, type FakeIdp } from './support/fake-idp.ts';
import {
  createTenant,
  reconnectParts,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { portalAs } from './support/portal.ts';

const CLIENT_ID = 'cg-test-client-4f1e';
const CLIENT_SECRET = 'Zq8~client-secret-Xv3kP9';
const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** The ERP handlers are stubs on this branch: this one proves which access token the call got. */
const seeToken: ErasedHandler = async (_args, ctx) => {
  const credential = ctx.credential;
  return {
    context: { environment: 'Production' },
    environments: [],
    tokenDigest: credential?.kind === 'oauth2' ? digest(credential.accessToken) : null,
  };
};
const testRegistry: ConnectorRegistry = {
  ...registry,
  erp: { ...registry.erp!, handlers: { ...registry.erp!.handlers, list_environments: seeToken } },
};

type RpcResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
const resultOf = (r: { json: unknown }) => (r.json as { result: RpcResult }).result;

describe('OAuth connect flow (ERP, fake identity provider)', () => {
  let store: PlatformStore;
  let idp: FakeIdp;
  let gw: StartedGateway;
  let clockOffsetMs = 0;
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    store = await openStore({});
    idp = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    gw = await startGateway(store, {
      registry: testRegistry,
      logger: createLogger('info', destination),
      now: () => new Date(Date.now() + clockOffsetMs),
      env: {
        RATE_LIMIT_PER_SECOND: '1000',
        RATE_LIMIT_BURST: '1000',
        CONNECTOR_ERP_OAUTH_CLIENT_ID: CLIENT_ID,
        CONNECTOR_ERP_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
        CONNECTOR_ERP_OAUTH_BASE_URL: idp.url,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
    await store?.close();
  });
  beforeEach(() => {
    clockOffsetMs = 0;
    idp.next.scope = 'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access';
    idp.next.refreshToken = true;
    idp.next.expiresIn = 3600;
    idp.refreshMode = 'ok';
  });

  const call = (t: Tenant, name = 'erp__list_environments', instance = 'erp') =>
    rpc(gw.url, instance, t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {} },
    }).then(resultOf);

  async function connectUrl(t: Tenant, instance = 'erp'): Promise<string> {
    const r = await call(t, 'connect_account', instance);
    return (JSON.parse(r.content[0]!.text) as { connect_url: string }).connect_url;
  }

  /**
   * Opens the connect link signed in as its user (a connect link is bound to its user), starts the
   * flow with the page's button, and follows the provider's redirect; answers the callback URL and
   * the browser's flow cookie.
   */
  async function authorize(link: string): Promise<{ callback: string; cookie: string; authorizeUrl: URL }> {
    const token = link.slice(link.lastIndexOf('/') + 1);
    const { userId } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { userId: string };
    const portal = await portalAs(gw, (await store.users.getUser(userId))!);
    expect((await portal.get(link)).status).toBe(200);
    const start = await portal.post(link, {});
    expect(start.status).toBe(302);
    const authorizeUrl = new URL(start.location!);
    const cookie = start.headers.get('set-cookie')!.split(';')[0]!;
    const consent = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    return { callback: consent.headers.get('location')!, cookie, authorizeUrl };
  }

  const finish = (callback: string, cookie?: string) =>
    fetch(callback, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });

  async function connected(t: Tenant, instance = 'erp') {
    const row = await store.connections.getConnection(t.account.id, instance);
    return row
      ? (JSON.parse(gw.app.context.vault.open(row.ciphertext, t.account.id, instance)) as {
          accessToken: string;
          refreshToken?: string;
          expiresAt?: number;
          scope?: string;
        })
      : null;
  }

  it('connects through the provider and a following tools/call sees the stored, sealed token', async () => {
    const t = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();
    // Not connected yet: the refusal carries a connect link that starts the OAuth flow.
    const refused = await call(t);
    expect(refused.content[0]!.text).toMatch(/^erp is not connected yet\. Connect it here: http/);

    const { callback, cookie, authorizeUrl } = await authorize(await connectUrl(t));
    const q = authorizeUrl.searchParams;
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${idp.url}/authorize`);
    expect(q.get('client_id')).toBe(CLIENT_ID);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('response_mode')).toBe('query');
    expect(q.get('redirect_uri')).toBe(`${gw.url}/portal/oauth/callback`);
    expect(q.get('scope')).toBe('https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(32);

    const done = await finish(callback, cookie);
    expect(done.status).toBe(200);
    const page = await done.text();
    expect(page).toContain('is connected');

    const row = await store.connections.getConnection(t.account.id, 'erp');
    const grant = await connected(t);
    expect(grant).toMatchObject({
      scope: 'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access',
    });
    expect(grant!.refreshToken).toMatch(/^rt-/);
    expect(grant!.expiresAt).toBeGreaterThan(Date.now() + 3000_000);
    // Sealed: the ciphertext holds neither token.
    expect(row!.ciphertext).not.toContain(grant!.accessToken);
    expect(row!.ciphertext).not.toContain(grant!.refreshToken);
    expect(page).not.toContain(grant!.accessToken);

    const served = await call(t);
    expect(served.isError).toBeUndefined();
    expect(JSON.parse(served.content[0]!.text)).toMatchObject({ tokenDigest: digest(grant!.accessToken) });
    expect(JSON.stringify(served)).not.toContain(grant!.accessToken);

    // The state is single-use: the same callback again is refused and stores nothing new.
    const replay = await finish(callback, cookie);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('already been used');
    expect((await store.connections.getConnection(t.account.id, 'erp'))!.ciphertext).toBe(row!.ciphertext);
  });

  it('refuses a callback without a state, with an unknown or expired one, with a page and no stack', async () => {
    const missing = await finish(`${gw.url}/portal/oauth/callback?code=abc`);
    expect(missing.status).toBe(400);
    const text = await missing.text();
    expect(text).toContain('no valid state');
    expect(text).not.toMatch(/at .*\.ts:\d+/);

    const unknown = await finish(`${gw.url}/portal/oauth/callback?code=abc&state=not-a-state-of-this-gateway`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('not known to this gateway');

    const t = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();
    const before = idp.requests.authorization_code;
    const { callback, cookie } = await authorize(await connectUrl(t));
    clockOffsetMs = 11 * 60_000; // the state lives 10 minutes, like the connect link
    const expired = await finish(callback, cookie);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('expired');
    expect(idp.requests.authorization_code).toBe(before);
    expect(await store.connections.getConnection(t.account.id, 'erp')).toBeNull();
  });

  it("refuses a state from another browser or another account's flow, and stores nothing", async () => {
    const a = await createTenant(store, { subscribe: ['erp'] });
    const b = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();
    const before = idp.requests.authorization_code;
    const flowA = await authorize(await connectUrl(a));
    const flowB = await authorize(await connectUrl(b));
    // A's callback (A's code and state) opened in B's browser: B holds only its own flow's cookie.
    const foreign = await finish(flowA.callback, flowB.cookie);
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('another browser or for another account');
    // Without any cookie (the link passed on to someone else).
    const bare = await finish(flowB.callback);
    expect(bare.status).toBe(400);
    expect(idp.requests.authorization_code).toBe(before);
    expect(await store.connections.getConnection(a.account.id, 'erp')).toBeNull();
    expect(await store.connections.getConnection(b.account.id, 'erp')).toBeNull();
  });

  it('checks granted scopes as a closed set: an extra or no ERP API scope rejects, tolerated ones pass', async () => {
    const t = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();

    idp.next.scope =
      'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All ' +
      'offline_access https://graph.microsoft.com/Mail.Read';
    let flow = await authorize(await connectUrl(t));
    let r = await finish(flow.callback, flow.cookie);
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('https://graph.microsoft.com/Mail.Read');
    expect(await store.connections.getConnection(t.account.id, 'erp')).toBeNull();

    idp.next.scope = 'openid profile email offline_access';
    flow = await authorize(await connectUrl(t));
    r = await finish(flow.callback, flow.cookie);
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('does not include the permission this connector needs');
    expect(await store.connections.getConnection(t.account.id, 'erp')).toBeNull();

    // The bare user-impersonation scope with every tolerated scope.
    idp.next.scope = 'user_impersonation openid profile email offline_access';
    flow = await authorize(await connectUrl(t));
    r = await finish(flow.callback, flow.cookie);
    expect(r.status).toBe(200);
    expect((await connected(t))!.scope).toBe('user_impersonation openid profile email offline_access');

    // The qualified form too.
    idp.next.scope = 'https://api.businesscentral.dynamics.com/user_impersonation offline_access';
    flow = await authorize(await connectUrl(t));
    r = await finish(flow.callback, flow.cookie);
    expect(r.status).toBe(200);
  });

  it('rejects a token response without a refresh token', async () => {
    const t = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();
    idp.next.refreshToken = false;
    const flow = await authorize(await connectUrl(t));
    const r = await finish(flow.callback, flow.cookie);
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('no refresh token');
    expect(await store.connections.getConnection(t.account.id, 'erp')).toBeNull();
  });

  it('connects from the connections page of a signed-in user (same flow, its own single-use link)', async () => {
    const t = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();
    const portal = await portalAs(gw, t.user);
    const page = await portal.get('/portal/connections/erp/connect');
    expect(page.status).toBe(200);
    const start = await portal.post('/portal/connections/erp/connect', {});
    expect(start.status).toBe(302);
    const cookie = start.headers.get('set-cookie')!.split(';')[0]!;
    const consent = await fetch(new URL(start.location!), { redirect: 'manual' });
    const done = await finish(consent.headers.get('location')!, cookie);
    expect(done.status).toBe(200);
    expect((await connected(t))?.accessToken).toBeDefined();
    const actions = (await store.audit.listAudit(t.account.id, 20)).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['connection.oauth_start', 'connection.set']));
    // Without its CSRF token the start is refused and nothing is redirected.
    expect((await portal.post('/portal/connections/erp/connect', {}, false)).status).toBe(403);
  });

  it('reconnecting replaces the grant', async () => {
    const t = await createTenant(store, { subscribe: ['erp'] });
    await gw.app.context.state.refresh();
    let flow = await authorize(await connectUrl(t));
    expect((await finish(flow.callback, flow.cookie)).status).toBe(200);
    const first = await connected(t);
    flow = await authorize(await connectUrl(t));
    expect((await finish(flow.callback, flow.cookie)).status).toBe(200);
    const second = await connected(t);
    expect(second!.accessToken).not.toBe(first!.accessToken);
    const served = await call(t);
    expect(JSON.parse(served.content[0]!.text)).toMatchObject({ tokenDigest: digest(second!.accessToken) });
  });

  it('applies the connect rule again at the callback: a member does not replace a new connection', async () => {
    const admin = await createTenant(store, { subscribe: ['erp'] });
    const member = await createTenant(store, { accountId: admin.account.id, role: 'member', seats: ['erp'] });
    await gw.app.context.state.refresh();
    const flow = await authorize(await connectUrl(member));
    const adminFlow = await authorize(await connectUrl(admin));
    expect((await finish(adminFlow.callback, adminFlow.cookie)).status).toBe(200);
    const first = await connected(admin);
    const refused = await finish(flow.callback, flow.cookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Only an administrator can replace a working connection');
    expect((await connected(admin))!.accessToken).toBe(first!.accessToken);
  });

  describe('refresh ahead of expiry', () => {
    /**
     * A connection whose access token expires in `inMs` (negative: already expired), with a refresh token the provider
     * knows.
     */
    async function expiringConnection(inMs: number) {
      const t = await createTenant(store, { subscribe: ['erp'] });
      const refreshToken = idp.grantRefreshToken(
        'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access',
      );
      const accessToken = `at-stale-${digest(refreshToken).slice(0, 16)}`;
      idp.issued.push(accessToken);
      await storeOAuthGrant(
        gw.app.context,
        { accountId: t.account.id, instanceId: 'erp', connectorKey: 'erp' },
        { accessToken, refreshToken, expiresAt: Date.now() + inMs, scope: 'Financials.ReadWrite.All' },
      );
      await gw.app.context.state.refresh();
      return { t, accessToken, refreshToken };
    }

    it('refreshes a token expiring in 60 s once, storing the rotated refresh token; parallel calls share', async () => {
      const { t, accessToken, refreshToken } = await expiringConnection(30_000);
      const before = idp.requests.refresh_token;
      const results = await Promise.all([call(t), call(t), call(t)]);
      expect(idp.requests.refresh_token - before).toBe(1);
      const stored = await connected(t);
      expect(stored!.accessToken).not.toBe(accessToken);
      expect(stored!.refreshToken).not.toBe(refreshToken);
      expect(stored!.expiresAt).toBeGreaterThan(Date.now() + 3000_000);
      // The scope the refresh answered (or the stored one) is kept.
      expect(stored!.scope).toBeTruthy();
      for (const r of results)
        expect(JSON.parse(r.content[0]!.text)).toMatchObject({ tokenDigest: digest(stored!.accessToken) });
      // Fresh now: the next call makes no token request.
      await call(t);
      expect(idp.requests.refresh_token - before).toBe(1);
    });

    it('does not refresh a token that lives longer than the window', async () => {
      const { t, accessToken } = await expiringConnection(10 * 60_000);
      const before = idp.requests.refresh_token;
      const r = await call(t);
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ tokenDigest: digest(accessToken) });
      expect(idp.requests.refresh_token).toBe(before);
    });

    it('invalid_grant: answers the reconnect text with a link, marks the connection, refreshes no more', async () => {
      const { t } = await expiringConnection(-1000);
      idp.refreshMode = 'invalid_grant';
      const before = idp.requests.refresh_token;
      const r = await call(t);
      expect(r.isError).toBe(true);
      const first = reconnectParts(r);
      expect(first.text).toBe(registry.erp!.descriptor.errors.access_expired!.text);
      expect(first.instruction).toMatch(
        /^Reconnect Business Central ERP for the endpoint erp here .*: http.*\/portal\/connect\//,
      );
      expect((await store.connections.getConnection(t.account.id, 'erp'))!.reconnectRequiredAt).toBeInstanceOf(Date);
      expect(idp.requests.refresh_token - before).toBe(1);
      // No loop: later calls answer the same text without asking the provider again.
      idp.refreshMode = 'ok';
      const again = await call(t);
      const second = reconnectParts(again);
      expect(second.text).toBe(registry.erp!.descriptor.errors.access_expired!.text);
      expect(idp.requests.refresh_token - before).toBe(1);
      // The link in the answer reconnects, which clears the mark.
      const link = second.link!;
      const flow = await authorize(link);
      expect((await finish(flow.callback, flow.cookie)).status).toBe(200);
      expect((await store.connections.getConnection(t.account.id, 'erp'))!.reconnectRequiredAt).toBeNull();
      const served = await call(t);
      expect(served.isError).toBeUndefined();
    });

    it('invalid_client and a token endpoint 500 are platform faults: generic text, logged, unmarked', async () => {
      for (const mode of ['invalid_client', 'server_error'] as const) {
        const { t } = await expiringConnection(-1000);
        idp.refreshMode = mode;
        const before = idp.requests.refresh_token;
        const linesBefore = lines.length;
        const r = await call(t);
        expect(r).toEqual({ content: [{ type: 'text', text: 'Tool invocation failed.' }], isError: true });
        expect(idp.requests.refresh_token - before).toBe(1);
        expect((await store.connections.getConnection(t.account.id, 'erp'))!.reconnectRequiredAt).toBeNull();
        const logged = lines
          .slice(linesBefore)
          .map((l) => JSON.parse(l) as { msg: string; tokenEndpoint?: { kind: string; status?: number } })
          .find((l) => l.msg.startsWith('oauth token endpoint failed'));
        expect(logged?.tokenEndpoint).toEqual(
          mode === 'invalid_client'
            ? { kind: 'invalid_client', status: 401 }
            : { kind: 'OAUTH_RESPONSE_IS_NOT_CONFORM', status: 500 },
        );
      }
    });
  });

  it('no token, code, verifier or client secret reaches a log line', () => {
    const log = lines.join('\n');
    expect(idp.issued.length).toBeGreaterThan(5);
    for (const token of idp.issued) expect(log).not.toContain(token);
    expect(log).not.toContain(CLIENT_SECRET);
    expect(log).not.toMatch(/code_verifier|"code":"/);
  });
});

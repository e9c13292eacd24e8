// One rule for connecting (docs/decisions/portal.md, 'One rule for connecting'): a member with a seat
// connects an instance without a connection or reconnects one that needs it, but only an
// administrator replaces a working connection, on the connections page and through connect_account
// links alike. Purchase, team and terms links show and change nothing without their own user signed
// in ('Signed links never act on their own'), and every refusal page has a way back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLink } from '../runtime/secrets/signed-links.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { connectTenant, createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { PortalClient, portalAs, TEST_PASSWORD } from './support/portal.ts';

const ADMIN_KEY = 'admin-key-Zq81-kept';
const REFUSED = 'Only an administrator can replace a working connection';

describe('one rule for connecting', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let admin: Tenant;
  let member: Tenant;

  const connectUrl = async (tenant: Tenant, instance: string): Promise<string> => {
    const r = await rpc(gw.url, instance, tenant.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'connect_account', arguments: {} },
    });
    const text = (r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
    return (JSON.parse(text) as { connect_url: string }).connect_url;
  };
  const storedKey = async (instance: string): Promise<string | undefined> => {
    const c = await store.connections.getConnection(admin.account.id, instance);
    return c ? gw.app.context.vault.open(c.ciphertext, admin.account.id, instance) : undefined;
  };
  const link = (purpose: 'purchase' | 'team' | 'terms', userId: string): string => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const payload = { purpose, accountId: admin.account.id, userId, connectorKey: 'cases', exp };
    return `/portal/${purpose}/${signLink(gw.app.context.vault, payload)}`;
  };

  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, { env: { RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000' } });
    admin = await createTenant(store, { subscribe: ['cases'] });
    member = await createTenant(store, { accountId: admin.account.id, role: 'member', seats: ['cases'] });
    await connectTenant(gw, admin, 'cases', { apiKey: ADMIN_KEY });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('refuses a member replacing a working connection on the connections page, GET and POST', async () => {
    const portal = await portalAs(gw, member.user);
    // The page does not offer what the rule refuses: no Reconnect on the working connection.
    expect((await portal.get('/portal/connections')).html).not.toContain('href="/portal/connections/cases/connect"');
    const page = await portal.get('/portal/connections/cases/connect');
    expect(page.status).toBe(403);
    expect(page.html).toContain(REFUSED);
    expect(page.html).not.toContain('name="apiKey"');
    expect(page.html).toContain('href="/portal">Back to the portal');
    const posted = await portal.post('/portal/connections/cases/connect', { apiKey: 'member-key-Wm4' });
    expect(posted.status).toBe(403);
    expect(await storedKey('cases')).toBe(JSON.stringify({ apiKey: ADMIN_KEY }));
  });

  it('refuses the same through a connect_account link, and leaves the link unused', async () => {
    const url = await connectUrl(member, 'cases');
    const portal = await portalAs(gw, member.user);
    const page = await portal.get(url);
    expect(page.status).toBe(403);
    expect(page.html).toContain(REFUSED);
    expect(page.html).not.toContain('name="apiKey"');
    expect((await portal.post(url, { apiKey: 'member-key-Wm4' })).status).toBe(403);
    expect(await storedKey('cases')).toBe(JSON.stringify({ apiKey: ADMIN_KEY }));
    const jti = JSON.parse(Buffer.from(url.split('/').pop()!.split('.')[0]!, 'base64url').toString()).jti;
    expect(await store.links.connectLinkState(jti, new Date())).toBe('ok');
  });

  it('lets a member connect a free instance and reconnect one that needs it; an administrator replaces', async () => {
    const portal = await portalAs(gw, member.user);
    expect((await portal.get(await connectUrl(member, 'cases-2'))).html).toContain('name="apiKey"');
    expect((await portal.get('/portal/connections/cases-2/connect')).status).toBe(200);
    await store.connections.markReconnectRequired(admin.account.id, 'cases', 'the key was rejected');
    await gw.app.context.state.refresh();
    expect((await portal.get(await connectUrl(member, 'cases'))).html).toContain('name="apiKey"');
    expect((await portal.get('/portal/connections/cases/connect')).status).toBe(200);
    await connectTenant(gw, admin, 'cases', { apiKey: ADMIN_KEY });
    const owner = await portalAs(gw, admin.user);
    expect((await owner.get(await connectUrl(admin, 'cases'))).html).toContain('name="apiKey"');
    expect((await owner.get('/portal/connections/cases/connect')).status).toBe(200);
  });

  it('refuses a connect without a seat on both paths', async () => {
    const seatless = await createTenant(store, { accountId: admin.account.id, role: 'admin', seats: [] });
    await gw.app.context.state.refresh();
    const portal = await portalAs(gw, seatless.user);
    const page = await portal.get('/portal/connections/cases-2/connect');
    expect(page.status).toBe(403);
    expect(page.html).toContain('needs a seat');
  });

  it('shows nothing of the account on purchase, team and terms links without their user signed in', async () => {
    const anonymous = new PortalClient(gw.url);
    const portal = await portalAs(gw, member.user);
    for (const purpose of ['purchase', 'team', 'terms'] as const) {
      const path = link(purpose, admin.user.id);
      const page = await anonymous.get(path);
      expect(page.status, purpose).toBe(200);
      for (const secret of [admin.account.name, admin.user.email, member.user.email, admin.user.name])
        expect(page.html, purpose).not.toContain(secret);
      expect(page.html).toContain(`/portal/sign-in?next=${encodeURIComponent(path)}`);
      expect((await anonymous.post(path, { seat: `${member.user.id}|cases` })).status, purpose).toBe(401);
      // Signed in as another user of the account: refused, nothing shown.
      const other = await portal.get(path);
      expect(other.status, purpose).toBe(403);
      expect(other.html, purpose).not.toContain(admin.user.email);
      // Its own user signed in: the portal page.
      const own = await (await portalAs(gw, admin.user)).get(path);
      expect([own.status, own.location], purpose).toEqual([
        303,
        { purchase: '/portal/connectors', team: '/portal/team', terms: '/portal/terms' }[purpose],
      ]);
    }
    expect(gw.app.context.state.hasSeat(member.user.id, 'cases')).toBe(true);
    // "Sign in to continue" comes back to the link, which then hands over to the page.
    const path = link('team', member.user.id);
    const visitor = new PortalClient(gw.url);
    await visitor.get(`/portal/sign-in?next=${encodeURIComponent(path)}`);
    const signedIn = await visitor.post(`/portal/sign-in?next=${encodeURIComponent(path)}`, {
      email: member.user.email,
      password: TEST_PASSWORD,
    });
    expect(signedIn.location).toBe(path);
    expect((await visitor.get(path)).location).toBe('/portal/team');
  });

  it('gives every error page a way back', async () => {
    const anonymous = new PortalClient(gw.url);
    const invalid = await anonymous.get('/portal/team/abc.def');
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('href="/">Back to the start page');
    const portal = await portalAs(gw, member.user);
    const missing = await portal.get('/portal/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('href="/portal">Back to the portal');
  });

  it('shows a browser the OAuth authorization error as a page, and keeps JSON for other clients', async () => {
    const url = `${gw.url}/oauth/authorize?client_id=no-such-client&response_type=code&redirect_uri=https://x.test/cb`;
    const page = await fetch(url, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('not registered with this gateway');
    expect(html).toContain('Error code for support: invalid_client');
    expect(html).toContain('href="/">Back to the start page');
    expect(html).not.toContain('Invalid client_id');
    const json = await fetch(url, { redirect: 'manual' });
    expect([json.status, ((await json.json()) as { error: string }).error]).toEqual([400, 'invalid_client']);
  });
});

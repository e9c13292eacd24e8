// The portal over HTTP, as a browser without JavaScript uses it (docs/decisions/portal.md): sign-in with argon2
// passwords, sessions in HttpOnly SameSite cookies, the rate limit of failed sign-ins per address
// and per account, CSRF on every form, sign-out everywhere, connect links bound to their user, the
// terms gate on every connect path, members against administrator pages, no page of one account
// showing another's data, and the audit log of every change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { connectTenant, createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { givePassword, PortalClient, TEST_PASSWORD } from './support/portal.ts';

const connectUrlOf = async (gw: StartedGateway, tenant: Tenant, instance = 'cases'): Promise<string> => {
  const r = await rpc(gw.url, instance, tenant.token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'connect_account', arguments: {} },
  });
  const text = (r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
  return (JSON.parse(text) as { connect_url: string }).connect_url;
};

describe('portal', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let a: Tenant;
  let b: Tenant;
  const delivered: string[] = [];

  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, {
      env: { RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000' },
      selfServicePurchase: true,
      selfServiceQuota: true,
      deliverPasswordLink: (_to, link) => delivered.push(link),
    });
    a = await createTenant(store, { subscribe: ['cases'] });
    b = await createTenant(store, { subscribe: ['cases'] });
    await givePassword(store, a.user.id);
    await givePassword(store, b.user.id);
    await gw.app.context.state.refresh();
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('sends a visitor without a session to the sign-in page, and back after signing in', async () => {
    const client = new PortalClient(gw.url);
    const page = await client.get('/portal/usage');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/portal/sign-in?next=%2Fportal%2Fusage');
    await client.get(page.location!);
    const signedIn = await client.post('/portal/sign-in?next=%2Fportal%2Fusage', {
      email: a.user.email,
      password: TEST_PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/portal/usage');
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith('cg_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    const usage = await client.get('/portal/usage');
    expect(usage.status).toBe(200);
    expect(usage.html).toContain(a.account.name);
    // The session cookie is stored only as a hash: the cookie value is nowhere in the database.
    const value = client.cookies.get('cg_session')!;
    expect(await store.portal.findSession(value, new Date())).toBeNull();
  });

  it('refuses a wrong password with one text for unknown and known addresses, and never an open redirect', async () => {
    const client = new PortalClient(gw.url);
    const wrong = await client.signIn(a.user.email, 'Not-the-Password-4411');
    expect(wrong.status).toBe(401);
    const unknown = await client.signIn('nobody-here@example.test', 'Not-the-Password-4411');
    expect(unknown.status).toBe(401);
    expect(unknown.html).toContain('The email address or the password is not right.');
    expect(wrong.html).toContain('The email address or the password is not right.');
    await client.get('/portal/sign-in');
    const away = await client.post('/portal/sign-in?next=https%3A%2F%2Fevil.example%2F', {
      email: a.user.email,
      password: TEST_PASSWORD,
    });
    expect(away.location).toBe('/portal');
  });

  it('rate-limits failed sign-ins per account (across addresses) before verifying any password', async () => {
    const victim = await createTenant(store, {});
    await givePassword(store, victim.user.id);
    const limit = gw.app.context.platform.limits.signInFailuresPerAccount!;
    await store.portal.recordSignInFailure(
      Array.from({ length: limit }, () => `account:${victim.account.id}`),
      new Date(),
    );
    const client = new PortalClient(gw.url);
    // Even the right password is refused while the account is over its limit.
    const refused = await client.signIn(victim.user.email);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many failed sign-ins');
  });

  it('rate-limits failed sign-ins per client address', async () => {
    const other = await createTenant(store, {});
    await givePassword(store, other.user.id);
    const limit = gw.app.context.platform.limits.signInFailuresPerAddress!;
    // Every client of this file signs in from 127.0.0.1: start from no failures.
    await store.portal.purgePortal(new Date(Date.now() + 3600_000));
    const client = new PortalClient(gw.url);
    for (let i = 0; i < limit; i++)
      expect((await client.signIn(`ghost-${i}@example.test`, 'Not-the-Password-4411')).status).toBe(401);
    expect((await client.signIn(other.user.email)).status).toBe(429);
    // Another account's failures on this address are the address's; clean up for the other tests.
    await store.portal.purgePortal(new Date(Date.now() + 3600_000));
    expect((await client.signIn(other.user.email)).status).toBe(303);
  });

  it('refuses every form without its CSRF token, or with another session’s, or from another origin', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    const other = new PortalClient(gw.url);
    await other.signIn(b.user.email);
    await other.get('/portal/tokens');
    const before = (await store.tokens.listTokens(a.user.id)).length;
    await client.get('/portal/tokens');
    expect((await client.post('/portal/tokens/create', { label: 'no-csrf' }, false)).status).toBe(403);
    expect((await client.post('/portal/tokens/create', { label: 'foreign-csrf' }, other.csrf!)).status).toBe(403);
    const cross = await client.request('/portal/tokens/create', {
      form: { label: 'cross-origin' },
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.status).toBe(403);
    expect(cross.html).toContain('security token');
    expect((await store.tokens.listTokens(a.user.id)).length).toBe(before);
    // Sign-in itself needs the form cookie's token.
    const bare = new PortalClient(gw.url);
    expect((await bare.post('/portal/sign-in', { email: a.user.email, password: TEST_PASSWORD }, false)).status).toBe(
      403,
    );
  });

  it('creates a token shown once, lists it, and revokes it so that its next call is refused', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    await client.get('/portal/tokens');
    const created = await client.post('/portal/tokens/create', { label: 'laptop' });
    expect(created.status).toBe(200);
    const token = /cgw_[A-Za-z0-9_-]+/.exec(created.html)?.[0];
    expect(token).toBeDefined();
    const call = () => rpc(gw.url, 'cases', token!, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect((await call()).status).toBe(200);
    const list = await client.get('/portal/tokens');
    expect(list.html).not.toContain(token!);
    const record = (await store.tokens.listTokens(a.user.id)).find((x) => x.label === 'laptop')!;
    // First the confirmation (nothing revoked yet), then the revoke.
    const asked = await client.post('/portal/tokens/revoke', { token: record.id });
    expect([asked.status, asked.html.includes('Revoke the token laptop?')]).toEqual([200, true]);
    expect((await call()).status).toBe(200);
    const revoked = await client.post('/portal/tokens/revoke', { token: record.id, confirm: 'yes' });
    expect(revoked.status).toBe(303);
    expect((await call()).status).toBe(401);
    const audit = await store.audit.listAudit(a.account.id, 50);
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['token.create', 'token.revoke']));
    expect(JSON.stringify(audit)).not.toContain(token!);
  });

  it('creates a scoped token (connectors, toolsets, read-only); refuses one naming an unknown toolset', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    const page = await client.get('/portal/tokens');
    expect(page.html).toContain('name="connector" value="cases"');
    const before = (await store.tokens.listTokens(a.user.id)).length;
    const wrong = await client.post('/portal/tokens/create', {
      label: 'bad',
      connector: 'cases',
      toolsets: 'cases:nope',
    });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain('The scope cannot be used: unknown toolset');
    expect((await store.tokens.listTokens(a.user.id)).length).toBe(before);
    const created = await client.post('/portal/tokens/create', { label: 'ro', connector: 'cases', read_only: 'on' });
    const token = /cgw_[A-Za-z0-9_-]+/.exec(created.html)?.[0];
    expect(token).toBeDefined();
    const record = (await store.tokens.listTokens(a.user.id)).find((x) => x.label === 'ro')!;
    expect(record.scope).toEqual({ connectors: ['cases'], readOnly: true });
    expect((await client.get('/portal/tokens')).html).toContain('cases (read-only)');
    const list = await rpc(gw.url, 'cases', token!, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const names = (list.json as { result: { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] } })
      .result.tools;
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((x) => x.name === 'cases__connect_account' || x.annotations?.readOnlyHint === true)).toBe(true);
    const audit = await store.audit.listAudit(a.account.id, 50);
    expect(audit.find((e) => e.action === 'token.create' && e.target === record.id)?.detail).toContain(
      'cases (read-only)',
    );
  });

  it('lets an administrator turn toolsets of an instance off for the account (audited) and on again', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    expect((await client.get('/portal/connections')).html).toContain('/portal/connections/cases/tools');
    const page = await client.get('/portal/connections/cases/tools');
    expect(page.status).toBe(200);
    const ids = [...page.html.matchAll(/name="toolset" value="([a-z0-9_-]+)"/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(1);
    const wrong = await client.post('/portal/connections/cases/tools', { toolset: ids, tools: 'no_such_tool' });
    expect(wrong.html).toContain('These settings cannot be used: unknown tool');
    const saved = await client.post('/portal/connections/cases/tools', { toolset: ids.slice(1), read_only: 'on' });
    expect(saved.status).toBe(303);
    expect(gw.app.context.state.toolSettings(a.account.id, 'cases')).toMatchObject({
      disabledToolsets: [ids[0]],
      readOnly: true,
    });
    const audit = await store.audit.listAudit(a.account.id, 20);
    expect(audit.find((e) => e.action === 'tools.set')?.detail).toContain(`off_toolsets=${ids[0]}`);
    await client.post('/portal/connections/cases/tools', { toolset: ids });
    expect(gw.app.context.state.toolSettings(a.account.id, 'cases')).toBeUndefined();
  });

  it('never shows or changes another account’s data', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    const bToken = (await store.tokens.listTokens(b.user.id))[0]!;
    await client.get('/portal/tokens');
    expect((await client.post('/portal/tokens/revoke', { token: bToken.id })).status).toBe(404);
    expect((await store.tokens.listTokens(b.user.id))[0]!.revokedAt).toBeNull();
    await client.get('/portal/team');
    // A seat for B's user named in A's form is ignored; B's user stays seated.
    await client.post('/portal/team', { action: 'seats', seat: [`${a.user.id}|cases`, `${b.user.id}|cases`] });
    expect(gw.app.context.state.hasSeat(b.user.id, 'cases')).toBe(true);
    expect((await client.post('/portal/team', { action: 'role', user: b.user.id, role: 'member' })).status).toBe(400);
    for (const page of [
      '/portal',
      '/portal/team',
      '/portal/tokens',
      '/portal/usage',
      '/portal/connections',
      '/portal/audit',
      '/portal/connectors',
    ]) {
      const html = (await client.get(page)).html;
      expect(html, page).not.toContain(b.user.email);
      expect(html, page).not.toContain(b.account.name);
    }
  });

  it('gives a colleague a seat with labelled checkboxes, a count of seats in use and a confirmation', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    const team = await client.get('/portal/team');
    expect(team.html).toContain('1 of 1 users hold a seat');
    const invited = await client.post('/portal/team', {
      action: 'invite',
      name: 'Colleague Ann',
      email: `ann-${Date.now()}@example.test`,
      role: 'member',
    });
    expect(invited.status).toBe(200);
    expect(delivered.length).toBe(1);
    expect(invited.html).toContain(delivered[0]!);
    const ann = (await store.users.listUsers(a.account.id)).find((u) => u.name === 'Colleague Ann')!;
    const page = await client.get('/portal/team');
    const id = `seat-${ann.id}-cases`;
    expect(page.html).toContain(`<label class="inline" for="${id}">Seat for Colleague Ann on Case management</label>`);
    const saved = await client.post('/portal/team', {
      action: 'seats',
      seat: [`${a.user.id}|cases`, `${ann.id}|cases`],
    });
    expect(saved.location).toBe('/portal/team?done=seats_saved');
    const after = await client.get(saved.location!);
    expect(after.html).toContain('Seats saved.');
    expect(after.html).toContain('2 of 2 users hold a seat');
    expect(gw.app.context.state.hasSeat(ann.id, 'cases')).toBe(true);

    // Ann sets her password through the invitation and is signed in; she is a member.
    const annClient = new PortalClient(gw.url);
    const setPage = await annClient.get(delivered[0]!);
    expect(setPage.status).toBe(200);
    const set = await annClient.post(delivered[0]!.replace(gw.url, ''), {
      password: 'Ann-Pw-77-long-enough',
      confirm: 'Ann-Pw-77-long-enough',
    });
    expect(set.status).toBe(303);
    expect((await annClient.get('/portal')).html).toContain('your role: member');
    // A member: no audit log, no data layer, no team changes, no disconnect.
    expect((await annClient.get('/portal/audit')).status).toBe(403);
    expect((await annClient.get('/portal/data-layer')).status).toBe(403);
    await annClient.get('/portal/team');
    expect((await annClient.post('/portal/team', { action: 'role', user: ann.id, role: 'admin' })).status).toBe(403);
    expect(gw.app.context.state.user(ann.id)?.role).toBe('member');
    // The invitation link works once.
    expect(
      (
        await new PortalClient(gw.url).post(
          delivered[0]!.replace(gw.url, ''),
          { password: 'Other-Pw-88-long', confirm: 'Other-Pw-88-long' },
          false,
        )
      ).status,
    ).toBe(403);
    const second = new PortalClient(gw.url);
    await second.get(delivered[0]!);
    expect(
      (
        await second.post(delivered[0]!.replace(gw.url, ''), {
          password: 'Other-Pw-88-long',
          confirm: 'Other-Pw-88-long',
        })
      ).status,
    ).toBe(400);

    const actions = (await store.audit.listAudit(a.account.id, 50)).map((e) => `${e.action} ${e.actor}`);
    expect(actions.some((x) => x.startsWith('user.invite'))).toBe(true);
    expect(actions.some((x) => x.startsWith('seats.set'))).toBe(true);
  });

  it('binds a connect link to its user: anonymous gets a sign-in prompt, another user is refused', async () => {
    const url = await connectUrlOf(gw, a);
    const path = url.replace(gw.url, '');
    const anonymous = new PortalClient(gw.url);
    const shown = await anonymous.get(path);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('Sign in as the user who asked the assistant for it');
    expect(shown.html).not.toContain('name="apiKey"');
    // Nothing of the account before its user signs in: not the account, not who asked.
    for (const data of [a.account.name, a.user.email, a.user.name]) expect(shown.html).not.toContain(data);
    const posted = await anonymous.post(path, { apiKey: 'k-anon-Zx81' }, false);
    expect(posted.status).toBe(401);

    const intruder = new PortalClient(gw.url);
    await intruder.signIn(b.user.email);
    const foreign = await intruder.get(path);
    expect(foreign.status).toBe(403);
    for (const data of [a.account.name, a.user.email]) expect(foreign.html).not.toContain(data);
    expect((await intruder.post(path, { apiKey: 'k-foreign-Zx81' })).status).toBe(403);
    expect(await store.connections.getConnection(a.account.id, 'cases')).toBeNull();

    const owner = new PortalClient(gw.url);
    const signIn = await owner.get(`/portal/sign-in?next=${encodeURIComponent(path)}`);
    expect(signIn.status).toBe(200);
    const done = await owner.post(`/portal/sign-in?next=${encodeURIComponent(path)}`, {
      email: a.user.email,
      password: TEST_PASSWORD,
    });
    expect(done.location).toBe(path);
    const form = await owner.get(path);
    expect(form.html).toContain('name="apiKey"');
    expect((await owner.post(path, { apiKey: 'k-owner-Zx81' })).status).toBe(200);
    expect(await store.connections.getConnection(a.account.id, 'cases')).not.toBeNull();
    const audit = await store.audit.listAudit(a.account.id, 50);
    expect(JSON.stringify(audit)).not.toContain('k-owner-Zx81');
  });

  it('holds the terms gate on the not-connected link and the connections page (the bypass of the issue)', async () => {
    const t = await createTenant(store, { subscribe: ['cases'], terms: false });
    await givePassword(store, t.user.id);
    await gw.app.context.state.refresh();
    // A tool call of a user who never accepted the terms answers not-connected with a connect link.
    const refused = await rpc(gw.url, 'cases', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    const url = /https?:\/\/[^\s"\\]+\/portal\/connect\/[A-Za-z0-9_.-]+/.exec(refused.text)?.[0] ?? '';
    expect(url, refused.text).not.toBe('');
    const client = new PortalClient(gw.url);
    await client.signIn(t.user.email);
    const gated = await client.get(url.replace(gw.url, ''));
    expect(gated.status).toBe(403);
    expect(gated.html).toContain('Accept the terms of service before connecting anything.');
    expect((await client.post(url.replace(gw.url, ''), { apiKey: 'k-terms-Zx81' })).status).toBe(403);
    const page = await client.get('/portal/connections/cases/connect');
    expect(page.status).toBe(403);
    expect((await client.post('/portal/connections/cases/connect', { apiKey: 'k-terms-Zx81' })).status).toBe(403);
    expect(await store.connections.getConnection(t.account.id, 'cases')).toBeNull();
    // Accepting through the portal, then connecting, works.
    await client.get('/portal/terms');
    expect((await client.post('/portal/terms', {})).status).toBe(303);
    await client.get('/portal/connections/cases/connect');
    expect((await client.post('/portal/connections/cases/connect', { apiKey: 'k-terms-Zx81' })).location).toBe(
      '/portal/connections?done=connected',
    );
    expect(await store.connections.getConnection(t.account.id, 'cases')).not.toBeNull();
  });

  it('signs out everywhere: every session of the user ends', async () => {
    const one = new PortalClient(gw.url);
    const two = new PortalClient(gw.url);
    await one.signIn(b.user.email);
    await two.signIn(b.user.email);
    expect((await two.get('/portal')).status).toBe(200);
    await one.get('/portal');
    const out = await one.post('/portal/sign-out-everywhere', {});
    expect(out.status).toBe(303);
    expect((await two.get('/portal')).status).toBe(303);
    expect((await one.get('/portal')).status).toBe(303);
  });

  it('lets an administrator change the fair-use quota where the operator allows it', async () => {
    const client = new PortalClient(gw.url);
    await client.signIn(a.user.email);
    await client.get('/portal/usage');
    expect((await client.post('/portal/usage', { quota: '12345' })).status).toBe(303);
    expect(gw.app.context.state.account(a.account.id)?.fairUseQuota).toBe(12345);
    expect((await client.get('/portal/usage')).html).toContain('of 12345 cost units used');
    // A wrong value answers on the usage page, in the form, not on a page of its own.
    const refused = await client.post('/portal/usage', { quota: 'lots' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('aria-invalid="true"');
    expect(refused.html).toMatch(/<p class="error" id="quota-error" role="alert">/);
    expect(refused.html).toContain('<form method="post" action="/portal/usage">');
    expect((await client.post('/portal/usage', { quota: '' })).status).toBe(303);
    expect(gw.app.context.state.account(a.account.id)?.fairUseQuota).toBeNull();
  });

  it('opts a ledger connection in to the data layer and out again (records deleted), administrators only', async () => {
    const t = await createTenant(store, { subscribe: ['ledger'] });
    await givePassword(store, t.user.id);
    await connectTenant(gw, t, 'ledger', { username: 'srv', password: 'pw-Zk3-ledger', companyId: '1' });
    const client = new PortalClient(gw.url);
    await client.signIn(t.user.email);
    const page = await client.get('/portal/data-layer');
    expect(page.html).toContain('Opt ledger in');
    expect((await client.post('/portal/data-layer', { instance: 'ledger', enabled: 'on' })).location).toBe(
      '/portal/data-layer?done=data_layer_enabled',
    );
    expect(await store.dataLayer.getDataLayer(t.account.id, 'ledger')).not.toBeNull();
    expect((await client.get('/portal/data-layer')).html).toContain('Opt ledger out and delete its records');
    // An instance that is not this account's connection is refused.
    expect((await client.post('/portal/data-layer', { instance: 'cases', enabled: 'on' })).status).toBe(400);
    expect((await client.post('/portal/data-layer', { instance: 'ledger', enabled: 'off' })).status).toBe(303);
    expect(await store.dataLayer.getDataLayer(t.account.id, 'ledger')).toBeNull();
    const actions = (await store.audit.listAudit(t.account.id, 10)).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['data_layer.enable', 'data_layer.disable']));
  });
});

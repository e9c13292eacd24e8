// A user's lifecycle in the portal, with mail through a real SMTP server started here (smtp-server;
// the gateway sends with nodemailer): an invitation arrives and its link sets the password, sent
// again it arrives again; a forgotten password is reset by a mailed single-use link; removing a
// member ends their API token, OAuth grant, sessions and seats at once, audited. No log line holds a
// set-password link or the SMTP password (docs/decisions/portal.md, 'Users are removed at once; a
// forgotten password is reset by mail').
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../runtime/secrets/hash.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { givePassword, PortalClient, portalAs } from './support/portal.ts';
import { linkIn, recipient, startSmtp, type TestSmtp } from './support/smtp.ts';

const SMTP_PASSWORD = 'Smtp-Pw-Kx81-unusual';
const NEW_PASSWORD = 'Fresh-Pw-Lq52-chosen';

const tokenWorks = async (gw: StartedGateway, token: string) =>
  (await rpc(gw.url, 'cases', token, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status;

describe('user lifecycle and mail', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let smtp: TestSmtp;
  let admin: Tenant;
  const logLines: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtp('gateway-mailer', SMTP_PASSWORD);
    store = await openStore({});
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    gw = await startGateway(store, {
      env: {
        RATE_LIMIT_PER_SECOND: '1000',
        RATE_LIMIT_BURST: '1000',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'gw@example.test',
      },
      logger: pino({ level: 'trace' }, sink),
    });
    admin = await createTenant(store, { subscribe: ['cases'] });
    await givePassword(store, admin.user.id);
    await gw.app.context.state.refresh();
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
    await smtp?.close();
  });

  const invite = async (client: PortalClient, email: string) => {
    await client.get('/portal/team');
    return client.post('/portal/team', { action: 'invite', email, name: 'Invited Person', role: 'member' });
  };

  it('mails an invitation through SMTP; its link sets the password once; no log line holds it', async () => {
    const client = await portalAs(gw, admin.user);
    const before = smtp.mails.length;
    const email = `invited-${Date.now()}@example.test`;
    expect((await invite(client, email)).status).toBe(200);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(recipient(mail)).toBe(email);
    expect(mail.from?.value[0]?.address).toBe('gw@example.test');
    expect(mail.subject).toContain(admin.account.name);
    const link = linkIn(mail);
    // The gateway logged in with the URL's credentials; neither the password nor the link is logged.
    expect(smtp.logins).toContainEqual({ username: 'gateway-mailer', password: SMTP_PASSWORD });
    const log = logLines.join('');
    expect(log).toContain('"mail":"invitation"');
    expect(log).not.toContain('set-password');
    expect(log).not.toContain(link.split('/').pop());
    expect(log).not.toContain(SMTP_PASSWORD);
    const invited = new PortalClient(gw.url);
    await invited.get(link);
    const set = await invited.post(new URL(link).pathname, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(set.status).toBe(303);
    expect((await invited.get('/portal')).status).toBe(200);
    await invited.get(link);
    const again = await invited.post(new URL(link).pathname, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(again.html).toContain('The link has already been used.');
  });

  it('sends an invitation again, and a reset link on the sign-in page; using one voids the others', async () => {
    const member = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: [] });
    const client = await portalAs(gw, admin.user);
    const before = smtp.mails.length;
    await client.get('/portal/team');
    const resent = await client.post('/portal/team', { action: 'resend', user: member.user.id });
    expect(resent.location).toBe('/portal/team?done=invite_sent');
    const invitation = (await smtp.waitFor(before + 1))[before]!;
    expect(recipient(invitation)).toBe(member.user.email);
    // The sign-in page: the same answer for a known and an unknown address; mail only for the known.
    const visitor = new PortalClient(gw.url);
    expect((await visitor.get('/portal/sign-in')).html).toContain('/portal/forgot-password');
    await visitor.get('/portal/forgot-password');
    const unknown = await visitor.post('/portal/forgot-password', { email: 'nobody-7731@example.test' });
    await visitor.get('/portal/forgot-password');
    const known = await visitor.post('/portal/forgot-password', { email: member.user.email.toUpperCase() });
    expect(known.status).toBe(200);
    expect(unknown.html).toBe(known.html.replace(visitor.csrf ?? '', csrfIn(unknown.html)));
    const reset = (await smtp.waitFor(before + 2))[before + 1]!;
    expect(recipient(reset)).toBe(member.user.email);
    expect(reset.subject).toContain('Reset your password');
    const resetLink = linkIn(reset);
    await visitor.get(resetLink);
    const set = await visitor.post(new URL(resetLink).pathname, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(set.status).toBe(303);
    expect((await new PortalClient(gw.url).signIn(member.user.email, NEW_PASSWORD)).status).toBe(303);
    // The invitation sent before is void now: a link cannot set the password a second time.
    const other = new PortalClient(gw.url);
    await other.get(linkIn(invitation));
    const late = await other.post(new URL(linkIn(invitation)).pathname, {
      password: 'x'.repeat(20),
      confirm: 'x'.repeat(20),
    });
    expect(late.html).toContain('The link has already been used.');
    expect(logLines.join('')).not.toContain('set-password');
    const audit = await store.audit.listAudit(admin.account.id, 50);
    expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['user.invite_resend', 'user.password_reset']));
  });

  it('removes a member: their token is refused at the next call, their session, grant and seat end', async () => {
    const member = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: [] });
    await store.users.setSeat(member.user.id, 'cases', true);
    const grantId = `grant-${Date.now()}`;
    await store.mcp.createMcpGrant(
      {
        id: grantId,
        clientId: 'client-x',
        clientName: 'Assistant',
        userId: member.user.id,
        accountId: admin.account.id,
        endpoints: ['cases'],
      },
      {
        codeHash: sha256Hex(`code-${grantId}`),
        redirectUri: 'http://127.0.0.1:4000/cb',
        codeChallenge: 'c',
        expiresAt: new Date(Date.now() + 60_000),
      },
    );
    const accessToken = `cgwa_${grantId}-access-Zr81`;
    await store.mcp.storeMcpTokens(grantId, [
      { tokenHash: sha256Hex(accessToken), kind: 'access', expiresAt: new Date(Date.now() + 3_600_000) },
    ]);
    await gw.app.context.state.refresh();
    const memberPortal = await portalAs(gw, member.user);
    expect(await tokenWorks(gw, member.token)).toBe(200);
    expect(await tokenWorks(gw, accessToken)).toBe(200);
    expect((await memberPortal.get('/portal')).status).toBe(200);

    const client = await portalAs(gw, admin.user);
    await client.get('/portal/team');
    // Not without the confirmation box, and never oneself.
    // The unticked box is answered on the team page itself, above its forms.
    const unticked = await client.post('/portal/team', { action: 'remove', user: member.user.id });
    expect(unticked.status).toBe(400);
    expect(unticked.html).toContain('<p class="error" role="alert">Tick the box to confirm the removal.</p>');
    expect(unticked.html).toContain('name="action" value="invite"');
    const self = await client.post('/portal/team', { action: 'remove', user: admin.user.id, confirm: 'yes' });
    expect(self.status).toBe(400);
    expect(await tokenWorks(gw, member.token)).toBe(200);
    const removed = await client.post('/portal/team', { action: 'remove', user: member.user.id, confirm: 'yes' });
    expect(removed.location).toBe('/portal/team?done=user_removed');

    expect(await tokenWorks(gw, member.token)).toBe(401);
    expect(await tokenWorks(gw, accessToken)).toBe(401);
    expect((await memberPortal.get('/portal')).status).toBe(303);
    expect(await store.users.getUser(member.user.id)).toBeNull();
    expect(await store.mcp.getMcpGrant(grantId)).toBeNull();
    expect(await store.users.listSeats(member.user.id)).toEqual([]);
    const entry = (await store.audit.listAudit(admin.account.id, 50)).find((e) => e.action === 'user.remove');
    expect(entry?.target).toBe(member.user.id);
    expect(entry?.detail).toMatch(/tokens/);
    expect(await tokenWorks(gw, admin.token)).toBe(200);
  });
  it('shows a member without any seat only what a member without seats may see and do', async () => {
    const member = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: [] });
    await gw.app.context.state.refresh();
    const portal = await portalAs(gw, member.user);
    const connections = await portal.get('/portal/connections');
    expect(connections.status).toBe(200);
    expect(connections.html).not.toContain('/portal/connections/cases/connect');
    expect((await portal.get('/portal/connections/cases/connect')).html).toContain('needs a seat on it');
    const team = await portal.get('/portal/team');
    expect(team.html).toContain('Only an administrator can assign seats or invite users');
    expect(team.html).not.toContain('value="remove"');
    expect(team.html).not.toContain('value="resend"');
    expect((await portal.get('/portal/audit')).status).toBe(403);
    await portal.get('/portal/team');
    const removing = await portal.post('/portal/team', { action: 'remove', user: admin.user.id, confirm: 'yes' });
    expect(removing.status).toBe(403);
    expect(await store.users.getUser(admin.user.id)).not.toBeNull();
    const call = await rpc(gw.url, 'cases', member.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    expect(JSON.stringify(call.json)).toContain('you do not hold a seat on it');
  });
  it('mails no more resets to one user than the limit, whatever the address; the answer stays the same', async () => {
    const flooded = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: [] });
    const other = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: [] });
    const limit = gw.app.context.platform.limits.passwordResetsPerAddress;
    await store.portal.recordSignInFailure(
      Array.from({ length: limit }, () => `reset-user:${flooded.user.id}`),
      new Date(),
    );
    const before = smtp.mails.length;
    const visitor = new PortalClient(gw.url);
    await visitor.get('/portal/forgot-password');
    const refused = await visitor.post('/portal/forgot-password', { email: flooded.user.email });
    expect(refused.status).toBe(200);
    expect(refused.html).toContain('a link to choose a new password is on its way');
    await visitor.get('/portal/forgot-password');
    await visitor.post('/portal/forgot-password', { email: other.user.email });
    // Mail goes out in the order asked: the next one to arrive is the other user's.
    const next = (await smtp.waitFor(before + 1))[before]!;
    expect(recipient(next)).toBe(other.user.email);
  });
});

function csrfIn(html: string): string {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
}

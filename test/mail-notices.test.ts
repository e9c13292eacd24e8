// Notices mailed to an account's administrators through a real SMTP server (smtp-server): "a
// connection needs reconnecting" once per episode when the upstream rejects the stored key, and
// "quota reached" once per month when hard fair use first refuses a call (migration 16 claims it),
// sent in the background so that the call never waits for mail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { type CasesSandbox, startCasesSandbox } from '../sandbox/cases/server.ts';
import { connectTenant, createTenant, rpc, type StartedGateway, startGateway, type Tenant } from './support/gateway.ts';
import { recipient, startSmtp, type TestSmtp } from './support/smtp.ts';

describe('mailed notices', () => {
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let smtp: TestSmtp;
  let gw: StartedGateway;

  const call = (tenant: Tenant) =>
    rpc(
      gw.url,
      'cases',
      tenant.token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'cases__list_cases', arguments: {} } },
      { 'mcp-protocol-version': '2025-06-18' },
    );

  beforeAll(async () => {
    smtp = await startSmtp('notices', 'Notice-Pw-Hy62');
    store = await openStore({});
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 1_000_000 });
    gw = await startGateway(store, { env: { CONNECTOR_CASES_BASE_URL: sandbox.url, SMTP_URL: smtp.url } });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
    await smtp?.close();
  });

  it('mails the administrators once when a connection needs reconnecting', async () => {
    const admin = await createTenant(store, { subscribe: ['cases'] });
    const member = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: ['cases'] });
    await connectTenant(gw, member, 'cases', { apiKey: 'not-the-key-Wt5' });
    const before = smtp.mails.length;
    await call(member);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(recipient(mail)).toBe(admin.user.email);
    expect(mail.subject).toBe('cases needs reconnecting');
    expect(mail.text).toContain(`${gw.app.context.config.publicBaseUrl}/portal/connections`);
    expect(mail.text).not.toContain('not-the-key-Wt5');
    // The second refused call finds the connection marked already: no second mail. A later mail
    // (the quota test's) arrives after it would have, since mail is sent in order of the calls.
    await call(member);
    const other = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, other, 'cases', { apiKey: 'also-not-the-key-Wt5' });
    await call(other);
    const next = (await smtp.waitFor(before + 2))[before + 1]!;
    expect(recipient(next)).toBe(other.user.email);
    expect(smtp.mails.slice(before).filter((m) => recipient(m) === admin.user.email)).toHaveLength(1);
  });

  it('mails "quota reached" at the first hard fair-use refusal of the month, once across calls', async () => {
    const admin = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, admin, 'cases', { apiKey: sandbox.tokens.demo });
    await store.accounts.setFairUse(admin.account.id, { mode: 'hard', quota: 0 });
    await gw.app.context.state.refresh();
    const before = smtp.mails.length;
    const refused = await call(admin);
    expect(JSON.stringify(refused.json)).toContain('Fair-use quota reached');
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(recipient(mail)).toBe(admin.user.email);
    expect(mail.subject).toContain('Fair-use quota reached');
    expect(mail.text).toContain('Further tool calls are refused');
    await call(admin);
    const month = /in (\d{4}-\d{2})$/.exec(mail.subject ?? '')?.[1];
    // Claimed once in the store: another replica's claim of the same month is refused.
    expect(await store.notices.claimNotice(admin.account.id, `quota:${month}`)).toBe(false);
  });

  it('mails "quota reached" in soft mode once the month goes over the quota, after a usage flush', async () => {
    const admin = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, admin, 'cases', { apiKey: sandbox.tokens.demo });
    await store.accounts.setFairUse(admin.account.id, { mode: 'soft', quota: 2 });
    await gw.app.context.state.refresh();
    const before = smtp.mails.length;
    // Two calls: at the quota, not over it; a flush writes them and no mail goes.
    for (let i = 0; i < 2; i++) expect((await call(admin)).status).toBe(200);
    await gw.app.context.meter.flush(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.mails.slice(before).filter((m) => recipient(m) === admin.user.email)).toHaveLength(0);
    // The third goes over (soft mode serves it) and the flush after it mails the administrators.
    const over = await call(admin);
    expect(JSON.stringify(over.json)).not.toContain('Fair-use quota reached');
    await gw.app.context.meter.flush(true);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    expect(recipient(mail)).toBe(admin.user.email);
    expect(mail.subject).toContain('Fair-use quota reached');
    expect(mail.text).not.toContain('Further tool calls are refused');
    expect(mail.text).toContain('Tool calls go on');
    // Once a month: more calls and flushes send nothing more to this account.
    await call(admin);
    await gw.app.context.meter.flush(true);
    expect(smtp.mails.slice(before).filter((m) => recipient(m) === admin.user.email)).toHaveLength(1);
  });
});

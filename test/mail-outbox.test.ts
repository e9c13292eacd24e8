// Mail without SMTP_URL (docs/decisions/operations.md, 'Mail goes by SMTP, or to a local outbox
// without SMTP_URL'): one .eml file per mail in <DATA_DIR>/outbox, private to the gateway's user,
// named by the start banner; the settings SMTP_URL and MAIL_FROM, and the users commands of the
// admin CLI that mail (through a real SMTP server) and remove.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../bin/admin.ts';
import { banner } from '../bin/demo.ts';
import { registry } from '../generated/registry.ts';
import { describeStore } from '../runtime/config/checks.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { createMailer, OUTBOX_DIR } from '../runtime/mail/mailer.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import type { SandboxSet } from '../sandbox/index.ts';
import { createTenant, testConfig } from './support/gateway.ts';
import { linkIn, recipient, startSmtp, type TestSmtp } from './support/smtp.ts';

const SMTP_PASSWORD = 'Cli-Smtp-Pw-Jx47';

function capture(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level: 'trace' }, sink), lines };
}

describe('mail outbox and settings', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cg-outbox-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes one private .eml file per mail into <DATA_DIR>/outbox and logs only its kind', async () => {
    const { log, lines } = capture();
    const mailer = createMailer({ dataDir }, log);
    expect(mailer.via).toBe('outbox');
    const body = 'Choose it here: http://127.0.0.1/portal/set-password/Secret-Token-Qv81';
    expect(await mailer.send({ kind: 'password_reset', to: 'someone@example.test', subject: 'Reset', text: body }));
    mailer.close();
    const dir = join(dataDir, OUTBOX_DIR);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/password_reset-[0-9a-f]{8}\.eml$/);
    expect(statSync(join(dir, files[0]!)).mode & 0o077).toBe(0);
    expect(statSync(dir).mode & 0o077).toBe(0);
    const eml = readFileSync(join(dir, files[0]!), 'utf8');
    expect(eml).toContain('To: someone@example.test');
    expect(eml).toContain('Secret-Token-Qv81');
    expect(lines.join('')).toContain('"mail":"password_reset"');
    expect(lines.join('')).not.toContain('Secret-Token-Qv81');
  });

  it('names the outbox in the start banner, and the SMTP server (without its password) when set', () => {
    const sandboxes = { started: new Map() } as unknown as SandboxSet;
    const plain = testConfig({ DATA_DIR: dataDir });
    expect(banner(plain, 'http://127.0.0.1:1', 'cgw_x', sandboxes)).toContain(join(dataDir, OUTBOX_DIR));
    const smtp = testConfig({ SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@mail.example.test:587` });
    const shown = banner(smtp, 'http://127.0.0.1:1', 'cgw_x', sandboxes);
    expect(shown).toContain('smtp://mail.example.test:587');
    expect(shown).not.toContain(SMTP_PASSWORD);
  });

  it('reads SMTP_URL and MAIL_FROM, refusing another scheme without echoing the password', () => {
    const config = loadConfig(registry, { SMTP_URL: 'smtps://u:p@mail.example.test:465', MAIL_FROM: 'Gw <gw@x.test>' });
    expect(config.smtpUrl).toBe('smtps://u:p@mail.example.test:465');
    expect(config.mailFrom).toBe('Gw <gw@x.test>');
    expect(loadConfig(registry, {}).smtpUrl).toBeUndefined();
    expect(() => loadConfig(registry, { SMTP_URL: `http://u:${SMTP_PASSWORD}@mail.example.test` })).toThrow(
      /^SMTP_URL must be an SMTP URL/,
    );
    try {
      loadConfig(registry, { SMTP_URL: `http://u:${SMTP_PASSWORD}@mail.example.test` });
    } catch (error) {
      expect(String(error)).not.toContain(SMTP_PASSWORD);
    }
    expect(() => loadConfig(registry, { MAIL_FROM: 'not an address' })).toThrow(/^MAIL_FROM must be/);
  });
});

describe('admin CLI: users remove, invite, reset-password', () => {
  let store: PlatformStore;
  let smtp: TestSmtp;
  let config: ReturnType<typeof loadConfig>;

  beforeAll(async () => {
    smtp = await startSmtp('cli-mailer', SMTP_PASSWORD);
    store = await openStore({});
    config = testConfig({ SMTP_URL: smtp.url });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await smtp?.close();
  });

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(
      [...argv, '--json'],
      config,
      store,
      { store: describeStore(config), via: 'direct' },
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    return { code, answer: JSON.parse(out.join('\n')) as { ok: boolean; result: unknown }, all: [...out, ...err] };
  };

  it('mails an invitation and a reset link by SMTP, printing neither link', async () => {
    const t = await createTenant(store, {});
    const invited = await run('users', 'invite', t.user.id);
    expect(invited.code).toBe(0);
    const reset = await run('users', 'reset-password', t.user.id);
    expect(reset.code).toBe(0);
    const [invitation, resetMail] = (await smtp.waitFor(2)).slice(-2);
    expect(recipient(invitation!)).toBe(t.user.email);
    expect(invitation!.text).toContain('The operator of the gateway invited you');
    expect(resetMail!.subject).toContain('Reset your password');
    for (const line of [...invited.all, ...reset.all]) {
      expect(line).not.toContain('/portal/set-password');
      expect(line).not.toContain(SMTP_PASSWORD);
    }
    expect(invited.all.join('')).not.toContain(linkIn(invitation!).split('/').pop());
  });

  it('answers false for a mail the server refuses, logging the error without the password or the body', async () => {
    const { log, lines } = capture();
    const wrong = smtp.url.replace(encodeURIComponent(SMTP_PASSWORD), 'Wrong-Pw-Zz90');
    const mailer = createMailer({ dataDir: '/nonexistent', smtpUrl: wrong }, log);
    const body = 'http://127.0.0.1/portal/set-password/Body-Token-Rr55';
    expect(await mailer.send({ kind: 'invitation', to: 'x@example.test', subject: 'Hi', text: body })).toBe(false);
    mailer.close();
    const logged = lines.join('');
    expect(logged).toContain('mail not sent');
    expect(logged).toContain('"mail":"invitation"');
    expect(logged).not.toContain('Wrong-Pw-Zz90');
    expect(logged).not.toContain('Body-Token-Rr55');
  });

  it('fails a users invite whose mail the server refuses, with the reason and without the password', async () => {
    const t = await createTenant(store, {});
    const out: string[] = [];
    const wrong = testConfig({ SMTP_URL: smtp.url.replace(encodeURIComponent(SMTP_PASSWORD), 'Wrong-Cli-Pw-Tq3') });
    const code = await runCommand(
      ['users', 'invite', t.user.id, '--json'],
      wrong,
      store,
      { store: describeStore(wrong), via: 'direct' },
      { out: (l) => out.push(l), err: (l) => out.push(l) },
    );
    expect(code).toBe(1);
    const answer = JSON.parse(out.join('')) as { ok: boolean; error: { message: string } };
    expect(answer.error.message).toMatch(/^the mail could not be sent: .*Invalid/);
    expect(out.join('')).not.toContain('Wrong-Cli-Pw-Tq3');
  });

  it('removes a user with their tokens, refusing the last administrator and a missing --yes', async () => {
    const admin = await createTenant(store, { subscribe: ['cases'] });
    const member = await createTenant(store, { accountId: admin.account.id, role: 'member', subscribe: ['cases'] });
    expect((await run('users', 'remove', member.user.id)).code).toBe(2);
    expect((await run('users', 'remove', admin.user.id, '--yes')).code).toBe(4);
    const removed = await run('users', 'remove', member.user.id, '--yes');
    expect(removed.code).toBe(0);
    expect(removed.answer.result).toMatchObject({
      removed: { userId: member.user.id, tokens: 1, seats: 1, grants: 0, sessions: 0 },
    });
    expect(await store.users.getUser(member.user.id)).toBeNull();
    expect(await store.tokens.listTokens(member.user.id)).toEqual([]);
    const audit = await store.audit.listAudit(admin.account.id, 10);
    expect(audit.find((e) => e.action === 'user.remove')?.target).toBe(member.user.id);
    expect((await run('users', 'remove', member.user.id, '--yes')).code).toBe(3);
  });
});

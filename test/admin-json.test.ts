// The admin CLI as scripts see it (docs/decisions/operations.md, 'The admin CLI names its store,
// answers JSON and exits with a code per kind of failure'): every command answers one JSON object
// with --json, errors are short and have their own exit codes (2 usage, 3 not found, 4 refused),
// and the portal's rules hold here too (the last administrator, a subscribed connector, no expiry
// in the past, confirmation before deleting).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, runCommand } from '../bin/admin.ts';
import { registry } from '../generated/registry.ts';
import { describeStore } from '../runtime/config/checks.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';

interface Answer {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

describe('admin CLI answers: --json, exit codes, refusals', () => {
  let store: PlatformStore;
  let dir: string;
  let config: ReturnType<typeof loadConfig>;
  let stdin = '';
  const run = async (...argv: string[]): Promise<Answer> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(
      argv,
      config,
      store,
      { store: describeStore(config), via: 'direct' },
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      async () => stdin,
    );
    return { code, out, err };
  };
  /** Runs with --json: exactly one line of output, a JSON object naming the store and the command. */
  const json = async (...argv: string[]) => {
    const answer = await run(...argv, '--json');
    expect(answer.err, argv.join(' ')).toEqual([]);
    expect(answer.out, argv.join(' ')).toHaveLength(1);
    const parsed = JSON.parse(answer.out[0]!) as {
      ok: boolean;
      store: string;
      via: string;
      command: string | null;
      result?: unknown;
      error?: { kind: string; message: string; exitCode: number };
    };
    expect(parsed.store).toBe(describeStore(config));
    expect(parsed.ok).toBe(answer.code === 0);
    if (!parsed.ok) expect(parsed.error!.exitCode).toBe(answer.code);
    return { code: answer.code, ...parsed };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'admin-json-'));
    config = loadConfig(registry, { DATA_DIR: dir });
    store = await openStore({});
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every command with one JSON object under --json, and data alone (no text line) without it', async () => {
    const seen = new Set<string>();
    const ok = async (...argv: string[]) => {
      const answer = await json(...argv);
      expect(answer, argv.join(' ')).toMatchObject({ ok: true, via: 'direct' });
      seen.add(answer.command!);
      return answer.result as Record<string, unknown> & Array<Record<string, unknown>>;
    };
    const account = await ok('accounts', 'create', 'Json', 'ApS');
    const accountId = String(account.id);
    expect(account.name).toBe('Json ApS');
    expect((await ok('accounts', 'list')).map((a) => a.id)).toContain(accountId);
    const admin = await ok('users', 'create', accountId, 'admin@json.test', 'Ada', '--role', 'admin');
    const member = await ok('users', 'create', accountId, 'member@json.test', 'Mo');
    const userId = String(member.id);
    expect(await ok('users', 'list', accountId)).toHaveLength(2);
    expect(await ok('users', 'invite-link', userId)).toMatchObject({
      userId,
      email: 'member@json.test',
      link: expect.stringContaining('/portal/set-password/'),
    });
    expect(await ok('users', 'set-role', userId, 'admin')).toEqual({
      userId,
      email: 'member@json.test',
      role: 'admin',
    });
    expect(await ok('sessions', 'end', userId)).toEqual({ userId, ended: 0 });
    // Without SMTP_URL the mail goes to the data directory's outbox; the link is not in the answer.
    const outbox = `to the outbox ${join(dir, 'outbox')}`;
    expect(await ok('users', 'invite', userId)).toEqual({ userId, email: 'member@json.test', mailed: outbox });
    expect(await ok('users', 'reset-password', userId)).toEqual({ userId, email: 'member@json.test', mailed: outbox });
    const gone = await ok('users', 'create', accountId, 'gone@json.test', 'Gone');
    expect(await ok('users', 'remove', String(gone.id), '--yes')).toEqual({
      removed: { userId: gone.id, email: 'gone@json.test', sessions: 0, tokens: 0, grants: 0, seats: 0 },
    });
    const issued = await ok('tokens', 'issue', userId, '--label', 'json');
    expect(issued).toEqual({
      id: expect.any(String),
      userId,
      label: 'json',
      scope: null,
      token: expect.stringMatching(/^cgw_/),
    });
    const scoped = await ok('tokens', 'issue', userId, '--connectors', 'cases', '--read-only');
    expect(scoped.scope).toEqual({ connectors: ['cases'], readOnly: true });
    expect((await json('tokens', 'issue', userId, '--toolsets', 'cases:nope')).error).toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('unknown toolset "nope" of cases'),
    });
    expect(await ok('tokens', 'list', userId)).toHaveLength(2);
    expect(JSON.stringify(await ok('tokens', 'list', userId))).not.toContain(String(issued.token));
    expect(await ok('tokens', 'revoke', String(issued.id))).toEqual({ tokenId: issued.id, revoked: true });
    expect(await ok('grants', 'list', '--account', accountId)).toEqual([]);
    expect(await ok('terms', 'accept', userId)).toMatchObject({ userId, acceptedAt: expect.any(String) });
    expect(await ok('subscriptions', 'set', accountId, 'cases', 'on')).toEqual({
      accountId,
      connector: 'cases',
      subscribed: true,
    });
    expect(await ok('subscriptions', 'list', accountId)).toEqual(['cases']);
    expect(await ok('seats', 'set', userId, 'cases', 'on')).toEqual({ userId, connector: 'cases', seat: true });
    expect(await ok('seats', 'list', userId)).toEqual(['cases']);
    stdin = 'apiKey=json-secret-Vq8\n';
    expect(await ok('connections', 'set', accountId, 'cases')).toEqual({
      accountId,
      instanceId: 'cases',
      connector: 'cases',
      keyVersion: 1,
    });
    const connections = await ok('connections', 'list', accountId);
    expect(connections).toHaveLength(1);
    expect(JSON.stringify(connections)).not.toContain('json-secret-Vq8');
    await store.accounts.setSubscription(accountId, 'ledger', true);
    stdin = 'username=u\npassword=json-secret-Vq8\ncompanyId=7\n';
    await ok('connections', 'set', accountId, 'ledger');
    expect(await ok('data-layer', 'status', accountId, 'ledger')).toEqual({ enabled: false });
    expect(await ok('data-layer', 'enable', accountId, 'ledger')).toMatchObject({ enabled: true });
    expect(await ok('data-layer', 'disable', accountId, 'ledger')).toEqual({ enabled: false, wasEnabled: true });
    expect(await ok('fair-use', 'set', accountId, '--mode', 'hard', '--quota', '500')).toEqual({
      accountId,
      mode: 'hard',
      quota: 500,
    });
    expect(await ok('audit', 'list', accountId, '--limit', '3')).toHaveLength(3);
    expect(await ok('keys', 'add')).toMatchObject({ keyVersion: 2 });
    expect(await ok('keys', 'reencrypt')).toEqual({ reencrypted: 2, failed: 0, keyVersion: 2 });
    expect(await ok('connections', 'delete', accountId, 'ledger', '--yes')).toEqual({
      deleted: { accountId, instanceId: 'ledger' },
    });
    await store.mcp.createMcpGrant(
      {
        id: 'grant-json',
        clientId: 'client-json',
        clientName: 'Json assistant',
        userId,
        accountId,
        endpoints: ['cases'],
      },
      {
        codeHash: 'c'.repeat(64),
        redirectUri: 'http://127.0.0.1:4000/cb',
        codeChallenge: 'challenge',
        expiresAt: new Date(Date.now() + 3600_000),
      },
    );
    expect(await ok('grants', 'revoke', 'grant-json')).toEqual({
      grantId: 'grant-json',
      revoked: true,
      client: 'Json assistant',
    });
    expect(await ok('grants', 'revoke', 'grant-json')).toEqual({
      grantId: 'grant-json',
      revoked: false,
      alreadyRevoked: true,
    });
    // One shape for usage, with or without --month.
    const thisMonth = await ok('usage', accountId);
    const other = await ok('usage', accountId, '--month', '2025-02');
    expect(await ok('tools', 'set', accountId, 'cases', '--off-tools', 'describe_type', '--read-only', 'on')).toEqual({
      accountId,
      instanceId: 'cases',
      connector: 'cases',
      disabledToolsets: [],
      disabledTools: ['describe_type'],
      readOnly: true,
    });
    expect((await ok('tools', 'show', accountId, 'cases')).disabledTools).toEqual(['describe_type']);
    expect((await json('tools', 'set', accountId, 'cases', '--off-toolsets', 'nope')).error).toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('unknown toolset "nope"'),
    });
    // No spill file in this data directory: nothing applied.
    expect(await ok('usage', 'apply-spill')).toEqual({ files: [], calls: 0 });
    // The call log and the daily usage (docs/decisions/portal.md, 'The call log keeps no arguments or results').
    const day = { accountId, day: '2025-02-03', instanceId: 'cases', userId, calls: 1 };
    const at = new Date('2025-02-03T10:00:00Z');
    const call = { accountId, at, instanceId: 'cases', tool: 'find_cases', detail: 'ok', userId, tokenId: '' };
    await store.callLog.addCalls([{ ...call, outcome: 'ok', durationMs: 9 }], [day]);
    expect(await ok('calls', 'list', accountId, '--outcome', 'ok', '--user', userId)).toMatchObject([
      { tool: 'find_cases', outcome: 'ok', durationMs: 9, at: at.toISOString() },
    ]);
    expect(await ok('calls', 'list', accountId, '--outcome', 'refused')).toEqual([]);
    expect((await json('calls', 'list', accountId, '--outcome', 'maybe')).error).toMatchObject({ kind: 'usage' });
    expect(await ok('usage', 'daily', accountId, '--month', '2025-02')).toEqual([day]);
    expect(Object.keys(other)).toEqual(Object.keys(thisMonth));
    expect(other).toMatchObject({
      usage: { from: '2025-02-01', to: '2025-02-28', totalCalls: 0 },
      fairUse: { month: '2025-02', limit: 500, mode: 'hard' },
    });
    expect(await ok('users', 'set-role', String(admin.id), 'member')).toMatchObject({ role: 'member' });
    expect(await ok('accounts', 'delete', accountId, '--yes')).toEqual({ deleted: { accountId, name: 'Json ApS' } });
    expect([...seen].sort()).toEqual(COMMANDS.map((c) => c.name).sort());

    // Without --json: a result that is data is JSON alone, parseable as a whole.
    const again = JSON.parse((await run('accounts', 'create', 'Plain')).out.join('\n')) as { id: string };
    const user = JSON.parse((await run('users', 'create', again.id, 'plain@json.test', 'P')).out.join('\n')) as {
      id: string;
    };
    const plain = await run('tokens', 'issue', user.id);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.out.join('\n'))).toMatchObject({
      userId: user.id,
      label: 'cli',
      token: expect.stringMatching(/^cgw_/),
    });
    expect(plain.err).toEqual(['the token is shown once and stored only as a hash: copy it now']);
  });

  it('says "no such …" with exit code 3, for every kind of thing', async () => {
    const cases: Array<[string[], string]> = [
      [['tokens', 'issue', 'usr_nope'], 'no such user usr_nope'],
      [['tokens', 'list', 'usr_nope'], 'no such user usr_nope'],
      [['tokens', 'revoke', 'tok_nope'], 'no such token tok_nope'],
      [['users', 'set-role', 'usr_nope', 'admin'], 'no such user usr_nope'],
      [['users', 'list', 'acc_nope'], 'no such account acc_nope'],
      [['accounts', 'delete', 'acc_nope', '--yes'], 'no such account acc_nope'],
      [['connections', 'delete', 'acc_nope', 'cases', '--yes'], 'no such account acc_nope'],
      [['fair-use', 'set', 'acc_nope', '--mode', 'soft'], 'no such account acc_nope'],
      [['usage', 'acc_nope'], 'no such account acc_nope'],
      [['terms', 'accept', 'usr_nope'], 'no such user usr_nope'],
      [['seats', 'list', 'usr_nope'], 'no such user usr_nope'],
      [['grants', 'revoke', 'grant_nope'], 'no such grant grant_nope'],
    ];
    for (const [argv, message] of cases) {
      const answer = await run(...argv);
      expect(answer, argv.join(' ')).toEqual({ code: 3, out: [], err: [expect.stringContaining(message)] });
      expect(await json(...argv)).toMatchObject({ ok: false, error: { kind: 'not_found', exitCode: 3 } });
    }
    const account = await store.accounts.createAccount({ name: 'Gone' });
    const gone = await run('connections', 'delete', account.id, 'cases', '--yes');
    expect(gone).toMatchObject({ code: 3, err: [expect.stringContaining(`no such connection ${account.id}/cases`)] });
  });

  it('answers a usage error with the message and the command’s usage line (exit 2), never the whole help', async () => {
    const bad = await run('seats', 'set', 'usr_1');
    expect(bad.code).toBe(2);
    expect(bad.out).toEqual([]);
    expect(bad.err).toHaveLength(1);
    expect(bad.err[0]!.split('\n')).toEqual([
      'missing userId, connector and on|off',
      'Usage: npm run admin -- seats set <userId> <connector> on|off   (npm run admin -- seats set --help explains it)',
    ]);
    const unknown = await run('tokens', 'create');
    expect(unknown).toEqual({
      code: 2,
      out: [],
      err: ['unknown command "tokens create"\nnpm run admin -- help lists the commands'],
    });
    expect(await json('tokens', 'create')).toMatchObject({
      ok: false,
      command: null,
      error: { kind: 'usage', message: 'unknown command "tokens create"', exitCode: 2 },
    });
  });

  it('refuses what the portal refuses, and what needs a confirmation or says nothing', async () => {
    const account = await store.accounts.createAccount({ name: 'Rules' });
    const admin = await store.users.createUser({
      accountId: account.id,
      email: 'only-admin@json.test',
      name: 'A',
      role: 'admin',
    });
    // The last administrator cannot step down (exit 4), as in the portal.
    const demoted = await json('users', 'set-role', admin.id, 'member');
    expect(demoted).toMatchObject({
      ok: false,
      error: { kind: 'refused', exitCode: 4, message: expect.stringContaining('last administrator') },
    });
    expect((await store.users.getUser(admin.id))?.role).toBe('admin');
    // Nothing to set, an empty name: usage errors that change nothing.
    expect(await run('fair-use', 'set', account.id)).toMatchObject({
      code: 2,
      err: [expect.stringContaining('nothing to set')],
    });
    expect(await run('accounts', 'create', '')).toMatchObject({
      code: 2,
      err: [expect.stringContaining('the name is empty')],
    });
    expect(await run('accounts', 'create', '  ')).toMatchObject({ code: 2 });
    // Deleting needs --yes; without it nothing is deleted.
    expect(await run('accounts', 'delete', account.id)).toMatchObject({
      code: 2,
      err: [expect.stringContaining('add --yes to confirm')],
    });
    expect(await store.accounts.getAccount(account.id)).not.toBeNull();
    stdin = 'apiKey=rules-secret-Kp3\n';
    // A connector the account is not subscribed to: refused before the credential is read or stored.
    let read = false;
    const unsubscribed = await runCommand(
      ['connections', 'set', account.id, 'cases'],
      config,
      store,
      { store: describeStore(config), via: 'direct' },
      { out: () => {}, err: () => {} },
      async () => {
        read = true;
        return stdin;
      },
    );
    expect(unsubscribed).toBe(4);
    expect(read).toBe(false);
    expect(await store.connections.listConnections(account.id)).toEqual([]);
    await store.accounts.setSubscription(account.id, 'cases', true);
    expect((await run('connections', 'set', account.id, 'cases')).code).toBe(0);
    expect(await run('connections', 'delete', account.id, 'cases')).toMatchObject({
      code: 2,
      err: [expect.stringContaining('add --yes to confirm')],
    });
    expect(await store.connections.getConnection(account.id, 'cases')).not.toBeNull();
    // An OAuth credential that expired already is refused; a future one is stored as epoch milliseconds.
    await store.accounts.setSubscription(account.id, 'books', true);
    expect(registry.books.descriptor.credential).toBe('oauth2');
    stdin = 'accessToken=rules-secret-Kp3\nexpiresAt=2020-01-01T00:00:00Z\n';
    expect(await json('connections', 'set', account.id, 'books')).toMatchObject({
      ok: false,
      error: { kind: 'refused', message: expect.stringContaining('is in the past') },
    });
    expect(await store.connections.getConnection(account.id, 'books')).toBeNull();
    stdin = `accessToken=rules-secret-Kp3\nexpiresAt=${Date.now() + 3600_000}\n`;
    expect((await json('connections', 'set', account.id, 'books')).ok).toBe(true);
  });
});

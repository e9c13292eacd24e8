// Credentials at rest and the admin CLI: authenticated encryption bound to account and instance,
// key rotation with re-encryption, and every platform operation from the command line.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { CommandError, runCli, UsageError } from '../bin/admin.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { loadOrCreateKeyFile, newSecretKey, Vault, VaultError } from '../runtime/secrets/vault.ts';
import { tokenHash } from '../runtime/auth/caller-tokens.ts';
import { secretHash } from '../runtime/auth/mcp-authorization.ts';
import { needs, REDIS_URL } from './support/services.ts';

describe('vault', () => {
  const vault = new Vault({ 1: newSecretKey() });

  it('round-trips and binds a ciphertext to its account and instance', () => {
    const sealed = vault.seal('{"apiKey":"k"}', 'acc_a', 'cases');
    expect(sealed.ciphertext).not.toContain('apiKey');
    expect(vault.open(sealed.ciphertext, 'acc_a', 'cases')).toBe('{"apiKey":"k"}');
    expect(() => vault.open(sealed.ciphertext, 'acc_b', 'cases')).toThrow(VaultError);
    expect(() => vault.open(sealed.ciphertext, 'acc_a', 'cases-2')).toThrow(VaultError);
  });

  it('detects any changed byte', () => {
    const { ciphertext } = vault.seal('secret', 'acc_a', 'cases');
    const parts = ciphertext.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0]! ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => vault.open(parts.join('.'), 'acc_a', 'cases')).toThrow(VaultError);
  });

  it('refuses a stored tag under 16 bytes (a 4- or 12-byte prefix of the real tag), opens the full one', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => warnings.push(warning.code ?? warning.message);
    process.on('warning', onWarning);
    const { ciphertext } = vault.seal('{"apiKey":"k"}', 'acc_a', 'cases');
    const parts = ciphertext.split('.');
    const tag = Buffer.from(parts[4]!, 'base64url');
    expect(tag.length).toBe(16);
    for (const length of [4, 12, 15]) {
      const cut = [...parts.slice(0, 4), tag.subarray(0, length).toString('base64url')].join('.');
      expect(() => vault.open(cut, 'acc_a', 'cases'), `${length}-byte tag`).toThrow(
        /authentication tag must be 16 bytes/,
      );
      // No evidence about the key either way (the key check at start-up ignores it).
      expect(vault.tryOpen(cut, 'acc_a', 'cases')).toBe('malformed');
    }
    const long = [...parts.slice(0, 4), Buffer.concat([tag, Buffer.alloc(1)]).toString('base64url')].join('.');
    expect(() => vault.open(long, 'acc_a', 'cases')).toThrow(VaultError);
    expect(vault.open(ciphertext, 'acc_a', 'cases')).toBe('{"apiKey":"k"}');
    // Node warns (DEP0182) when a short tag reaches GCM without a declared tag length; none does.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });

  it('keeps old key versions readable after rotation and encrypts with the newest', () => {
    const k1 = newSecretKey();
    const old = new Vault({ 1: k1 }).seal('x', 'acc', 'inst');
    const rotated = new Vault({ 1: k1, 2: newSecretKey() });
    expect(rotated.open(old.ciphertext, 'acc', 'inst')).toBe('x');
    expect(rotated.seal('y', 'acc', 'inst').keyVersion).toBe(2);
    expect(() => new Vault({ 2: rotated.seal('y', 'acc', 'inst').ciphertext.split('.')[2]! })).toThrow(VaultError);
  });

  it('creates the embedded key file with mode 0600 once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-'));
    try {
      const first = loadOrCreateKeyFile(join(dir, 'secret.key'));
      expect(first.created).toBe(true);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      const second = loadOrCreateKeyFile(join(dir, 'secret.key'));
      expect(second).toEqual({ keys: first.keys, created: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('admin CLI', () => {
  let store: PlatformStore;
  let dir: string;
  const out: string[] = [];
  /** Standard input of the next command (the credential of connections set). */
  let stdin = '';
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      loadConfig(registry, { DATA_DIR: dir }),
      store,
      (l) => out.push(l),
      async () => stdin,
    );
  const last = () => JSON.parse(out.at(-1)!) as Record<string, unknown>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-'));
    store = await openStore({});
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs every platform operation', async () => {
    await cli('accounts', 'create', 'Acme', 'ApS');
    const account = last();
    expect(account.name).toBe('Acme ApS');
    await cli('users', 'create', String(account.id), 'ops@acme.test', 'Ops', 'Person', '--role', 'admin');
    const user = last();
    expect(user).toMatchObject({ role: 'admin', name: 'Ops Person' });
    await cli('tokens', 'issue', String(user.id), '--label', 'laptop');
    const { token } = last() as { token: string };
    expect((await store.tokens.findByTokenHash(tokenHash(token)))?.user.id).toBe(user.id);
    await cli('terms', 'accept', String(user.id));
    await cli('subscriptions', 'set', String(account.id), 'cases', 'on');
    await cli('seats', 'set', String(user.id), 'cases', 'on');
    expect(await store.accounts.listSubscriptions(String(account.id))).toEqual(['cases']);
    expect(await store.users.listSeats(String(user.id))).toEqual(['cases']);
    stdin = 'apiKey=from-the-cli\n';
    await cli('connections', 'set', String(account.id), 'cases-2');
    await cli('connections', 'list', String(account.id));
    expect(out.at(-1)).not.toContain('from-the-cli');
    expect(out.at(-1)).toContain('cases-2');
    await cli('fair-use', 'set', String(account.id), '--mode', 'hard', '--quota', '500');
    expect(await store.accounts.getAccount(String(account.id))).toMatchObject({
      fairUseMode: 'hard',
      fairUseQuota: 500,
    });
    await cli('usage', String(account.id));
    expect(last()).toMatchObject({ usage: { totalCalls: 0 }, fairUse: { limit: 500, mode: 'hard' } });
    await expect(cli('subscriptions', 'set', String(account.id), 'nope', 'on')).rejects.toThrow(UsageError);
    await expect(cli('bogus')).rejects.toThrow(UsageError);
  });

  it('lists OAuth grants (never a token or hash) and revokes one with every token of it', async () => {
    const account = await store.accounts.createAccount({ name: 'Grants' });
    const other = await store.accounts.createAccount({ name: 'Other' });
    const user = await store.users.createUser({
      accountId: account.id,
      email: 'grants@acme.test',
      name: 'G',
      role: 'member',
    });
    const stranger = await store.users.createUser({
      accountId: other.id,
      email: 'other@acme.test',
      name: 'O',
      role: 'member',
    });
    const now = new Date();
    const hour = new Date(now.getTime() + 3600_000);
    const seed = async (id: string, owner: { id: string; accountId: string }, clientName: string, secret: string) => {
      await store.mcp.createMcpGrant(
        {
          id,
          clientId: `client-${id}`,
          clientName,
          userId: owner.id,
          accountId: owner.accountId,
          endpoints: ['cases'],
        },
        {
          codeHash: secretHash(`cgwc_${secret}`),
          redirectUri: 'http://127.0.0.1:4000/cb',
          codeChallenge: 'challenge',
          expiresAt: hour,
        },
      );
      await store.mcp.storeMcpTokens(id, [
        { tokenHash: secretHash(`cgwa_${secret}`), kind: 'access', expiresAt: hour },
        { tokenHash: secretHash(`cgwr_${secret}`), kind: 'refresh', expiresAt: hour },
      ]);
    };
    await seed('grant-cli-1', user, 'Desk assistant', 'one');
    await seed('grant-cli-2', stranger, 'Other assistant', 'two');

    await cli('grants', 'list', '--account', account.id);
    const listed = JSON.parse(out.at(-1)!) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      {
        id: 'grant-cli-1',
        accountId: account.id,
        client: 'Desk assistant',
        clientId: 'client-grant-cli-1',
        userId: user.id,
        user: 'grants@acme.test',
        endpoints: ['cases'],
        createdAt: expect.any(String),
        revokedAt: null,
      },
    ]);
    await cli('grants', 'list');
    const all = out.at(-1)!;
    expect(all).toContain('grant-cli-1');
    expect(all).toContain('grant-cli-2');
    for (const secret of ['one', 'two'])
      for (const kind of ['cgwc_', 'cgwa_', 'cgwr_']) expect(all).not.toContain(secretHash(`${kind}${secret}`));
    expect(all).not.toMatch(/hash|cgw[acr]_/i);

    expect(await store.mcp.findMcpAccessToken(secretHash('cgwa_one'))).not.toBeNull();
    await cli('grants', 'revoke', 'grant-cli-1');
    expect(out.at(-1)).toBe('revoked grant grant-cli-1 (Desk assistant) and every token of it');
    // Every token of it: the access token is gone, the refresh token no longer refreshes.
    expect(await store.mcp.findMcpAccessToken(secretHash('cgwa_one'))).toBeNull();
    expect((await store.mcp.consumeMcpRefreshToken(secretHash('cgwr_one'), new Date())).outcome).not.toBe('ok');
    // The other account's grant is untouched.
    expect(await store.mcp.findMcpAccessToken(secretHash('cgwa_two'))).not.toBeNull();
    const audit = await store.audit.listAudit(account.id, 5);
    expect(audit[0]).toMatchObject({
      action: 'oauth.grant.revoke',
      target: 'grant-cli-1',
      actor: expect.stringMatching(/^cli:/),
    });
    expect(audit[0]!.detail).toBe(
      'reason=admin client=Desk assistant client_id=client-grant-cli-1 owner=grants@acme.test',
    );
    await cli('grants', 'list', '--account', account.id);
    expect((JSON.parse(out.at(-1)!) as Array<{ revokedAt: string | null }>)[0]!.revokedAt).not.toBeNull();

    await cli('grants', 'revoke', 'grant-cli-1');
    expect(out.at(-1)).toBe('grant grant-cli-1 was already revoked');
    expect((await store.audit.listAudit(account.id, 5)).filter((e) => e.action === 'oauth.grant.revoke')).toHaveLength(
      1,
    );
    await expect(cli('grants', 'revoke', 'no-such-grant')).rejects.toThrow(/no such grant no-such-grant/);
    await expect(cli('grants', 'revoke')).rejects.toThrow(/missing grantId/);
    await expect(cli('grants', 'list', '--account', 'acc_nosuch')).rejects.toThrow(/no such account acc_nosuch/);
    await expect(cli('grants', 'list', account.id)).rejects.toThrow(UsageError);
  });

  it('adds a key version and re-encrypts every credential under it', async () => {
    const account = await store.accounts.createAccount({ name: 'Rotate' });
    await store.accounts.setSubscription(account.id, 'ledger', true);
    stdin = '# the ledger login\nusername=u\r\npassword=p\n\ncompanyId=7';
    await cli('connections', 'set', account.id, 'ledger');
    expect((await store.connections.getConnection(account.id, 'ledger'))?.keyVersion).toBe(1);
    await cli('keys', 'add');
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).toMatch(/^2:/m);
    await cli('keys', 'reencrypt');
    expect(out.at(-1)).toMatch(/^re-encrypted \d+ credential\(s\) under key version 2/);
    const conn = (await store.connections.getConnection(account.id, 'ledger'))!;
    expect(conn.keyVersion).toBe(2);
    const vault = new Vault(loadOrCreateKeyFile(join(dir, 'secret.key')).keys);
    expect(JSON.parse(vault.open(conn.ciphertext, account.id, 'ledger'))).toEqual({
      username: 'u',
      password: 'p',
      companyId: '7',
    });
  });
});

describe('admin CLI input checks', () => {
  let store: PlatformStore;
  let dir: string;
  const out: string[] = [];
  let stdin = '';
  const cli = (...argv: string[]) =>
    runCli(
      argv,
      loadConfig(registry, { DATA_DIR: dir }),
      store,
      (l) => out.push(l),
      async () => stdin,
    );
  const refused = async (argv: string[], message: string | RegExp, input = '') => {
    stdin = input;
    const error = await cli(...argv).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, argv.join(' ')).toBeInstanceOf(CommandError);
    expect((error as Error).message, argv.join(' ')).toMatch(message);
    expect((error as Error).message).not.toContain('secret-value');
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-checks-'));
    store = await openStore({});
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a malformed email, a seat without subscription, an unknown credential field, month 13', async () => {
    const account = await store.accounts.createAccount({ name: 'Checks' });
    for (const email of ['not-an-email', 'a@b', 'two@@example.com', 'space @example.com'])
      await refused(['users', 'create', account.id, email, 'Name'], `"${email}" is not an email address`);
    await refused(['users', 'create', 'acc_nosuch', 'ok@example.com', 'Name'], 'no such account acc_nosuch');
    await cli('users', 'create', account.id, 'ok@example.com', 'Ok', 'User');
    const user = JSON.parse(out.at(-1)!) as { id: string };

    await refused(
      ['seats', 'set', user.id, 'cases', 'on'],
      `account ${account.id} is not subscribed to cases: run "subscriptions set ${account.id} cases on" first`,
    );
    expect(await store.users.listSeats(user.id)).toEqual([]);
    await cli('subscriptions', 'set', account.id, 'cases', 'on');
    await cli('subscriptions', 'set', account.id, 'ledger', 'on');
    await cli('seats', 'set', user.id, 'cases', 'on');
    expect(await store.users.listSeats(user.id)).toEqual(['cases']);

    await refused(
      ['connections', 'set', account.id, 'cases'],
      'unknown credential field "apiKy" for cases (api_key); did you mean "apiKey"?',
      'apiKy=secret-value',
    );
    await refused(
      ['connections', 'set', account.id, 'cases'],
      'expected field=value lines (fields: apiKey); a line has no "field="',
      'secret-value',
    );
    await refused(
      ['connections', 'set', account.id, 'ledger'],
      /ledger \(login_company\) needs username=… password=… companyId=…; missing companyId/,
      'username=u\npassword=p',
    );
    await refused(
      ['connections', 'set', account.id, 'ledger'],
      'did you mean "companyId"?',
      'username=u\npassword=p\ncompanyid=7',
    );
    await refused(
      ['connections', 'set', account.id, 'register'],
      /uses the deployment's own account \(REGISTER_USERNAME and REGISTER_PASSWORD\)/,
      'username=u',
    );
    await refused(
      ['connections', 'set', account.id, 'cases-100'],
      'no connector serves the instance "cases-100"',
      'apiKey=k',
    );
    await refused(['connections', 'set', account.id, 'casse'], 'did you mean "cases"?', 'apiKey=k');
    // A credential on the command line is refused before anything is read or stored, and not echoed.
    await refused(
      ['connections', 'set', account.id, 'cases', 'apiKey=secret-value'],
      /takes no credential on the command line \(every local user can read arguments in the process list\)/,
    );
    expect(await store.connections.listConnections(account.id)).toEqual([]);
    for (const line of out) expect(line).not.toContain('secret-value');

    await refused(
      ['usage', account.id, '--month', '2026-13'],
      '--month is YYYY-MM with a month from 01 to 12, got "2026-13"',
    );
    await refused(['usage', account.id, '--month', '2026-1'], '--month is YYYY-MM');
    await cli('usage', account.id, '--month', '2026-12');
  });

  it('announces a change to running gateways on the configured REDIS_PREFIX', {
    ...needs('redis'),
    timeout: 90_000,
  }, async () => {
    const { RedisSharedStore } = await import('../runtime/store/shared-store.ts');
    const prefix = `cg-admin-test-${process.pid}-${Date.now()}:`;
    const listener = await RedisSharedStore.connect(REDIS_URL, { prefix, timeoutMs: 2000 });
    const heard: string[] = [];
    await listener.subscribe('platform-invalidate', (m) => heard.push(m));
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-redis-'));
    try {
      const { spawnSync } = await import('node:child_process');
      const root = new URL('..', import.meta.url).pathname;
      const result = spawnSync(process.execPath, ['bin/admin.ts', 'accounts', 'create', 'Announced'], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, REDIS_URL, REDIS_PREFIX: prefix },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status, result.stderr).toBe(0);
      await expect.poll(() => heard.length, { timeout: 5000 }).toBe(1);
    } finally {
      await listener.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('admin CLI credential from standard input', () => {
  it('stores a credential piped to bin/admin.ts, which never appears in its arguments or output', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = new URL('..', import.meta.url).pathname;
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-stdin-'));
    const admin = (input: string, ...argv: string[]) =>
      spawnSync(process.execPath, ['bin/admin.ts', ...argv], {
        cwd: root,
        input,
        env: { ...process.env, DATA_DIR: dataDir, REDIS_URL: '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    try {
      const created = admin('', 'accounts', 'create', 'Piped');
      expect(created.status, created.stderr).toBe(0);
      const accountId = (JSON.parse(created.stdout) as { id: string }).id;
      expect(admin('', 'subscriptions', 'set', accountId, 'cases', 'on').status).toBe(0);
      const set = admin('apiKey=piped-secret-value\n', 'connections', 'set', accountId, 'cases');
      expect(set.status, set.stderr).toBe(0);
      expect(set.stdout).toMatch(/^stored \(encrypted, key version 1\)/);
      expect(set.stdout + set.stderr).not.toContain('piped-secret-value');
      const listed = admin('', 'connections', 'list', accountId);
      expect(listed.stdout).toContain('"instanceId": "cases"');
      expect(listed.stdout).not.toContain('piped-secret-value');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Four CLI processes, the first of which creates the embedded database.
  }, 240_000);
});

describe('embedded database lock', () => {
  it('refuses a second process while the holder lives, and takes over a stale lock', async () => {
    const { lockEmbeddedDatabase, EmbeddedLockError } = await import('../runtime/store/embedded-lock.ts');
    const { writeFileSync, existsSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'lock-'));
    try {
      writeFileSync(join(dir, 'db.lock'), `${process.ppid}\ngateway\n`);
      expect(() => lockEmbeddedDatabase(join(dir, 'db'), 'admin CLI')).toThrow(EmbeddedLockError);
      writeFileSync(join(dir, 'db.lock'), '999999999\ngateway\n');
      const release = lockEmbeddedDatabase(join(dir, 'db'), 'admin CLI');
      expect(readFileSync(join(dir, 'db.lock'), 'utf8')).toBe(`${process.pid}\nadmin CLI\n`);
      release();
      expect(existsSync(join(dir, 'db.lock'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

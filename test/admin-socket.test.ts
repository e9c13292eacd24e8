// Operations without downtime (docs/decisions/operations.md, 'The admin CLI runs inside a running gateway; changes are
// audited'): with `npm start` running on the embedded
// database, every admin CLI command goes to the gateway over its admin socket (data dir, 0600):
// a token issued by the CLI works at once, a revoked one is refused at the next call (so is the
// token of an OAuth grant revoked with `grants revoke`), a credential piped on standard input is
// stored, and each change is in the audit log with the CLI as its actor.
// On a fresh clone the CLI makes its data directory instead of failing on db.lock.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../bin/demo.ts';
import { rpc } from './support/gateway.ts';
import { PortalClient } from './support/portal.ts';

const ROOT = new URL('..', import.meta.url).pathname;

function cli(
  dataDir: string,
  args: string[],
  stdin?: string,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['bin/admin.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

function start(dataDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['bin/start.mjs', '--demo'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${out}`)), 90_000);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
    const check = setInterval(() => {
      const url = /Portal: (http:\/\/127\.0\.0\.1:\d+)\/portal/.exec(out)?.[1];
      if (url && out.includes('Stop with Ctrl+C.')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ child, url, output: () => out });
      }
    }, 50);
  });
}

describe('admin CLI while the gateway runs (embedded database)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-admin-socket-'));
  const viaSocket =
    `store: embedded ${join(dataDir, 'db')} (through the running gateway's admin socket ` +
    `${join(dataDir, 'admin.sock')}` +
    ')';
  let gateway: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    gateway = await start(dataDir);
  }, 120_000);
  afterAll(async () => {
    if (gateway) {
      gateway.child.removeAllListeners('exit');
      const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
      gateway.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the demo administrator and password, which sign in to the portal', async () => {
    expect(gateway.output()).toContain(`sign in as ${DEMO_EMAIL} with the password ${DEMO_PASSWORD}`);
    const portal = new PortalClient(gateway.url);
    expect((await portal.signIn(DEMO_EMAIL, DEMO_PASSWORD)).status).toBe(303);
    expect((await portal.get('/portal')).html).toContain('Demo ApS');
  });

  it('serves the CLI over a 0600 socket: issue, use and revoke a token with the gateway running', async () => {
    const socket = join(dataDir, 'admin.sock');
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const issued = await cli(dataDir, ['tokens', 'issue', 'usr_demo', '--label', 'from-the-cli']);
    // The store first, then the note beside the result; standard output is the result alone (JSON).
    expect(issued.err).toBe(`${viaSocket}\nthe token is shown once and stored only as a hash: copy it now\n`);
    expect(issued.code).toBe(0);
    const { id, token } = JSON.parse(issued.out) as { id: string; token: string };
    expect(token).toMatch(/^cgw_/);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect((await rpc(gateway.url, 'register', token!, list)).status).toBe(200);
    const revoked = await cli(dataDir, ['tokens', 'revoke', id, '--json']);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.out)).toEqual({
      ok: true,
      store: `embedded ${join(dataDir, 'db')}`,
      via: 'admin socket',
      command: 'tokens revoke',
      result: { tokenId: id, revoked: true },
    });
    // A token that does not exist: "no such token", exit 3, through the socket too.
    const missing = await cli(dataDir, ['tokens', 'revoke', 'tok_nope']);
    expect(missing).toMatchObject({
      code: 3,
      out: '',
      err: `${viaSocket}\nno such token tok_nope (tokens list <userId> shows them)\n`,
    });
    // Refused at the very next call: the gateway reloaded its snapshot when the command finished.
    expect((await rpc(gateway.url, 'register', token!, list)).status).toBe(401);
  }, 60_000);

  it('lists and revokes an assistant connected with OAuth: its token is refused at the next call', async () => {
    const redirect = 'http://127.0.0.1:40123/callback';
    const registered = await fetch(`${gateway.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Socket assistant', redirect_uris: [redirect] }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString('base64url');
    const resource = `${gateway.url}/register/mcp`;
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
    });
    const started = await fetch(`${gateway.url}/oauth/authorize?${query}`, { redirect: 'manual' });
    const portal = new PortalClient(gateway.url);
    expect((await portal.signIn(DEMO_EMAIL, DEMO_PASSWORD)).status).toBe(303);
    const consent = started.headers.get('location')!;
    expect((await portal.get(consent)).status).toBe(200);
    const code = new URL((await portal.post(consent, { decision: 'allow' })).location!).searchParams.get('code')!;
    const tokens = (await (
      await fetch(`${gateway.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: redirect,
          client_id: clientId,
          resource,
        }).toString(),
      })
    ).json()) as { access_token: string; refresh_token: string };
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect((await rpc(gateway.url, 'register', tokens.access_token, list)).status).toBe(200);

    const listed = await cli(dataDir, ['grants', 'list', '--account', 'acc_demo']);
    expect(listed.code).toBe(0);
    const grants = JSON.parse(listed.out) as Array<{
      id: string;
      client: string;
      clientId: string;
      user: string;
      endpoints: string[];
      revokedAt: string | null;
    }>;
    const grant = grants.find((x) => x.clientId === clientId)!;
    expect(grant).toMatchObject({
      client: 'Socket assistant',
      user: DEMO_EMAIL,
      endpoints: ['register'],
      revokedAt: null,
    });
    for (const secret of [code, tokens.access_token, tokens.refresh_token]) expect(listed.out).not.toContain(secret);

    const revoked = await cli(dataDir, ['grants', 'revoke', grant.id]);
    expect(revoked.err).toBe(`${viaSocket}\n`);
    expect(revoked.out).toContain(`revoked grant ${grant.id}`);
    // Refused at the very next call, and the refresh token gives nothing more.
    expect((await rpc(gateway.url, 'register', tokens.access_token, list)).status).toBe(401);
    const refreshed = await fetch(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      }).toString(),
    });
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
    const audit = JSON.parse((await cli(dataDir, ['audit', 'list', 'acc_demo'])).out) as Array<{
      action: string;
      target: string;
      source: string;
      detail: string;
    }>;
    expect(audit.find((e) => e.action === 'oauth.grant.revoke' && e.target === grant.id)).toMatchObject({
      source: 'admin socket',
      detail: expect.stringContaining('reason=admin'),
    });
  }, 60_000);

  it('reads a credential piped on standard input through the socket; bad usage gets its usage line', async () => {
    const stored = await cli(dataDir, ['connections', 'set', 'acc_demo', 'cases-2'], 'apiKey=piped-over-socket-Zq4\n');
    expect(stored.err).toBe(`${viaSocket}\n`);
    expect(stored.out).toContain('stored (encrypted, key version 1)');
    const listed = await cli(dataDir, ['connections', 'list', 'acc_demo']);
    expect(listed.out).toContain('"instanceId": "cases-2"');
    expect(listed.out).not.toContain('piped-over-socket-Zq4');
    const bad = await cli(dataDir, ['seats', 'set', 'usr_demo']);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      `${viaSocket}\nmissing userId, connector and on|off\nUsage: npm run admin -- seats set <userId> <connector> ` +
        `on|off   (npm run admin -- seats set --help explains it)\n`,
    );
  }, 60_000);

  it('records each change with the CLI as its actor, and never a secret', async () => {
    const audit = await cli(dataDir, ['audit', 'list', 'acc_demo']);
    expect(audit.code).toBe(0);
    const entries = JSON.parse(audit.out) as Array<{ action: string; actor: string; source: string; detail: string }>;
    const actions = entries.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['token.create', 'token.revoke', 'connection.set']));
    expect(entries.find((e) => e.action === 'token.revoke')).toMatchObject({ source: 'admin socket' });
    expect(entries.every((e) => e.actor.startsWith('cli:') || e.actor.startsWith('user:'))).toBe(true);
    expect(audit.out).not.toContain('piped-over-socket-Zq4');
    expect(audit.out).not.toContain('cgw_');
  }, 60_000);

  it('makes the data directory on a fresh clone instead of failing on db.lock', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'gateway-fresh-')), 'data');
    try {
      expect(existsSync(fresh)).toBe(false);
      const listed = await cli(fresh, ['accounts', 'list']);
      expect(listed.err).not.toContain('ENOENT');
      expect(listed.code).toBe(0);
      expect(listed.out.trim()).toBe('[]');
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(join(fresh, '..'), { recursive: true, force: true });
    }
  }, 60_000);
});

// Logs an operator can watch: every refusal is a line at info with request id, account, connector,
// tool and reason (never a token or credential), and `npm run serve` prints its listen address,
// store and warnings when they happen, not when a 4 KB buffer fills.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../runtime/operations/observability.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { describeStore } from '../runtime/config/checks.ts';
import { registry } from '../generated/registry.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import { connectTenant, createTenant, mcpClient, startGateway, type StartedGateway } from './support/gateway.ts';
import { fetchAs, portalAs } from './support/portal.ts';

const ROOT = new URL('..', import.meta.url).pathname;

describe('refusals in the log', () => {
  let store: PlatformStore;
  let cases: CasesSandbox;
  let gw: StartedGateway;
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    store = await openStore({});
    cases = await startCasesSandbox({ rateLimitPerMinute: 6000 });
    gw = await startGateway(store, {
      logger: createLogger('info', destination),
      env: { CONNECTOR_CASES_BASE_URL: cases.url, RATE_LIMIT_BURST: '1000' },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await cases?.close();
    await store?.close();
  });

  it('logs a connection stored through the portal with account, user, connector, instance, no credential', async () => {
    const tenant = await createTenant(store, { subscribe: ['cases'] });
    await gw.app.context.state.refresh();
    const client = await mcpClient(gw.url, 'cases', tenant.token);
    const link = JSON.parse(
      ((await client.callTool({ name: 'connect_account', arguments: {} })) as { content: Array<{ text: string }> })
        .content[0]!.text,
    ) as { connect_url: string };
    await client.close();
    const stored = await fetchAs(await portalAs(gw, tenant.user), link.connect_url, {
      method: 'POST',
      body: `apiKey=${cases.tokens.demo}`,
    });
    expect(stored.status).toBe(200);
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'connection stored' && l.accountId === tenant.account.id);
    expect(line).toMatchObject({ level: 30, userId: tenant.user.id, connector: 'cases', instance: 'cases' });
    expect(lines.join('\n')).not.toContain(cases.tokens.demo);
  });

  it('logs every refusal at info with request id, account, connector, tool and reason, and no secret', async () => {
    const apiKey = cases.tokens.demo;
    const unsubscribed = await createTenant(store);
    const seatless = await createTenant(store, { subscribe: ['cases'], seats: [] });
    const unconnected = await createTenant(store, { subscribe: ['cases'] });
    const connected = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, connected, 'cases', { apiKey });
    const blocked = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, blocked, 'cases', { apiKey });
    await store.accounts.setFairUse(blocked.account.id, { mode: 'hard', quota: 0 });
    await gw.app.context.state.refresh();

    const call = async (token: string, name: string, args: Record<string, unknown>) => {
      const client = await mcpClient(gw.url, 'cases', token);
      try {
        return await client.callTool({ name, arguments: args });
      } finally {
        await client.close();
      }
    };
    const expected: Array<[tenant: typeof connected, tool: string, args: Record<string, unknown>, reason: string]> = [
      [unsubscribed, 'find_cases', { text: 'x' }, 'not_subscribed'],
      [seatless, 'find_cases', { text: 'x' }, 'no_seat'],
      [unconnected, 'find_cases', { text: 'x' }, 'not_connected'],
      [blocked, 'find_cases', { text: 'x' }, 'fair_use_blocked'],
      [connected, 'no_such_tool', {}, 'unknown_tool'],
      [connected, 'find_cases', { text: 42, nope: true }, 'invalid_arguments'],
      [connected, 'list_case_hours', { caseId: 1, from: '2026-02-01', to: '2026-01-01' }, 'invalid_arguments'],
    ];
    for (const [tenant, tool, args, reason] of expected) {
      const before = lines.length;
      const result = await call(tenant.token, `cases__${tool}`, args);
      expect(result.isError, `${tool} ${reason}`).toBe(true);
      const refusal = lines
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'call refused');
      expect(refusal, `${tool} ${reason}: ${lines.slice(before).join('\n')}`).toMatchObject({
        level: 30,
        connector: 'cases',
        accountId: tenant.account.id,
        userId: tenant.user.id,
        tool: reason === 'unknown_tool' ? `cases__${tool}` : tool,
        reason,
      });
      expect(refusal!.reqId).toEqual(expect.any(String));
    }
    for (const line of lines) {
      expect(line).not.toContain(apiKey);
      for (const [tenant] of expected) expect(line).not.toContain(tenant.token);
    }
  }, 60_000);
});

describe('start-up lines', () => {
  it('describes the store without a password', () => {
    const pg = loadConfig(registry, {
      DATA_DIR: '/tmp/cg-logs',
      DATABASE_URL: 'postgres://gw:s3cret-pw@db.internal:5432/gateway',
    });
    expect(describeStore(pg)).toBe('PostgreSQL postgres://gw@db.internal:5432/gateway');
    expect(describeStore(loadConfig(registry, { DATA_DIR: '/tmp/cg-logs' }))).toBe('embedded /tmp/cg-logs/db');
  });

  it('`npm run serve` prints the warning, listen address and store as they happen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-serve-'));
    const child = spawn(process.execPath, ['bin/start.mjs'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    try {
      // Waits for the line while the process keeps running: nothing here measures time.
      await new Promise<void>((resolve, reject) => {
        child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
        const check = setInterval(() => {
          if (out.includes('gateway listening')) {
            clearInterval(check);
            resolve();
          }
        }, 50);
      });
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => String(l.msg).startsWith('created a credential encryption key file'))).toMatchObject({
        level: 40,
        keyFile: join(dataDir, 'secret.key'),
      });
      const listening = lines.find((l) => l.msg === 'gateway listening')!;
      expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(listening.store).toBe(`embedded ${join(dataDir, 'db')}`);
    } finally {
      child.removeAllListeners('exit');
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

// The README's start command as a newcomer runs it: embedded database, sandbox upstreams and the
// demo tenant; then a real MCP client lists and calls tools with the printed token, and SIGTERM
// shuts the process down cleanly. A second start reuses the data directory and the token.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpClient, usageOf } from './support/gateway.ts';

const ROOT = new URL('..', import.meta.url).pathname;

function start(dataDir: string): Promise<{ child: ChildProcess; url: string; token: string; output: () => string }> {
  const child = spawn(process.execPath, ['bin/start.mjs', '--demo'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${out}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
    const check = setInterval(() => {
      const token = /Demo token \(account acc_demo, user demo@example\.com\): (\S+)/.exec(out)?.[1];
      const url = /register\s+(http:\/\/127\.0\.0\.1:\d+)\/register\/mcp/.exec(out)?.[1];
      if (token && url && out.includes('Stop with Ctrl+C.')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ child, url, token, output: () => out });
      }
    }, 50);
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start (embedded defaults)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the demo tenant to a real MCP client, prints what a newcomer needs, and stops cleanly', async () => {
    const first = await start(dataDir);
    const banner = first.output();
    expect(banner).toContain('npx @modelcontextprotocol/inspector --cli');
    expect(banner).toContain('"mcpServers"');
    for (const id of ['cases', 'erp', 'search', 'invoicing', 'books', 'ledger', 'register'])
      expect(banner).toContain(`/${id}/mcp`);
    const client = await mcpClient(first.url, 'register', first.token);
    expect((await client.listTools()).tools).toHaveLength(5);
    const result = await client.callTool({ name: 'register__soeg_virksomhed', arguments: { query: 'Demo' } });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text).total).toBe(5);
    await client.close();
    // The demo tenant is connected to the case-management sandbox.
    const cases = await mcpClient(first.url, 'cases', first.token);
    const found = await cases.callTool({ name: 'cases__find_cases', arguments: { text: 'solcelleanlæg' } });
    expect(JSON.parse((found.content as Array<{ text: string }>)[0]!.text).count).toBeGreaterThan(0);
    await cases.close();
    // …and to the ledger sandbox.
    const ledger = await mcpClient(first.url, 'ledger', first.token);
    const groups = await ledger.callTool({ name: 'ledger__list_product_groups', arguments: {} });
    expect(JSON.parse((groups.content as Array<{ text: string }>)[0]!.text).count).toBe(8);
    await ledger.close();
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'demo-token')).mode & 0o777).toBe(0o600);
    expect(await stop(first.child)).toBe(0);

    const second = await start(dataDir);
    expect(second.token).toBe(first.token);
    const usage = await usageOf(second.url, second.token);
    expect(usage.usage.byConnector.register?.calls).toBe(1);
    expect(usage.usage.byConnector.cases?.calls).toBe(1); // flushed on SIGTERM, kept on disk
    // Every Inspector example the banner prints works as printed: its --tool-arg values read as the
    // Inspector CLI reads them (JSON when they parse, else the plain string) pass the tool's checks.
    const examples = [
      ...second.output().matchAll(/--cli (\S+) .* --tool-name (\S+)((?: --tool-arg (?:'(?:[^']|'\\'')*'|\S+))*)$/gm),
    ];
    expect(examples.length).toBeGreaterThanOrEqual(7);
    for (const [, url, tool, rawArgs] of examples) {
      const args = Object.fromEntries(
        [...rawArgs!.matchAll(/--tool-arg ('(?:[^']|'\\'')*'|\S+)/g)].map(([, quoted]) => {
          const pair = quoted!.startsWith("'") ? quoted!.slice(1, -1).replaceAll("'\\''", "'") : quoted!;
          const [key, ...rest] = pair.split('=');
          const text = rest.join('=');
          let value: unknown = text;
          try {
            value = JSON.parse(text);
          } catch {}
          return [key, value];
        }),
      );
      const endpoint = new URL(url!).pathname.split('/')[1]!;
      const example = await mcpClient(second.url, endpoint, second.token);
      const answer = await example.callTool({ name: tool!, arguments: args });
      expect(answer.isError, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(answer.content)}`).toBeFalsy();
      await example.close();
    }
    expect(await stop(second.child)).toBe(0);
  }, 120_000);
});

// The admin CLI's command table (bin/admin/commands.ts): every command has a usage line and a
// one-line summary, `help` lists each of them, each is reached by its own words, and its `--help`
// prints its usage and exits 0 without opening the configuration's store.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, HELP, runCli, UsageError } from '../bin/admin.ts';
import { findCommand, helpFor } from '../bin/admin/commands.ts';
import { registry } from '../generated/registry.ts';
import { loadConfig } from '../runtime/config/config.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { ROOT } from './support/golden.ts';

/** A store that fails the test on any use: help must not touch it. */
const untouchable = new Proxy({} as PlatformStore, {
  get(_target, name) {
    throw new Error(`the store was used (${String(name)})`);
  },
});

const dir = mkdtempSync(join(tmpdir(), 'admin-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = loadConfig(registry, { DATA_DIR: join(dir, 'data') });

async function run(argv: string[]): Promise<string[]> {
  const out: string[] = [];
  await runCli(argv, config, untouchable, (line) => out.push(line));
  return out;
}

describe('admin command table', () => {
  it('holds the 37 commands operators have, each once, with a one-line summary', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(names).toEqual([
      'accounts list',
      'accounts create',
      'accounts delete',
      'users list',
      'users create',
      'users invite-link',
      'users set-role',
      'users remove',
      'users invite',
      'users reset-password',
      'sessions end',
      'audit list',
      'tokens issue',
      'tokens list',
      'tokens revoke',
      'grants list',
      'grants revoke',
      'terms accept',
      'subscriptions list',
      'subscriptions set',
      'seats list',
      'seats set',
      'connections list',
      'connections set',
      'connections delete',
      'data-layer enable',
      'data-layer disable',
      'data-layer status',
      'tools show',
      'tools set',
      'fair-use set',
      'usage',
      'usage apply-spill',
      'calls list',
      'usage daily',
      'keys add',
      'keys reencrypt',
    ]);
    for (const c of COMMANDS) {
      expect(c.summary, c.name).toMatch(/^[a-z].{10,100}$/);
      expect(c.summary, c.name).not.toContain('\n');
      expect(c.args, c.name).not.toContain('\n');
    }
  });

  it('lists every command in help with its usage and its summary', () => {
    expect(HELP).toMatch(/^Usage: npm run admin -- <command> \[arguments\]\n/);
    for (const c of COMMANDS) {
      const usage = `  ${[c.name, c.args].filter(Boolean).join(' ')}`;
      const at = HELP.indexOf(`${usage} `) >= 0 ? HELP.indexOf(`${usage} `) : HELP.indexOf(`${usage}\n`);
      expect(at, c.name).toBeGreaterThanOrEqual(0);
      // The summary follows its usage, on the same line or the next.
      expect(
        HELP.slice(at + usage.length)
          .trimStart()
          .startsWith(c.summary),
        c.name,
      ).toBe(true);
    }
  });

  it('reaches each command by its words, and no other', () => {
    for (const c of COMMANDS) {
      const found = findCommand([...c.name.split(' '), 'arg1', '--flag', 'value']);
      expect(found?.command, c.name).toBe(c);
      expect(found?.args, c.name).toEqual(['arg1', '--flag', 'value']);
    }
    expect(findCommand(['tokens', 'create'])).toBeUndefined();
    expect(findCommand(['tokens'])).toBeUndefined();
    expect(findCommand([])).toBeUndefined();
  });

  it('answers each command’s --help (and -h) with its usage and summary, without the store', async () => {
    for (const c of COMMANDS) {
      for (const helpFlag of ['--help', '-h']) {
        const out = await run([...c.name.split(' '), helpFlag]);
        expect(out, c.name).toHaveLength(1);
        const [usage, blank, summary] = out[0]!.split('\n');
        expect(usage).toBe(`Usage: npm run admin -- ${[c.name, c.args].filter(Boolean).join(' ')}`);
        expect(blank).toBe('');
        expect(summary).toBe(`${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}.`);
      }
    }
    // After arguments too, and for a group: the group's commands.
    expect((await run(['tokens', 'issue', 'usr_1', '--label', 'x', '--help']))[0]).toMatch(
      /^Usage: npm run admin -- tokens issue <userId> \[--label <label>\] \[--connectors a,b\] .*\[--read-only\]\n/,
    );
    const group = (await run(['tokens', '--help']))[0]!;
    expect(group).toMatch(/^Usage: npm run admin -- tokens <command> \[arguments\]\n/);
    for (const name of ['tokens issue', 'tokens list', 'tokens revoke']) expect(group).toContain(`  ${name} `);
    expect(group).not.toContain('grants list');
    expect(helpFor(['nonsense', '--help'])).toBe(HELP);
  });

  it('refuses an unknown command as before, without the store', async () => {
    await expect(run(['tokens', 'create'])).rejects.toThrow(new UsageError('unknown command "tokens create"'));
    await expect(run(['accounts'])).rejects.toThrow(new UsageError('unknown command "accounts"'));
    await expect(run([])).rejects.toThrow(new UsageError('no command given'));
  });

  it('npm run admin -- <command> --help prints the usage and exits 0 without opening the data directory', () => {
    const dataDir = join(dir, 'never-made');
    const env = { ...process.env, DATA_DIR: dataDir };
    const spawn = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/admin.ts', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    const help = spawn('tokens', 'issue', '--help');
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(
      /^Usage: npm run admin -- tokens issue <userId> \[--label <label>\] .*\n\nIssues an API token/,
    );
    expect(help.stderr).toBe('');
    const asked = spawn('help', 'tokens', 'issue');
    expect(asked.status, asked.stderr).toBe(0);
    expect(asked.stdout).toBe(help.stdout);
    const all = spawn('help');
    expect(all.status).toBe(0);
    expect(all.stdout).toBe(`${HELP}\n`);
    // A command run would have made the data directory (and its embedded database).
    expect(existsSync(dataDir)).toBe(false);
  });
});

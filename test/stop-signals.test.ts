// A stop signal to one process of the start chain (npm → bin/run.mjs → the gateway) stops the
// gateway gracefully and once (docs/decisions/operations.md, 'A stop signal to any process of the
// start chain stops the gateway once'). Each test starts the real chain as an operator does, signals
// one PID, and checks by PID that no process of the chain survives. Nothing here measures time: every
// wait polls for a state, with a generous bound for a busy machine.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rpc, usageOf } from './support/gateway.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const SHUTDOWN = 'shutting down: finishing in-flight calls and flushing usage';
const BOUND_MS = 150_000;

interface Chain {
  readonly npm: ChildProcess;
  readonly output: () => string;
  readonly url: string;
}

const started: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  // Only when a test failed half-way: the whole process group of what it started.
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  output?: () => string,
): Promise<T> {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${BOUND_MS / 1000} s${output ? `\n${output()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-stop-'));
  dirs.push(dir);
  return dir;
}

/** `npm run <script>` in its own process group, as a supervisor starts it; resolves once it listens. */
async function npmRun(script: 'start' | 'serve', dir: string): Promise<Chain> {
  const env = {
    ...process.env,
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
  };
  const npm = spawn('npm', ['run', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(npm);
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const output = () => out;
  const listening = await until(
    `npm run ${script} listening`,
    () => {
      if (npm.exitCode !== null) throw new Error(`npm run ${script} exited with ${npm.exitCode}:\n${out}`);
      return logLines(out).find((l) => l.msg === 'gateway listening');
    },
    output,
  );
  if (script === 'start') await until('the demo banner', () => out.includes('Stop with Ctrl+C.'), output);
  return { npm, output, url: String(listening.url) };
}

function logLines(out: string): Array<Record<string, unknown>> {
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Every descendant of pid, from the process table. */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    frontier = table.filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

/** True while the process exists and is not a zombie waiting for a reaper. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .startsWith('Z');
  } catch {
    return false; // gone between the two looks
  }
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Waits until no process of the chain is left and the port is closed; returns the log lines. */
async function stopped(chain: Chain, pids: number[]): Promise<Array<Record<string, unknown>>> {
  await until('every process of the chain gone', () => pids.every((pid) => !alive(pid)), chain.output);
  await until('the port closed', () => refused(chain.url), chain.output);
  return logLines(chain.output());
}

/** The processes under npm: bin/run.mjs (exec'd by npm's shell) and the gateway under it. */
function chainOf(chain: Chain): { run: number; gateway: number; all: number[] } {
  const below = descendants(chain.npm.pid!);
  const table = new Map(
    below.map((pid) => [pid, execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim()]),
  );
  const run = below.find((pid) => /bin\/run\.mjs/.test(table.get(pid)!));
  const gateway = below.find(
    (pid) => /bin\/start\.mjs/.test(table.get(pid)!) && !/bin\/run\.mjs/.test(table.get(pid)!),
  );
  expect(run, [...table.values()].join('\n')).toBeDefined();
  expect(gateway, [...table.values()].join('\n')).toBeDefined();
  return { run: run!, gateway: gateway!, all: [chain.npm.pid!, ...below] };
}

/** A tools/call whose body is held back after the gateway took the request (it answered 100 Continue). */
async function heldCall(url: string, token: string): Promise<{ finish: () => Promise<string> }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'register__soeg_virksomhed', arguments: { query: 'Demo' } },
  });
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (d) => (answer += d));
  const ended = new Promise<string>((resolve, reject) => {
    socket.once('end', () => resolve(answer));
    socket.once('error', reject);
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    [
      'POST /register/mcp HTTP/1.1',
      `Host: ${hostname}:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Authorization: Bearer ${token}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Expect: 100-continue',
      'Connection: close',
      '',
      '',
    ].join('\r\n'),
  );
  // Node's server answers 100 Continue as it hands the request to the gateway: from here on the call is in flight.
  await until('100 Continue', () => answer.startsWith('HTTP/1.1 100 Continue'));
  return {
    finish: () => {
      socket.write(body);
      return ended;
    },
  };
}

describe('a stop signal to one process of the start chain', () => {
  it("SIGTERM to `npm start`'s npm process: one shutdown line, in-flight call finishes, usage flushed", async () => {
    const dir = dataDir();
    const chain = await npmRun('start', dir);
    const pids = chainOf(chain);
    const token = /Demo token \(account acc_demo, user demo@example\.com\): (\S+)/.exec(chain.output())![1]!;
    const before = await rpc(chain.url, 'register', token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'register__soeg_virksomhed', arguments: { query: 'Demo' } },
    });
    expect(before.status).toBe(200);
    const held = await heldCall(chain.url, token);

    const exited = new Promise<number | null>((resolve) => chain.npm.once('exit', (code) => resolve(code)));
    process.kill(chain.npm.pid!, 'SIGTERM'); // the npm process only
    await until('the shutdown line', () => chain.output().includes(SHUTDOWN), chain.output);
    const answer = await held.finish();
    expect(answer).toMatch(/\r\n\r\nHTTP\/1\.1 200 /);
    expect(answer).toContain('\\"total\\":5');
    expect(await exited).toBe(0);
    const lines = await stopped(chain, pids.all);
    expect(lines.filter((l) => l.msg === SHUTDOWN)).toEqual([expect.objectContaining({ signal: 'SIGTERM' })]);
    expect(lines.filter((l) => l.level !== undefined && Number(l.level) >= 50)).toEqual([]);

    // Both calls were flushed on the way out: a second start on the same data directory counts them.
    const again = spawn(process.execPath, ['bin/start.mjs', '--demo'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(again);
    let out = '';
    again.stdout!.on('data', (d) => (out += d));
    again.stderr!.on('data', (d) => (out += d));
    const url = await until(
      'the second start',
      () => /register\s+(http:\/\/127\.0\.0\.1:\d+)\/register\/mcp/.exec(out)?.[1],
      () => out,
    );
    expect((await usageOf(url, token)).usage.byConnector.register?.calls).toBe(2);
    const done = new Promise((resolve) => again.once('exit', resolve));
    again.kill('SIGTERM');
    await done;
  }, 400_000);

  it('SIGKILL to the npm process of `npm run serve`: bin/run.mjs, orphaned, stops the gateway once', async () => {
    const chain = await npmRun('serve', dataDir());
    const pids = chainOf(chain);
    process.kill(chain.npm.pid!, 'SIGKILL');
    const lines = await stopped(chain, pids.all);
    expect(chain.output()).toContain(
      `bin/run.mjs: the process that started it (pid ${chain.npm.pid}) is gone; stopping the command`,
    );
    expect(lines.filter((l) => l.msg === SHUTDOWN)).toEqual([expect.objectContaining({ signal: 'SIGTERM' })]);
  }, 300_000);

  it('SIGKILL to bin/run.mjs: the gateway sees its start chain gone and stops once', async () => {
    const chain = await npmRun('serve', dataDir());
    const pids = chainOf(chain);
    process.kill(pids.run, 'SIGKILL');
    const lines = await stopped(chain, pids.all);
    expect(lines.filter((l) => l.msg === SHUTDOWN)).toEqual([expect.objectContaining({ parent: 'gone' })]);
  }, 300_000);
});

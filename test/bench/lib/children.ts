// The harness side of its child processes: every server, the load generator and every timed
// process is a child of the harness, tracked here and killed when the harness ends for any reason
// (normal end, error, Ctrl+C, SIGTERM). Children that speak IPC also exit on their own when the
// harness's IPC channel closes, so a harness killed with SIGKILL leaves nothing behind either.
import { spawn, type ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

/** Kills every child still running (synchronous: safe in an 'exit' handler). */
export function killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const child of live) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
  live.clear();
}

export function liveChildren(): number[] {
  return [...live].map((c) => c.pid!).filter((p) => p !== undefined);
}

export interface ChildOptions {
  readonly env?: Record<string, string>;
  readonly execArgv?: readonly string[];
  readonly readyTimeoutMs?: number;
  readonly cwd?: string;
}

export interface ChildHandle {
  readonly name: string;
  readonly pid: number;
  /** The child's ready message. */
  readonly info: Record<string, unknown>;
  job<T>(payload: Record<string, unknown>): Promise<T>;
  /** SIGTERM (the child cleans up), then SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
  stderr(): string;
}

function track(child: ChildProcess, name: string): { tail: () => string; exited: Promise<number | null> } {
  live.add(child);
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? (signal ? -1 : null));
    });
  });
  child.once('error', (error) => {
    tail += `\n${name}: ${error.message}`;
  });
  return { tail: () => tail, exited };
}

/** Starts `node <script> …args` with an IPC channel and waits for its ready message. */
export async function startChild(
  name: string,
  script: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildHandle> {
  const child = spawn(process.execPath, [...(options.execArgv ?? []), script, ...args], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: options.env ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const { tail, exited } = track(child, name);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
    for (const p of pending.values()) p.reject(new Error(`${name} exited (${String(code)}) during a job:\n${tail()}`));
    pending.clear();
  });
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} was not ready within ${options.readyTimeoutMs ?? 120_000} ms:\n${tail()}`)),
      options.readyTimeoutMs ?? 120_000,
    );
    child.on('message', (message: { type?: string; id?: number; ok?: boolean; result?: unknown; error?: string }) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        resolve(message as Record<string, unknown>);
      } else if (message?.type === 'reply' && message.id !== undefined) {
        const p = pending.get(message.id);
        pending.delete(message.id);
        if (message.ok) p?.resolve(message.result);
        else p?.reject(new Error(`${name}: ${message.error}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${String(code)}) before it was ready:\n${tail()}`));
    });
  });
  return {
    name,
    pid: child.pid!,
    info,
    job<T>(payload: Record<string, unknown>): Promise<T> {
      if (exitCode !== undefined) return Promise.reject(new Error(`${name} is not running:\n${tail()}`));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ type: 'job', id, ...payload });
      });
    },
    async stop(timeoutMs = 10_000) {
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
    stderr: tail,
  };
}

export interface PlainProcess {
  readonly pid: number;
  readonly exited: Promise<number | null>;
  stop(timeoutMs?: number): Promise<void>;
  stderr(): string;
  /** The last 20,000 characters of stdout when captured. */
  stdout(): string;
}

/** Starts a process without IPC (output discarded except stderr), tracked like the others. */
export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; captureStdout?: boolean } = {},
): PlainProcess {
  const child = spawn(command, args, {
    stdio: ['ignore', options.captureStdout ? 'pipe' : 'ignore', 'pipe'],
    env: options.env ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const { tail, exited } = track(child, name);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-20_000);
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    pid: child.pid!,
    exited,
    async stop(timeoutMs = 10_000) {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
    stderr: tail,
    stdout: () => out,
  };
}

// Every sandbox upstream: each `sandbox/<connector>/index.ts` exports `sandbox` (sandbox/sandbox.ts),
// found by convention, so adding a connector's sandbox touches only its own folder. Each one is a
// separate HTTP server that the gateway reaches exactly like the real upstream. A folder whose
// index.ts exports `sandboxHelper` instead (the identity provider) serves other sandboxes: skipped.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isSandbox, isSandboxHelper, type RunningSandbox, type Sandbox } from './sandbox.ts';

const here = import.meta.dirname;

/** The sandboxes in this folder, sorted by connector. */
export async function listSandboxes(): Promise<Sandbox[]> {
  const found: Sandbox[] = [];
  for (const entry of readdirSync(here, { withFileTypes: true })) {
    const file = join(here, entry.name, 'index.ts');
    if (!entry.isDirectory() || !existsSync(file)) continue;
    const module = (await import(file)) as { sandbox?: unknown; sandboxHelper?: unknown };
    if (module.sandbox === undefined && isSandboxHelper(module.sandboxHelper)) continue;
    if (!isSandbox(module.sandbox))
      throw new Error(`sandbox/${entry.name}/index.ts must export \`sandbox\` (see sandbox/sandbox.ts)`);
    found.push(module.sandbox);
  }
  return found.sort((a, b) => (a.connector < b.connector ? -1 : 1));
}

export interface StartedSandbox {
  readonly sandbox: Sandbox;
  readonly running: RunningSandbox;
}

export interface SandboxSet {
  /** By connector key. */
  readonly started: ReadonlyMap<string, StartedSandbox>;
  close(): Promise<void>;
}

/** Starts the sandboxes of `connectors` (all when omitted); ports from `basePort` upwards, else free ones. */
export async function startSandboxes(
  options: { host?: string; basePort?: number; connectors?: readonly string[] } = {},
): Promise<SandboxSet> {
  const host = options.host ?? '127.0.0.1';
  const all = await listSandboxes();
  const chosen = options.connectors ? all.filter((s) => options.connectors!.includes(s.connector)) : all;
  const started = new Map<string, StartedSandbox>();
  try {
    for (const [i, sandbox] of chosen.entries()) {
      started.set(sandbox.connector, {
        sandbox,
        running: await sandbox.start({ host, port: options.basePort ? options.basePort + i : 0 }),
      });
    }
  } catch (error) {
    await Promise.all([...started.values()].map((s) => s.running.close()));
    throw error;
  }
  return {
    started,
    async close() {
      await Promise.all([...started.values()].map((s) => s.running.close()));
    },
  };
}

// docs/decisions/operations.md, 'Usage counted during a database outage is spilled on stop':
// what a stop could not flush within the drain time is written, with the batch ids it had in
// memory, to a private file in the data directory; a start applies every such file under those
// ids (a batch applied before adds nothing: the store records batch ids) and removes it.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Repositories, UsageRow } from '../store/store.ts';

export interface UsageBatch {
  readonly id: string;
  readonly rows: readonly UsageRow[];
}

const PREFIX = 'usage-spill-';

export function spillCalls(batches: readonly UsageBatch[]): number {
  let calls = 0;
  for (const b of batches) for (const r of b.rows) calls += r.calls;
  return calls;
}

/** Writes the batches to a new 0600 file in `dir` (atomically: a temporary name, then renamed). Returns its path. */
export function writeSpill(dir: string, batches: readonly UsageBatch[]): string {
  const name = `${PREFIX}${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.json`;
  const path = join(dir, name);
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify({ version: 1, batches }), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, path);
  return path;
}

export function spillFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(PREFIX) && n.endsWith('.json'))
    .sort()
    .map((n) => join(dir, n));
}

/** Applies one spill file under its batch ids, then removes it. Returns the calls it held. */
export async function applySpill(path: string, usage: Pick<Repositories, 'usage'>['usage']): Promise<number> {
  const { batches } = JSON.parse(readFileSync(path, 'utf8')) as { batches: UsageBatch[] };
  for (const b of batches) await usage.addUsage(b.rows, b.id);
  unlinkSync(path);
  return spillCalls(batches);
}

/** At start: applies every spill file of the data directory; a file that fails stays for the next start. */
export async function applySpills(
  dir: string,
  usage: Pick<Repositories, 'usage'>['usage'],
  log: Logger,
): Promise<void> {
  for (const path of spillFiles(dir)) {
    try {
      const calls = await applySpill(path, usage);
      log.info({ file: path, calls }, 'usage spill file applied');
    } catch (error) {
      log.error(
        { file: path, err: { message: (error as Error).message } },
        'usage spill file not applied; kept for the next start',
      );
    }
  }
}

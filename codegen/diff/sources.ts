// Where the two catalogs come from: a catalog file, a git ref's committed generated/catalog.json
// (kept equal to its specs by the drift check), or the working tree's specs generated in memory
// (so a spec edited without `npm run codegen` is still compared as it now reads).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatDiagnostic } from '../diagnostics.ts';
import { runPipeline } from '../generate.ts';
import type { Catalog } from './catalog.ts';

export const CATALOG_PATH = 'generated/catalog.json';
/** Main branch names tried for the default base, in order. */
export const MAIN_REFS = ['origin/main', 'main'] as const;

export class SourceError extends Error {}

export interface Loaded {
  readonly catalog: Catalog;
  readonly label: string;
}

function git(root: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

export function commitOf(root: string, ref: string): string | undefined {
  return git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])?.trim() || undefined;
}

/** The merge base of HEAD with the main branch, or undefined when there is no main branch or no common history. */
export function mergeBase(root: string): { commit: string; main: string; head: string } | undefined {
  const head = commitOf(root, 'HEAD');
  if (!head) return undefined;
  for (const main of MAIN_REFS) {
    if (!commitOf(root, main)) continue;
    const commit = git(root, ['merge-base', 'HEAD', main])?.trim();
    if (commit) return { commit, main, head };
  }
  return undefined;
}

export function parseCatalog(text: string, origin: string): Catalog {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SourceError(`${origin} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const c = data as Partial<Catalog> | null;
  if (!c || typeof c !== 'object' || typeof c.platform !== 'object' || !Array.isArray(c.connectors))
    throw new SourceError(`${origin} is not a tool catalog (no platform and connectors)`);
  return c as Catalog;
}

/** A catalog file, or a git ref's committed catalog. */
export function loadArgument(root: string, arg: string): Loaded {
  if (existsSync(arg) && statSync(arg).isFile())
    return { catalog: parseCatalog(readFileSync(arg, 'utf8'), arg), label: arg };
  const commit = commitOf(root, arg);
  if (!commit) throw new SourceError(`\`${arg}\` is neither a catalog file nor a git ref`);
  const text = git(root, ['show', `${commit}:${CATALOG_PATH}`]);
  if (text === undefined) throw new SourceError(`${arg} (${commit.slice(0, 10)}) has no ${CATALOG_PATH}`);
  return { catalog: parseCatalog(text, `${arg}:${CATALOG_PATH}`), label: `${arg} (${commit.slice(0, 10)})` };
}

/** The working tree: its specs, through the generator, in memory. */
export async function loadWorkingTree(root: string): Promise<Loaded> {
  const { diagnostics, files } = await runPipeline(join(root, 'specs'), root);
  const text = files?.get('catalog.json');
  if (!text) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    throw new SourceError(
      `the working tree's specs do not generate (${errors.length} ` +
        `error(s)):\n${errors.map(formatDiagnostic).join('\n')}`,
    );
  }
  return { catalog: parseCatalog(text, 'working tree'), label: 'working tree' };
}

// The data directory holds token hashes, credential ciphertexts, entitlements and the key file:
// only the gateway's own user may read it. Directories are 0700 and files 0600. The embedded
// engine (PGlite) writes the files of a new database with mode 0666 whatever the umask (its
// initdb sets the mode explicitly), so the database directory is made private again once it is
// open; files the engine creates later get 0600 from PostgreSQL itself.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** Group and other bits: none may be set on anything in the data directory. */
const OPEN_TO_OTHERS = 0o077;

/**
 * Creates `dir` (and missing parents) private, or makes an existing `dir` itself 0700. Returns whether it had to be
 * tightened.
 */
export function ensurePrivateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  return tighten(dir, DIR_MODE);
}

/**
 * Takes group and other permissions off `path` and, for a directory, off everything under it
 * (symbolic links are neither followed nor changed). Returns how many entries were open to
 * others; a missing path counts 0.
 */
export function makePrivate(path: string): number {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  if (stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.isFile() && tighten(path, FILE_MODE, stat.mode) ? 1 : 0;
  let count = tighten(path, DIR_MODE, stat.mode) ? 1 : 0;
  for (const name of readdirSync(path)) count += makePrivate(join(path, name));
  return count;
}

/** What the gateway keeps in its data directory: the embedded database, its lock, the key file and the demo token. */
export const DATA_DIR_ENTRIES: readonly string[] = ['db', 'db.lock', 'secret.key', 'demo-token'];

/**
 * The data directory made private: the directory itself (created 0700 when missing) and, in full,
 * the named entries the gateway keeps in it (the embedded database, the key file). Other contents
 * of a directory an operator chose are left alone: the directory's own 0700 already closes them.
 * Returns how many entries were open to other users (an older version left them 0666/0755).
 */
export function makeDataDirPrivate(dataDir: string, entries: readonly string[]): number {
  let count = ensurePrivateDir(dataDir) ? 1 : 0;
  for (const name of entries) count += makePrivate(join(dataDir, name));
  return count;
}

/**
 * Removes group and other bits (keeping the owner's, at least `ownerMode`'s). A file the running
 * engine renamed or removed since it was listed (its `pg_internal.init.<pid>` temporaries) is gone,
 * not an error.
 */
function tighten(path: string, ownerMode: number, mode = lstatSync(path).mode): boolean {
  if ((mode & OPEN_TO_OTHERS) === 0) return false;
  try {
    chmodSync(path, (mode & 0o700) | ownerMode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  return true;
}

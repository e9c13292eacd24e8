// The embedded database (PGlite) belongs to one process at a time: a second process opening the
// same data directory could corrupt it. The gateway and the admin CLI take this lock first.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class EmbeddedLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedLockError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the data directory's lock, or explains who holds it. Returns the release function. */
export function lockEmbeddedDatabase(dbDir: string, holder: string): () => void {
  const file = join(dbDir, '..', `${dbDir.split('/').pop()}.lock`);
  if (existsSync(file)) {
    const [pidText, who] = readFileSync(file, 'utf8').split('\n');
    const pid = Number(pidText);
    if (Number.isInteger(pid) && pid !== process.pid && alive(pid)) {
      throw new EmbeddedLockError(
        `the embedded database in ${dbDir} is in use by process ${pid} (${who ?? 'unknown'}). Stop it first, or ` +
          'run the gateway on PostgreSQL (DATABASE_URL) to use the CLI alongside it.',
      );
    }
  }
  writeFileSync(file, `${process.pid}\n${holder}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // a lock file an older version left readable by others
  return () => {
    try {
      if (existsSync(file) && Number(readFileSync(file, 'utf8').split('\n')[0]) === process.pid) rmSync(file);
    } catch {
      // already gone
    }
  };
}

// The embedded database of a data directory, begun before the rest of the gateway loads
// (bin/gateway.ts): a module of its own so that starting it imports next to nothing.
import { lockEmbeddedDatabase } from './embedded-lock.ts';
import { createPgliteThreadClient, type PgliteThreadClient } from './sql-client.ts';

/**
 * The embedded database of a data directory, opening in its thread since before the gateway's
 * modules and configuration finished loading (bin/gateway.ts). Its lock is taken first, as
 * createApp takes it, so a second process is refused before the engine touches the files.
 */
export interface EmbeddedOpening {
  readonly dbDir: string;
  readonly client: PgliteThreadClient;
  /** Releases the data directory's lock (after the client is closed). */
  readonly releaseLock: () => void;
}

export function beginEmbeddedOpening(dbDir: string, queryTimeoutMs?: number): EmbeddedOpening {
  const releaseLock = lockEmbeddedDatabase(dbDir, 'gateway');
  try {
    return {
      dbDir,
      client: createPgliteThreadClient({ dataDir: dbDir, ...(queryTimeoutMs === undefined ? {} : { queryTimeoutMs }) }),
      releaseLock,
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

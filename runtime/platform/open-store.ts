// Opens the platform store the deployment asks for: a PostgreSQL server when a URL is given,
// otherwise the embedded PostgreSQL (PGlite), file-backed in a data directory or in memory.
import { createPgliteClient, createPostgresClient } from './sql-client.ts';
import { SqlPlatformStore } from './sql-store.ts';
import type { PlatformStore } from './store.ts';

export interface OpenStoreOptions {
  /** `postgres://…`; when set, the store is that server. */
  readonly databaseUrl?: string;
  /** Directory of the embedded database; in memory when absent (nothing survives a restart). */
  readonly dataDir?: string;
  /** PostgreSQL only: the (existing) schema to work in, e.g. a fresh one per test run. */
  readonly schema?: string;
  /** Deadline of every store query (default `DEFAULT_QUERY_TIMEOUT_MS`, 5 s). */
  readonly queryTimeoutMs?: number;
}

/** Opens the store and applies pending migrations before returning it. */
export async function openStore(options: OpenStoreOptions): Promise<PlatformStore> {
  const client = options.databaseUrl
    ? createPostgresClient({
        connectionString: options.databaseUrl,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      })
    : await createPgliteClient({
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      });
  const store = new SqlPlatformStore(client);
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}

// Opens the platform store the deployment asks for: a PostgreSQL server when a URL is given,
// otherwise the embedded PostgreSQL (PGlite), file-backed in a data directory or in memory.
import type { EmbeddedOpening } from './embedded-opening.ts';
import { createPgliteClient, createPgliteThreadClient, createPostgresClient, type SqlClient } from './sql-client.ts';
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
  /** The embedded database of `dataDir`, already opening (`beginEmbeddedOpening`). */
  readonly opening?: EmbeddedOpening;
}

/** Opens the store and applies pending migrations before returning it. */
export async function openStore(options: OpenStoreOptions): Promise<PlatformStore> {
  const client = options.databaseUrl
    ? createPostgresClient({
        connectionString: options.databaseUrl,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      })
    : await embeddedClient(options);
  const store = new SqlPlatformStore(client);
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}

/**
 * The embedded database: a file-backed one (the gateway's) runs in its own thread
 * (pglite-thread.ts); an in-memory one (tests, scratch) on the calling thread.
 */
async function embeddedClient(options: OpenStoreOptions): Promise<SqlClient> {
  const timeout = options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs };
  if (!options.dataDir) return createPgliteClient(timeout);
  const client =
    options.opening?.dbDir === options.dataDir
      ? options.opening.client
      : createPgliteThreadClient({ dataDir: options.dataDir, ...timeout });
  try {
    await client.opened;
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

// Applies the platform migrations (migrations.ts) once each, in order, under a lock, and tells how
// many a database still lacks.
import { type Migration, migrations } from './migrations.ts';
import type { SqlClient } from './sql-client.ts';

/**
 * Applies the pending migrations in one transaction. An advisory lock (per schema) serialises
 * concurrent runs from several processes: the second waits, then finds nothing left to do.
 */
export async function migrate(client: SqlClient, list: readonly Migration[] = migrations): Promise<void> {
  checkOrder(list);
  // Up to date (every start but the first after an upgrade): one read, no lock, no transaction.
  if (await upToDate(client, list)) return;
  await client.transaction(async (tx) => {
    await tx.query(
      "SELECT pg_advisory_xact_lock(hashtext('connector-gateway:migrate'), hashtext(coalesce(current_schema(), '')))",
    );
    await tx.exec(`
CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`);
    const { rows } = await tx.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations');
    const applied = recorded(rows, list);
    for (const m of list) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
  });
}

/** The versions recorded as applied; a version recorded under another name than this build's is an error. */
function recorded(rows: readonly { version: number; name: string }[], list: readonly Migration[]): Set<number> {
  const applied = new Map(rows.map((r) => [Number(r.version), r.name]));
  for (const m of list) {
    const name = applied.get(m.version);
    if (name !== undefined && name !== m.name)
      throw new Error(`Migration ${m.version} is recorded as '${name}' but this build calls it '${m.name}'.`);
  }
  return new Set(applied.keys());
}

/** Every migration of `list` recorded already (read without the lock: applied ones are never undone). */
async function upToDate(client: SqlClient, list: readonly Migration[]): Promise<boolean> {
  let rows: { version: number; name: string }[];
  try {
    rows = (await client.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations')).rows;
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01') return false; // never migrated
    throw error;
  }
  const applied = recorded(rows, list);
  return list.every((m) => applied.has(m.version));
}

/** Migrations of `list` not recorded as applied (all of them on a database never migrated). */
export async function pendingMigrations(client: SqlClient, list: readonly Migration[] = migrations): Promise<number> {
  const { rows } = await client
    .query<{ version: number }>('SELECT version FROM schema_migrations')
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === '42P01') return { rows: [] as { version: number }[] };
      throw error;
    });
  const applied = new Set(rows.map((r) => Number(r.version)));
  return list.filter((m) => !applied.has(m.version)).length;
}

function checkOrder(list: readonly Migration[]): void {
  let previous = 0;
  for (const m of list) {
    if (!Number.isInteger(m.version) || m.version <= previous) {
      throw new Error(`Migrations must have increasing integer versions (at '${m.name}').`);
    }
    previous = m.version;
  }
}

// Confirmed writes claimed once across processes (DECISIONS §17).
import type { SqlClient } from '../sql-client.ts';
import type { WritesRepository } from '../store.ts';

export class SqlWrites implements WritesRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async claimWrite(
    key: string,
    at: number,
    expiredBefore: number,
  ): Promise<{ readonly claimed: true } | { readonly claimed: false; readonly outcome: string | null }> {
    // Insert-if-absent; a claim older than the window is taken over in the same statement (the
    // row lock makes a concurrent second claimer wait, then see the fresh claim and lose).
    const { rows } = await this.#db.query<{ key: string }>(
      `INSERT INTO write_dedup (key, claimed_at, outcome) VALUES ($1, $2, NULL)
         ON CONFLICT (key) DO UPDATE SET claimed_at = EXCLUDED.claimed_at, outcome = NULL
         WHERE write_dedup.claimed_at < $3
       RETURNING key`,
      [key, at, expiredBefore],
    );
    if (rows.length > 0) {
      await this.#db.query('DELETE FROM write_dedup WHERE claimed_at < $1', [expiredBefore]);
      return { claimed: true };
    }
    const outcome = await this.writeOutcome(key);
    return { claimed: false, outcome: outcome ?? null };
  }

  async finishWrite(key: string, outcome: string, reusable: boolean): Promise<void> {
    // A write that must not be reused keeps its outcome for the callers already waiting, but its
    // claim is dated 0, so the next identical call claims it anew.
    await this.#db.query(
      reusable
        ? 'UPDATE write_dedup SET outcome = $2 WHERE key = $1'
        : 'UPDATE write_dedup SET outcome = $2, claimed_at = 0 WHERE key = $1',
      [key, outcome],
    );
  }

  async writeOutcome(key: string): Promise<string | null | undefined> {
    const { rows } = await this.#db.query<{ outcome: string | null }>(
      'SELECT outcome FROM write_dedup WHERE key = $1',
      [key],
    );
    return rows.length === 0 ? undefined : rows[0]!.outcome;
  }
}

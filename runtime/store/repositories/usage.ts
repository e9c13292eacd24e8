// Usage counts per account, month, connector and tool, and the fair-use sums over them.
import type { SqlClient } from '../sql-client.ts';
import type { UsageRepository, UsageRow } from '../store.ts';
import { assertCount, first, num, toUsage, type UsageDbRow } from './rows.ts';

/** How often a usage flush also prunes batch ids older than 30 days. */
const USAGE_BATCH_PRUNE_EVERY_MS = 3600_000;

export class SqlUsage implements UsageRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async addUsage(rows: readonly UsageRow[], batchId?: string, settledBatchIds: readonly string[] = []): Promise<void> {
    // Merge duplicates and sort, so concurrent batches lock rows in the same order.
    const merged = new Map<
      string,
      { accountId: string; month: string; connectorId: string; tool: string; calls: number; costUnits: number }
    >();
    for (const r of rows) {
      assertCount(r.calls, 'calls');
      assertCount(r.costUnits, 'costUnits');
      const key = JSON.stringify([r.accountId, r.month, r.connectorId, r.tool]);
      const seen = merged.get(key);
      if (seen === undefined) merged.set(key, { ...r });
      else {
        seen.calls += r.calls;
        seen.costUnits += r.costUnits;
      }
    }
    if (merged.size === 0) return;
    const ordered = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
    await this.#insertUsage(this.#db, ordered, batchId, settledBatchIds);
    if (batchId !== undefined && performance.now() >= this.#batchesPruneAt) {
      // Batch ids older than 30 days go once an hour, not with every flush (a flush runs every
      // second; on the embedded engine each statement runs on the event loop's thread). A failed
      // prune is retried at the next hour's flush and never fails the flush, which has committed.
      this.#batchesPruneAt = performance.now() + USAGE_BATCH_PRUNE_EVERY_MS;
      await this.#db.query("DELETE FROM usage_batches WHERE applied_at < now() - interval '30 days'").catch(() => {});
    }
  }

  /** When the next flush prunes old usage batch ids (performance.now() time). */
  #batchesPruneAt = 0;

  async #insertUsage(
    db: SqlClient,
    ordered: readonly UsageRow[],
    batchId?: string,
    settledBatchIds: readonly string[] = [],
  ): Promise<void> {
    // One statement for the whole batch (the embedded engine runs on the event loop's thread, so a
    // statement per row would stall calls during a flush of many accounts). Rows of an account
    // deleted meanwhile are dropped instead of failing the whole batch: the accounts of the batch
    // are looked up by key once (an EXISTS per row was planned as a hash join over every account,
    // 70 ms per flush with 100,000 of them on the embedded engine).
    // With a batch id, the same single statement records the id first (a data-modifying CTE, so
    // both or neither): a batch applied before, whose answer was lost, adds nothing the second time.
    // One statement instead of a transaction of four: a flush was ~4 ms of the embedded engine.
    // The ids of batches whose answer arrived go in the same statement: only ids still in doubt
    // are kept (a replica flushing every second no longer leaves 86,400 ids a day for 30 days).
    const batched = batchId !== undefined;
    const settle = batched && settledBatchIds.length > 0;
    const settled = settle ? ', settled AS (DELETE FROM usage_batches WHERE id = ANY($8::text[]))' : '';
    const withBatch = batched
      ? `WITH batch AS (INSERT INTO usage_batches (id) VALUES ($7) ON CONFLICT (id) DO NOTHING RETURNING id)${settled} `
      : '';
    await db.query(
      `${withBatch}INSERT INTO usage (account_id, month, connector_id, tool, calls, cost_units)
       SELECT u.account_id, u.month, u.connector_id, u.tool, u.calls, u.cost_units
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
              AS u(account_id, month, connector_id, tool, calls, cost_units)
        WHERE ${batched ? 'EXISTS (SELECT 1 FROM batch) AND ' : ''}
              u.account_id = ANY (ARRAY(SELECT a.id FROM accounts a WHERE a.id = ANY($1::text[])))
        ORDER BY u.account_id, u.month, u.connector_id, u.tool
       ON CONFLICT (account_id, month, connector_id, tool) DO UPDATE
          SET calls = usage.calls + excluded.calls, cost_units = usage.cost_units + excluded.cost_units`,
      [
        ordered.map((r) => r.accountId),
        ordered.map((r) => r.month),
        ordered.map((r) => r.connectorId),
        ordered.map((r) => r.tool),
        ordered.map((r) => r.calls),
        ordered.map((r) => r.costUnits),
        ...(batched ? [batchId] : []),
        ...(settle ? [settledBatchIds] : []),
      ],
    );
  }

  async getUsage(accountId: string, month: string): Promise<UsageRow[]> {
    const { rows } = await this.#db.query<UsageDbRow>(
      `SELECT account_id, month, connector_id, tool, calls, cost_units FROM usage
        WHERE account_id = $1 AND month = $2 ORDER BY connector_id, tool`,
      [accountId, month],
    );
    return rows.map(toUsage);
  }

  async getMonthCostUnits(accountId: string, month: string): Promise<number> {
    const { rows } = await this.#db.query<{ total: number | string }>(
      'SELECT coalesce(sum(cost_units), 0) AS total FROM usage WHERE account_id = $1 AND month = $2',
      [accountId, month],
    );
    return num(first(rows, 'getMonthCostUnits').total);
  }

  async getMonthCostUnitsOf(accountIds: readonly string[], month: string): Promise<Map<string, number>> {
    const totals = new Map<string, number>(accountIds.map((id) => [id, 0]));
    if (accountIds.length === 0) return totals;
    const { rows } = await this.#db.query<{ account_id: string; total: number | string }>(
      'SELECT account_id, sum(cost_units) AS total FROM usage WHERE account_id = ANY($1::text[]) AND month = $2 ' +
        'GROUP BY account_id',
      [[...accountIds], month],
    );
    for (const r of rows) totals.set(r.account_id, num(r.total));
    return totals;
  }
}

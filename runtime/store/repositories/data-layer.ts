// The opt-in data layer: first-seen records of a connection's items.
import type { SqlClient } from '../sql-client.ts';
import type { DataLayerRepository, DataLayerState, SeenItem } from '../store.ts';
import { type DataLayerRow, date, type SeenItemRow, StoreError, toDataLayer, translate } from './rows.ts';

const DATA_LAYER_SELECT = `SELECT d.account_id, d.instance_id, d.enabled_at, d.baseline_at,
       (SELECT count(*) FROM data_layer_items i WHERE i.account_id = d.account_id AND i.instance_id = d.instance_id) AS
         item_count
  FROM data_layers d WHERE d.account_id = $1 AND d.instance_id = $2`;

export class SqlDataLayer implements DataLayerRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async enableDataLayer(accountId: string, instanceId: string, at: Date): Promise<DataLayerState> {
    try {
      await this.#db.query(
        'INSERT INTO data_layers (account_id, instance_id, enabled_at) VALUES ($1, $2, $3) ON CONFLICT ' +
          '(account_id, instance_id) DO NOTHING',
        [accountId, instanceId, at],
      );
    } catch (err) {
      translate(err, `Data layer of ${accountId}/${instanceId}`);
    }
    const state = await this.getDataLayer(accountId, instanceId);
    if (state === null)
      throw new StoreError('not_found', `Data layer of ${accountId}/${instanceId} was deleted meanwhile.`);
    return state;
  }

  async disableDataLayer(accountId: string, instanceId: string): Promise<boolean> {
    // The records go with it (ON DELETE CASCADE).
    const { rows } = await this.#db.query<{ instance_id: string }>(
      'DELETE FROM data_layers WHERE account_id = $1 AND instance_id = $2 RETURNING instance_id',
      [accountId, instanceId],
    );
    return rows.length > 0;
  }

  async getDataLayer(accountId: string, instanceId: string): Promise<DataLayerState | null> {
    const { rows } = await this.#db.query<DataLayerRow>(DATA_LAYER_SELECT, [accountId, instanceId]);
    return rows[0] === undefined ? null : toDataLayer(rows[0]);
  }

  async recordSeenItems(
    accountId: string,
    instanceId: string,
    keys: readonly string[],
    at: Date,
  ): Promise<SeenItem[] | null> {
    const unique = [...new Set(keys)];
    return this.#db.transaction(async (tx) => {
      // The row lock serialises concurrent syncs of one connection, so exactly one of them takes
      // the baseline and a key is never recorded twice with different times.
      const { rows } = await tx.query<{ enabled_at: Date; baseline_at: Date | null }>(
        'SELECT enabled_at, baseline_at FROM data_layers WHERE account_id = $1 AND instance_id = $2 FOR UPDATE',
        [accountId, instanceId],
      );
      const layer = rows[0];
      if (layer === undefined) return null;
      const baseline = layer.baseline_at === null;
      if (unique.length > 0) {
        await tx.query(
          `INSERT INTO data_layer_items (account_id, instance_id, item_key, first_seen_at, baseline)
           SELECT $1::text, $2::text, k, $3::timestamptz, $4::boolean FROM unnest($5::text[]) AS k
           ON CONFLICT (account_id, instance_id, item_key) DO NOTHING`,
          [accountId, instanceId, baseline ? layer.enabled_at : at, baseline, unique],
        );
      }
      if (baseline)
        await tx.query('UPDATE data_layers SET baseline_at = $3 WHERE account_id = $1 AND instance_id = $2', [
          accountId,
          instanceId,
          at,
        ]);
      if (unique.length === 0) return [];
      const seen = await tx.query<SeenItemRow>(
        `SELECT item_key, first_seen_at, baseline FROM data_layer_items
          WHERE account_id = $1 AND instance_id = $2 AND item_key = ANY($3::text[])`,
        [accountId, instanceId, unique],
      );
      return seen.rows.map((r) => ({ key: r.item_key, firstSeenAt: date(r.first_seen_at), baseline: r.baseline }));
    });
  }
}

// Notices mailed to an account once across replicas (migration 16, `mail_notices`).
import type { SqlClient } from '../sql-client.ts';
import type { NoticesRepository } from '../store.ts';

export class SqlNotices implements NoticesRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async claimNotice(accountId: string, notice: string): Promise<boolean> {
    const { rows } = await this.#db.query<{ notice: string }>(
      'INSERT INTO mail_notices (account_id, notice) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING notice',
      [accountId, notice],
    );
    return rows.length > 0;
  }
}

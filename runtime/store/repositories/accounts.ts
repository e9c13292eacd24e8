// Accounts, with their subscriptions (which connectors an account has taken).
import type { SqlClient } from '../sql-client.ts';
import type { Account, AccountsRepository, FairUseMode } from '../store.ts';
import {
  ACCOUNT_COLUMNS,
  type AccountRow,
  assertCount,
  first,
  newId,
  StoreError,
  toAccount,
  translate,
} from './rows.ts';

export class SqlAccounts implements AccountsRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async createAccount(input: { id?: string; name: string }): Promise<Account> {
    try {
      const { rows } = await this.#db.query<AccountRow>(
        `INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING ${ACCOUNT_COLUMNS}`,
        [input.id ?? newId('acc_'), input.name],
      );
      return toAccount(first(rows, 'createAccount'));
    } catch (err) {
      translate(err, `Account ${input.id ?? ''}`.trim());
    }
  }

  async getAccount(id: string): Promise<Account | null> {
    const { rows } = await this.#db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
    return rows[0] === undefined ? null : toAccount(rows[0]);
  }

  async listAccounts(): Promise<Account[]> {
    const { rows } = await this.#db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`,
    );
    return rows.map(toAccount);
  }

  async setFairUse(accountId: string, settings: { mode?: FairUseMode; quota?: number | null }): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [accountId];
    if (settings.mode !== undefined) {
      params.push(settings.mode);
      sets.push(`fair_use_mode = $${params.length}`);
    }
    if (settings.quota !== undefined) {
      if (settings.quota !== null) assertCount(settings.quota, 'Fair-use quota');
      params.push(settings.quota);
      sets.push(`fair_use_quota = $${params.length}`);
    }
    const sql =
      sets.length === 0
        ? 'SELECT id FROM accounts WHERE id = $1'
        : `UPDATE accounts SET ${sets.join(', ')} WHERE id = $1 RETURNING id`;
    const { rows } = await this.#db.query<{ id: string }>(sql, params);
    if (rows.length === 0) throw new StoreError('not_found', `Account ${accountId} does not exist.`);
  }

  async deleteAccount(id: string): Promise<void> {
    // Users, tokens, subscriptions, seats, connections, usage and connect links go with it
    // (ON DELETE CASCADE).
    await this.#db.query('DELETE FROM accounts WHERE id = $1', [id]);
  }

  async setSubscription(accountId: string, connectorKey: string, subscribed: boolean): Promise<void> {
    try {
      await this.#db.query(
        subscribed
          ? 'INSERT INTO subscriptions (account_id, connector_key) VALUES ($1, $2) ON CONFLICT DO NOTHING'
          : 'DELETE FROM subscriptions WHERE account_id = $1 AND connector_key = $2',
        [accountId, connectorKey],
      );
    } catch (err) {
      translate(err, `Subscription of ${accountId}`);
    }
  }

  async listSubscriptions(accountId: string): Promise<string[]> {
    const { rows } = await this.#db.query<{ connector_key: string }>(
      'SELECT connector_key FROM subscriptions WHERE account_id = $1 ORDER BY connector_key',
      [accountId],
    );
    return rows.map((r) => r.connector_key);
  }
}

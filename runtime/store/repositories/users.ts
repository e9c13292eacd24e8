// Users of an account: terms, role and seats.
import type { SqlClient } from '../sql-client.ts';
import type { RemovedUser, User, UserRole, UsersRepository } from '../store.ts';
import { first, newId, StoreError, toUser, translate, USER_COLUMNS, type UserRow } from './rows.ts';

export class SqlUsers implements UsersRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async createUser(input: {
    id?: string;
    accountId: string;
    email: string;
    name: string;
    role?: UserRole;
  }): Promise<User> {
    try {
      const { rows } = await this.#db.query<UserRow>(
        `INSERT INTO users (id, account_id, email, name, role) VALUES ($1, $2, $3, $4, $5) RETURNING ${USER_COLUMNS}`,
        [input.id ?? newId('usr_'), input.accountId, input.email, input.name, input.role ?? 'member'],
      );
      return toUser(first(rows, 'createUser'));
    } catch (err) {
      translate(err, `User ${input.email}`);
    }
  }

  async getUser(id: string): Promise<User | null> {
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
    return rows[0] === undefined ? null : toUser(rows[0]);
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`, [
      email,
    ]);
    return rows[0] === undefined ? null : toUser(rows[0]);
  }

  async listUsers(accountId: string): Promise<User[]> {
    const { rows } = await this.#db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    );
    return rows.map(toUser);
  }

  async acceptTerms(userId: string, at: Date): Promise<void> {
    const { rows } = await this.#db.query<{ id: string }>(
      'UPDATE users SET terms_accepted_at = $2 WHERE id = $1 RETURNING id',
      [userId, at],
    );
    if (rows.length === 0) throw new StoreError('not_found', `User ${userId} does not exist.`);
  }

  async setUserRole(userId: string, role: UserRole): Promise<void> {
    const { rows } = await this.#db.query<{ id: string }>('UPDATE users SET role = $2 WHERE id = $1 RETURNING id', [
      userId,
      role,
    ]);
    if (rows.length === 0) throw new StoreError('not_found', `User ${userId} does not exist.`);
  }

  async setSeat(userId: string, connectorKey: string, seated: boolean): Promise<void> {
    try {
      await this.#db.query(
        seated
          ? 'INSERT INTO seats (user_id, connector_key) VALUES ($1, $2) ON CONFLICT DO NOTHING'
          : 'DELETE FROM seats WHERE user_id = $1 AND connector_key = $2',
        [userId, connectorKey],
      );
    } catch (err) {
      translate(err, `Seat of ${userId}`);
    }
  }

  async listSeats(userId: string): Promise<string[]> {
    const { rows } = await this.#db.query<{ connector_key: string }>(
      'SELECT connector_key FROM seats WHERE user_id = $1 ORDER BY connector_key',
      [userId],
    );
    return rows.map((r) => r.connector_key);
  }

  async deleteUser(userId: string): Promise<RemovedUser | null> {
    // One statement: the counts and the delete see one snapshot (docs/decisions/portal.md,
    // 'Users are removed at once; a forgotten password is reset by mail').
    const { rows } = await this.#db.query<{
      sessions: number | string;
      tokens: number | string;
      grants: number | string;
      seats: number | string;
    }>(
      `WITH s AS (SELECT count(*) AS n FROM portal_sessions WHERE user_id = $1),
            t AS (SELECT count(*) AS n FROM tokens WHERE user_id = $1 AND revoked_at IS NULL),
            g AS (SELECT count(*) AS n FROM mcp_grants WHERE user_id = $1 AND revoked_at IS NULL),
            e AS (SELECT count(*) AS n FROM seats WHERE user_id = $1)
       DELETE FROM users WHERE id = $1
       RETURNING (SELECT n FROM s) AS sessions, (SELECT n FROM t) AS tokens, (SELECT n FROM g) AS grants,
                 (SELECT n FROM e) AS seats`,
      [userId],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      sessions: Number(row.sessions),
      tokens: Number(row.tokens),
      grants: Number(row.grants),
      seats: Number(row.seats),
    };
  }
}

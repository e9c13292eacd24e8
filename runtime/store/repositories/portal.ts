// The portal's sign-in: passwords, sessions, sign-in failures and set-password links.
import type { SqlClient } from '../sql-client.ts';
import type { Account, PasswordLinkOutcome, PortalRepository, PortalSession, User } from '../store.ts';
import {
  ACCOUNT_COLUMNS,
  type AccountRow,
  date,
  num,
  prefixed,
  toAccount,
  toUser,
  translate,
  unprefixed,
  USER_COLUMNS,
  type UserRow,
} from './rows.ts';

export class SqlPortal implements PortalRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO user_passwords (user_id, password_hash) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = now()`,
        [userId, passwordHash],
      );
    } catch (err) {
      translate(err, `Password of ${userId}`);
    }
  }

  async getPasswordHash(userId: string): Promise<string | null> {
    const { rows } = await this.#db.query<{ password_hash: string }>(
      'SELECT password_hash FROM user_passwords WHERE user_id = $1',
      [userId],
    );
    return rows[0]?.password_hash ?? null;
  }

  async createSession(session: { idHash: string; userId: string; expiresAt: Date; sourceIp: string }): Promise<void> {
    try {
      await this.#db.query(
        'INSERT INTO portal_sessions (id_hash, user_id, expires_at, source_ip) VALUES ($1, $2, $3, $4)',
        [session.idHash, session.userId, session.expiresAt, session.sourceIp],
      );
    } catch (err) {
      translate(err, 'Session');
    }
  }

  async findSession(
    idHash: string,
    now: Date,
  ): Promise<{ session: PortalSession; user: User; account: Account } | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT s.id_hash AS s_id_hash, s.user_id AS s_user_id, s.created_at AS s_created_at,
              s.expires_at AS s_expires_at, s.source_ip AS s_source_ip,
              ${prefixed('u', USER_COLUMNS)}, ${prefixed('a', ACCOUNT_COLUMNS)}
         FROM portal_sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
        WHERE s.id_hash = $1 AND s.expires_at > $2`,
      [idHash, now],
    );
    const row = rows[0];
    if (row === undefined) return null;
    const s = unprefixed<{ id_hash: string; user_id: string; created_at: Date; expires_at: Date; source_ip: string }>(
      row,
      's',
    );
    return {
      session: {
        idHash: s.id_hash,
        userId: s.user_id,
        createdAt: date(s.created_at),
        expiresAt: date(s.expires_at),
        sourceIp: s.source_ip,
      },
      user: toUser(unprefixed<UserRow>(row, 'u')),
      account: toAccount(unprefixed<AccountRow>(row, 'a')),
    };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.#db.query('DELETE FROM portal_sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    const { rows } = await this.#db.query<{ id_hash: string }>(
      'DELETE FROM portal_sessions WHERE user_id = $1 RETURNING id_hash',
      [userId],
    );
    return rows.length;
  }

  async purgePortal(before: Date): Promise<void> {
    await this.#db.query('DELETE FROM portal_sessions WHERE expires_at < $1', [before]);
    await this.#db.query('DELETE FROM sign_in_failures WHERE at < $1', [before]);
    await this.#db.query('DELETE FROM password_links WHERE expires_at < $1', [before]);
  }

  async recordSignInFailure(scopeKeys: readonly string[], at: Date): Promise<void> {
    if (scopeKeys.length === 0) return;
    await this.#db.query(
      'INSERT INTO sign_in_failures (scope_key, at) SELECT k, $2::timestamptz FROM unnest($1::text[]) AS k',
      [[...scopeKeys], at],
    );
  }

  async countSignInFailures(scopeKeys: readonly string[], since: Date): Promise<Map<string, number>> {
    const counts = new Map(scopeKeys.map((k) => [k, 0]));
    if (scopeKeys.length === 0) return counts;
    const { rows } = await this.#db.query<{ scope_key: string; n: number | string }>(
      'SELECT scope_key, count(*) AS n FROM sign_in_failures WHERE scope_key = ANY($1::text[]) AND at > $2 GROUP ' +
        'BY scope_key',
      [[...scopeKeys], since],
    );
    for (const r of rows) counts.set(r.scope_key, num(r.n));
    return counts;
  }

  async createPasswordLink(link: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void> {
    try {
      await this.#db.query('INSERT INTO password_links (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [
        link.tokenHash,
        link.userId,
        link.expiresAt,
      ]);
    } catch (err) {
      translate(err, 'Password link');
    }
  }

  async consumePasswordLink(tokenHash: string, now: Date): Promise<PasswordLinkOutcome> {
    const { rows } = await this.#db.query<{ user_id: string }>(
      'UPDATE password_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 ' +
        'RETURNING user_id',
      [tokenHash, now],
    );
    if (rows[0]) {
      // Using one link makes the user's other links void: an older invitation or reset cannot set
      // the password again (docs/decisions/portal.md, 'Users are removed at once; a forgotten
      // password is reset by mail').
      await this.#db.query('UPDATE password_links SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [
        rows[0].user_id,
        now,
      ]);
      return { outcome: 'ok', userId: rows[0].user_id };
    }
    const found = await this.#db.query<{ used_at: Date | null }>(
      'SELECT used_at FROM password_links WHERE token_hash = $1',
      [tokenHash],
    );
    const row = found.rows[0];
    return { outcome: row === undefined ? 'missing' : row.used_at !== null ? 'used' : 'expired' };
  }
}

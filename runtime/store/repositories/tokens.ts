// Access tokens (as hashes) and the user and account behind one.
import type { SqlClient } from '../sql-client.ts';
import type { Account, TokenRecord, TokenScope, TokensRepository, User } from '../store.ts';
import {
  ACCOUNT_COLUMNS,
  type AccountRow,
  first,
  newId,
  prefixed,
  StoreError,
  toAccount,
  TOKEN_COLUMNS,
  type TokenRow,
  toToken,
  toUser,
  translate,
  unprefixed,
  USER_COLUMNS,
  type UserRow,
} from './rows.ts';

export class SqlTokens implements TokensRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async createToken(input: {
    id?: string;
    userId: string;
    label: string;
    tokenHash: string;
    scope?: TokenScope | null;
  }): Promise<TokenRecord> {
    try {
      const { rows } = await this.#db.query<TokenRow>(
        `INSERT INTO tokens (id, user_id, label, token_hash, scope) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${TOKEN_COLUMNS}`,
        [
          input.id ?? newId('tok_'),
          input.userId,
          input.label,
          input.tokenHash,
          input.scope ? JSON.stringify(input.scope) : null,
        ],
      );
      return toToken(first(rows, 'createToken'));
    } catch (err) {
      translate(err, 'Token');
    }
  }

  async findByTokenHash(tokenHash: string): Promise<{ token: TokenRecord; user: User; account: Account } | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT ${prefixed('t', TOKEN_COLUMNS)}, ${prefixed('u', USER_COLUMNS)}, ${prefixed('a', ACCOUNT_COLUMNS)}
         FROM tokens t JOIN users u ON u.id = t.user_id JOIN accounts a ON a.id = u.account_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
      [tokenHash],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      token: toToken(unprefixed<TokenRow>(row, 't')),
      user: toUser(unprefixed<UserRow>(row, 'u')),
      account: toAccount(unprefixed<AccountRow>(row, 'a')),
    };
  }

  async listTokens(userId: string): Promise<TokenRecord[]> {
    const { rows } = await this.#db.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return rows.map(toToken);
  }

  async revokeToken(tokenId: string, at: Date): Promise<void> {
    // Revoking twice keeps the first time.
    const { rows } = await this.#db.query<{ id: string }>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING id',
      [tokenId, at],
    );
    if (rows.length === 0) throw new StoreError('not_found', `Token ${tokenId} does not exist.`);
  }

  async listAccountTokens(accountId: string): Promise<TokenRecord[]> {
    const { rows } = await this.#db.query<TokenRow>(
      `SELECT ${prefixed('t', TOKEN_COLUMNS).replace(/ AS t_/g, ' AS ')} FROM tokens t JOIN users u ON u.id = ` +
        't.user_id WHERE u.account_id = $1 ORDER BY t.created_at DESC, t.id',
      [accountId],
    );
    return rows.map(toToken);
  }

  async getTokenOwner(tokenId: string): Promise<{ userId: string; accountId: string } | null> {
    const { rows } = await this.#db.query<{ user_id: string; account_id: string }>(
      'SELECT t.user_id, u.account_id FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1',
      [tokenId],
    );
    return rows[0] ? { userId: rows[0].user_id, accountId: rows[0].account_id } : null;
  }
}

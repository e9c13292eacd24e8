// Connect links and the OAuth authorize states that hang off them (single use, atomically).
import type { SqlClient } from '../sql-client.ts';
import type { ConnectLink, ConnectLinkOutcome, LinksRepository, OAuthState, OAuthStateOutcome } from '../store.ts';
import { OAUTH_STATE_COLUMNS, type OAuthStateRow, toOAuthState, translate } from './rows.ts';

export class SqlLinks implements LinksRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async createConnectLink(link: ConnectLink): Promise<void> {
    try {
      await this.#db.query(
        'INSERT INTO connect_links (jti, account_id, user_id, instance_id, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [link.jti, link.accountId, link.userId, link.instanceId, link.expiresAt],
      );
    } catch (err) {
      translate(err, `Connect link ${link.jti}`);
    }
  }

  async consumeConnectLink(jti: string, now: Date): Promise<ConnectLinkOutcome> {
    // The UPDATE is the atomic step: of concurrent callers, exactly one sees a row.
    const { rows } = await this.#db.query<{ jti: string }>(
      'UPDATE connect_links SET used_at = $2 WHERE jti = $1 AND used_at IS NULL AND expires_at > $2 RETURNING jti',
      [jti, now],
    );
    if (rows.length > 0) return 'ok';
    // A separate statement (own snapshot) so that a link consumed concurrently reads as used.
    const state = await this.#db.query<{ used: boolean }>(
      'SELECT used_at IS NOT NULL AS used FROM connect_links WHERE jti = $1',
      [jti],
    );
    const row = state.rows[0];
    if (row === undefined) return 'missing';
    return row.used ? 'used' : 'expired';
  }

  async connectLinkState(jti: string, now: Date): Promise<ConnectLinkOutcome> {
    const { rows } = await this.#db.query<{ used: boolean; expired: boolean }>(
      'SELECT used_at IS NOT NULL AS used, expires_at <= $2 AS expired FROM connect_links WHERE jti = $1',
      [jti, now],
    );
    const row = rows[0];
    if (row === undefined) return 'missing';
    return row.used ? 'used' : row.expired ? 'expired' : 'ok';
  }

  async purgeConnectLinks(before: Date): Promise<number> {
    const { rows } = await this.#db.query<{ n: string | number }>(
      'WITH gone AS (DELETE FROM connect_links WHERE expires_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone',
      [before],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async createOAuthState(state: OAuthState): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO oauth_states (${OAUTH_STATE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          state.stateHash,
          state.accountId,
          state.userId,
          state.instanceId,
          state.connectorKey,
          state.linkJti,
          state.verifierSealed,
          state.browserHash,
          state.expiresAt,
        ],
      );
    } catch (err) {
      translate(err, 'OAuth state');
    }
  }

  async consumeOAuthState(stateHash: string, now: Date): Promise<OAuthStateOutcome> {
    return this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<OAuthStateRow>(
        'UPDATE oauth_states SET used_at = $2 WHERE state_hash = $1 AND used_at IS NULL AND expires_at > $2 ' +
          `RETURNING ${OAUTH_STATE_COLUMNS}`,
        [stateHash, now],
      );
      const row = rows[0];
      if (row === undefined) {
        const seen = await tx.query<{ used: boolean }>(
          'SELECT used_at IS NOT NULL AS used FROM oauth_states WHERE state_hash = $1',
          [stateHash],
        );
        const s = seen.rows[0];
        return { outcome: s === undefined ? 'missing' : s.used ? 'used' : 'expired' };
      }
      // The connect link is single-use for storing a grant: a second flow from it stores nothing.
      const link = await tx.query<{ jti: string }>(
        'UPDATE connect_links SET used_at = $2 WHERE jti = $1 AND used_at IS NULL RETURNING jti',
        [row.link_jti, now],
      );
      if (link.rows.length === 0) return { outcome: 'used' };
      return { outcome: 'ok', state: toOAuthState(row) };
    });
  }

  async purgeOAuthStates(before: Date): Promise<number> {
    const { rows } = await this.#db.query<{ n: string | number }>(
      'WITH gone AS (DELETE FROM oauth_states WHERE expires_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone',
      [before],
    );
    return Number(rows[0]?.n ?? 0);
  }
}

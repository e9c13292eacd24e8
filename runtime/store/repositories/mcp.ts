// MCP authorization: registered clients, grants, and their codes and tokens (as hashes).
import type { SqlClient } from '../sql-client.ts';
import type { McpClient, McpCode, McpGrant, McpRepository, McpSingleUse, McpTokenRow, TokenScope } from '../store.ts';
import { date, translate } from './rows.ts';

export class SqlMcp implements McpRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async registerMcpClient(client: Omit<McpClient, 'createdAt'> & { source: string }): Promise<void> {
    try {
      await this.#db.query(
        'INSERT INTO mcp_clients (client_id, client_name, redirect_uris, metadata, source) VALUES ($1, $2, $3, $4, $5)',
        [client.clientId, client.clientName, JSON.stringify(client.redirectUris), client.metadata, client.source],
      );
    } catch (err) {
      translate(err, 'Client');
    }
  }

  async getMcpClient(clientId: string): Promise<McpClient | null> {
    const { rows } = await this.#db.query<{
      client_id: string;
      client_name: string;
      redirect_uris: string;
      metadata: string;
      created_at: Date;
    }>('SELECT client_id, client_name, redirect_uris, metadata, created_at FROM mcp_clients WHERE client_id = $1', [
      clientId,
    ]);
    const r = rows[0];
    return r
      ? {
          clientId: r.client_id,
          clientName: r.client_name,
          redirectUris: JSON.parse(r.redirect_uris) as string[],
          metadata: r.metadata,
          createdAt: date(r.created_at),
        }
      : null;
  }

  async createMcpGrant(
    grant: Omit<McpGrant, 'createdAt' | 'revokedAt' | 'scope'> & { scope?: TokenScope | null },
    code: { codeHash: string; redirectUri: string; codeChallenge: string; expiresAt: Date },
  ): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.query(
        'INSERT INTO mcp_grants (id, client_id, client_name, user_id, account_id, endpoints, scope) VALUES ($1, ' +
          '$2, $3, $4, $5, $6, $7)',
        [
          grant.id,
          grant.clientId,
          grant.clientName,
          grant.userId,
          grant.accountId,
          JSON.stringify(grant.endpoints),
          grant.scope ? JSON.stringify(grant.scope) : null,
        ],
      );
      await tx.query(
        'INSERT INTO mcp_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at) VALUES ($1, $2, $3,' +
          ' $4, $5)',
        [code.codeHash, grant.id, code.redirectUri, code.codeChallenge, code.expiresAt],
      );
    });
  }

  async findMcpCode(codeHash: string): Promise<McpCode | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT c.redirect_uri, c.code_challenge, c.expires_at AS c_expires_at, c.used_at AS c_used_at, ${GRANT_SELECT}` +
        ' FROM mcp_codes c JOIN mcp_grants g ON g.id = c.grant_id WHERE c.code_hash = $1',
      [codeHash],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      grant: toGrant(r),
      redirectUri: String(r.redirect_uri),
      codeChallenge: String(r.code_challenge),
      expiresAt: date(r.c_expires_at as Date),
      usedAt: r.c_used_at ? date(r.c_used_at as Date) : null,
    };
  }

  async consumeMcpCode(codeHash: string, now: Date): Promise<McpSingleUse> {
    return this.#consumeOnce('mcp_codes', 'code_hash', codeHash, '', now);
  }

  async consumeMcpRefreshToken(tokenHash: string, now: Date): Promise<McpSingleUse> {
    return this.#consumeOnce('mcp_tokens', 'token_hash', tokenHash, " AND x.kind = 'refresh'", now);
  }

  /** Marks a single-use row used when it is unused, unexpired and its grant live; else tells why not. */
  async #consumeOnce(
    table: 'mcp_codes' | 'mcp_tokens',
    key: string,
    value: string,
    extra: string,
    now: Date,
  ): Promise<McpSingleUse> {
    const { rows } = await this.#db.query<{ grant_id: string }>(
      `UPDATE ${table} x SET used_at = $2 FROM mcp_grants g WHERE x.${key} = $1${extra} AND g.id = x.grant_id AND ` +
        'x.used_at IS NULL AND x.expires_at > $2 AND g.revoked_at IS NULL RETURNING x.grant_id',
      [value, now],
    );
    const found = await this.#db.query<Record<string, unknown>>(
      `SELECT x.used_at AS x_used_at, ${GRANT_SELECT} FROM ${table} x JOIN mcp_grants g ON g.id = x.grant_id ` +
        `WHERE x.${key} = $1${extra}`,
      [value],
    );
    const r = found.rows[0];
    if (!r) return { outcome: 'missing' };
    const grant = toGrant(r);
    if (rows[0]) return { outcome: 'ok', grant };
    if (r.x_used_at) return { outcome: 'used', grant };
    return { outcome: 'expired' };
  }

  async storeMcpTokens(grantId: string, tokens: readonly McpTokenRow[]): Promise<void> {
    await this.#db.transaction(async (tx) => {
      for (const t of tokens) {
        await tx.query('INSERT INTO mcp_tokens (token_hash, grant_id, kind, expires_at) VALUES ($1, $2, $3, $4)', [
          t.tokenHash,
          grantId,
          t.kind,
          t.expiresAt,
        ]);
      }
    });
  }

  async findMcpAccessToken(tokenHash: string): Promise<{ grant: McpGrant; expiresAt: Date } | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT t.expires_at AS t_expires_at, ${GRANT_SELECT} FROM mcp_tokens t JOIN mcp_grants g ON g.id = ` +
        "t.grant_id WHERE t.token_hash = $1 AND t.kind = 'access' AND g.revoked_at IS NULL",
      [tokenHash],
    );
    const r = rows[0];
    return r ? { grant: toGrant(r), expiresAt: date(r.t_expires_at as Date) } : null;
  }

  async findMcpTokenGrant(tokenHash: string): Promise<McpGrant | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT ${GRANT_SELECT} FROM mcp_tokens t JOIN mcp_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ? toGrant(rows[0]) : null;
  }

  async revokeMcpGrant(grantId: string, at: Date): Promise<boolean> {
    const { rows } = await this.#db.query<{ id: string }>(
      'UPDATE mcp_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
      [grantId, at],
    );
    return rows.length > 0;
  }

  async getMcpGrant(grantId: string): Promise<McpGrant | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT ${GRANT_SELECT} FROM mcp_grants g WHERE g.id = $1`,
      [grantId],
    );
    return rows[0] ? toGrant(rows[0]) : null;
  }

  async listMcpGrants(accountId?: string): Promise<McpGrant[]> {
    const { rows } =
      accountId === undefined
        ? await this.#db.query<Record<string, unknown>>(
            `SELECT ${GRANT_SELECT} FROM mcp_grants g ORDER BY g.created_at DESC, g.id`,
          )
        : await this.#db.query<Record<string, unknown>>(
            `SELECT ${GRANT_SELECT} FROM mcp_grants g WHERE g.account_id = $1 ORDER BY g.created_at DESC, g.id`,
            [accountId],
          );
    return rows.map(toGrant);
  }

  async purgeMcpAuthorization(before: Date): Promise<number> {
    const codes = await this.#db.query<{ code_hash: string }>(
      'DELETE FROM mcp_codes WHERE expires_at < $1 RETURNING code_hash',
      [before],
    );
    const tokens = await this.#db.query<{ token_hash: string }>(
      'DELETE FROM mcp_tokens WHERE expires_at < $1 RETURNING token_hash',
      [before],
    );
    return codes.rows.length + tokens.rows.length;
  }
}

const GRANT_SELECT =
  'g.id AS g_id, g.client_id AS g_client_id, g.client_name AS g_client_name, g.user_id AS g_user_id, g.account_id ' +
  'AS g_account_id, g.endpoints AS g_endpoints, g.created_at AS g_created_at, g.revoked_at AS g_revoked_at, ' +
  'g.scope AS g_scope';

function toGrant(r: Record<string, unknown>): McpGrant {
  return {
    id: String(r.g_id),
    clientId: String(r.g_client_id),
    clientName: String(r.g_client_name),
    userId: String(r.g_user_id),
    accountId: String(r.g_account_id),
    endpoints: JSON.parse(String(r.g_endpoints)) as string[],
    scope: typeof r.g_scope === 'string' ? (JSON.parse(r.g_scope) as TokenScope) : null,
    createdAt: date(r.g_created_at as Date),
    revokedAt: r.g_revoked_at ? date(r.g_revoked_at as Date) : null,
  };
}

// `PlatformStore` over SQL: the same statements for the embedded PostgreSQL and a server.
import { randomBytes } from 'node:crypto';
import { migrate, pendingMigrations } from './migrations.ts';
import type { SqlClient } from './sql-client.ts';
import type {
  Account,
  AuditEntry,
  AuditRecord,
  ConnectLink,
  ConnectLinkOutcome,
  Connection,
  DataLayerState,
  FairUseMode,
  LockedConnectionWrite,
  McpClient,
  McpCode,
  McpGrant,
  McpSingleUse,
  McpTokenRow,
  OAuthState,
  OAuthStateOutcome,
  PasswordLinkOutcome,
  PlatformChanges,
  PlatformSnapshot,
  PlatformStore,
  PortalSession,
  SeenItem,
  TokenRecord,
  UsageRow,
  User,
  UserRole,
} from './store.ts';

/** A write the data refuses: a duplicate (`conflict`) or a reference to nothing (`not_found`). */
export class StoreError extends Error {
  readonly code: 'conflict' | 'not_found';
  constructor(code: 'conflict' | 'not_found', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** `<prefix>` + 20 lowercase base32 characters (100 random bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(13);
  let out = '';
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 20) {
      bits -= 5;
      out += BASE32.charAt((value >>> bits) & 31);
    }
    value &= (1 << bits) - 1;
  }
  return prefix + out;
}

// --- rows and mapping -----------------------------------------------------------------------------

/** How often a usage flush also prunes batch ids older than 30 days. */
const USAGE_BATCH_PRUNE_EVERY_MS = 3600_000;

const ACCOUNT_COLUMNS = 'id, name, fair_use_mode, fair_use_quota, created_at';
interface AccountRow {
  id: string;
  name: string;
  fair_use_mode: FairUseMode;
  fair_use_quota: number | string | null;
  created_at: Date;
}

const USER_COLUMNS = 'id, account_id, email, name, role, terms_accepted_at, created_at';
interface UserRow {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: UserRole;
  terms_accepted_at: Date | null;
  created_at: Date;
}

const TOKEN_COLUMNS = 'id, user_id, label, token_hash, created_at, revoked_at';
interface TokenRow {
  id: string;
  user_id: string;
  label: string;
  token_hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

const CONNECTION_COLUMNS = 'account_id, instance_id, connector_key, ciphertext, key_version, created_at, updated_at, reconnect_required_at';
interface ConnectionRow {
  account_id: string;
  instance_id: string;
  connector_key: string;
  ciphertext: string;
  key_version: number;
  created_at: Date;
  updated_at: Date;
  reconnect_required_at: Date | null;
}

const OAUTH_STATE_COLUMNS = 'state_hash, account_id, user_id, instance_id, connector_key, link_jti, verifier_sealed, browser_hash, expires_at';
interface OAuthStateRow {
  state_hash: string;
  account_id: string;
  user_id: string;
  instance_id: string;
  connector_key: string;
  link_jti: string;
  verifier_sealed: string;
  browser_hash: string;
  expires_at: Date;
}

interface UsageDbRow {
  account_id: string;
  month: string;
  connector_id: string;
  tool: string;
  calls: number | string;
  cost_units: number | string;
}

interface DataLayerRow {
  account_id: string;
  instance_id: string;
  enabled_at: Date;
  baseline_at: Date | null;
  item_count: number | string;
}

interface SeenItemRow {
  item_key: string;
  first_seen_at: Date;
  baseline: boolean;
}

function date(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

function dateOrNull(value: Date | string | null): Date | null {
  return value === null ? null : date(value);
}

/** bigint and numeric arrive as strings from `pg`, as numbers from PGlite. */
function num(value: number | string | bigint): number {
  return Number(value);
}

function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    name: r.name,
    fairUseMode: r.fair_use_mode,
    fairUseQuota: r.fair_use_quota === null ? null : num(r.fair_use_quota),
    createdAt: date(r.created_at),
  };
}

function toUser(r: UserRow): User {
  return {
    id: r.id,
    accountId: r.account_id,
    email: r.email,
    name: r.name,
    role: r.role,
    termsAcceptedAt: dateOrNull(r.terms_accepted_at),
    createdAt: date(r.created_at),
  };
}

function toToken(r: TokenRow): TokenRecord {
  return {
    id: r.id,
    userId: r.user_id,
    label: r.label,
    tokenHash: r.token_hash,
    createdAt: date(r.created_at),
    revokedAt: dateOrNull(r.revoked_at),
  };
}

function toConnection(r: ConnectionRow): Connection {
  return {
    accountId: r.account_id,
    instanceId: r.instance_id,
    connectorKey: r.connector_key,
    ciphertext: r.ciphertext,
    keyVersion: num(r.key_version),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    reconnectRequiredAt: dateOrNull(r.reconnect_required_at ?? null),
  };
}

function toOAuthState(r: OAuthStateRow): OAuthState {
  return {
    stateHash: r.state_hash,
    accountId: r.account_id,
    userId: r.user_id,
    instanceId: r.instance_id,
    connectorKey: r.connector_key,
    linkJti: r.link_jti,
    verifierSealed: r.verifier_sealed,
    browserHash: r.browser_hash,
    expiresAt: date(r.expires_at),
  };
}

function toUsage(r: UsageDbRow): UsageRow {
  return {
    accountId: r.account_id,
    month: r.month,
    connectorId: r.connector_id,
    tool: r.tool,
    calls: num(r.calls),
    costUnits: num(r.cost_units),
  };
}

function toDataLayer(r: DataLayerRow): DataLayerState {
  return {
    accountId: r.account_id,
    instanceId: r.instance_id,
    enabledAt: date(r.enabled_at),
    baselineAt: dateOrNull(r.baseline_at),
    itemCount: num(r.item_count),
  };
}

const DATA_LAYER_SELECT = `SELECT d.account_id, d.instance_id, d.enabled_at, d.baseline_at,
       (SELECT count(*) FROM data_layer_items i WHERE i.account_id = d.account_id AND i.instance_id = d.instance_id) AS item_count
  FROM data_layers d WHERE d.account_id = $1 AND d.instance_id = $2`;

/** Prefixes every column of a list, for joins: `t.id AS t_id, …`. */
function prefixed(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((c) => `${alias}.${c} AS ${alias}_${c}`)
    .join(', ');
}

function unprefixed<T>(row: Record<string, unknown>, alias: string): T {
  const out: Record<string, unknown> = {};
  const start = alias.length + 1;
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(`${alias}_`)) out[key.slice(start)] = value;
  }
  return out as T;
}

/** Turns PostgreSQL's unique and foreign-key violations into `StoreError`s. */
function translate(err: unknown, what: string): never {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '23505') throw new StoreError('conflict', `${what} already exists.`, { cause: err });
  if (code === '23503') throw new StoreError('not_found', `${what} refers to a record that does not exist.`, { cause: err });
  throw err;
}

/** Every column of a list qualified by a table alias (same names in the result): `c.id, c.name`. */
function qualified(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

/** Rows of one table, one statement (`columns` as a `, `-separated list). */
async function plainRows<T>(db: SqlClient, columns: string, table: string, where: string, order: string): Promise<{ rows: T[] }> {
  return db.query<T>(`SELECT ${columns} FROM ${table} ${where} ORDER BY ${order}`);
}

/**
 * The same rows aggregated into one JSON array of arrays by the database and parsed at once, then
 * named by `columns` (timestamps arrive as ISO strings, numbers as numbers: the row mappers take both).
 */
async function jsonRows<T>(db: SqlClient, columns: string, table: string, where: string, order: string): Promise<{ rows: T[] }> {
  const names = columns.split(', ');
  const { rows } = await db.query<{ j: string }>(`SELECT coalesce(json_agg(json_build_array(${columns}) ORDER BY ${order}), '[]')::text AS j FROM ${table} ${where}`);
  const arrays = JSON.parse(rows[0]?.j ?? '[]') as unknown[][];
  return {
    rows: arrays.map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
      return row as T;
    }),
  };
}

function first<T>(rows: T[], what: string): T {
  const row = rows[0];
  if (row === undefined) throw new Error(`${what}: no row returned.`);
  return row;
}

function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer.`);
}

// --- the store ------------------------------------------------------------------------------------

export class SqlPlatformStore implements PlatformStore {
  readonly kind: 'embedded' | 'postgres';
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
    this.kind = db.kind;
  }

  migrate(): Promise<void> {
    return migrate(this.#db);
  }

  close(): Promise<void> {
    return this.#db.close();
  }

  async ping(): Promise<void> {
    await this.#db.query('SELECT 1');
  }

  pendingMigrations(): Promise<number> {
    return pendingMigrations(this.#db);
  }

  // Accounts

  async createAccount(input: { id?: string; name: string }): Promise<Account> {
    try {
      const { rows } = await this.#db.query<AccountRow>(`INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING ${ACCOUNT_COLUMNS}`, [input.id ?? newId('acc_'), input.name]);
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
    const { rows } = await this.#db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`);
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
    const sql = sets.length === 0 ? 'SELECT id FROM accounts WHERE id = $1' : `UPDATE accounts SET ${sets.join(', ')} WHERE id = $1 RETURNING id`;
    const { rows } = await this.#db.query<{ id: string }>(sql, params);
    if (rows.length === 0) throw new StoreError('not_found', `Account ${accountId} does not exist.`);
  }

  async deleteAccount(id: string): Promise<void> {
    // Users, tokens, subscriptions, seats, connections, usage and connect links go with it
    // (ON DELETE CASCADE).
    await this.#db.query('DELETE FROM accounts WHERE id = $1', [id]);
  }

  // Users

  async createUser(input: { id?: string; accountId: string; email: string; name: string; role?: UserRole }): Promise<User> {
    try {
      const { rows } = await this.#db.query<UserRow>(`INSERT INTO users (id, account_id, email, name, role) VALUES ($1, $2, $3, $4, $5) RETURNING ${USER_COLUMNS}`, [
        input.id ?? newId('usr_'),
        input.accountId,
        input.email,
        input.name,
        input.role ?? 'member',
      ]);
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
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
    return rows[0] === undefined ? null : toUser(rows[0]);
  }

  async listUsers(accountId: string): Promise<User[]> {
    const { rows } = await this.#db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 ORDER BY created_at, id`, [accountId]);
    return rows.map(toUser);
  }

  async acceptTerms(userId: string, at: Date): Promise<void> {
    const { rows } = await this.#db.query<{ id: string }>('UPDATE users SET terms_accepted_at = $2 WHERE id = $1 RETURNING id', [userId, at]);
    if (rows.length === 0) throw new StoreError('not_found', `User ${userId} does not exist.`);
  }

  // Tokens

  async createToken(input: { id?: string; userId: string; label: string; tokenHash: string }): Promise<TokenRecord> {
    try {
      const { rows } = await this.#db.query<TokenRow>(`INSERT INTO tokens (id, user_id, label, token_hash) VALUES ($1, $2, $3, $4) RETURNING ${TOKEN_COLUMNS}`, [
        input.id ?? newId('tok_'),
        input.userId,
        input.label,
        input.tokenHash,
      ]);
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
    const { rows } = await this.#db.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
    return rows.map(toToken);
  }

  async revokeToken(tokenId: string, at: Date): Promise<void> {
    // Revoking twice keeps the first time.
    const { rows } = await this.#db.query<{ id: string }>('UPDATE tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING id', [tokenId, at]);
    if (rows.length === 0) throw new StoreError('not_found', `Token ${tokenId} does not exist.`);
  }

  // Subscriptions and seats (idempotent both ways)

  async setSubscription(accountId: string, connectorKey: string, subscribed: boolean): Promise<void> {
    try {
      await this.#db.query(
        subscribed ? 'INSERT INTO subscriptions (account_id, connector_key) VALUES ($1, $2) ON CONFLICT DO NOTHING' : 'DELETE FROM subscriptions WHERE account_id = $1 AND connector_key = $2',
        [accountId, connectorKey],
      );
    } catch (err) {
      translate(err, `Subscription of ${accountId}`);
    }
  }

  async listSubscriptions(accountId: string): Promise<string[]> {
    const { rows } = await this.#db.query<{ connector_key: string }>('SELECT connector_key FROM subscriptions WHERE account_id = $1 ORDER BY connector_key', [accountId]);
    return rows.map((r) => r.connector_key);
  }

  async setSeat(userId: string, connectorKey: string, seated: boolean): Promise<void> {
    try {
      await this.#db.query(seated ? 'INSERT INTO seats (user_id, connector_key) VALUES ($1, $2) ON CONFLICT DO NOTHING' : 'DELETE FROM seats WHERE user_id = $1 AND connector_key = $2', [
        userId,
        connectorKey,
      ]);
    } catch (err) {
      translate(err, `Seat of ${userId}`);
    }
  }

  async listSeats(userId: string): Promise<string[]> {
    const { rows } = await this.#db.query<{ connector_key: string }>('SELECT connector_key FROM seats WHERE user_id = $1 ORDER BY connector_key', [userId]);
    return rows.map((r) => r.connector_key);
  }

  // Connections

  async putConnection(input: { accountId: string; instanceId: string; connectorKey: string; ciphertext: string; keyVersion: number }): Promise<Connection> {
    try {
      const { rows } = await this.#db.query<ConnectionRow>(
        `INSERT INTO connections (account_id, instance_id, connector_key, ciphertext, key_version)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, instance_id) DO UPDATE
            SET connector_key = excluded.connector_key, ciphertext = excluded.ciphertext,
                key_version = excluded.key_version, updated_at = now(), reconnect_required_at = NULL
         RETURNING ${CONNECTION_COLUMNS}`,
        [input.accountId, input.instanceId, input.connectorKey, input.ciphertext, input.keyVersion],
      );
      return toConnection(first(rows, 'putConnection'));
    } catch (err) {
      translate(err, `Connection ${input.instanceId}`);
    }
  }

  async getConnection(accountId: string, instanceId: string): Promise<Connection | null> {
    const { rows } = await this.#db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 AND instance_id = $2`, [accountId, instanceId]);
    return rows[0] === undefined ? null : toConnection(rows[0]);
  }

  async listConnections(accountId?: string): Promise<Connection[]> {
    const { rows } =
      accountId === undefined
        ? await this.#db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM connections ORDER BY account_id, instance_id`)
        : await this.#db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 ORDER BY instance_id`, [accountId]);
    return rows.map(toConnection);
  }

  async deleteConnection(accountId: string, instanceId: string): Promise<void> {
    await this.#db.query('DELETE FROM connections WHERE account_id = $1 AND instance_id = $2', [accountId, instanceId]);
  }

  async connectionsSealedWith(keyVersion: number, limit: number): Promise<Connection[]> {
    const { rows } = await this.#db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE key_version = $1 LIMIT $2`, [keyVersion, limit]);
    return rows.map(toConnection);
  }

  async keyChecks(): Promise<Map<number, string>> {
    const { rows } = await this.#db.query<{ version: number; check_value: string }>('SELECT version, check_value FROM key_checks');
    return new Map(rows.map((r) => [Number(r.version), r.check_value]));
  }

  async recordKeyCheck(version: number, checkValue: string): Promise<string> {
    // Two processes recording the same version at once: the first insert wins, both read it back.
    await this.#db.query('INSERT INTO key_checks (version, check_value) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING', [version, checkValue]);
    const { rows } = await this.#db.query<{ check_value: string }>('SELECT check_value FROM key_checks WHERE version = $1', [version]);
    return rows[0]!.check_value;
  }

  async replaceCiphertext(accountId: string, instanceId: string, expectedKeyVersion: number, ciphertext: string, keyVersion: number): Promise<boolean> {
    // The credential itself is unchanged, so `updated_at` (last connect) stays.
    const { rows } = await this.#db.query<{ instance_id: string }>(
      `UPDATE connections SET ciphertext = $4, key_version = $5
        WHERE account_id = $1 AND instance_id = $2 AND key_version = $3
        RETURNING instance_id`,
      [accountId, instanceId, expectedKeyVersion, ciphertext, keyVersion],
    );
    return rows.length > 0;
  }

  async withConnectionLock<T>(accountId: string, instanceId: string, fn: (current: Connection | null) => Promise<{ write: LockedConnectionWrite; value: T }>): Promise<T> {
    const run = async (db: SqlClient, lock: string): Promise<T> => {
      const { rows } = await db.query<ConnectionRow>(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 AND instance_id = $2${lock}`, [accountId, instanceId]);
      const { write, value } = await fn(rows[0] === undefined ? null : toConnection(rows[0]));
      if (write && 'ciphertext' in write) {
        await db.query('UPDATE connections SET ciphertext = $3, key_version = $4, reconnect_required_at = NULL WHERE account_id = $1 AND instance_id = $2', [
          accountId,
          instanceId,
          write.ciphertext,
          write.keyVersion,
        ]);
      } else if (write) {
        await db.query('UPDATE connections SET reconnect_required_at = now() WHERE account_id = $1 AND instance_id = $2 AND reconnect_required_at IS NULL', [accountId, instanceId]);
      }
      return value;
    };
    // The embedded engine has one connection for the whole process: a transaction held across a
    // token request would stall every other query. It serves one process, which coalesces.
    if (this.kind === 'embedded') return run(this.#db, '');
    return this.#db.transaction((tx) => run(tx, ' FOR UPDATE'));
  }

  // OAuth states

  async createOAuthState(state: OAuthState): Promise<void> {
    try {
      await this.#db.query(`INSERT INTO oauth_states (${OAUTH_STATE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        state.stateHash,
        state.accountId,
        state.userId,
        state.instanceId,
        state.connectorKey,
        state.linkJti,
        state.verifierSealed,
        state.browserHash,
        state.expiresAt,
      ]);
    } catch (err) {
      translate(err, 'OAuth state');
    }
  }

  async consumeOAuthState(stateHash: string, now: Date): Promise<OAuthStateOutcome> {
    return this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<OAuthStateRow>(`UPDATE oauth_states SET used_at = $2 WHERE state_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING ${OAUTH_STATE_COLUMNS}`, [
        stateHash,
        now,
      ]);
      const row = rows[0];
      if (row === undefined) {
        const seen = await tx.query<{ used: boolean }>('SELECT used_at IS NOT NULL AS used FROM oauth_states WHERE state_hash = $1', [stateHash]);
        const s = seen.rows[0];
        return { outcome: s === undefined ? 'missing' : s.used ? 'used' : 'expired' };
      }
      // The connect link is single-use for storing a grant: a second flow from it stores nothing.
      const link = await tx.query<{ jti: string }>('UPDATE connect_links SET used_at = $2 WHERE jti = $1 AND used_at IS NULL RETURNING jti', [row.link_jti, now]);
      if (link.rows.length === 0) return { outcome: 'used' };
      return { outcome: 'ok', state: toOAuthState(row) };
    });
  }

  async purgeOAuthStates(before: Date): Promise<number> {
    const { rows } = await this.#db.query<{ n: string | number }>('WITH gone AS (DELETE FROM oauth_states WHERE expires_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone', [before]);
    return Number(rows[0]?.n ?? 0);
  }

  // Connect links

  async createConnectLink(link: ConnectLink): Promise<void> {
    try {
      await this.#db.query('INSERT INTO connect_links (jti, account_id, user_id, instance_id, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        link.jti,
        link.accountId,
        link.userId,
        link.instanceId,
        link.expiresAt,
      ]);
    } catch (err) {
      translate(err, `Connect link ${link.jti}`);
    }
  }

  async connectLinkState(jti: string, now: Date): Promise<ConnectLinkOutcome> {
    const { rows } = await this.#db.query<{ used: boolean; expired: boolean }>('SELECT used_at IS NOT NULL AS used, expires_at <= $2 AS expired FROM connect_links WHERE jti = $1', [jti, now]);
    const row = rows[0];
    if (row === undefined) return 'missing';
    return row.used ? 'used' : row.expired ? 'expired' : 'ok';
  }

  async purgeConnectLinks(before: Date): Promise<number> {
    const { rows } = await this.#db.query<{ n: string | number }>('WITH gone AS (DELETE FROM connect_links WHERE expires_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone', [before]);
    return Number(rows[0]?.n ?? 0);
  }

  async consumeConnectLink(jti: string, now: Date): Promise<ConnectLinkOutcome> {
    // The UPDATE is the atomic step: of concurrent callers, exactly one sees a row.
    const { rows } = await this.#db.query<{ jti: string }>('UPDATE connect_links SET used_at = $2 WHERE jti = $1 AND used_at IS NULL AND expires_at > $2 RETURNING jti', [jti, now]);
    if (rows.length > 0) return 'ok';
    // A separate statement (own snapshot) so that a link consumed concurrently reads as used.
    const state = await this.#db.query<{ used: boolean }>('SELECT used_at IS NOT NULL AS used FROM connect_links WHERE jti = $1', [jti]);
    const row = state.rows[0];
    if (row === undefined) return 'missing';
    return row.used ? 'used' : 'expired';
  }

  // Usage

  async addUsage(rows: readonly UsageRow[], batchId?: string, settledBatchIds: readonly string[] = []): Promise<void> {
    // Merge duplicates and sort, so concurrent batches lock rows in the same order.
    const merged = new Map<string, { accountId: string; month: string; connectorId: string; tool: string; calls: number; costUnits: number }>();
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

  async #insertUsage(db: SqlClient, ordered: readonly UsageRow[], batchId?: string, settledBatchIds: readonly string[] = []): Promise<void> {
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
    await db.query(
      `${batched ? `WITH batch AS (INSERT INTO usage_batches (id) VALUES ($7) ON CONFLICT (id) DO NOTHING RETURNING id)${settle ? ', settled AS (DELETE FROM usage_batches WHERE id = ANY($8::text[]))' : ''} ` : ''}INSERT INTO usage (account_id, month, connector_id, tool, calls, cost_units)
       SELECT u.account_id, u.month, u.connector_id, u.tool, u.calls, u.cost_units
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
              AS u(account_id, month, connector_id, tool, calls, cost_units)
        WHERE ${batched ? 'EXISTS (SELECT 1 FROM batch) AND ' : ''}u.account_id = ANY (ARRAY(SELECT a.id FROM accounts a WHERE a.id = ANY($1::text[])))
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
    const { rows } = await this.#db.query<{ total: number | string }>('SELECT coalesce(sum(cost_units), 0) AS total FROM usage WHERE account_id = $1 AND month = $2', [accountId, month]);
    return num(first(rows, 'getMonthCostUnits').total);
  }

  async getMonthCostUnitsOf(accountIds: readonly string[], month: string): Promise<Map<string, number>> {
    const totals = new Map<string, number>(accountIds.map((id) => [id, 0]));
    if (accountIds.length === 0) return totals;
    const { rows } = await this.#db.query<{ account_id: string; total: number | string }>(
      'SELECT account_id, sum(cost_units) AS total FROM usage WHERE account_id = ANY($1::text[]) AND month = $2 GROUP BY account_id',
      [[...accountIds], month],
    );
    for (const r of rows) totals.set(r.account_id, num(r.total));
    return totals;
  }

  // Data layer (opt-in first-seen records per connection)

  async enableDataLayer(accountId: string, instanceId: string, at: Date): Promise<DataLayerState> {
    try {
      await this.#db.query('INSERT INTO data_layers (account_id, instance_id, enabled_at) VALUES ($1, $2, $3) ON CONFLICT (account_id, instance_id) DO NOTHING', [accountId, instanceId, at]);
    } catch (err) {
      translate(err, `Data layer of ${accountId}/${instanceId}`);
    }
    const state = await this.getDataLayer(accountId, instanceId);
    if (state === null) throw new StoreError('not_found', `Data layer of ${accountId}/${instanceId} was deleted meanwhile.`);
    return state;
  }

  async disableDataLayer(accountId: string, instanceId: string): Promise<boolean> {
    // The records go with it (ON DELETE CASCADE).
    const { rows } = await this.#db.query<{ instance_id: string }>('DELETE FROM data_layers WHERE account_id = $1 AND instance_id = $2 RETURNING instance_id', [accountId, instanceId]);
    return rows.length > 0;
  }

  async getDataLayer(accountId: string, instanceId: string): Promise<DataLayerState | null> {
    const { rows } = await this.#db.query<DataLayerRow>(DATA_LAYER_SELECT, [accountId, instanceId]);
    return rows[0] === undefined ? null : toDataLayer(rows[0]);
  }

  async claimWrite(key: string, at: number, expiredBefore: number): Promise<{ readonly claimed: true } | { readonly claimed: false; readonly outcome: string | null }> {
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
    await this.#db.query(reusable ? 'UPDATE write_dedup SET outcome = $2 WHERE key = $1' : 'UPDATE write_dedup SET outcome = $2, claimed_at = 0 WHERE key = $1', [key, outcome]);
  }

  async writeOutcome(key: string): Promise<string | null | undefined> {
    const { rows } = await this.#db.query<{ outcome: string | null }>('SELECT outcome FROM write_dedup WHERE key = $1', [key]);
    return rows.length === 0 ? undefined : rows[0]!.outcome;
  }

  async recordSeenItems(accountId: string, instanceId: string, keys: readonly string[], at: Date): Promise<SeenItem[] | null> {
    const unique = [...new Set(keys)];
    return this.#db.transaction(async (tx) => {
      // The row lock serialises concurrent syncs of one connection, so exactly one of them takes
      // the baseline and a key is never recorded twice with different times.
      const { rows } = await tx.query<{ enabled_at: Date; baseline_at: Date | null }>('SELECT enabled_at, baseline_at FROM data_layers WHERE account_id = $1 AND instance_id = $2 FOR UPDATE', [
        accountId,
        instanceId,
      ]);
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
      if (baseline) await tx.query('UPDATE data_layers SET baseline_at = $3 WHERE account_id = $1 AND instance_id = $2', [accountId, instanceId, at]);
      if (unique.length === 0) return [];
      const seen = await tx.query<SeenItemRow>(
        `SELECT item_key, first_seen_at, baseline FROM data_layer_items
          WHERE account_id = $1 AND instance_id = $2 AND item_key = ANY($3::text[])`,
        [accountId, instanceId, unique],
      );
      return seen.rows.map((r) => ({ key: r.item_key, firstSeenAt: date(r.first_seen_at), baseline: r.baseline }));
    });
  }

  // Snapshot

  async loadSnapshot(): Promise<PlatformSnapshot> {
    // The embedded engine hands rows to JavaScript one field at a time, which dominates a load of
    // many rows (100,000 users: 1.2 s); one JSON array per table is parsed at once (0.5–0.7 s).
    const rows = this.kind === 'embedded' ? jsonRows : plainRows;
    return this.#db.transaction(async (tx) => {
      // One consistent view across the six reads.
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const accounts = await rows<AccountRow>(tx, ACCOUNT_COLUMNS, 'accounts', '', 'created_at, id');
      const users = await rows<UserRow>(tx, USER_COLUMNS, 'users', '', 'created_at, id');
      const tokens = await rows<TokenRow>(tx, TOKEN_COLUMNS, 'tokens', 'WHERE revoked_at IS NULL', 'created_at, id');
      const subscriptions = await rows<{ account_id: string; connector_key: string }>(tx, 'account_id, connector_key', 'subscriptions', '', 'account_id, connector_key');
      const seats = await rows<{ user_id: string; connector_key: string }>(tx, 'user_id, connector_key', 'seats', '', 'user_id, connector_key');
      const connections = await rows<ConnectionRow>(tx, CONNECTION_COLUMNS, 'connections', '', 'account_id, instance_id');
      const version = await tx.query<{ version: string | number }>('SELECT version FROM platform_changes WHERE id = 1');
      return {
        accounts: accounts.rows.map(toAccount),
        users: users.rows.map(toUser),
        tokens: tokens.rows.map(toToken),
        subscriptions: subscriptions.rows.map((r) => ({ accountId: r.account_id, connectorKey: r.connector_key })),
        seats: seats.rows.map((r) => ({ userId: r.user_id, connectorKey: r.connector_key })),
        connections: connections.rows.map(toConnection),
        version: Number(version.rows[0]?.version ?? 0),
      };
    });
  }

  async loadChanges(since: number, maxKeys: number): Promise<PlatformChanges | null> {
    return this.#db.transaction(async (tx) => {
      // The version, the log and the rows from one consistent view, like loadSnapshot.
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const head = await tx.query<{ version: string | number; pruned_through: string | number }>('SELECT version, pruned_through FROM platform_changes WHERE id = 1');
      const version = Number(head.rows[0]?.version ?? 0);
      // Behind the pruned part of the log, or ahead of the store (another database): reload in full.
      if (since < Number(head.rows[0]?.pruned_through ?? 0) || since > version) return null;
      const accounts: string[] = [];
      const users: string[] = [];
      const tokens: string[] = [];
      const subscriptions: [string, string][] = [];
      const seats: [string, string][] = [];
      const connections: [string, string][] = [];
      const changes: PlatformChanges = {
        version,
        touched: { accounts, users, tokens, subscriptions, seats, connections },
        accounts: [],
        users: [],
        tokens: [],
        subscriptions: [],
        seats: [],
        connections: [],
      };
      if (since === version) return changes;
      const log = await tx.query<{ entity: string; key1: string; key2: string }>('SELECT DISTINCT entity, key1, key2 FROM platform_change_log WHERE version > $1 AND version <= $2 LIMIT $3', [
        since,
        version,
        maxKeys + 1,
      ]);
      if (log.rows.length > maxKeys) return null;
      for (const r of log.rows) {
        if (r.entity === 'accounts') accounts.push(r.key1);
        else if (r.entity === 'users') users.push(r.key1);
        else if (r.entity === 'tokens') tokens.push(r.key1);
        else if (r.entity === 'subscriptions') subscriptions.push([r.key1, r.key2]);
        else if (r.entity === 'seats') seats.push([r.key1, r.key2]);
        else if (r.entity === 'connections') connections.push([r.key1, r.key2]);
      }
      const firsts = (pairs: readonly (readonly [string, string])[]) => pairs.map((p) => p[0]);
      const seconds = (pairs: readonly (readonly [string, string])[]) => pairs.map((p) => p[1]);
      // One statement per kind of row that changed (one transaction is one connection: in turn).
      const a = accounts.length ? (await tx.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ANY($1::text[])`, [accounts])).rows : [];
      const u = users.length ? (await tx.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ANY($1::text[])`, [users])).rows : [];
      const t = tokens.length ? (await tx.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE id = ANY($1::text[])`, [tokens])).rows : [];
      const sub = subscriptions.length
        ? (
            await tx.query<{ account_id: string; connector_key: string }>(
              'SELECT s.account_id, s.connector_key FROM subscriptions s JOIN unnest($1::text[], $2::text[]) AS k(a, c) ON s.account_id = k.a AND s.connector_key = k.c',
              [firsts(subscriptions), seconds(subscriptions)],
            )
          ).rows
        : [];
      const seat = seats.length
        ? (
            await tx.query<{ user_id: string; connector_key: string }>(
              'SELECT s.user_id, s.connector_key FROM seats s JOIN unnest($1::text[], $2::text[]) AS k(u, c) ON s.user_id = k.u AND s.connector_key = k.c',
              [firsts(seats), seconds(seats)],
            )
          ).rows
        : [];
      const conn = connections.length
        ? (
            await tx.query<ConnectionRow>(
              `SELECT ${qualified('c', CONNECTION_COLUMNS)} FROM connections c JOIN unnest($1::text[], $2::text[]) AS k(a, i) ON c.account_id = k.a AND c.instance_id = k.i`,
              [firsts(connections), seconds(connections)],
            )
          ).rows
        : [];
      return {
        ...changes,
        accounts: a.map(toAccount),
        users: u.map(toUser),
        tokens: t.map(toToken),
        subscriptions: sub.map((r) => ({ accountId: r.account_id, connectorKey: r.connector_key })),
        seats: seat.map((r) => ({ userId: r.user_id, connectorKey: r.connector_key })),
        connections: conn.map(toConnection),
      };
    });
  }

  async pruneChangeLog(before: Date): Promise<number> {
    // The highest version deleted becomes pruned_through, in the same statement.
    const { rows } = await this.#db.query<{ n: string | number }>(
      `WITH gone AS (DELETE FROM platform_change_log WHERE changed_at < $1 RETURNING version),
            top AS (SELECT count(*) AS n, max(version) AS v FROM gone),
            mark AS (UPDATE platform_changes SET pruned_through = greatest(pruned_through, top.v) FROM top WHERE id = 1 AND top.v IS NOT NULL RETURNING 1)
       SELECT n FROM top`,
      [before],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async changeVersion(): Promise<number> {
    const { rows } = await this.#db.query<{ version: string | number }>('SELECT version FROM platform_changes WHERE id = 1');
    return Number(rows[0]?.version ?? 0);
  }

  // Portal (issue 19)

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
    const { rows } = await this.#db.query<{ password_hash: string }>('SELECT password_hash FROM user_passwords WHERE user_id = $1', [userId]);
    return rows[0]?.password_hash ?? null;
  }

  async createSession(session: { idHash: string; userId: string; expiresAt: Date; sourceIp: string }): Promise<void> {
    try {
      await this.#db.query('INSERT INTO portal_sessions (id_hash, user_id, expires_at, source_ip) VALUES ($1, $2, $3, $4)', [session.idHash, session.userId, session.expiresAt, session.sourceIp]);
    } catch (err) {
      translate(err, 'Session');
    }
  }

  async findSession(idHash: string, now: Date): Promise<{ session: PortalSession; user: User; account: Account } | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT s.id_hash AS s_id_hash, s.user_id AS s_user_id, s.created_at AS s_created_at, s.expires_at AS s_expires_at, s.source_ip AS s_source_ip,
              ${prefixed('u', USER_COLUMNS)}, ${prefixed('a', ACCOUNT_COLUMNS)}
         FROM portal_sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
        WHERE s.id_hash = $1 AND s.expires_at > $2`,
      [idHash, now],
    );
    const row = rows[0];
    if (row === undefined) return null;
    const s = unprefixed<{ id_hash: string; user_id: string; created_at: Date; expires_at: Date; source_ip: string }>(row, 's');
    return {
      session: { idHash: s.id_hash, userId: s.user_id, createdAt: date(s.created_at), expiresAt: date(s.expires_at), sourceIp: s.source_ip },
      user: toUser(unprefixed<UserRow>(row, 'u')),
      account: toAccount(unprefixed<AccountRow>(row, 'a')),
    };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.#db.query('DELETE FROM portal_sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    const { rows } = await this.#db.query<{ id_hash: string }>('DELETE FROM portal_sessions WHERE user_id = $1 RETURNING id_hash', [userId]);
    return rows.length;
  }

  async purgePortal(before: Date): Promise<void> {
    await this.#db.query('DELETE FROM portal_sessions WHERE expires_at < $1', [before]);
    await this.#db.query('DELETE FROM sign_in_failures WHERE at < $1', [before]);
    await this.#db.query('DELETE FROM password_links WHERE expires_at < $1', [before]);
  }

  async recordSignInFailure(scopeKeys: readonly string[], at: Date): Promise<void> {
    if (scopeKeys.length === 0) return;
    await this.#db.query('INSERT INTO sign_in_failures (scope_key, at) SELECT k, $2::timestamptz FROM unnest($1::text[]) AS k', [[...scopeKeys], at]);
  }

  async countSignInFailures(scopeKeys: readonly string[], since: Date): Promise<Map<string, number>> {
    const counts = new Map(scopeKeys.map((k) => [k, 0]));
    if (scopeKeys.length === 0) return counts;
    const { rows } = await this.#db.query<{ scope_key: string; n: number | string }>(
      'SELECT scope_key, count(*) AS n FROM sign_in_failures WHERE scope_key = ANY($1::text[]) AND at > $2 GROUP BY scope_key',
      [[...scopeKeys], since],
    );
    for (const r of rows) counts.set(r.scope_key, num(r.n));
    return counts;
  }

  async createPasswordLink(link: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void> {
    try {
      await this.#db.query('INSERT INTO password_links (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [link.tokenHash, link.userId, link.expiresAt]);
    } catch (err) {
      translate(err, 'Password link');
    }
  }

  async consumePasswordLink(tokenHash: string, now: Date): Promise<PasswordLinkOutcome> {
    const { rows } = await this.#db.query<{ user_id: string }>('UPDATE password_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id', [
      tokenHash,
      now,
    ]);
    if (rows[0]) return { outcome: 'ok', userId: rows[0].user_id };
    const found = await this.#db.query<{ used_at: Date | null }>('SELECT used_at FROM password_links WHERE token_hash = $1', [tokenHash]);
    const row = found.rows[0];
    return { outcome: row === undefined ? 'missing' : row.used_at !== null ? 'used' : 'expired' };
  }

  async setUserRole(userId: string, role: UserRole): Promise<void> {
    const { rows } = await this.#db.query<{ id: string }>('UPDATE users SET role = $2 WHERE id = $1 RETURNING id', [userId, role]);
    if (rows.length === 0) throw new StoreError('not_found', `User ${userId} does not exist.`);
  }

  async listAccountTokens(accountId: string): Promise<TokenRecord[]> {
    const { rows } = await this.#db.query<TokenRow>(
      `SELECT ${prefixed('t', TOKEN_COLUMNS).replace(/ AS t_/g, ' AS ')} FROM tokens t JOIN users u ON u.id = t.user_id WHERE u.account_id = $1 ORDER BY t.created_at DESC, t.id`,
      [accountId],
    );
    return rows.map(toToken);
  }

  async getTokenOwner(tokenId: string): Promise<{ userId: string; accountId: string } | null> {
    const { rows } = await this.#db.query<{ user_id: string; account_id: string }>('SELECT t.user_id, u.account_id FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1', [tokenId]);
    return rows[0] ? { userId: rows[0].user_id, accountId: rows[0].account_id } : null;
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.#db.query('INSERT INTO audit_log (account_id, actor, action, target, detail, source) VALUES ($1, $2, $3, $4, $5, $6)', [
      entry.accountId,
      entry.actor,
      entry.action,
      entry.target,
      entry.detail,
      entry.source,
    ]);
  }

  async listAudit(accountId: string, limit: number): Promise<AuditRecord[]> {
    const { rows } = await this.#db.query<{ id: number | string; account_id: string | null; actor: string; action: string; target: string; detail: string; source: string; at: Date }>(
      'SELECT id, account_id, actor, action, target, detail, source, at FROM audit_log WHERE account_id = $1 ORDER BY at DESC, id DESC LIMIT $2',
      [accountId, limit],
    );
    return rows.map((r) => ({ id: num(r.id), accountId: r.account_id, actor: r.actor, action: r.action, target: r.target, detail: r.detail, source: r.source, at: date(r.at) }));
  }

  // MCP authorization (issue 21).

  async registerMcpClient(client: Omit<McpClient, 'createdAt'> & { source: string }): Promise<void> {
    try {
      await this.#db.query('INSERT INTO mcp_clients (client_id, client_name, redirect_uris, metadata, source) VALUES ($1, $2, $3, $4, $5)', [
        client.clientId,
        client.clientName,
        JSON.stringify(client.redirectUris),
        client.metadata,
        client.source,
      ]);
    } catch (err) {
      translate(err, 'Client');
    }
  }

  async getMcpClient(clientId: string): Promise<McpClient | null> {
    const { rows } = await this.#db.query<{ client_id: string; client_name: string; redirect_uris: string; metadata: string; created_at: Date }>(
      'SELECT client_id, client_name, redirect_uris, metadata, created_at FROM mcp_clients WHERE client_id = $1',
      [clientId],
    );
    const r = rows[0];
    return r ? { clientId: r.client_id, clientName: r.client_name, redirectUris: JSON.parse(r.redirect_uris) as string[], metadata: r.metadata, createdAt: date(r.created_at) } : null;
  }

  async createMcpGrant(grant: Omit<McpGrant, 'createdAt' | 'revokedAt'>, code: { codeHash: string; redirectUri: string; codeChallenge: string; expiresAt: Date }): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.query('INSERT INTO mcp_grants (id, client_id, client_name, user_id, account_id, endpoints) VALUES ($1, $2, $3, $4, $5, $6)', [
        grant.id,
        grant.clientId,
        grant.clientName,
        grant.userId,
        grant.accountId,
        JSON.stringify(grant.endpoints),
      ]);
      await tx.query('INSERT INTO mcp_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        code.codeHash,
        grant.id,
        code.redirectUri,
        code.codeChallenge,
        code.expiresAt,
      ]);
    });
  }

  async findMcpCode(codeHash: string): Promise<McpCode | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT c.redirect_uri, c.code_challenge, c.expires_at AS c_expires_at, c.used_at AS c_used_at, ${GRANT_SELECT} FROM mcp_codes c JOIN mcp_grants g ON g.id = c.grant_id WHERE c.code_hash = $1`,
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
  async #consumeOnce(table: 'mcp_codes' | 'mcp_tokens', key: string, value: string, extra: string, now: Date): Promise<McpSingleUse> {
    const { rows } = await this.#db.query<{ grant_id: string }>(
      `UPDATE ${table} x SET used_at = $2 FROM mcp_grants g WHERE x.${key} = $1${extra} AND g.id = x.grant_id AND x.used_at IS NULL AND x.expires_at > $2 AND g.revoked_at IS NULL RETURNING x.grant_id`,
      [value, now],
    );
    const found = await this.#db.query<Record<string, unknown>>(`SELECT x.used_at AS x_used_at, ${GRANT_SELECT} FROM ${table} x JOIN mcp_grants g ON g.id = x.grant_id WHERE x.${key} = $1${extra}`, [
      value,
    ]);
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
        await tx.query('INSERT INTO mcp_tokens (token_hash, grant_id, kind, expires_at) VALUES ($1, $2, $3, $4)', [t.tokenHash, grantId, t.kind, t.expiresAt]);
      }
    });
  }

  async findMcpAccessToken(tokenHash: string): Promise<{ grant: McpGrant; expiresAt: Date } | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
      `SELECT t.expires_at AS t_expires_at, ${GRANT_SELECT} FROM mcp_tokens t JOIN mcp_grants g ON g.id = t.grant_id WHERE t.token_hash = $1 AND t.kind = 'access' AND g.revoked_at IS NULL`,
      [tokenHash],
    );
    const r = rows[0];
    return r ? { grant: toGrant(r), expiresAt: date(r.t_expires_at as Date) } : null;
  }

  async findMcpTokenGrant(tokenHash: string): Promise<McpGrant | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(`SELECT ${GRANT_SELECT} FROM mcp_tokens t JOIN mcp_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`, [tokenHash]);
    return rows[0] ? toGrant(rows[0]) : null;
  }

  async revokeMcpGrant(grantId: string, at: Date): Promise<boolean> {
    const { rows } = await this.#db.query<{ id: string }>('UPDATE mcp_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id', [grantId, at]);
    return rows.length > 0;
  }

  async getMcpGrant(grantId: string): Promise<McpGrant | null> {
    const { rows } = await this.#db.query<Record<string, unknown>>(`SELECT ${GRANT_SELECT} FROM mcp_grants g WHERE g.id = $1`, [grantId]);
    return rows[0] ? toGrant(rows[0]) : null;
  }

  async listMcpGrants(accountId?: string): Promise<McpGrant[]> {
    const { rows } =
      accountId === undefined
        ? await this.#db.query<Record<string, unknown>>(`SELECT ${GRANT_SELECT} FROM mcp_grants g ORDER BY g.created_at DESC, g.id`)
        : await this.#db.query<Record<string, unknown>>(`SELECT ${GRANT_SELECT} FROM mcp_grants g WHERE g.account_id = $1 ORDER BY g.created_at DESC, g.id`, [accountId]);
    return rows.map(toGrant);
  }

  async purgeMcpAuthorization(before: Date): Promise<number> {
    const codes = await this.#db.query<{ code_hash: string }>('DELETE FROM mcp_codes WHERE expires_at < $1 RETURNING code_hash', [before]);
    const tokens = await this.#db.query<{ token_hash: string }>('DELETE FROM mcp_tokens WHERE expires_at < $1 RETURNING token_hash', [before]);
    return codes.rows.length + tokens.rows.length;
  }
}

const GRANT_SELECT =
  'g.id AS g_id, g.client_id AS g_client_id, g.client_name AS g_client_name, g.user_id AS g_user_id, g.account_id AS g_account_id, g.endpoints AS g_endpoints, g.created_at AS g_created_at, g.revoked_at AS g_revoked_at';

function toGrant(r: Record<string, unknown>): McpGrant {
  return {
    id: String(r.g_id),
    clientId: String(r.g_client_id),
    clientName: String(r.g_client_name),
    userId: String(r.g_user_id),
    accountId: String(r.g_account_id),
    endpoints: JSON.parse(String(r.g_endpoints)) as string[],
    createdAt: date(r.g_created_at as Date),
    revokedAt: r.g_revoked_at ? date(r.g_revoked_at as Date) : null,
  };
}

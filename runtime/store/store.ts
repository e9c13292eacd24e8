// The platform's persistent data: one SQL schema for the embedded PostgreSQL (PGlite, file-backed
// in a data directory) and a PostgreSQL server (through a URL). The hot path never calls the store
// directly: it reads an in-memory snapshot (`changes.loadSnapshot`) that the runtime refreshes after
// writes. The store is one repository per aggregate (`Repositories`, implemented over one SQL client
// in `repositories/`); a consumer takes the ones it uses.

export type FairUseMode = 'off' | 'soft' | 'hard';
export type UserRole = 'admin' | 'member';

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly fairUseMode: FairUseMode;
  /** The account's own monthly quota; null means the deployment default. */
  readonly fairUseQuota: number | null;
  readonly createdAt: Date;
}

export interface User {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly name: string;
  readonly role: UserRole;
  readonly termsAcceptedAt: Date | null;
  readonly createdAt: Date;
}

export interface TokenRecord {
  readonly id: string;
  readonly userId: string;
  readonly label: string;
  /** Hex SHA-256 of the token; the token itself is never stored. */
  readonly tokenHash: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  /** What the token may reach; null is unscoped (every connector, every tool). */
  readonly scope: TokenScope | null;
}

export type { InstanceToolSettings, TokenScope } from './scopes.ts';
import type { InstanceToolSettings, TokenScope } from './scopes.ts';

export interface Connection {
  readonly accountId: string;
  /** Endpoint instance: the connector id, or `<id>-<n>` for further instances. */
  readonly instanceId: string;
  /** Spec key of the connector (the `<key>` of `specs/<key>.yaml`), stable when a deployment renames the id. */
  readonly connectorKey: string;
  /** Vault output (authenticated encryption bound to account and instance). */
  readonly ciphertext: string;
  readonly keyVersion: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** When the identity provider refused the grant at refresh (OAuth); null otherwise. A reconnect clears it. */
  readonly reconnectRequiredAt?: Date | null;
  /** The connector's text that made it need reconnecting (a rejected key, expired access); null otherwise. */
  readonly reconnectReason?: string | null;
}

/** One authorize redirect in flight (OAuth connect), as stored: never the state or verifier in clear. */
export interface OAuthState {
  /** Hex SHA-256 of the `state` parameter. */
  readonly stateHash: string;
  readonly accountId: string;
  readonly userId: string;
  readonly instanceId: string;
  readonly connectorKey: string;
  /** The connect link the flow started from; consumed when the callback stores the grant. */
  readonly linkJti: string;
  /** The PKCE code verifier, sealed by the vault. */
  readonly verifierSealed: string;
  /** Hex SHA-256 of the browser binding cookie set with the redirect. */
  readonly browserHash: string;
  readonly expiresAt: Date;
}

export type OAuthStateOutcome =
  | { readonly outcome: 'ok'; readonly state: OAuthState }
  | { readonly outcome: 'used' | 'expired' | 'missing' };

/** What a refresh under the connection's lock decided to write. */
export type LockedConnectionWrite =
  | { readonly ciphertext: string; readonly keyVersion: number }
  | { readonly reconnectRequired: true }
  | null;

export interface UsageRow {
  readonly accountId: string;
  /** Billing month `YYYY-MM` in the billing time zone. */
  readonly month: string;
  /** Connector id as served (instances count under their connector's id). */
  readonly connectorId: string;
  readonly tool: string;
  readonly calls: number;
  readonly costUnits: number;
}

export type ConnectLinkOutcome = 'ok' | 'used' | 'expired' | 'missing';

export interface ConnectLink {
  readonly jti: string;
  readonly accountId: string;
  readonly userId: string;
  readonly instanceId: string;
  readonly expiresAt: Date;
}

/** The opt-in data layer of one connection (first-seen records of the connector's items). */
export interface DataLayerState {
  readonly accountId: string;
  readonly instanceId: string;
  /** When the tenant opted in; the baseline items carry this time. */
  readonly enabledAt: Date;
  /** When the first full read after opt-in was recorded; null until then. */
  readonly baselineAt: Date | null;
  /** Keys recorded so far. */
  readonly itemCount: number;
}

export interface SeenItem {
  readonly key: string;
  readonly firstSeenAt: Date;
  /** Part of the first full read after opt-in. */
  readonly baseline: boolean;
}

/** A signed-in portal session as stored (the cookie value only as a hash). */
export interface PortalSession {
  readonly idHash: string;
  readonly userId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly sourceIp: string;
}

/** One change made in the portal or the admin CLI: who, what, when, from where; never a secret. */
export interface AuditEntry {
  readonly accountId: string | null;
  /** `user:<id> <email>` for the portal, `cli:<os user>` for the admin CLI. */
  readonly actor: string;
  /** A dotted name, e.g. `seat.set`, `token.revoke`. */
  readonly action: string;
  readonly target: string;
  /** Names, ids and on/off values only. */
  readonly detail: string;
  /** The client address, or `admin socket` / `local` for the CLI. */
  readonly source: string;
}

export interface AuditRecord extends AuditEntry {
  readonly id: number;
  readonly at: Date;
}

export type PasswordLinkOutcome =
  | { readonly outcome: 'ok'; readonly userId: string }
  | { readonly outcome: 'used' | 'expired' | 'missing' };

// MCP authorization's records and repository live in mcp-store.ts; named here with the rest.
export type { McpClient, McpCode, McpGrant, McpRepository, McpSingleUse, McpTokenRow } from './mcp-store.ts';
import type { McpRepository } from './mcp-store.ts';
import type { CallLogRepository } from './call-log.ts';

/** The rows of the hot-path tables, as a full snapshot holds them and as a change set answers them. */
export interface HotPathRows {
  readonly accounts: readonly Account[];
  readonly users: readonly User[];
  /** In a snapshot: tokens that are not revoked; in a change set: revoked ones too. */
  readonly tokens: readonly TokenRecord[];
  readonly subscriptions: readonly { readonly accountId: string; readonly connectorKey: string }[];
  readonly seats: readonly { readonly userId: string; readonly connectorKey: string }[];
  readonly connections: readonly Connection[];
  readonly toolSettings: readonly InstanceToolSettings[];
}

/** Everything the hot path needs, read once and held in memory. */
export interface PlatformSnapshot extends HotPathRows {
  /** The change version this snapshot reflects (see `changeVersion`). */
  readonly version: number;
}

/**
 * What changed in the hot-path tables after a change version: the keys written (`touched`) and the
 * current rows of those keys. A touched key without a current row was deleted; a token row is
 * answered also when revoked (so a replica drops it).
 */
export interface PlatformChanges extends HotPathRows {
  /** The change version the snapshot reflects once these changes are applied. */
  readonly version: number;
  readonly touched: {
    readonly accounts: readonly string[];
    readonly users: readonly string[];
    readonly tokens: readonly string[];
    readonly subscriptions: readonly (readonly [accountId: string, connectorKey: string])[];
    readonly seats: readonly (readonly [userId: string, connectorKey: string])[];
    readonly connections: readonly (readonly [accountId: string, instanceId: string])[];
    readonly toolSettings: readonly (readonly [accountId: string, instanceId: string])[];
  };
}

/** Accounts, with their subscriptions (which connectors an account has taken). */
export interface AccountsRepository {
  createAccount(input: { id?: string; name: string }): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  listAccounts(): Promise<Account[]>;
  setFairUse(accountId: string, settings: { mode?: FairUseMode; quota?: number | null }): Promise<void>;
  deleteAccount(id: string): Promise<void>;
  setSubscription(accountId: string, connectorKey: string, subscribed: boolean): Promise<void>;
  listSubscriptions(accountId: string): Promise<string[]>;
}

/** Users of an account: terms, role and seats. */
export interface UsersRepository {
  createUser(input: { id?: string; accountId: string; email: string; name: string; role?: UserRole }): Promise<User>;
  getUser(id: string): Promise<User | null>;
  findUserByEmail(email: string): Promise<User | null>;
  listUsers(accountId: string): Promise<User[]>;
  acceptTerms(userId: string, at: Date): Promise<void>;
  setUserRole(userId: string, role: UserRole): Promise<void>;
  setSeat(userId: string, connectorKey: string, seated: boolean): Promise<void>;
  listSeats(userId: string): Promise<string[]>;
  /**
   * Removes the user with what was theirs: portal sessions, API tokens, OAuth grants (with their
   * tokens), seats, password links (ON DELETE CASCADE; every replica's snapshot follows by the change
   * log). Answers what ended, or null when there was no such user. The audit log keeps its entries.
   */
  deleteUser(userId: string): Promise<RemovedUser | null>;
}

/** What ended with a removed user. */
export interface RemovedUser {
  readonly sessions: number;
  readonly tokens: number;
  readonly grants: number;
  readonly seats: number;
}

/** Access tokens (as hashes) and the user and account behind one. */
export interface TokensRepository {
  createToken(input: {
    id?: string;
    userId: string;
    label: string;
    tokenHash: string;
    scope?: TokenScope | null;
  }): Promise<TokenRecord>;
  /** The user, account and token for a non-revoked token hash. */
  findByTokenHash(tokenHash: string): Promise<{ token: TokenRecord; user: User; account: Account } | null>;
  listTokens(userId: string): Promise<TokenRecord[]>;
  revokeToken(tokenId: string, at: Date): Promise<void>;
  /** Every token of the account's users (revoked ones too), newest first. */
  listAccountTokens(accountId: string): Promise<TokenRecord[]>;
  /** The user and account a token belongs to (revoked or not); null when there is no such token. */
  getTokenOwner(tokenId: string): Promise<{ userId: string; accountId: string } | null>;
}

/** Connections (sealed credentials per endpoint instance), the key checks and the refresh lock. */
export interface ConnectionsRepository {
  /** Inserts or replaces the credential of one endpoint instance (the reconnect path). */
  putConnection(input: {
    accountId: string;
    instanceId: string;
    connectorKey: string;
    ciphertext: string;
    keyVersion: number;
  }): Promise<Connection>;
  getConnection(accountId: string, instanceId: string): Promise<Connection | null>;
  listConnections(accountId?: string): Promise<Connection[]>;
  deleteConnection(accountId: string, instanceId: string): Promise<void>;
  /**
   * Marks the connection as needing a reconnect because a call got `reason` (the connector's text
   * for a rejected key or expired access); answers whether it was not marked yet. A reconnect clears it.
   */
  markReconnectRequired(accountId: string, instanceId: string, reason: string): Promise<boolean>;
  /** The instance's tool settings (null: none, every tool). */
  getToolSettings(accountId: string, instanceId: string): Promise<InstanceToolSettings | null>;
  /** Stores the settings; settings that narrow nothing are removed. */
  putToolSettings(input: Omit<InstanceToolSettings, 'updatedAt'>): Promise<void>;
  /** Up to `limit` stored credentials sealed with the given key version (the key check of an older database). */
  connectionsSealedWith(keyVersion: number, limit: number): Promise<Connection[]>;
  /** The recorded check value of each credential key version. */
  keyChecks(): Promise<Map<number, string>>;
  /** Records a key version's check value unless one is recorded already; answers the recorded one. */
  recordKeyCheck(version: number, checkValue: string): Promise<string>;
  /** Re-encryption: replace ciphertexts only where the stored version still matches (compare-and-set). */
  replaceCiphertext(
    accountId: string,
    instanceId: string,
    expectedKeyVersion: number,
    ciphertext: string,
    keyVersion: number,
  ): Promise<boolean>;
  /**
   * Runs `fn` with the connection row locked against other processes (PostgreSQL: SELECT … FOR
   * UPDATE in a transaction; the embedded store serves one process, which coalesces in memory),
   * then writes what `fn` answers: a new ciphertext (clearing a reconnect mark) or a reconnect
   * mark. `fn` sees the row as committed by whoever held the lock before.
   */
  withConnectionLock<T>(
    accountId: string,
    instanceId: string,
    fn: (current: Connection | null) => Promise<{ write: LockedConnectionWrite; value: T }>,
  ): Promise<T>;
}

/** Connect links and the OAuth authorize states that hang off them (single use, atomically). */
export interface LinksRepository {
  createConnectLink(link: ConnectLink): Promise<void>;
  /** Atomically marks the link used; only the first call for a valid, unexpired link gets 'ok'. */
  consumeConnectLink(jti: string, now: Date): Promise<ConnectLinkOutcome>;
  /** What consuming the link would answer now, without consuming it (`ok`: still usable). */
  connectLinkState(jti: string, now: Date): Promise<ConnectLinkOutcome>;
  /** Deletes the connect links (used or not) that expired before `before`; answers how many. */
  purgeConnectLinks(before: Date): Promise<number>;
  createOAuthState(state: OAuthState): Promise<void>;
  /**
   * Atomically marks the state used and consumes its connect link (used_at set where unset, also
   * after the link's own expiry); only the first call for an unexpired state gets 'ok'. A state
   * whose link was consumed meanwhile (another flow stored a grant) answers 'used'.
   */
  consumeOAuthState(stateHash: string, now: Date): Promise<OAuthStateOutcome>;
  /** Deletes OAuth states that expired before `before`; answers how many. */
  purgeOAuthStates(before: Date): Promise<number>;
}

/** Usage counts per account, month, connector and tool, and the fair-use sums over them. */
export interface UsageRepository {
  /**
   * Adds the given counts (an upsert that increments), all rows in one transaction. With a
   * `batchId`, a batch already applied under that id is not added again (a retried flush).
   * `settledBatchIds` are ids of earlier batches whose answer arrived, so they are never retried:
   * they are dropped in the same statement (the ids kept are those of batches still in doubt).
   */
  addUsage(rows: readonly UsageRow[], batchId?: string, settledBatchIds?: readonly string[]): Promise<void>;
  getUsage(accountId: string, month: string): Promise<UsageRow[]>;
  /** Sum of cost units of one account in one month (fair use). */
  getMonthCostUnits(accountId: string, month: string): Promise<number>;
  /** The same for several accounts in one month, in one statement (accounts without usage: 0). */
  getMonthCostUnitsOf(accountIds: readonly string[], month: string): Promise<Map<string, number>>;
}

/** The hot path's snapshot and the change log replicas follow. */
export interface ChangesRepository {
  loadSnapshot(): Promise<PlatformSnapshot>;
  /** A counter every write to accounts, users, tokens, subscriptions, seats or connections bumps. */
  changeVersion(): Promise<number>;
  /**
   * The changes after version `since` (one consistent read): null when the change log no longer
   * reaches back that far (pruned) or holds more than `maxKeys` changed keys, where a full
   * `loadSnapshot` is the cheaper way.
   */
  loadChanges(since: number, maxKeys: number): Promise<PlatformChanges | null>;
  /** Deletes change-log rows written before `before` (replicas behind them reload in full); answers how many. */
  pruneChangeLog(before: Date): Promise<number>;
}

/** The opt-in data layer: first-seen records of a connection's items. */
export interface DataLayerRepository {
  /**
   * Opts one connection in to the data layer. Idempotent: enabling again keeps the first
   * `enabledAt` and everything recorded. The connection must exist (`not_found` otherwise); deleting
   * it (or the account) deletes the layer and its records.
   */
  enableDataLayer(accountId: string, instanceId: string, at: Date): Promise<DataLayerState>;
  /** Opts out and deletes every record of the connection; false when it was not enabled. */
  disableDataLayer(accountId: string, instanceId: string): Promise<boolean>;
  getDataLayer(accountId: string, instanceId: string): Promise<DataLayerState | null>;
  /**
   * Records the keys of one complete read, atomically: the first call after opt-in stores them all
   * as the baseline (first seen = `enabledAt`); later calls add only unseen keys, first seen `at`.
   * Returns the records of exactly the keys passed, or null when the layer is not enabled.
   */
  recordSeenItems(accountId: string, instanceId: string, keys: readonly string[], at: Date): Promise<SeenItem[] | null>;
}

/**
 * Confirmed writes claimed once across processes (docs/decisions/upstream-calls.md, 'Identical writes are deduplicated
 * for a window').
 */
export interface WritesRepository {
  /**
   * Claims a confirmed write under `key`, atomically across processes: the first
   * caller, or the first after the stored claim turned older than `expiredBefore` (epoch ms),
   * gets `claimed: true` and must call `finishWrite`; everyone else gets the stored outcome, or
   * null while the first caller is still writing. Claims older than `expiredBefore` are purged.
   */
  claimWrite(
    key: string,
    at: number,
    expiredBefore: number,
  ): Promise<{ readonly claimed: true } | { readonly claimed: false; readonly outcome: string | null }>;
  /** Stores the outcome of a claimed write; `reusable: false` lets the next identical call write again. */
  finishWrite(key: string, outcome: string, reusable: boolean): Promise<void>;
  /** The stored outcome of a claimed write (null while it runs; undefined when the claim is gone). */
  writeOutcome(key: string): Promise<string | null | undefined>;
}

/**
 * The portal's sign-in (docs/decisions/portal.md, 'Sign-in, sessions, CSRF, connect links bound to
 * their user'): passwords, sessions, sign-in failures and set-password links.
 */
export interface PortalRepository {
  /** Stores a user's password hash (argon2id PHC string), replacing an earlier one. */
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;
  getPasswordHash(userId: string): Promise<string | null>;
  createSession(session: { idHash: string; userId: string; expiresAt: Date; sourceIp: string }): Promise<void>;
  /** The session, its user and account, when it exists and has not expired at `now`. */
  findSession(idHash: string, now: Date): Promise<{ session: PortalSession; user: User; account: Account } | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Signs a user out everywhere; answers how many sessions ended. */
  deleteUserSessions(userId: string): Promise<number>;
  /** Deletes sessions that expired before `before`, and sign-in failures older than it. */
  purgePortal(before: Date): Promise<void>;
  recordSignInFailure(scopeKeys: readonly string[], at: Date): Promise<void>;
  /** Failures recorded since `since`, per scope key (keys without any: 0). */
  countSignInFailures(scopeKeys: readonly string[], since: Date): Promise<Map<string, number>>;
  createPasswordLink(link: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void>;
  /** Atomically marks the link used; only the first call for an unexpired link gets 'ok'. */
  consumePasswordLink(tokenHash: string, now: Date): Promise<PasswordLinkOutcome>;
}

/** Notices mailed to an account once (a quota reached in a month), whichever replica comes first. */
export interface NoticesRepository {
  /** True for the one caller that records `notice` for the account first; false when it was already. */
  claimNotice(accountId: string, notice: string): Promise<boolean>;
}

/** The audit log of changes made in the portal or the admin CLI. */
export interface AuditRepository {
  appendAudit(entry: AuditEntry): Promise<void>;
  /** The newest `limit` entries of an account, newest first. */
  listAudit(accountId: string, limit: number): Promise<AuditRecord[]>;
}

/**
 * The store as repositories, one per aggregate, over one SQL client. A consumer takes the ones it
 * uses (`Pick<Repositories, 'links' | 'connections'>`), so its test fakes hold only those.
 */
export interface Repositories {
  readonly accounts: AccountsRepository;
  readonly users: UsersRepository;
  readonly tokens: TokensRepository;
  readonly connections: ConnectionsRepository;
  readonly links: LinksRepository;
  readonly usage: UsageRepository;
  readonly changes: ChangesRepository;
  readonly dataLayer: DataLayerRepository;
  readonly writes: WritesRepository;
  readonly portal: PortalRepository;
  readonly audit: AuditRepository;
  readonly mcp: McpRepository;
  readonly notices: NoticesRepository;
  readonly callLog: CallLogRepository;
}

/** The repositories, opened, migrated and closed in one place. */
export interface PlatformStore extends Repositories {
  /** Applies pending migrations (idempotent, safe to run from several processes at once). */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** 'embedded' (PGlite) or 'postgres'. */
  readonly kind: 'embedded' | 'postgres';
  /** A cheap round trip (readiness); throws when the database does not answer. */
  ping(): Promise<void>;
  /** How many migrations of this build are not applied to the database (readiness). */
  pendingMigrations(): Promise<number>;
}

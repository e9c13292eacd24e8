// The in-memory view of accounts, tokens and entitlements that the hot path reads, so a tool call
// costs no database round trip. Loaded in full once at start; after that, every write (through this
// process, another replica's broadcast, or the store's change version polled every `refreshMs`) is
// applied incrementally: the keys changed since the snapshot's change version are read back from
// the store's change log, so a write costs O(changes), never O(accounts). A full reload is only the
// fallback when the log no longer reaches back to the snapshot's version (or holds more changes
// than a reload costs).
import { PairMap } from './pair-map.ts';
import type {
  Account,
  Connection,
  InstanceToolSettings,
  PlatformChanges,
  PlatformSnapshot,
  Repositories,
  TokenScope,
  User,
} from './store.ts';

export interface Identity {
  readonly user: User;
  readonly account: Account;
  readonly tokenId: string;
  /** The token's scope (null: unscoped), carried here so the request path reads it without a query. */
  readonly scope: TokenScope | null;
}

/** How the snapshot was kept current (tests and the benchmark read it). */
export interface SnapshotStats {
  /** Full loads of every account, user and token (start, and the fallback). */
  readonly fullLoads: number;
  /** Incremental catch-ups that found changes and applied them. */
  readonly incremental: number;
  /** Changed keys applied incrementally, in total. */
  readonly keysApplied: number;
  /** The store's change version the snapshot reflects. */
  readonly storeVersion: number;
}

/** A catch-up never reads more keys than this fraction of the snapshot's rows (a full load is cheaper). */
const MAX_INCREMENTAL_SHARE = 0.25;
const MIN_INCREMENTAL_KEYS = 1_000;

interface TokenEntry {
  readonly tokenHash: string;
  readonly userId: string;
  readonly scope: TokenScope | null;
}

/**
 * A one-to-many index that holds a single value as itself and only several in a Set: almost every
 * account has one user and every user one token, and 100,000 Sets of one would cost ~20 MiB.
 */
type Index = Map<string, string | Set<string>>;

function addTo(index: Index, key: string, value: string): void {
  const held = index.get(key);
  if (held === undefined) index.set(key, value);
  else if (typeof held === 'string') {
    if (held !== value) index.set(key, new Set([held, value]));
  } else held.add(value);
}

function removeFrom(index: Index, key: string, value: string): void {
  const held = index.get(key);
  if (held === undefined) return;
  if (typeof held === 'string') {
    if (held === value) index.delete(key);
    return;
  }
  held.delete(value);
  if (held.size === 1) index.set(key, held.values().next().value!);
}

function holds(index: Index, key: string, value: string): boolean {
  const held = index.get(key);
  return held === value || (typeof held === 'object' && held.has(value));
}

function valuesOf(index: Index, key: string): Iterable<string> {
  const held = index.get(key);
  return held === undefined ? [] : typeof held === 'string' ? [held] : held;
}

export class PlatformState {
  readonly #store: Pick<Repositories, 'changes'>;
  #identities = new Map<string, Identity>();
  #accounts = new Map<string, Account>();
  #users = new Map<string, User>();
  /** Non-revoked tokens by id. */
  #tokens = new Map<string, TokenEntry>();
  #tokensByUser: Index = new Map();
  #usersByAccount: Index = new Map();
  /** Account → connector keys, user → connector keys: looked up per call without building a key string. */
  #subscriptions: Index = new Map();
  #seats: Index = new Map();
  #connections = new PairMap<Connection>();
  /** Tool settings by `accountId|instanceId`. */
  #toolSettings = new PairMap<InstanceToolSettings>();
  /** Stored credentials per key version. */
  #keyVersionCounts = new Map<number, number>();
  #keyVersions: number[] | undefined = [];
  /** Token hashes recently looked up and not found (bounded, short-lived). */
  #misses = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #queuedFull = false;
  #notify: ((version: number) => void) | undefined;
  #version = 0;
  #storeVersion = -1;
  #stats = { fullLoads: 0, incremental: 0, keysApplied: 0 };
  /** When the snapshot was last known to match the store (loaded, or its version confirmed). */
  #confirmedAt = 0;

  constructor(store: Pick<Repositories, 'changes'>) {
    this.#store = store;
  }

  get version(): number {
    return this.#version;
  }

  /** The store's change version the snapshot reflects (-1 before the first load). */
  get storeVersion(): number {
    return this.#storeVersion;
  }

  stats(): SnapshotStats {
    return { ...this.#stats, storeVersion: this.#storeVersion };
  }

  /** Milliseconds since the snapshot was last known to match the store (readiness). */
  age(now = Date.now()): number {
    return now - this.#confirmedAt;
  }

  /** Called with the new change version after a write through this process (other replicas listen). */
  onLocalChange(notify: (version: number) => void): void {
    this.#notify = notify;
  }

  /** After a write through this process: catch up with it, then tell the other replicas. */
  async refresh(): Promise<void> {
    await this.sync();
    this.#notify?.(this.#storeVersion);
  }

  /** Catches up with the store: the changes since the snapshot's version (a full load only as fallback). */
  sync(): Promise<void> {
    return this.#schedule(false);
  }

  /**
   * Catches up when the store is past `version` (a broadcast from another replica names the
   * version its write produced; one this snapshot already reflects costs nothing).
   */
  async syncTo(version: number): Promise<void> {
    if (Number.isFinite(version) && version <= this.#storeVersion) return;
    await this.sync();
  }

  /** Loads the whole snapshot from the store (start-up). */
  reload(): Promise<void> {
    return this.#schedule(true);
  }

  /**
   * One load at a time, applied in order. A caller that arrives while one runs joins the next,
   * which starts after the running one (so it sees every write committed before the call).
   */
  #schedule(full: boolean): Promise<void> {
    if (!this.#running) return this.#start(full);
    if (full) this.#queuedFull = true;
    this.#queued ??= this.#running
      .catch(() => {})
      .then(() => {
        const queuedFull = this.#queuedFull;
        this.#queued = undefined;
        this.#queuedFull = false;
        return this.#start(queuedFull);
      });
    return this.#queued;
  }

  #start(full: boolean): Promise<void> {
    const run = (full || this.#storeVersion < 0 ? this.#loadFull() : this.#loadChanges()).finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #loadFull(): Promise<void> {
    const startedAt = Date.now();
    const snapshot = await this.#store.changes.loadSnapshot();
    this.#apply(snapshot);
    this.#stats.fullLoads++;
    this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
  }

  async #loadChanges(): Promise<void> {
    const startedAt = Date.now();
    const rows =
      this.#accounts.size +
      this.#users.size +
      this.#tokens.size +
      this.#subscriptions.size +
      this.#seats.size +
      this.#connections.size;
    const changes = await this.#store.changes.loadChanges(
      this.#storeVersion,
      Math.max(MIN_INCREMENTAL_KEYS, Math.floor(rows * MAX_INCREMENTAL_SHARE)),
    );
    if (changes === null) return this.#loadFull();
    if (changes.version !== this.#storeVersion) this.#applyChanges(changes);
    this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
  }

  #apply(s: PlatformSnapshot): void {
    this.#accounts = new Map(s.accounts.map((a) => [a.id, a]));
    this.#users = new Map();
    this.#usersByAccount = new Map();
    for (const u of s.users) {
      this.#users.set(u.id, u);
      addTo(this.#usersByAccount, u.accountId, u.id);
    }
    this.#tokens = new Map();
    this.#tokensByUser = new Map();
    this.#identities = new Map();
    for (const t of s.tokens) {
      if (t.revokedAt) continue;
      this.#tokens.set(t.id, { tokenHash: t.tokenHash, userId: t.userId, scope: t.scope ?? null });
      addTo(this.#tokensByUser, t.userId, t.id);
      const user = this.#users.get(t.userId);
      const account = user && this.#accounts.get(user.accountId);
      if (user && account) this.#identities.set(t.tokenHash, { user, account, tokenId: t.id, scope: t.scope ?? null });
    }
    this.#subscriptions = new Map();
    for (const x of s.subscriptions) addTo(this.#subscriptions, x.accountId, x.connectorKey);
    this.#seats = new Map();
    for (const x of s.seats) addTo(this.#seats, x.userId, x.connectorKey);
    this.#connections = new PairMap();
    this.#keyVersionCounts = new Map();
    for (const c of s.connections) this.#putConnection(c);
    this.#toolSettings = new PairMap();
    for (const x of s.toolSettings) this.#toolSettings.set(x.accountId, x.instanceId, x);
    this.#misses.clear();
    this.#storeVersion = s.version;
    this.#version++;
  }

  /** Applies the current rows of the keys that changed; identities are rebuilt for the users they touch. */
  #applyChanges(c: PlatformChanges): void {
    const t = c.touched;
    const dirtyUsers = new Set<string>();
    const accounts = new Map(c.accounts.map((a) => [a.id, a]));
    for (const id of c.touched.accounts) {
      const row = accounts.get(id);
      if (row) this.#accounts.set(id, row);
      else this.#accounts.delete(id);
      for (const userId of valuesOf(this.#usersByAccount, id)) dirtyUsers.add(userId);
    }
    const users = new Map(c.users.map((u) => [u.id, u]));
    for (const id of c.touched.users) {
      const old = this.#users.get(id);
      const row = users.get(id);
      if (old && old.accountId !== row?.accountId) removeFrom(this.#usersByAccount, old.accountId, id);
      if (row) {
        this.#users.set(id, row);
        addTo(this.#usersByAccount, row.accountId, id);
      } else this.#users.delete(id);
      dirtyUsers.add(id);
    }
    const tokens = new Map(c.tokens.map((t) => [t.id, t]));
    for (const id of c.touched.tokens) {
      const old = this.#tokens.get(id);
      if (old) {
        this.#identities.delete(old.tokenHash);
        removeFrom(this.#tokensByUser, old.userId, id);
        this.#tokens.delete(id);
      }
      const row = tokens.get(id);
      if (row && !row.revokedAt) {
        this.#tokens.set(id, { tokenHash: row.tokenHash, userId: row.userId, scope: row.scope ?? null });
        addTo(this.#tokensByUser, row.userId, id);
        this.#misses.delete(row.tokenHash);
        dirtyUsers.add(row.userId);
      }
    }
    for (const [accountId, key] of c.touched.subscriptions) removeFrom(this.#subscriptions, accountId, key);
    for (const x of c.subscriptions) addTo(this.#subscriptions, x.accountId, x.connectorKey);
    for (const [userId, key] of c.touched.seats) removeFrom(this.#seats, userId, key);
    for (const x of c.seats) addTo(this.#seats, x.userId, x.connectorKey);
    for (const [accountId, instanceId] of c.touched.connections) this.#deleteConnection(accountId, instanceId);
    for (const x of c.connections) this.#putConnection(x);
    for (const [accountId, instanceId] of t.toolSettings) this.#toolSettings.delete(accountId, instanceId);
    for (const x of c.toolSettings) this.#toolSettings.set(x.accountId, x.instanceId, x);
    for (const userId of dirtyUsers) {
      const user = this.#users.get(userId);
      const account = user && this.#accounts.get(user.accountId);
      for (const tokenId of valuesOf(this.#tokensByUser, userId)) {
        const token = this.#tokens.get(tokenId)!;
        if (user && account) this.#identities.set(token.tokenHash, { user, account, tokenId, scope: token.scope });
        else this.#identities.delete(token.tokenHash);
      }
    }
    this.#stats.incremental++;
    this.#stats.keysApplied +=
      t.accounts.length +
      t.users.length +
      t.tokens.length +
      t.subscriptions.length +
      t.seats.length +
      t.connections.length +
      t.toolSettings.length;
    this.#storeVersion = c.version;
    this.#version++;
  }

  #putConnection(c: Connection): void {
    this.#deleteConnection(c.accountId, c.instanceId);
    this.#connections.set(c.accountId, c.instanceId, c);
    this.#keyVersionCounts.set(c.keyVersion, (this.#keyVersionCounts.get(c.keyVersion) ?? 0) + 1);
    this.#keyVersions = undefined;
  }

  #deleteConnection(accountId: string, instanceId: string): void {
    const old = this.#connections.get(accountId, instanceId);
    if (!old) return;
    this.#connections.delete(accountId, instanceId);
    const left = (this.#keyVersionCounts.get(old.keyVersion) ?? 1) - 1;
    if (left > 0) this.#keyVersionCounts.set(old.keyVersion, left);
    else this.#keyVersionCounts.delete(old.keyVersion);
    this.#keyVersions = undefined;
  }

  /**
   * Every `refreshMs`, one tiny read of the store's change version; changes are read only when it
   * moved (a missed broadcast is caught up here, incrementally).
   */
  start(refreshMs: number, onRefresh?: (error?: unknown) => void): void {
    this.stop();
    // `onRefresh` hears each outcome (the outage log); a failure no longer goes unnoticed.
    this.#timer = setInterval(
      () =>
        void this.refreshIfChanged().then(
          () => onRefresh?.(),
          (error: unknown) => onRefresh?.(error),
        ),
      refreshMs,
    );
    this.#timer.unref();
  }

  async refreshIfChanged(): Promise<boolean> {
    if (this.#running) return false;
    const startedAt = Date.now();
    const version = await this.#store.changes.changeVersion();
    if (version === this.#storeVersion) {
      this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
      return false;
    }
    await this.sync();
    return true;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The identity of a token hash in the snapshot, without any store read (undefined: not in it). */
  known(tokenHash: string): Identity | undefined {
    return this.#identities.get(tokenHash);
  }

  /**
   * Token hash → identity. A hash not in the snapshot costs no lookup of its own: it waits for a
   * read of the store's change version that began after it arrived (one read in flight at a time,
   * shared by every caller waiting for it). Same version: the snapshot is complete, so the token is
   * unknown. Another version (a token issued on another replica, say): the snapshot catches up
   * first. Random tokens thus cost the store at most one tiny read at a time, whatever their rate,
   * and a token issued elsewhere is found at once.
   */
  async identify(tokenHash: string, now = Date.now()): Promise<Identity | undefined> {
    const hit = this.#identities.get(tokenHash);
    if (hit) return hit;
    const missedAt = this.#misses.get(tokenHash);
    if (missedAt !== undefined && now - missedAt < 5_000) return undefined;
    const startedAt = Date.now();
    const version = await this.#freshVersion();
    if (version === this.#storeVersion) this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
    else await this.sync();
    const found = this.#identities.get(tokenHash);
    if (found) return found;
    if (this.#misses.size > 10_000) this.#misses.clear();
    this.#misses.set(tokenHash, now);
    return undefined;
  }

  #versionRead: Promise<number> | undefined;
  #nextVersionRead: Promise<number> | undefined;

  /** The store's change version, read by a query that began after this call (batched, see identify). */
  #freshVersion(): Promise<number> {
    if (!this.#versionRead) return this.#startVersionRead();
    // The read in flight may have begun before this caller arrived: wait for the next one.
    this.#nextVersionRead ??= this.#versionRead
      .catch(() => 0)
      .then(() => {
        this.#nextVersionRead = undefined;
        return this.#startVersionRead();
      });
    return this.#nextVersionRead;
  }

  #startVersionRead(): Promise<number> {
    const read = this.#store.changes.changeVersion().finally(() => {
      if (this.#versionRead === read) this.#versionRead = undefined;
    });
    this.#versionRead = read;
    return read;
  }

  account(accountId: string): Account | undefined {
    return this.#accounts.get(accountId);
  }

  user(userId: string): User | undefined {
    return this.#users.get(userId);
  }

  isSubscribed(accountId: string, connectorKey: string): boolean {
    return holds(this.#subscriptions, accountId, connectorKey);
  }

  hasSeat(userId: string, connectorKey: string): boolean {
    return holds(this.#seats, userId, connectorKey);
  }

  /** The account's tool settings of one instance, undefined when it narrows nothing. */
  toolSettings(accountId: string, instanceId: string): InstanceToolSettings | undefined {
    return this.#toolSettings.get(accountId, instanceId);
  }

  connection(accountId: string, instanceId: string): Connection | undefined {
    return this.#connections.get(accountId, instanceId);
  }

  /** The key versions stored credentials are sealed with (readiness: a retired key still in use). */
  connectionKeyVersions(): readonly number[] {
    this.#keyVersions ??= [...this.#keyVersionCounts.keys()].sort((a, b) => a - b);
    return this.#keyVersions;
  }

  accountIds(): string[] {
    return [...this.#accounts.keys()];
  }
}

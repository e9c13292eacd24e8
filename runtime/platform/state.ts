// The in-memory view of accounts, tokens and entitlements that the hot path reads, so a tool call
// costs no database round trip. Refreshed after every write made through this process, and every
// `refreshMs` to pick up writes of other replicas (immediately when a shared store broadcasts).
import type { Account, Connection, PlatformSnapshot, PlatformStore, User } from './store.ts';

export interface Identity {
  readonly user: User;
  readonly account: Account;
  readonly tokenId: string;
}

export class PlatformState {
  readonly #store: PlatformStore;
  #identities = new Map<string, Identity>();
  #accounts = new Map<string, Account>();
  #users = new Map<string, User>();
  #subscriptions = new Set<string>();
  #seats = new Set<string>();
  #connections = new Map<string, Connection>();
  #keyVersions: number[] = [];
  /** Token hashes recently looked up and not found (bounded, short-lived). */
  #misses = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  #notify: (() => void) | undefined;
  #version = 0;
  #storeVersion = -1;
  /** When the snapshot was last known to match the store (loaded, or its version confirmed). */
  #confirmedAt = 0;

  constructor(store: PlatformStore) {
    this.#store = store;
  }

  get version(): number {
    return this.#version;
  }

  /** Milliseconds since the snapshot was last known to match the store (readiness). */
  age(now = Date.now()): number {
    return now - this.#confirmedAt;
  }

  /** Called after a refresh that followed a write through this process (other replicas listen). */
  onLocalChange(notify: () => void): void {
    this.#notify = notify;
  }

  /** Reload after a write through this process: the snapshot, then the other replicas. */
  async refresh(): Promise<void> {
    await this.reload();
    this.#notify?.();
  }

  /** Reload the snapshot from the store (a change seen from elsewhere: no notification). */
  async reload(): Promise<void> {
    // Coalesce concurrent reloads; one requested during another runs after it.
    if (this.#refreshing) await this.#refreshing.catch(() => {});
    const startedAt = Date.now();
    const run = this.#store.loadSnapshot().then((snapshot) => {
      this.#apply(snapshot);
      this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
    });
    this.#refreshing = run;
    try {
      await run;
    } finally {
      if (this.#refreshing === run) this.#refreshing = undefined;
    }
  }

  #apply(s: PlatformSnapshot): void {
    const accounts = new Map(s.accounts.map((a) => [a.id, a]));
    const users = new Map(s.users.map((u) => [u.id, u]));
    const identities = new Map<string, Identity>();
    for (const t of s.tokens) {
      const user = users.get(t.userId);
      const account = user && accounts.get(user.accountId);
      if (user && account && !t.revokedAt) identities.set(t.tokenHash, { user, account, tokenId: t.id });
    }
    this.#accounts = accounts;
    this.#users = users;
    this.#identities = identities;
    this.#subscriptions = new Set(s.subscriptions.map((x) => `${x.accountId}|${x.connectorKey}`));
    this.#seats = new Set(s.seats.map((x) => `${x.userId}|${x.connectorKey}`));
    this.#connections = new Map(s.connections.map((c) => [`${c.accountId}|${c.instanceId}`, c]));
    this.#keyVersions = [...new Set(s.connections.map((c) => c.keyVersion))].sort((a, b) => a - b);
    this.#misses.clear();
    this.#storeVersion = s.version;
    this.#version++;
  }

  /**
   * Every `refreshMs`, one tiny read of the store's change version; the full snapshot is reloaded
   * only when something changed (a reload of thousands of tenants must not run on a timer).
   */
  start(refreshMs: number): void {
    this.stop();
    this.#timer = setInterval(() => void this.refreshIfChanged().catch(() => {}), refreshMs);
    this.#timer.unref();
  }

  async refreshIfChanged(): Promise<boolean> {
    if (this.#refreshing) return false;
    const startedAt = Date.now();
    const version = await this.#store.changeVersion();
    if (version === this.#storeVersion) {
      this.#confirmedAt = Math.max(this.#confirmedAt, startedAt);
      return false;
    }
    await this.reload();
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
   * unknown. Another version (a token issued on another replica, say): the snapshot is reloaded
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
    else await this.reload();
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
    const read = this.#store.changeVersion().finally(() => {
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
    return this.#subscriptions.has(`${accountId}|${connectorKey}`);
  }

  hasSeat(userId: string, connectorKey: string): boolean {
    return this.#seats.has(`${userId}|${connectorKey}`);
  }

  connection(accountId: string, instanceId: string): Connection | undefined {
    return this.#connections.get(`${accountId}|${instanceId}`);
  }

  /** The key versions stored credentials are sealed with (readiness: a retired key still in use). */
  connectionKeyVersions(): readonly number[] {
    return this.#keyVersions;
  }

  accountIds(): string[] {
    return [...this.#accounts.keys()];
  }
}

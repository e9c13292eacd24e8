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

  /** Token hash → identity; a token created on another replica is found with one database read. */
  async identify(tokenHash: string, now = Date.now()): Promise<Identity | undefined> {
    const hit = this.#identities.get(tokenHash);
    if (hit) return hit;
    const missedAt = this.#misses.get(tokenHash);
    if (missedAt !== undefined && now - missedAt < 5_000) return undefined;
    const found = await this.#store.findByTokenHash(tokenHash);
    if (!found || found.token.revokedAt) {
      if (this.#misses.size > 10_000) this.#misses.clear();
      this.#misses.set(tokenHash, now);
      return undefined;
    }
    const identity = { user: found.user, account: found.account, tokenId: found.token.id };
    this.#identities.set(tokenHash, identity);
    return identity;
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

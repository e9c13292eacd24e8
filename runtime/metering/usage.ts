// Metering and fair use (DECISIONS §8–10). One cost unit per tools/call that reached the upstream
// stage. Counts are aggregated in memory and flushed to the store in batches (every
// `usageFlushMs` and on shutdown); the usage record adds what is not flushed yet, so it is exact.
// Fair-use counters are per account and billing month: in memory for one process (check-and-
// increment is synchronous, so there is no overshoot), in the shared store for several replicas.
// With the shared store its counter is authoritative: a hard-mode check is one atomic reserve
// there, with no database read. The database is read (once per account and month per process,
// shared by concurrent calls) only to seed an absent counter (new month, Redis restarted or
// evicted) and at the process's first check of an account. After each flush the counters of the
// hard-mode accounts checked in the last minute are raised to what the database and this
// process's unflushed counts hold (never lowered), so counts that never reached Redis (calls that
// failed open, soft-mode calls, a replica that ran without it) are caught up.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { localDate, localMonth } from '../handler-api/calendar.ts';
import type { Account, Repositories, UsageRow } from '../store/store.ts';
import type { SharedStore } from '../store/shared-store.ts';
import type { UsageBatch } from './usage-spill.ts';
import type { UsageRecord } from './usage-record.ts';

export type FairUseDecision =
  | { readonly blocked: false; readonly reservation?: Reservation }
  | { readonly blocked: true; readonly used: number; readonly limit: number; readonly month: string };

/** The decision of every account not in hard mode. */
const NOT_BLOCKED: FairUseDecision = Object.freeze({ blocked: false });

export interface Reservation {
  readonly accountId: string;
  readonly month: string;
}

export interface UsageOptions {
  readonly store: Pick<Repositories, 'usage'>;
  readonly timeZone: string;
  readonly defaultQuota: number;
  readonly flushMs: number;
  /** Bounded wait for a counter read from the store or shared store; past it, fail open. */
  readonly counterTimeoutMs: number;
  /** With a shared store: bounded wait for the database read seeding an absent counter. */
  readonly seedTimeoutMs?: number;
  readonly shared?: SharedStore;
  readonly log: Logger;
  readonly onFailOpen?: (component: string) => void;
  /**
   * `<connector id>|<tool>` of the tools the spec marks deprecated (deprecatedToolKeys): their calls are shown apart in
   * the usage record (docs/decisions/operations.md, 'Calls of deprecated tools are counted apart').
   */
  readonly deprecatedTools?: ReadonlySet<string>;
  /** After each flush that was written: its rows (soft-quota.ts). */
  readonly onFlushed?: (rows: readonly UsageRow[]) => void;
}

const FAIR_USE_TTL_SECONDS = 40 * 24 * 3600;
/** Accounts checked within this window have their shared counters reconciled after each flush. */
const RECONCILE_WINDOW_MS = 60_000;

function timeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

export class UsageMeter {
  readonly #o: UsageOptions;
  /** Not yet flushed: key `account|month|connector|tool` → calls. */
  #pending = new Map<string, number>();
  /** Being flushed right now (still counted in usage records until the write lands). */
  #inFlight = new Map<string, number>();
  /**
   * A flush that failed, kept as it was with its batch id: the next flush retries exactly it, so a
   * write whose answer was lost (committed, then the connection died) is not applied twice.
   */
  #failed: { readonly id: string; readonly counts: Map<string, number> } | undefined;
  /** Ids of batches whose answer arrived (never retried): dropped from the store by the next flush. */
  #settled: readonly string[] = [];
  /** In-process fair-use counters (used when no shared store): `account|month` → units. */
  readonly #units = new Map<string, number>();
  readonly #seeding = new Map<string, Promise<number>>();
  /** Hard-mode `account|month` checked against the shared store → when last (for reconcile). */
  readonly #checked = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #inFlightId: string | undefined;
  #reading = 0;

  constructor(options: UsageOptions) {
    this.#o = options;
  }

  #monthCache = { minute: -1, month: '' };

  /** Billing month of an instant; recomputed at most once a minute (Intl is costly per call). */
  month(now: Date): string {
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.#monthCache.minute) this.#monthCache = { minute, month: localMonth(now, this.#o.timeZone) };
    return this.#monthCache.month;
  }

  limitOf(account: Account): number {
    return account.fairUseQuota ?? this.#o.defaultQuota;
  }

  /**
   * Counted calls not yet in the store (kept in memory while the database is away). Bounded by
   * construction: one entry per account, month, connector and tool, whatever the number of calls
   * or the length of the outage.
   */
  backlog(): { rows: number; calls: number } {
    let calls = 0;
    let rows = 0;
    for (const map of this.#unflushed()) {
      rows += map.size;
      for (const n of map.values()) calls += n;
    }
    return { rows, calls };
  }

  start(): void {
    let failing = false;
    let ticking = false;
    const tick = () =>
      this.flush().then(
        () => {
          if (failing) this.#o.log.info(this.backlog(), 'usage flush succeeded again');
          failing = false;
        },
        (error: unknown) => {
          // Logged once per outage; the counts stay in memory and the next tick retries.
          if (!failing)
            this.#o.log.error(
              { err: { message: (error as Error)?.message }, ...this.backlog() },
              'usage flush failed; keeping counts in memory and retrying',
            );
          failing = true;
        },
      );
    // One tick at a time: a reconcile still reading would make the next tick's flush a no-op.
    this.#timer = setInterval(() => {
      if (ticking) return;
      ticking = true;
      void tick()
        .then(() => this.reconcile())
        .finally(() => (ticking = false));
    }, this.#o.flushMs);
    this.#timer.unref();
  }

  /**
   * Stops the ticks and flushes, retrying while the database does not answer, for up to
   * `drainMs`. Returns what is still not known to be in the store, as batches with their ids
   * (a failed batch keeps its id, so writing it again later cannot count it twice).
   */
  async stop(drainMs = 0): Promise<UsageBatch[]> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const deadline = Date.now() + drainMs;
    for (;;) {
      const left = deadline - Date.now();
      try {
        await timeout(this.flush(true), Math.max(left, 1));
        return [];
      } catch {
        if (Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, Math.min(200, Math.max(deadline - Date.now(), 1))));
      }
    }
    return this.#leftovers();
  }

  #leftovers(): UsageBatch[] {
    const rowsOf = (counts: Map<string, number>): UsageRow[] =>
      [...counts].map(([key, calls]) => {
        const [accountId, month, connectorId, tool] = key.split('|') as [string, string, string, string];
        return { accountId, month, connectorId, tool, calls, costUnits: calls };
      });
    const batches: UsageBatch[] = [];
    if (this.#failed) batches.push({ id: this.#failed.id, rows: rowsOf(this.#failed.counts) });
    if (this.#inFlight.size > 0 && this.#inFlightId)
      batches.push({ id: this.#inFlightId, rows: rowsOf(this.#inFlight) });
    if (this.#pending.size > 0) batches.push({ id: randomUUID(), rows: rowsOf(this.#pending) });
    return batches;
  }

  /** Units of the month in the store plus everything this process has not flushed. */
  async #storedUnits(accountId: string, month: string): Promise<number> {
    // No flush may land between the store read and the sum of unflushed counts below.
    this.#reading++;
    try {
      if (this.#flushing) await this.#flushing.catch(() => {});
      return await this.#sumUnits(accountId, month);
    } finally {
      this.#reading--;
    }
  }

  async #sumUnits(accountId: string, month: string): Promise<number> {
    let units = await this.#o.store.usage.getMonthCostUnits(accountId, month);
    for (const map of this.#unflushed()) {
      for (const [key, n] of map) if (key.startsWith(`${accountId}|${month}|`)) units += n;
    }
    return units;
  }

  /** Seeds the in-process counter once per account and month (concurrent callers share it). */
  async #localUnits(accountId: string, month: string): Promise<number> {
    const key = `${accountId}|${month}`;
    const known = this.#units.get(key);
    if (known !== undefined) return known;
    let seeding = this.#seeding.get(key);
    if (!seeding) {
      seeding = timeout(this.#storedUnits(accountId, month), this.#o.counterTimeoutMs);
      this.#seeding.set(key, seeding);
      seeding.finally(() => this.#seeding.delete(key)).catch(() => {});
    }
    const stored = await seeding;
    // Units metered while the seed was read are already in #pending and counted by the store read
    // only once flushed; keep whichever view is larger.
    const current = this.#units.get(key);
    if (current === undefined) this.#units.set(key, stored);
    return this.#units.get(key)!;
  }

  /**
   * Units of the month for seeding (or catching up) a shared counter: one database read per
   * account and month at a time in this process, whatever the number of calls waiting for it.
   */
  #seed(accountId: string, month: string): Promise<number> {
    const key = `${accountId}|${month}`;
    let seeding = this.#seeding.get(key);
    if (!seeding) {
      seeding = timeout(this.#storedUnits(accountId, month), this.#o.seedTimeoutMs ?? this.#o.counterTimeoutMs);
      this.#seeding.set(key, seeding);
      seeding.finally(() => this.#seeding.delete(key)).catch(() => {});
    }
    return seeding;
  }

  /**
   * Raises the shared counters of the hard-mode accounts checked in the last
   * `RECONCILE_WINDOW_MS` to at least the month's units in the database plus this process's
   * unflushed ones (a lower bound of the truth, so a counter is never raised past it). Runs after
   * each flush, one database statement per month; counters that do not exist are left for the
   * next reserve to seed. A failure is retried on the next flush.
   */
  async reconcile(): Promise<void> {
    const shared = this.#o.shared;
    if (!shared || this.#checked.size === 0) return;
    const started = Date.now();
    const checked = [...this.#checked];
    try {
      const byMonth = new Map<string, string[]>();
      for (const [key] of checked) {
        const [accountId, month] = key.split('|') as [string, string];
        byMonth.set(month, [...(byMonth.get(month) ?? []), accountId]);
      }
      const counters = new Map<string, number>();
      // No flush may land between the store read and the sum of unflushed counts below.
      this.#reading++;
      try {
        if (this.#flushing) await this.#flushing.catch(() => {});
        for (const [month, accountIds] of byMonth) {
          const totals = await timeout(
            this.#o.store.usage.getMonthCostUnitsOf(accountIds, month),
            this.#o.seedTimeoutMs ?? this.#o.counterTimeoutMs,
          );
          for (const [accountId, units] of totals) counters.set(`${accountId}|${month}`, units);
        }
        for (const map of this.#unflushed()) {
          for (const [key, n] of map) {
            const [accountId, month] = key.split('|') as [string, string];
            const unitsKey = `${accountId}|${month}`;
            const units = counters.get(unitsKey);
            if (units !== undefined) counters.set(unitsKey, units + n);
          }
        }
      } finally {
        this.#reading--;
      }
      const raised = await shared.raiseUnits(
        new Map([...counters].map(([key, units]) => [`fu:${key.replace('|', ':')}`, units])),
        FAIR_USE_TTL_SECONDS,
      );
      if (raised > 0) this.#o.log.info({ raised }, 'fair-use counters were behind the database; raised');
      // Accounts not checked within the window leave it (only once reconciled): their next check
      // catches the counter up first.
      for (const [key, at] of checked)
        if (at < started - RECONCILE_WINDOW_MS && this.#checked.get(key) === at) this.#checked.delete(key);
    } catch {
      // Retried after the next flush (the accounts stay in the window).
    }
  }

  /** Hard mode: atomically reserve one unit, or block. Other modes never block (and need no promise). Fails open. */
  check(account: Account, now: Date): FairUseDecision | Promise<FairUseDecision> {
    return account.fairUseMode === 'hard' ? this.#reserve(account, now) : NOT_BLOCKED;
  }

  async #reserve(account: Account, now: Date): Promise<FairUseDecision> {
    const month = this.month(now);
    const limit = this.limitOf(account);
    try {
      if (this.#o.shared) {
        const checkedKey = `${account.id}|${month}`;
        const known = this.#checked.has(checkedKey);
        this.#checked.set(checkedKey, Date.now());
        // The first check of an account in this process (or after a quiet minute) raises the
        // counter to the database's count first: units metered without a reservation meanwhile
        // (soft mode, calls that failed open, a replica without Redis) are not reconciled yet.
        // A database that does not answer in time does not fail the call: the counter decides.
        const floor = known ? undefined : await this.#seed(account.id, month).catch(() => undefined);
        const key = `fu:${account.id}:${month}`;
        // An absent counter is seeded (one read, shared); failing that, the call fails open.
        const r =
          (await this.#o.shared.reserveUnit(key, limit, FAIR_USE_TTL_SECONDS, floor)) ??
          (known
            ? await this.#o.shared.reserveUnit(key, limit, FAIR_USE_TTL_SECONDS, await this.#seed(account.id, month))
            : null);
        if (r === null) throw new Error('fair-use counter absent and the database did not answer in time to seed it');
        return r.allowed
          ? { blocked: false, reservation: { accountId: account.id, month } }
          : { blocked: true, used: r.used, limit, month };
      }
      const used = await this.#localUnits(account.id, month);
      // Synchronous from here: check and increment cannot interleave with another call.
      const current = this.#units.get(`${account.id}|${month}`) ?? used;
      if (current + 1 > limit) return { blocked: true, used: current, limit, month };
      this.#units.set(`${account.id}|${month}`, current + 1);
      return { blocked: false, reservation: { accountId: account.id, month } };
    } catch (error) {
      // Per call, so debug only: a shared-store outage is logged once when it starts and ends
      // (runtime/operations/outage-log.ts).
      this.#o.log.debug({ err: error, accountId: account.id }, 'fair-use counter unavailable; failing open');
      this.#o.onFailOpen?.('fair_use');
      return { blocked: false };
    }
  }

  /** Gives a reserved unit back (the call ended before the upstream stage). */
  async release(reservation: Reservation): Promise<void> {
    try {
      if (this.#o.shared) await this.#o.shared.addUnits(`fu:${reservation.accountId}:${reservation.month}`, -1);
      else {
        const key = `${reservation.accountId}|${reservation.month}`;
        const v = this.#units.get(key);
        if (v !== undefined) this.#units.set(key, Math.max(0, v - 1));
      }
    } catch {
      this.#o.onFailOpen?.('fair_use');
    }
  }

  /** Meters one call (one cost unit). `reservation` is the hard-mode unit already counted. */
  record(accountId: string, connectorId: string, tool: string, now: Date, reservation?: Reservation): void {
    const month = this.month(now);
    const key = `${accountId}|${month}|${connectorId}|${tool}`;
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    // With a shared store, a unit metered without a reservation (soft or off mode, or a call that
    // failed open) reaches the counter through the reconcile after the next flush (see reconcile).
    if (reservation || this.#o.shared) return;
    const unitsKey = `${accountId}|${month}`;
    if (this.#units.has(unitsKey)) {
      this.#units.set(unitsKey, this.#units.get(unitsKey)! + 1);
    }
  }

  /** Every count not yet known to be in the store. */
  #unflushed(): Map<string, number>[] {
    return this.#failed ? [this.#pending, this.#inFlight, this.#failed.counts] : [this.#pending, this.#inFlight];
  }

  /** Writes the unflushed counts: first a failed batch again (same id), then the pending ones. */
  async flush(force = false): Promise<void> {
    // One flush at a time: callers queued behind a slow one must not start two at once.
    while (this.#flushing) await this.#flushing;
    if ((this.#pending.size === 0 && !this.#failed) || (this.#reading > 0 && !force)) return;
    const retry = this.#failed !== undefined;
    await this.#flushBatch();
    if (retry && this.#pending.size > 0) await this.flush(force);
  }

  async #flushBatch(): Promise<void> {
    let id: string;
    if (this.#failed) {
      id = this.#failed.id;
      this.#inFlight = this.#failed.counts;
      this.#failed = undefined;
    } else {
      id = randomUUID();
      this.#inFlight = this.#pending;
      this.#pending = new Map();
    }
    const rows: UsageRow[] = [...this.#inFlight].map(([key, calls]) => {
      const [accountId, month, connectorId, tool] = key.split('|') as [string, string, string, string];
      return { accountId, month, connectorId, tool, calls, costUnits: calls };
    });
    this.#inFlightId = id;
    const run = this.#o.store.usage.addUsage(rows, id, this.#settled);
    // Readers wait for this flush to settle, whatever its outcome; nobody else may see it reject.
    this.#flushing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
      this.#o.onFlushed?.(rows);
      this.#inFlight = new Map();
      // The earlier settled ids went with this statement; this batch is settled now.
      this.#settled = [id];
    } catch (error) {
      // Nothing is lost: the batch is retried as it is, under its id (it may have been applied).
      this.#failed = { id, counts: this.#inFlight };
      this.#inFlight = new Map();
      throw error;
    } finally {
      this.#flushing = undefined;
    }
  }

  /** The usage record of the spec for the account's month to date. */
  async usageRecord(account: Account, now: Date): Promise<UsageRecord> {
    const month = this.month(now);
    const rows = await this.#o.store.usage.getUsage(account.id, month);
    const counts = new Map<string, number>();
    for (const r of rows)
      counts.set(`${r.connectorId}|${r.tool}`, (counts.get(`${r.connectorId}|${r.tool}`) ?? 0) + r.calls);
    for (const map of this.#unflushed()) {
      for (const [key, n] of map) {
        const [accountId, m, connectorId, tool] = key.split('|');
        if (accountId === account.id && m === month)
          counts.set(`${connectorId}|${tool}`, (counts.get(`${connectorId}|${tool}`) ?? 0) + n);
      }
    }
    const byConnector: UsageRecord['usage']['byConnector'] = {};
    let total = 0;
    let deprecatedCalls = 0;
    for (const [key, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [connectorId, tool] = key.split('|') as [string, string];
      byConnector[connectorId] ??= { calls: 0, costUnits: 0, byTool: {} };
      const c = byConnector[connectorId];
      c.calls += n;
      c.costUnits += n;
      c.byTool[tool] = (c.byTool[tool] ?? 0) + n;
      total += n;
      if (this.#o.deprecatedTools?.has(key)) {
        c.deprecated ??= { calls: 0, byTool: {} };
        c.deprecated.calls += n;
        c.deprecated.byTool[tool] = (c.deprecated.byTool[tool] ?? 0) + n;
        deprecatedCalls += n;
      }
    }
    const limit = this.limitOf(account);
    let used = total;
    let withinQuota: boolean;
    if (this.#o.shared && account.fairUseMode === 'hard') {
      try {
        used = Math.max(total, (await this.#o.shared.getUnits(`fu:${account.id}:${month}`)) ?? total);
        withinQuota = used <= limit;
      } catch {
        this.#o.onFailOpen?.('fair_use');
        withinQuota = true;
      }
    } else withinQuota = used <= limit;
    return {
      usage: {
        from: `${month}-01`,
        to: localDate(now, this.#o.timeZone),
        totalCalls: total,
        totalCostUnits: total,
        byConnector,
        ...(deprecatedCalls > 0 ? { deprecatedCalls } : {}),
      },
      fairUse: { withinQuota, used, limit, mode: account.fairUseMode, month },
    };
  }
}

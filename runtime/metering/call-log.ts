// The call log writer (docs/decisions/portal.md, 'The call log keeps no arguments or results'). The
// call path hands over one small record per tools/call, synchronously (no await, nothing else
// allocated); records are written in batches, one statement per flush like usage, with the daily
// usage (metered calls per day, endpoint instance and user) added in the same statement. Calls
// older than `retentionDays` are pruned once an hour. The log is not billing data: a batch the
// database does not take is kept for the next flush up to `maxPending` records, then new records
// are dropped (counted and logged once); what is left at stop is not spilled.
import type { Logger } from 'pino';
import { localDate } from '../handler-api/calendar.ts';
import type { CallLogRepository, CallLogRow, CallOutcome, DailyUsageRow } from '../store/call-log.ts';

/** Who made a call and where: the call's log fields carry these (runtime/pipeline/call-types.ts). */
export interface CallSource {
  readonly accountId: string;
  readonly instance: string;
  readonly userId: string;
  readonly tokenId: string;
}

/**
 * A call waiting for the flush: the source's four strings copied out (long-lived ones from the
 * snapshot), not the call's log fields themselves, which hold per-call strings (request, trace and
 * span ids). A record lives until the next flush, so whatever it holds is promoted to the old
 * generation: ~300 bytes per call with the fields, ~90 without (docs/decisions/performance.md).
 */
interface PendingCall {
  readonly at: number;
  readonly accountId: string;
  readonly instance: string;
  readonly userId: string;
  readonly tokenId: string;
  readonly tool: string;
  readonly outcome: CallOutcome;
  readonly detail: string;
  readonly durationMs: number | null;
}

export interface CallLogOptions {
  readonly store: { readonly callLog: CallLogRepository };
  readonly timeZone: string;
  readonly flushMs: number;
  readonly retentionDays: number;
  readonly log: Logger;
  /** Records kept while the database does not take them; beyond it new records are dropped. */
  readonly maxPending?: number;
  readonly now?: () => number;
}

const PRUNE_EVERY_MS = 3600_000;
const DAY_MS = 86_400_000;
const MAX_PENDING = 20_000;
/**
 * Calls written by one statement at most (two batches of an account's 500): the embedded engine
 * costs ~0.9 ms of CPU per statement whatever its size, so 500 a statement was ~1.8 µs per call and
 * 1,000 is ~0.9; 2,000 measured no cheaper (docs/decisions/portal.md, 'The call log is written in batches').
 */
const CHUNK_ROWS = 1000;

export class CallLogWriter {
  readonly #o: CallLogOptions;
  #pending: PendingCall[] = [];
  #dropped = 0;
  #failing = false;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  /** When the next flush prunes (performance.now() time); the first one does. */
  #pruneAt = 0;
  #dayCache = { minute: -1, day: '' };

  constructor(options: CallLogOptions) {
    this.#o = options;
  }

  /** One tools/call (synchronous, on the call path). A refusal has no duration and is not metered. */
  record(source: CallSource, tool: string, outcome: CallOutcome, detail: string, durationMs: number | null): void {
    if (this.#pending.length >= (this.#o.maxPending ?? MAX_PENDING)) {
      this.#dropped++;
      return;
    }
    const { accountId, instance, userId, tokenId } = source;
    const at = this.#o.now?.() ?? Date.now();
    this.#pending.push({ at, accountId, instance, userId, tokenId, tool, outcome, detail, durationMs });
  }

  /** Records not written yet. */
  get pending(): number {
    return this.#pending.length;
  }

  start(): void {
    this.#timer = setInterval(() => void this.flush().catch(() => {}), this.#o.flushMs);
    this.#timer.unref();
  }

  /** Stops the ticks and writes what is pending once (bounded by the store's query deadline). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush().catch(() => {});
  }

  /** Writes the pending records (one statement) and, once an hour, prunes old calls. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    const run = this.#write();
    this.#flushing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
    } finally {
      this.#flushing = undefined;
    }
  }

  async #write(): Promise<void> {
    let batch = this.#pending;
    if (batch.length > 0) {
      this.#pending = [];
      try {
        // In statements of at most CHUNK_ROWS calls, so one statement's size stays bounded whatever
        // the load (docs/decisions/portal.md, 'The call log is written in batches').
        while (batch.length > 0) {
          await this.#o.store.callLog.addCalls(...this.#rows(batch.slice(0, CHUNK_ROWS)));
          batch = batch.slice(CHUNK_ROWS);
        }
        if (this.#failing || this.#dropped > 0)
          this.#o.log.info({ dropped: this.#dropped }, 'call log written again after a failure');
        this.#failing = false;
        this.#dropped = 0;
      } catch (error) {
        // Kept for the next flush, ahead of what came meanwhile, within the bound.
        const room = Math.max(0, (this.#o.maxPending ?? MAX_PENDING) - this.#pending.length);
        this.#dropped += Math.max(0, batch.length - room);
        this.#pending = [...batch.slice(batch.length - Math.min(room, batch.length)), ...this.#pending];
        if (!this.#failing)
          this.#o.log.error(
            { err: { message: (error as Error)?.message }, pending: this.#pending.length },
            'call log flush failed; keeping the calls in memory and retrying',
          );
        this.#failing = true;
        throw error;
      }
    }
    if (performance.now() >= this.#pruneAt) {
      this.#pruneAt = performance.now() + PRUNE_EVERY_MS;
      const before = new Date((this.#o.now?.() ?? Date.now()) - this.#o.retentionDays * DAY_MS);
      // A failed prune is retried at the next hour's flush; it never fails the flush.
      await this.#o.store.callLog.pruneCalls(before).catch(() => {});
    }
  }

  #rows(batch: readonly PendingCall[]): [CallLogRow[], DailyUsageRow[]] {
    const daily = new Map<
      string,
      { accountId: string; day: string; instanceId: string; userId: string; calls: number }
    >();
    const rows = batch.map((c): CallLogRow => {
      const { accountId, instance, userId, tokenId } = c;
      if (c.outcome !== 'refused') {
        const day = this.#day(c.at);
        const key = `${accountId}|${day}|${instance}|${userId}`;
        const seen = daily.get(key);
        if (seen) seen.calls++;
        else daily.set(key, { accountId, day, instanceId: instance, userId, calls: 1 });
      }
      return {
        accountId,
        at: new Date(c.at),
        instanceId: instance,
        tool: c.tool,
        outcome: c.outcome,
        detail: c.detail,
        userId,
        tokenId,
        durationMs: c.durationMs === null ? null : Math.round(c.durationMs),
      };
    });
    return [rows, [...daily.values()]];
  }

  /** The billing day of an instant; Intl runs at most once per minute of calls (at flush time). */
  #day(at: number): string {
    const minute = Math.floor(at / 60_000);
    if (minute !== this.#dayCache.minute) this.#dayCache = { minute, day: localDate(new Date(at), this.#o.timeZone) };
    return this.#dayCache.day;
  }
}

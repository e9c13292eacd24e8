// What a store connection reports about itself: each command answered in time, or missed (an error
// or its deadline). The outage log (runtime/operations/outage-log.ts) turns these into one line when an
// outage starts and one when it ends; the stall watch below decides when a connection that keeps
// missing its deadlines is to be replaced (docs/decisions/operations.md, 'A Redis connection that
// stops answering is replaced').

export interface StoreHealth {
  /** A command was answered in time. */
  ok(): void;
  /** A command failed or missed its deadline; `what` names the operation. */
  fault(what: string, error: unknown): void;
}

/** Consecutive deadline misses, with no reply in between, after which a connection is replaced. */
export const STALLED_AFTER_MISSES = 3;

/**
 * Counts deadline misses since the last reply (a late reply counts: a slow but answering
 * connection is kept, only a silent one is replaced). `missed()` is true when `limit` misses in a
 * row came with no reply for `quietMs`.
 */
export class StallWatch {
  readonly #limit: number;
  readonly #quietMs: number;
  readonly #now: () => number;
  #misses = 0;
  #lastReply: number;

  constructor(quietMs: number, limit = STALLED_AFTER_MISSES, now: () => number = Date.now) {
    this.#limit = limit;
    this.#quietMs = quietMs;
    this.#now = now;
    this.#lastReply = now();
  }

  /** A reply arrived, in time or late. */
  replied(): void {
    this.#misses = 0;
    this.#lastReply = this.#now();
  }

  /** Counts a miss; true when the connection is to be replaced now (the count starts again). */
  missed(): boolean {
    if (++this.#misses < this.#limit || this.#now() - this.#lastReply < this.#quietMs) return false;
    this.replied();
    return true;
  }
}

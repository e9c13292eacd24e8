// What a store connection reports about itself: each command answered in time, or missed (an error
// or its deadline). The outage log (runtime/outage-log.ts) turns these into one line when an
// outage starts and one when it ends; the stall watch below decides when a connection that keeps
// missing its deadlines is to be replaced (docs/decisions/operations.md, 'A Redis connection that
// stops answering is replaced').

export interface StoreHealth {
  /** A command was answered in time. */
  ok(): void;
  /** A command failed or missed its deadline; `what` names the operation. */
  fault(what: string, error: unknown): void;
}

/** Consecutive deadline misses, with no answer in between, after which a connection is replaced. */
export const STALLED_AFTER_MISSES = 3;

/** Counts deadline misses since the last answer; `missed()` is true once per stall. */
export class StallWatch {
  readonly #limit: number;
  #misses = 0;

  constructor(limit = STALLED_AFTER_MISSES) {
    this.#limit = limit;
  }

  answered(): void {
    this.#misses = 0;
  }

  /** Counts a miss; true when the connection is to be replaced now (the count starts again). */
  missed(): boolean {
    if (++this.#misses < this.#limit) return false;
    this.#misses = 0;
    return true;
  }
}

// One log line when a store (PostgreSQL, Redis) stops answering and one when it answers again,
// with the outage's duration and how many operations failed meanwhile; nothing per call in
// between (docs/decisions/operations.md, 'Store outages are logged when they start and end').
// While the store is down a probe (a ping, a snapshot refresh) runs every `probeMs`, so the end
// is logged even when no call arrives.
import type { Logger } from 'pino';

export interface OutageLogOptions {
  /** `postgres` or `redis`: the `store` field of the lines. */
  readonly store: string;
  /** The setting that points at the store (DATABASE_URL, REDIS_URL), named in the lines. */
  readonly setting: string;
  readonly log: Logger;
  /** A cheap round trip run while the store is down; its outcome ends or continues the outage. */
  readonly probe?: () => Promise<unknown>;
  readonly probeMs?: number;
  readonly now?: () => number;
}

export class OutageLog {
  readonly #o: OutageLogOptions;
  readonly #now: () => number;
  #since: number | undefined;
  #failures = 0;
  #probe: NodeJS.Timeout | undefined;

  constructor(options: OutageLogOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** True while an outage is under way. */
  get down(): boolean {
    return this.#since !== undefined;
  }

  /** An operation failed; the first failure after the store answered starts an outage. */
  fault(what: string, error: unknown): void {
    this.#failures++;
    if (this.#since !== undefined) return;
    this.#since = this.#now();
    const { store, setting } = this.#o;
    this.#o.log.error(
      { store, setting, operation: what, err: { message: (error as Error)?.message ?? String(error) } },
      `${store} (${setting}) unavailable: outage started`,
    );
    if (this.#o.probe && !this.#probe) {
      this.#probe = setInterval(
        () =>
          void this.#o.probe!().then(
            () => this.ok(),
            (e: unknown) => this.fault('probe', e),
          ),
        this.#o.probeMs ?? 1000,
      );
      this.#probe.unref();
    }
  }

  /** An operation was answered; ends an outage under way. */
  ok(): void {
    if (this.#since === undefined) return;
    const durationMs = this.#now() - this.#since;
    const { store, setting } = this.#o;
    this.#o.log.warn(
      { store, setting, durationMs, failedOperations: this.#failures },
      `${store} (${setting}) available again: outage ended after ${durationMs} ms`,
    );
    this.#since = undefined;
    this.#failures = 0;
    this.#stopProbe();
  }

  close(): void {
    this.#stopProbe();
  }

  #stopProbe(): void {
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = undefined;
  }
}

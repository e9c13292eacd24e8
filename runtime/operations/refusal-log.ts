// Refusals before a call (401, the auth-flood 429, the request-rate 429, the 503 of a caller that
// cannot be checked) counted in gateway_refusals_total and logged, aggregated: the first refusal
// of a reason is logged at once; the ones after it in the same interval are counted per source and
// written as one line per reason when the interval ends. A flood of 1,000 bad tokens makes two
// lines, not 1,000 (docs/decisions/operations.md, 'Refusals are logged per reason and interval').
// Never a token: the source is the client address.
import type { Logger } from 'pino';
import type { Metrics } from './observability.ts';

export const REFUSAL_LOG_INTERVAL_MS = 10_000;
/** Sources named in a line (the most frequent); the others are only counted. */
const SOURCES_NAMED = 10;
/** Distinct sources tracked per reason and interval; further ones count under "other". */
const SOURCES_TRACKED = 1000;

interface Window {
  count: number;
  sources: Map<string, number>;
  connectors: Set<string>;
}

export class RefusalLog {
  readonly #log: Logger;
  readonly #metrics: Pick<Metrics, 'refusals'>;
  readonly #intervalMs: number;
  readonly #windows = new Map<string, Window>();
  #timer: NodeJS.Timeout | undefined;

  constructor(log: Logger, metrics: Pick<Metrics, 'refusals'>, intervalMs = REFUSAL_LOG_INTERVAL_MS) {
    this.#log = log;
    this.#metrics = metrics;
    this.#intervalMs = intervalMs;
  }

  refused(reason: string, connector: string, source: string | undefined): void {
    this.#metrics.refusals.inc({ connector, reason });
    const from = source ?? 'unknown';
    const window = this.#windows.get(reason);
    if (!window) {
      this.#log.warn(
        { reason, connector, source: from },
        `request refused: ${reason} ` +
          `(more of this reason within ${this.#intervalMs / 1000} s are counted and logged together)`,
      );
      this.#windows.set(reason, { count: 0, sources: new Map(), connectors: new Set() });
      this.#start();
      return;
    }
    window.count++;
    window.connectors.add(connector);
    const key = window.sources.has(from) || window.sources.size < SOURCES_TRACKED ? from : 'other';
    window.sources.set(key, (window.sources.get(key) ?? 0) + 1);
  }

  /**
   * Writes one line per reason refused since the last one; a reason with none is closed (its next
   * refusal is logged at once).
   */
  flush(): void {
    for (const [reason, window] of this.#windows) {
      if (window.count === 0) {
        this.#windows.delete(reason);
        continue;
      }
      const named = [...window.sources].sort((x, y) => y[1] - x[1]).slice(0, SOURCES_NAMED);
      this.#log.warn(
        {
          reason,
          count: window.count,
          sources: Object.fromEntries(named),
          distinctSources: window.sources.size,
          connectors: [...window.connectors],
        },
        `requests refused: ${window.count} more ${reason} in the last ${this.#intervalMs / 1000} s`,
      );
      this.#windows.set(reason, { count: 0, sources: new Map(), connectors: new Set() });
    }
    if (this.#windows.size === 0) this.close();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.flush(), this.#intervalMs);
    this.#timer.unref();
  }
}

// Small statistics helpers: medians with min–max over runs, percentiles of latency samples.

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly values: readonly number[];
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, values };
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, values };
}

/** Nearest-rank percentile of an already sorted sample (p in 0..100). */
export function percentile(sorted: Float64Array | readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** A growable sample of doubles (latencies in ms) without per-value allocation. */
export class Sample {
  #data = new Float64Array(1 << 14);
  #n = 0;

  push(value: number): void {
    if (this.#n === this.#data.length) {
      const next = new Float64Array(this.#data.length * 2);
      next.set(this.#data);
      this.#data = next;
    }
    this.#data[this.#n++] = value;
  }

  get size(): number {
    return this.#n;
  }

  summary(): LatencySummary {
    const sorted = this.#data.slice(0, this.#n).sort();
    let sum = 0;
    for (const v of sorted) sum += v;
    return {
      count: sorted.length,
      mean: sorted.length ? sum / sorted.length : Number.NaN,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    };
  }
}

export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

// The request-rate limit (DECISIONS §7): a token bucket per account and connector id (instances
// share their connector's bucket). In memory for one process; in Redis (one atomic script per
// request) for several replicas. A slow or failing shared store fails open, logged and counted.
import type { SharedStore } from './shared-store.ts';

export interface RateLimitSettings {
  readonly perSecond: number;
  readonly burst: number;
}

export type RateDecision = { readonly allowed: boolean; readonly failOpen?: boolean };

export interface RateLimiter {
  take(key: string, now?: number): RateDecision | Promise<RateDecision>;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #settings: RateLimitSettings;
  #sweepAt = 0;

  constructor(settings: RateLimitSettings) {
    this.#settings = settings;
  }

  take(key: string, now = performance.now()): RateDecision {
    const { perSecond, burst } = this.#settings;
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { tokens: burst, at: now };
      this.#buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
    }
    // Swept once a minute, or at once when many keys (client addresses, say) pile up.
    if (now > this.#sweepAt || this.#buckets.size > 100_000) this.#sweep(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false };
  }

  /** Whether `take` would allow now, without taking a token. */
  available(key: string, now = performance.now()): boolean {
    const bucket = this.#buckets.get(key);
    return !bucket || Math.min(this.#settings.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#settings.perSecond) >= 1;
  }

  /** Drops buckets that are full again, so idle accounts cost no memory. */
  #sweep(now: number): void {
    this.#sweepAt = now + 60_000;
    const fullAfterMs = (this.#settings.burst / this.#settings.perSecond) * 1000;
    for (const [key, bucket] of this.#buckets) if (now - bucket.at > fullAfterMs) this.#buckets.delete(key);
  }
}

export class SharedRateLimiter implements RateLimiter {
  readonly #store: SharedStore;
  readonly #settings: RateLimitSettings;
  readonly #onFailOpen: (error: unknown) => void;

  constructor(store: SharedStore, settings: RateLimitSettings, onFailOpen: (error: unknown) => void) {
    this.#store = store;
    this.#settings = settings;
    this.#onFailOpen = onFailOpen;
  }

  async take(key: string): Promise<RateDecision> {
    try {
      const allowed = await this.#store.tokenBucket(`rl:${key}`, this.#settings.perSecond, this.#settings.burst);
      return { allowed };
    } catch (error) {
      this.#onFailOpen(error);
      return { allowed: true, failOpen: true };
    }
  }
}

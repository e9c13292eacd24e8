// The request-rate limit (DECISIONS §7): a token bucket per account and connector id (instances
// share their connector's bucket). In memory for one process; in Redis (one atomic script per
// request) for several replicas. A slow or failing shared store fails open, logged and counted.
import type { SharedStore } from '../store/shared-store.ts';
import { abortableSleep } from '../sleep.ts';

export interface RateLimitSettings {
  readonly perSecond: number;
  readonly burst: number;
}

export type RateDecision = { readonly allowed: boolean; readonly failOpen?: boolean };

export interface RateLimiter {
  take(key: string, now?: number): RateDecision | Promise<RateDecision>;
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true });
const REFUSED: RateDecision = Object.freeze({ allowed: false });

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
      return ALLOWED;
    }
    return REFUSED;
  }

  /** Whether `take` would allow now, without taking a token. */
  available(key: string, now = performance.now()): boolean {
    const bucket = this.#buckets.get(key);
    return (
      !bucket ||
      Math.min(this.#settings.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#settings.perSecond) >= 1
    );
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

/** The per-key request budgets a handler can use (ToolContext.upstreamQuota), for one call. */
export interface UpstreamQuotaBudget {
  take(key: string, perMinute: number, maxWaitMs: number): Promise<boolean>;
}

/**
 * Budgets for upstream quotas that are per key rather than per caller (an upstream's limit per
 * organisation and client id, say): a token bucket of `perMinute` requests refilling continuously,
 * keyed by connector and the handler's key. Cluster-wide in the shared store; per process without
 * one, and per process again while the shared store is down (logged and counted by `onFailOpen`).
 * A spent budget is waited for, one refill at a time, up to the caller's `maxWaitMs` (paced, not
 * refused, while the wait is short), and never past the call's signal.
 */
export class UpstreamQuotas {
  readonly #shared: SharedStore | undefined;
  readonly #onFailOpen: (error: unknown) => void;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #memory = new Map<number, MemoryRateLimiter>();

  constructor(
    shared: SharedStore | undefined,
    onFailOpen: (error: unknown) => void,
    sleep: (ms: number, signal: AbortSignal) => Promise<void> = abortableSleep,
  ) {
    this.#shared = shared;
    this.#onFailOpen = onFailOpen;
    this.#sleep = sleep;
  }

  /** The budgets of one call of a connector's tool (its waits end with the call's `signal`). */
  forCall(connectorKey: string, signal: AbortSignal): UpstreamQuotaBudget {
    return {
      take: (key, perMinute, maxWaitMs) => this.take(`uq:${connectorKey}:${key}`, perMinute, maxWaitMs, signal),
    };
  }

  async take(key: string, perMinute: number, maxWaitMs: number, signal: AbortSignal): Promise<boolean> {
    if (!(perMinute > 0)) return true;
    const refillMs = Math.ceil(60_000 / perMinute);
    for (let waited = 0; ; waited += refillMs) {
      if (await this.#takeOnce(key, perMinute)) return true;
      if (waited + refillMs > maxWaitMs || signal.aborted) return false;
      try {
        await this.#sleep(refillMs, signal);
      } catch {
        return false;
      }
    }
  }

  async #takeOnce(key: string, perMinute: number): Promise<boolean> {
    if (this.#shared) {
      try {
        return await this.#shared.tokenBucket(key, perMinute / 60, perMinute);
      } catch (error) {
        this.#onFailOpen(error);
      }
    }
    let limiter = this.#memory.get(perMinute);
    if (!limiter) {
      limiter = new MemoryRateLimiter({ perSecond: perMinute / 60, burst: perMinute });
      this.#memory.set(perMinute, limiter);
    }
    return limiter.take(key).allowed;
  }
}

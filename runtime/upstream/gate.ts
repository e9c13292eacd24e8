// A concurrency gate for connectors with a shared throttle (spec `limits.maxConcurrent`, DECISIONS §14):
// at most `limit` upstream requests at once, first-in first-out; a request that waits longer than
// `queueTimeoutMs` fails (the runtime answers with the generic text). Per process without a shared
// store; cluster-wide slots (leased, so a crashed replica cannot hold one forever) with one.
import type { ConcurrencyGate } from './client.ts';
import { UpstreamError } from '../handler-api/upstream-types.ts';
import type { SharedStore } from '../store/shared-store.ts';

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
  onAbort: () => void;
  signal: AbortSignal;
}

export class LocalGate implements ConcurrencyGate {
  readonly #limit: number;
  readonly #queueTimeoutMs: number;
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(limit: number, queueTimeoutMs: number) {
    this.#limit = limit;
    this.#queueTimeoutMs = queueTimeoutMs;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  /** A free slot with nobody waiting: taken at once (no promise on the hot path). */
  tryAcquire(signal: AbortSignal): (() => void) | undefined {
    if (signal.aborted || this.#active >= this.#limit || this.#queue.length > 0) return undefined;
    this.#active++;
    return this.#releaser();
  }

  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new UpstreamError('timeout', 'the call was aborted'));
    const now = this.tryAcquire(signal);
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        timer: setTimeout(
          () =>
            this.#drop(
              waiter,
              new UpstreamError('timeout', `waited more than ${this.#queueTimeoutMs} ms for a free upstream slot`),
            ),
          this.#queueTimeoutMs,
        ),
        onAbort: () => this.#drop(waiter, new UpstreamError('timeout', 'the call was aborted while queued')),
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #drop(waiter: Waiter, error: unknown): void {
    const i = this.#queue.indexOf(waiter);
    if (i < 0) return;
    this.#queue.splice(i, 1);
    clearTimeout(waiter.timer);
    waiter.signal.removeEventListener('abort', waiter.onAbort);
    waiter.reject(error);
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next) {
        clearTimeout(next.timer);
        next.signal.removeEventListener('abort', next.onAbort);
        next.resolve(this.#releaser()); // the slot passes straight to the next in line
      } else this.#active--;
    };
  }
}

/** Cluster-wide slots in the shared store; local FIFO order in front of it. Fails open to local. */
export class SharedGate implements ConcurrencyGate {
  readonly #local: LocalGate;
  readonly #store: SharedStore;
  readonly #key: string;
  readonly #limit: number;
  readonly #queueTimeoutMs: number;
  readonly #leaseMs: number;
  readonly #onFailOpen: () => void;

  constructor(
    store: SharedStore,
    key: string,
    limit: number,
    queueTimeoutMs: number,
    leaseMs: number,
    onFailOpen: () => void,
  ) {
    this.#local = new LocalGate(limit, queueTimeoutMs);
    this.#store = store;
    this.#key = key;
    this.#limit = limit;
    this.#queueTimeoutMs = queueTimeoutMs;
    this.#leaseMs = leaseMs;
    this.#onFailOpen = onFailOpen;
  }

  async acquire(signal: AbortSignal): Promise<() => void> {
    const started = Date.now();
    const releaseLocal = await this.#local.acquire(signal);
    try {
      for (let wait = 10; ; wait = Math.min(wait * 2, 100)) {
        let slot: string | null;
        try {
          slot = await this.#store.tryAcquireSlot(this.#key, this.#limit, this.#leaseMs);
        } catch {
          this.#onFailOpen();
          return releaseLocal; // shared store down: the per-process limit still holds
        }
        if (slot) {
          const s = slot;
          return () => {
            releaseLocal();
            void this.#store.releaseSlot(this.#key, s).catch(() => {});
          };
        }
        if (Date.now() - started + wait > this.#queueTimeoutMs)
          throw new UpstreamError('timeout', `waited more than ${this.#queueTimeoutMs} ms for a free upstream slot`);
        if (signal.aborted) throw new UpstreamError('timeout', 'the call was aborted while queued');
        await new Promise((r) => setTimeout(r, wait));
      }
    } catch (error) {
      releaseLocal();
      throw error;
    }
  }
}

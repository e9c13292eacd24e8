// A per-process byte budget for upstream response bodies (UPSTREAM_BODY_BUDGET_BYTES): before a
// body is read, its size — the content-length when the upstream sends one, else the connector's
// cap — is reserved whole, first in first out, and given back once the body has been parsed or
// discarded. All or nothing, so two half-read bodies can never wait for each other; a body larger
// than the whole budget waits until it has the budget to itself. A waiter gives up when its call's
// deadline passes (the caller's signal aborts).
import { UpstreamError } from '../handler-api/upstream-types.ts';

interface Waiter {
  readonly bytes: number;
  readonly resolve: (release: () => void) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
}

export class BodyBudget {
  readonly total: number;
  #reserved = 0;
  #highWater = 0;
  readonly #queue: Waiter[] = [];

  constructor(totalBytes: number) {
    if (!Number.isSafeInteger(totalBytes) || totalBytes < 1)
      throw new RangeError(`a body budget must be a positive number of bytes, not ${totalBytes}`);
    this.total = totalBytes;
  }

  /** Bytes reserved by bodies being read or parsed now. */
  get reserved(): number {
    return this.#reserved;
  }

  /** The most ever reserved at once (never above `total`). */
  get highWater(): number {
    return this.#highWater;
  }

  /** Bodies waiting for room. */
  get waiting(): number {
    return this.#queue.length;
  }

  #size(bytes: number): number {
    return Math.min(Math.max(0, Math.ceil(bytes)), this.total);
  }

  /** The release function when `bytes` fit now and nobody waits; undefined otherwise (then `reserve`). */
  tryReserve(bytes: number): (() => void) | undefined {
    const n = this.#size(bytes);
    return this.#queue.length === 0 && this.#reserved + n <= this.total ? this.#take(n) : undefined;
  }

  /**
   * Resolves with a release function once `bytes` (at most the whole budget) are reserved; rejects when `signal` aborts
   * first.
   */
  reserve(bytes: number, signal: AbortSignal): Promise<() => void> {
    const n = this.#size(bytes);
    if (signal.aborted)
      return Promise.reject(
        new UpstreamError('timeout', 'the call was aborted before its response body could be read'),
      );
    if (this.#queue.length === 0 && this.#reserved + n <= this.total) return Promise.resolve(this.#take(n));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes: n,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#queue.indexOf(waiter);
          if (i < 0) return;
          this.#queue.splice(i, 1);
          reject(
            new UpstreamError(
              'timeout',
              `the call's deadline passed while its response body waited for ${n} bytes of the upstream body budget`,
            ),
          );
          this.#grant(); // the next in line may fit now
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #take(n: number): () => void {
    this.#reserved += n;
    if (this.#reserved > this.#highWater) this.#highWater = this.#reserved;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#reserved -= n;
      this.#grant();
    };
  }

  /** Strictly first in first out: the head of the queue goes first, or nobody does. */
  #grant(): void {
    while (this.#queue.length > 0 && this.#reserved + this.#queue[0]!.bytes <= this.total) {
      const next = this.#queue.shift()!;
      next.signal.removeEventListener('abort', next.onAbort);
      next.resolve(this.#take(next.bytes));
    }
  }
}

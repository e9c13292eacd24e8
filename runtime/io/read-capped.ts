// Bytes read whole, at most a limit. `CappedBytes` gathers them (upstream responses through
// upstream/dispatch.ts's ResponseBody, which undici hands chunks directly); `readCapped` reads a
// stream with it (inbound request bodies, through http-io.ts: the rest is drained so the connection
// can answer). Stream events rather than `for await`: the async iterator costs noticeably more per
// message.
import type { Readable } from 'node:stream';

/**
 * Chunks gathered up to `limit` bytes. With `expected` (a declared content-length within the limit)
 * they are copied into one buffer of that size as they come, so a big body costs its size once
 * instead of twice (chunks, then their concatenation).
 */
export class CappedBytes {
  readonly limit: number;
  #whole: Buffer | undefined;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(limit: number, expected?: number) {
    this.limit = limit;
    this.#whole =
      expected !== undefined && expected > 0 && expected <= limit ? Buffer.allocUnsafe(expected) : undefined;
  }

  /**
   * Adds `chunk`, or, when it would pass the limit, adds nothing, lets go of what it holds and
   * answers the size the chunk would have made (for the overflow's message).
   */
  add(chunk: Buffer): number | undefined {
    const next = this.#size + chunk.length;
    if (next > this.limit) {
      this.#whole = undefined;
      this.#chunks = [];
      return next;
    }
    if (this.#whole && next <= this.#whole.length) chunk.copy(this.#whole, this.#size);
    else {
      // More than declared (or no declaration): back to a list of chunks.
      if (this.#whole) this.#chunks.push(this.#whole.subarray(0, this.#size));
      this.#whole = undefined;
      this.#chunks.push(chunk);
    }
    this.#size = next;
    return undefined;
  }

  /** Everything gathered, as one buffer. */
  bytes(): Buffer {
    const whole = this.#whole;
    if (whole) return this.#size === whole.length ? whole : whole.subarray(0, this.#size);
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
  }
}

/** Reads a stream into one Buffer, at most `limit` bytes (see CappedBytes for `expected`). */
export function readCapped(
  stream: Readable,
  limit: number,
  overflow: (bytes: number) => Error,
  rest: 'drain' | 'destroy',
  expected?: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Destroyed before anyone read it (the call's deadline passed in between): no event will come.
    if (stream.destroyed) {
      reject(stream.errored ?? new Error('the stream ended before it was read'));
      return;
    }
    const gathered = new CappedBytes(limit, expected);
    stream.on('data', (chunk: Buffer) => {
      const over = gathered.add(chunk);
      if (over === undefined) return;
      stream.removeAllListeners('data');
      if (rest === 'drain') stream.resume();
      else stream.destroy();
      reject(overflow(over));
    });
    stream.once('end', () => resolve(gathered.bytes()));
    stream.once('error', reject);
  });
}

// The log destination: lines gathered into batches in front of sonic-boom, pino's own asynchronous
// writer (docs/decisions/operations.md, 'Logs are written asynchronously'). sonic-boom batches by
// itself with `minLength`, but it appends each line to one growing string and measures that
// string's UTF-8 length on every write (`Buffer.byteLength` of the last buffer), which flattens and
// scans the whole batch once per line: 3.3 µs per line with batches of 16 KiB under load. Here a
// line is pushed onto an array and a batch is joined once; sonic-boom writes each batch as it comes
// (one `fs.write` through libuv's thread pool, several batches queued while one is in flight).
import pino from 'pino';

type Boom = ReturnType<typeof pino.destination>;

export interface LineBatchOptions {
  /** Characters gathered before a batch is handed over… */
  readonly batchChars: number;
  /** …or this long after the first line of a batch. */
  readonly flushMs: number;
}

/** Live batchers, written out by one exit hook for them all (not one hook per logger). */
const live = new Set<LineBatches>();
let exitHooked = false;

export class LineBatches {
  readonly #boom: Boom;
  readonly #options: LineBatchOptions;
  #lines: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(boom: Boom, options: LineBatchOptions) {
    this.#boom = boom;
    this.#options = options;
    // After pino's own exit hook of the writer (registered when it was made): what is still gathered here.
    live.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => {
        for (const batches of live) batches.flushSync();
      });
    }
  }

  /** One line (pino's `write`). */
  write(line: string): boolean {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.#options.batchChars) this.#handOver();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#handOver(), this.#options.flushMs);
      this.#timer.unref();
    }
    return true;
  }

  /**
   * Hands what is gathered to the writer and calls back once it has written everything (pino's
   * `flush`; sonic-boom waits for its drain when it was made with a `minLength`, see `lineBatches`).
   */
  flush(cb?: (error?: Error) => void): void {
    this.#handOver();
    this.#boom.flush(cb);
  }

  /** Writes everything synchronously (at exit, and on a fatal error). */
  flushSync(): void {
    this.#handOver();
    try {
      this.#boom.flushSync();
    } catch {
      // not open yet, or closed: nothing more can be written
    }
  }

  end(): void {
    live.delete(this);
    this.#handOver();
    this.#boom.end();
  }

  #handOver(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0) return;
    const batch = this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    this.#boom.write(batch);
  }
}

/**
 * Lines to `dest` (a file descriptor) in batches. The writer gets `minLength: 1`: it writes each
 * batch as it comes, and its `flush(cb)` waits for the write to finish (with 0 it would call back at
 * once).
 */
export function lineBatches(dest: number, options: LineBatchOptions): LineBatches {
  const boom = pino.destination({ dest, sync: false, minLength: 1, maxWrite: 4 * options.batchChars });
  return new LineBatches(boom, options);
}

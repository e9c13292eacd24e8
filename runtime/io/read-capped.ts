// Reads a stream into one Buffer, at most `limit` bytes. Used for upstream responses (the rest is
// discarded) and, through http-io.ts, for inbound request bodies (the rest is drained so the
// connection can answer). Both sides read through this one module at the bottom of the request
// path, so neither imports the other. Stream events rather than `for await`: the async iterator
// costs noticeably more per message.
import type { Readable } from 'node:stream';

/**
 * With `expected` (a declared content-length within the limit) the bytes are copied into one
 * buffer of that size as they come, so a big body costs its size once instead of twice (chunks,
 * then their concatenation).
 */
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
    let whole = expected !== undefined && expected > 0 && expected <= limit ? Buffer.allocUnsafe(expected) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      const next = size + chunk.length;
      if (next > limit) {
        stream.removeAllListeners('data');
        if (rest === 'drain') stream.resume();
        else stream.destroy();
        whole = undefined;
        chunks.length = 0;
        reject(overflow(next));
        return;
      }
      if (whole && next <= whole.length) chunk.copy(whole, size);
      else {
        // More than declared (or no declaration): back to a list of chunks.
        if (whole) chunks.push(whole.subarray(0, size));
        whole = undefined;
        chunks.push(chunk);
      }
      size = next;
    });
    stream.once('end', () => {
      if (whole) resolve(size === whole.length ? whole : whole.subarray(0, size));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    stream.once('error', reject);
  });
}

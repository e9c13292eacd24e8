// Reads a stream into one Buffer, at most `limit` bytes. Used for upstream responses (the rest is
// discarded) and, by the transport, for request bodies (the rest is drained so the connection can
// answer). It lives here, at the bottom of the request path, so that the transport above may use
// it and the upstream client never imports the transport. Stream events rather than `for await`:
// the async iterator costs noticeably more per message.
import type { Readable } from 'node:stream';

export function readCapped(stream: Readable, limit: number, overflow: (bytes: number) => Error, rest: 'drain' | 'destroy'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.removeAllListeners('data');
        if (rest === 'drain') stream.resume();
        else stream.destroy();
        reject(overflow(size));
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    stream.once('error', reject);
  });
}

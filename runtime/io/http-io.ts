// The small pieces of node:http I/O that the MCP transport, the portal pages and the authorization
// server share: reading a request body under a size cap (through read-capped.ts, as the upstream
// client reads its responses), and answering with JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readCapped } from './read-capped.ts';

/** The body passed the cap: `bytes` is the declared Content-Length, or what had arrived by then. */
export class BodyTooLarge extends Error {
  readonly bytes: number;
  constructor(bytes: number) {
    super(`request body of at least ${bytes} bytes`);
    this.name = 'BodyTooLarge';
    this.bytes = bytes;
  }
}

/** The whole body, at most `limit` bytes; past it the rest is drained so the connection can answer. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLarge(declared));
  }
  return readCapped(req, limit, (bytes) => new BodyTooLarge(bytes), 'drain');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

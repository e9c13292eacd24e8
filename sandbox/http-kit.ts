// Small HTTP helpers every sandbox server shares (node:http only, like the real upstreams' fakes).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Request bodies above this are flagged `tooLarge` (the sandboxes answer as their upstream would). */
export const MAX_BODY_BYTES = 1024 * 1024;

export function readBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', reject);
  });
}

/** JSON when the text is JSON, the text itself otherwise, undefined when empty (for request logs). */
export function parseJsonLoose(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

// Small HTTP helpers every sandbox server shares (node:http only, like the real upstreams' fakes).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/**
 * Starts `server` on `host` and `port` (0: any free port); rejects when it cannot listen. Answers
 * the origin the sandbox is reached at (`http://host:port`, an IPv6 host in brackets) and the port.
 */
export async function listen(server: Server, port: number, host: string): Promise<{ origin: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { origin: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`, port: address.port };
}

/** What is wrong with a partial switches object, checked key by key against `checks`; undefined when nothing. */
export function switchProblem(partial: unknown, checks: Readonly<Record<string, (value: unknown) => boolean>>): string | undefined {
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) return 'expected a JSON object of switches';
  for (const [key, value] of Object.entries(partial)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (check === undefined) return `unknown switch ${JSON.stringify(key)}`;
    if (!check(value)) return `invalid value for ${key}: ${JSON.stringify(value)}`;
  }
  return undefined;
}

/**
 * Waits `ms` before answering `res` (a `slow` fault); resolves false early when the client goes
 * away or the sandbox closes (every waiter is in `pending`, which `closeServer` calls).
 */
export function delayAnswer(ms: number, res: ServerResponse, pending: Set<() => void>): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (completed: boolean): void => {
      clearTimeout(timer);
      res.off('close', gone);
      pending.delete(gone);
      resolve(completed);
    };
    const gone = (): void => finish(false);
    const timer = setTimeout(() => finish(true), ms);
    res.once('close', gone);
    pending.add(gone);
  });
}

/** A `close()` that ends the waits in `pending`, stops listening and drops open connections; the same promise on every call. */
export function closeServer(server: Server, pending: Set<() => void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve, reject) => {
      for (const abort of [...pending]) abort();
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };
}

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

/** The content type `sendJson` sends unless a sandbox's upstream spells it otherwise. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** How one upstream sends its JSON: the content type as it spells it, headers on every answer, pretty printing. */
export interface JsonStyle {
  /** Default JSON_CONTENT_TYPE (some upstreams write `charset=UTF-8`). */
  readonly contentType?: string;
  /** Sent on every JSON answer, between content-type and content-length (e.g. `cache-control: no-store`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Two-space indentation and a final newline (Elasticsearch's `?pretty`). */
  readonly pretty?: boolean;
  /**
   * The call's headers go first, before content-type and content-length (Laravel writes its rate-limit headers first).
   */
  readonly callHeadersFirst?: boolean;
}

/**
 * A JSON answer: content-type, the style's headers, content-length, then `headers` (which may
 * override them), in that order, or with `callHeadersFirst` the call's `headers` first; the body
 * is `JSON.stringify(body)` (pretty: indented, newline-terminated).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
  style: JsonStyle = {},
): void {
  const text = style.pretty === true ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
  const own = {
    'content-type': style.contentType ?? JSON_CONTENT_TYPE,
    ...style.headers,
    'content-length': Buffer.byteLength(text),
  };
  res.writeHead(status, style.callHeadersFirst === true ? { ...headers, ...own } : { ...own, ...headers });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
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
  return {
    origin: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    port: address.port,
  };
}

/**
 * Delays of a sandbox's answers (latency and `slow` faults) that end early when the client goes
 * away or the sandbox closes (`abortAll`), so a close never waits for a fault's timer.
 */
export class PendingDelays {
  readonly #pending = new Set<() => void>();

  /** Waits `ms`; resolves false early when the client goes away or the sandbox closes. */
  delay(ms: number, res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (completed: boolean): void => {
        clearTimeout(timer);
        res.off('close', onClose);
        this.#pending.delete(onClose);
        resolve(completed);
      };
      const onClose = (): void => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      res.once('close', onClose);
      this.#pending.add(onClose);
    });
  }

  abortAll(): void {
    for (const abort of [...this.#pending]) abort();
  }
}

/** What a sandbox exposes under `/__sandbox/` (no auth; never recorded as upstream requests). */
export interface SandboxControls {
  readonly switches: () => unknown;
  /** Applies a partial switch object, or answers why it is refused. */
  readonly setSwitches: (partial: unknown) => string | undefined;
  readonly switchNames: readonly string[];
  readonly stats: () => unknown;
  /** The request log; a sandbox without one leaves it out (`GET /__sandbox/requests` is then a 404). */
  readonly requests?: () => unknown;
  /** Stats, request log and switches back to their start values; answers the new state. */
  readonly reset: () => unknown;
}

/**
 * `GET/POST /__sandbox/switches`, `GET /__sandbox/stats`, `GET /__sandbox/requests` (when kept), `POST
 * /__sandbox/reset`.
 */
export function serveControls(
  method: string,
  path: string,
  text: string,
  res: ServerResponse,
  controls: SandboxControls,
): void {
  if (path === '/__sandbox/switches' && method === 'GET') sendJson(res, 200, controls.switches());
  else if (path === '/__sandbox/switches' && method === 'POST') {
    const error = controls.setSwitches(parseJsonLoose(text));
    if (error === undefined) sendJson(res, 200, controls.switches());
    else sendJson(res, 400, { error, switches: controls.switchNames });
  } else if (path === '/__sandbox/stats' && method === 'GET') sendJson(res, 200, controls.stats());
  else if (path === '/__sandbox/requests' && method === 'GET' && controls.requests !== undefined)
    sendJson(res, 200, controls.requests());
  else if (path === '/__sandbox/reset' && method === 'POST') sendJson(res, 200, controls.reset());
  else
    sendJson(res, 404, {
      error: `no sandbox control at ${method} ${path}`,
      controls: [
        'GET /__sandbox/switches',
        'POST /__sandbox/switches',
        'GET /__sandbox/stats',
        ...(controls.requests === undefined ? [] : ['GET /__sandbox/requests']),
        'POST /__sandbox/reset',
      ],
    });
}

/** A close that runs once: ends pending delays, stops listening and drops kept-alive connections. */
export function closeOnce(server: Server, delays?: PendingDelays): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve, reject) => {
      delays?.abortAll();
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };
}

/** For a sandbox run as a script: close it on SIGINT and SIGTERM, then exit. */
export function closeOnSignals(close: () => Promise<void>): void {
  const stop = (): void => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Why a partial switch object is refused (an unknown name or a value its check rejects), or undefined. */
export function switchError(
  partial: unknown,
  checks: Readonly<Record<string, (value: unknown) => boolean>>,
): string | undefined {
  if (typeof partial !== 'object' || partial === null || Array.isArray(partial))
    return 'expected a JSON object of switches';
  for (const [key, value] of Object.entries(partial)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (check === undefined) return `unknown switch ${JSON.stringify(key)}`;
    if (!check(value)) return `invalid value for ${key}: ${JSON.stringify(value)}`;
  }
  return undefined;
}

/**
 * `setSwitches` and `switchNames` of SandboxControls for switches validated by `checks`
 * (switchError); `apply` only sees a partial that passed them.
 */
export function checkedSwitches<T>(
  checks: Readonly<Record<string, (value: unknown) => boolean>>,
  apply: (partial: Partial<T>) => unknown,
): Pick<SandboxControls, 'setSwitches' | 'switchNames'> {
  return {
    setSwitches: (partial) => {
      const error = switchError(partial, checks);
      if (error === undefined) apply(partial as Partial<T>);
      return error;
    },
    switchNames: Object.keys(checks),
  };
}

/**
 * One entry of a sandbox's route table: a method (or any, when absent) and a path, exact or a
 * pattern whose groups the handler receives. A sandbox answers its upstream's "no such route"
 * (a 404, a 405 with `Allow`) itself when `findRoute` finds nothing.
 */
export interface Route<H> {
  readonly method?: string;
  readonly path: string | RegExp;
  readonly handle: H;
}

/** The first route whose method and path match, with the pattern's groups (`[]` for an exact path). */
export function findRoute<H>(
  routes: readonly Route<H>[],
  method: string,
  path: string,
): { handle: H; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== undefined && route.method !== method) continue;
    if (typeof route.path === 'string') {
      if (route.path === path) return { handle: route.handle, params: [] };
      continue;
    }
    const match = route.path.exec(path);
    if (match !== null) return { handle: route.handle, params: match.slice(1).map((group) => group ?? '') };
  }
  return undefined;
}

/**
 * The first route whose method matches and whose path template (`/invoices/:kind/:n`) matches the
 * decoded path segments one by one (a `:name` segment is any one segment, handed to the handler).
 * For upstreams whose identifiers may decode to a slash, where the joined path would be ambiguous.
 * A template ending in `/*` also matches any number (zero or more) of further segments, which are
 * not handed over: for an upstream that checks a prefix (a guid) before it finds no such route.
 */
export function findSegmentRoute<H>(
  routes: readonly Route<H>[],
  method: string,
  segments: readonly string[],
): { handle: H; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== undefined && route.method !== method) continue;
    if (typeof route.path !== 'string') continue;
    const parts = route.path.split('/').filter((part) => part !== '');
    const open = parts.at(-1) === '*';
    const template = open ? parts.slice(0, -1) : parts;
    if (open ? segments.length < template.length : template.length !== segments.length) continue;
    const params: string[] = [];
    if (template.every((part, i) => (part.startsWith(':') ? params.push(segments[i]!) > 0 : part === segments[i])))
      return { handle: route.handle, params };
  }
  return undefined;
}

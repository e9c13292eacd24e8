// A real local upstream that misbehaves on purpose (node:http on 127.0.0.1): it hangs, trickles,
// cuts a body off, sends 50 MB, redirects to another host, answers 200 with HTML, or throttles
// with odd Retry-After values. It counts requests and watches its sockets, so a test can see that
// the gateway closed the connection after a fault and never followed a redirect.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { closeOnce, listen } from '../../sandbox/http-kit.ts';

export type FaultMode =
  | { readonly kind: 'hang' }
  | { readonly kind: 'trickle'; readonly everyMs: number }
  | { readonly kind: 'reset_mid_body' }
  | { readonly kind: 'huge_body'; readonly bytes: number }
  /**
   * A healthy empty answer padded with whitespace to `bytes` (valid JSON); every second one without a content-length.
   */
  | { readonly kind: 'padded_ok'; readonly bytes: number }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'non_json_200' }
  | { readonly kind: 'throttle'; readonly retryAfter: string | undefined; readonly times: number }
  | { readonly kind: 'ok' };

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** Resolves once the socket this request came on is closed; rejects after `ms`. */
  closed(ms: number): Promise<void>;
}

function closedWithin(socket: Socket, ms: number): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the upstream socket was still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

export interface FaultyUpstream {
  readonly url: string;
  readonly requests: SeenRequest[];
  setMode(mode: FaultMode): void;
  /** Sockets the server still holds open. */
  openSockets(): number;
  /** Sockets with a request whose response the server has not finished (or given up on). */
  busySockets(): number;
  /** Resolves once every socket is closed, or rejects after `ms`. */
  allClosed(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** An ES envelope with no hits: what a healthy register answers for an unknown number. */
export const EMPTY_SEARCH = JSON.stringify({
  took: 1,
  timed_out: false,
  hits: { total: 0, max_score: null, hits: [] },
});

/** A server that answers every request with a 200 and counts what it saw (the redirect target). */
export async function startCountingServer(
  host: string,
): Promise<{ url: string; requests: SeenRequest[]; close(): Promise<void> }> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      closed: (ms) => closedWithin(req.socket, ms),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(EMPTY_SEARCH);
  });
  const { origin } = await listen(server, 0, host);
  return { url: origin, requests, close: closeOnce(server) };
}

export async function startFaultyUpstream(): Promise<FaultyUpstream> {
  let mode: FaultMode = { kind: 'ok' };
  let throttled = 0;
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const busy = new Set<Socket>();
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const socket = req.socket;
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      closed: (ms) => closedWithin(socket, ms),
    });
    busy.add(socket);
    res.on('close', () => busy.delete(socket));
    res.on('error', () => {});
    req.resume();
    req.on('end', () => answer(mode, res, socket));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      busy.delete(socket);
      if (sockets.size === 0) for (const w of waiters) w();
    });
  });

  function later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  }

  function answer(m: FaultMode, res: ServerResponse, socket: Socket): void {
    switch (m.kind) {
      case 'hang':
        return; // headers never come
      case 'trickle': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(EMPTY_SEARCH.length) });
        let i = 0;
        const step = () => {
          if (res.destroyed || socket.destroyed) return;
          res.write(EMPTY_SEARCH.slice(i, i + 1));
          i++;
          if (i >= EMPTY_SEARCH.length) res.end();
          else later(m.everyMs, step);
        };
        step();
        return;
      }
      case 'reset_mid_body': {
        const body = JSON.stringify({
          hits: { total: 1, hits: [{ _id: '1', _source: { padding: 'x'.repeat(4096) } }] },
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        res.write(body.slice(0, body.length >> 1), () => later(20, () => socket.destroy()));
        return;
      }
      case 'huge_body': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(m.bytes) });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < m.bytes && !res.destroyed && !socket.destroyed) {
            const n = Math.min(chunk.length, m.bytes - sent);
            sent += n;
            if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
          }
          if (sent >= m.bytes && !res.destroyed) res.end();
        };
        pump();
        return;
      }
      case 'padded_ok': {
        const body = EMPTY_SEARCH + ' '.repeat(Math.max(0, m.bytes - EMPTY_SEARCH.length));
        const chunked = requests.length % 2 === 0;
        res
          .writeHead(200, {
            'content-type': 'application/json',
            ...(chunked ? {} : { 'content-length': String(body.length) }),
          })
          .end(body);
        return;
      }
      case 'redirect':
        res.writeHead(302, { location: m.location, 'content-type': 'text/plain' }).end('Found');
        return;
      case 'non_json_200':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
        return;
      case 'throttle':
        if (throttled < m.times) {
          throttled++;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (m.retryAfter !== undefined) headers['retry-after'] = m.retryAfter;
          res.writeHead(429, headers).end(JSON.stringify({ error: 'too many requests' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(EMPTY_SEARCH);
        return;
      case 'ok':
        res.writeHead(200, { 'content-type': 'application/json' }).end(EMPTY_SEARCH);
        return;
    }
  }

  const { origin } = await listen(server, 0, '127.0.0.1');
  const closeServer = closeOnce(server);
  return {
    url: origin,
    requests,
    setMode(m) {
      mode = m;
      throttled = 0;
    },
    openSockets: () => sockets.size,
    busySockets: () => busy.size,
    allClosed(ms) {
      if (sockets.size === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(t);
          waiters.delete(done);
          resolve();
        };
        const t = setTimeout(() => {
          waiters.delete(done);
          reject(new Error(`${sockets.size} upstream socket(s) still open after ${ms} ms`));
        }, ms);
        waiters.add(done);
      });
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await closeServer();
    },
  };
}

// The upstream exchange on undici's dispatcher API (runtime/upstream/dispatch.ts) against a real
// local HTTP server: what it answers, and every way it ends early (the caller's signal before or
// after the head, a body destroyed half-read, a refused connection), without an uncaught error and
// without a connection left reading a body nobody wants.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatchRequest } from '../runtime/upstream/dispatch.ts';

let server: Server;
let origin: string;
let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
const sockets = new Set<Socket>();
const closed: Socket[] = [];
let requests = 0;
const agent = new Agent({ connections: 4 });

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    handle(req, res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => closed.push(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  handle = (_req, res) => res.end();
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  server.close();
});

const at = (path: string) => ({ href: `${origin}${path}`, origin });
const get = (path: string, signal = new AbortController().signal) =>
  dispatchRequest(agent, at(path), { method: 'GET', headers: { accept: 'application/json' }, signal });
const untilClosed = async (count: number) => {
  for (let i = 0; i < 200 && closed.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  return closed.length;
};

describe('dispatchRequest', () => {
  it('answers the status, the headers (lower-case names) and the body; the path and query go as sent', async () => {
    let seen = '';
    handle = (req, res) => {
      seen = `${req.method} ${req.url} ${req.headers['accept']}`;
      res.writeHead(201, { 'X-Thing': 'a', 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const res = await get('/v1/search?q=a%20b&n=2');
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-thing']).toBe('a');
    expect((await res.body.read(1000, () => new Error('too large'))).toString()).toBe('{"ok":true}');
    expect(seen).toBe('GET /v1/search?q=a%20b&n=2 application/json');
  });

  it('hands a body that came whole with its head over with no promise; one still coming is left for read', async () => {
    handle = (_req, res) => res.end('{"small":true}');
    const small = await get('/small');
    // undici delivers a small answer's head, data and end in one go, before the head's promise settles.
    expect(small.body.readNow(1000, () => new Error('too large'))?.toString()).toBe('{"small":true}');
    expect(small.body.readNow(1000, () => new Error('too large'))).toBeUndefined(); // read once
    await expect(small.body.read(1000, () => new Error('too large'))).rejects.toThrow('read already');

    const over = await get('/small');
    expect(() => over.body.readNow(5, (bytes) => new Error(`over the cap at ${bytes}`))).toThrow('over the cap at 14');

    let finish: () => void = () => {};
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      finish = () => res.end('last');
    };
    const slow = await get('/slow');
    expect(slow.body.readNow(1000, () => new Error('too large'))).toBeUndefined();
    const read = slow.body.read(1000, () => new Error('too large'));
    finish();
    expect((await read).toString()).toBe('first last');
  });

  it('sends a body with its method; a bare origin is asked for "/"', async () => {
    let seen = '';
    handle = (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen = `${req.method} ${req.url} ${body}`;
        res.end();
      });
    };
    const res = await dispatchRequest(
      agent,
      { href: origin, origin },
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
        signal: new AbortController().signal,
      },
    );
    await res.body.read(10, () => new Error('too large'));
    expect(seen).toBe('POST / {"a":1}');
  });

  it('skips an informational 1xx answer and resolves with the final one', async () => {
    handle = (_req, res) => {
      res.writeEarlyHints({ link: '</a.css>; rel=preload' });
      res.end('final');
    };
    const res = await get('/hints');
    expect(res.statusCode).toBe(200);
    expect((await res.body.read(100, () => new Error('too large'))).toString()).toBe('final');
  });

  it('a signal aborted before the answer rejects with an AbortError and closes the connection', async () => {
    const before = closed.length;
    handle = () => {}; // never answers
    const controller = new AbortController();
    const pending = get('/slow', controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(await untilClosed(before + 1)).toBeGreaterThan(before);
  });

  it('a request queued behind a busy connection is answered at once when its signal aborts, never sent', async () => {
    const single = new Agent({ connections: 1 });
    const before = requests;
    handle = () => {}; // the first request holds the only connection
    const first = new AbortController();
    const holding = dispatchRequest(single, at('/hold'), { method: 'GET', headers: {}, signal: first.signal });
    await new Promise((r) => setTimeout(r, 50));
    const queued = new AbortController();
    const waiting = dispatchRequest(single, at('/queued'), { method: 'GET', headers: {}, signal: queued.signal });
    await new Promise((r) => setTimeout(r, 20));
    queued.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    first.abort();
    await expect(holding).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 50));
    expect(requests - before).toBe(1);
    await single.close();
  });

  it('a signal already aborted sends nothing', async () => {
    const before = requests;
    const controller = new AbortController();
    controller.abort();
    await expect(get('/never', controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 50));
    expect(requests).toBe(before);
  });

  it('a signal aborted after the head ends the body with the reason, whether or not it is being read', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('x'.repeat(10)); // and never the rest
    };
    // Being read: the reader sees the error.
    const reading = new AbortController();
    const res = await get('/half', reading.signal);
    const read = res.body.read(1000, () => new Error('too large'));
    await new Promise((r) => setTimeout(r, 30));
    reading.abort(new Error('deadline'));
    await expect(read).rejects.toThrow('deadline');
    // Not read yet (a body waiting for room in the body budget): no uncaught error, and a reader
    // that comes later is told at once instead of waiting forever.
    const waiting = new AbortController();
    const unread = await get('/half', waiting.signal);
    waiting.abort(new Error('deadline'));
    await new Promise((r) => setTimeout(r, 30));
    await expect(unread.body.read(1000, () => new Error('too large'))).rejects.toThrow('deadline');
  });

  it('a body destroyed half-read (over the cap) aborts the exchange: the connection closes, unread', async () => {
    const before = closed.length;
    handle = (_req, res) => {
      res.writeHead(200);
      res.write('y'.repeat(5000));
      // the rest never comes: an exchange still reading would keep the socket open
    };
    const res = await get('/big');
    await expect(res.body.read(100, (bytes) => new Error(`over the cap at ${bytes}`))).rejects.toThrow('over the cap');
    expect(await untilClosed(before + 1)).toBeGreaterThan(before);
  });

  it('a body read late (waiting for the body budget) arrives whole: held, paused past 16 KiB, resumed', async () => {
    const big = 'z'.repeat(200_000);
    handle = (_req, res) => {
      res.writeHead(200, { 'content-length': String(big.length) });
      res.end(big);
    };
    const res = await get('/late');
    await new Promise((r) => setTimeout(r, 50)); // chunks arrive with nobody reading
    const bytes = await res.body.read(300_000, () => new Error('too large'), big.length);
    expect(bytes.length).toBe(big.length);
    expect(bytes.toString()).toBe(big);
    // Read once: a second reader is refused, not left waiting.
    await expect(res.body.read(300_000, () => new Error('too large'))).rejects.toThrow();
  });

  it('the cap counts the bytes held before the read too', async () => {
    handle = (_req, res) => {
      res.writeHead(200);
      res.end('w'.repeat(3000));
    };
    const res = await get('/held');
    await new Promise((r) => setTimeout(r, 30));
    await expect(res.body.read(1000, (bytes) => new Error(`over the cap at ${bytes}`))).rejects.toThrow(
      'over the cap at 3000',
    );
  });

  it('a refused connection rejects with the network error (its code)', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    await once(probe, 'close');
    const refused = `http://127.0.0.1:${port}`;
    await expect(
      dispatchRequest(
        agent,
        { href: `${refused}/x`, origin: refused },
        { method: 'GET', headers: {}, signal: new AbortController().signal },
      ),
    ).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('connections are reused after complete answers (like undici request(): 2 sockets for 20 calls)', async () => {
    handle = (_req, res) => res.end('ok');
    const socketsBefore = sockets.size;
    for (let i = 0; i < 20; i++) {
      const res = await get('/b');
      await res.body.read(10, () => new Error('too large'));
    }
    expect(sockets.size - socketsBefore).toBeLessThanOrEqual(2);
  });
});

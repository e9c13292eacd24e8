// A TCP proxy in front of PostgreSQL or Redis that a test can cut and restore, so the real servers
// keep running: `forward` passes bytes through, `refuse` closes every connection at once, `hang`
// accepts connections and never answers. `drop()` closes the connections open now; `stall()` holds
// the bytes of the open connections (both ways) until `resume()`, as a paused network path would.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Transform } from 'node:stream';

export type ProxyMode = 'forward' | 'refuse' | 'hang';

export interface TcpProxy {
  readonly port: number;
  /** The target URL with host and port replaced by the proxy's. */
  url(target: string): string;
  setMode(mode: ProxyMode): void;
  /** Closes every connection open now (clients see the server go away). */
  drop(): void;
  /** Holds every byte in either direction, on open and new connections, until `resume()`. */
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let stalled = false;
  const held: Array<() => void> = [];
  // A chunk that arrives while stalled waits for resume(); the next one waits behind it (in order).
  const valve = () =>
    new Transform({
      transform(chunk, _encoding, done) {
        if (stalled) held.push(() => done(null, chunk));
        else done(null, chunk);
      },
    });
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'hang') return;
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    client.pipe(valve()).pipe(upstream);
    upstream.pipe(valve()).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const drop = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port,
    url(target: string) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    setMode(next: ProxyMode) {
      mode = next;
    },
    drop,
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const pass of held.splice(0)) pass();
    },
    close() {
      drop();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

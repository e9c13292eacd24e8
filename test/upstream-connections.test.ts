// Connections per upstream origin are the deployment's per connector (CONNECTOR_<KEY>_MAX_CONNECTIONS;
// docs/decisions/performance.md, 'Connections per upstream origin'): the gateway opens at most that
// many to the origin however many calls are in flight, and the calls beyond them wait for one.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { ConfigError, DEFAULT_UPSTREAM_CONNECTIONS } from '../runtime/config/settings.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, type StartedGateway, startGateway } from './support/gateway.ts';

const base = { DATA_DIR: '/tmp/cg-test-unused' };

describe('connections per upstream origin (configuration)', () => {
  it('defaults to a pool sized for many tenants and takes the setting per connector', () => {
    for (const c of loadConfig(registry, base).connectors)
      expect(c.maxConnections, c.key).toBe(DEFAULT_UPSTREAM_CONNECTIONS);
    const set = loadConfig(registry, { ...base, CONNECTOR_LEDGER_MAX_CONNECTIONS: '8' }).connectors;
    expect(set.find((c) => c.key === 'ledger')?.maxConnections).toBe(8);
    expect(set.find((c) => c.key === 'cases')?.maxConnections).toBe(DEFAULT_UPSTREAM_CONNECTIONS);
    for (const value of ['0', '-1', '1.5', 'many', '70000'])
      expect(() => loadConfig(registry, { ...base, CONNECTOR_LEDGER_MAX_CONNECTIONS: value }), value).toThrow(
        /CONNECTOR_LEDGER_MAX_CONNECTIONS must be an integer from 1 to 65535/,
      );
    expect(() => loadConfig(registry, { ...base, CONNECTOR_LEDGER_MAX_CONNECTIONS: '0' })).toThrow(ConfigError);
  });
});

describe('connections per upstream origin (on the wire)', () => {
  let upstream: Server;
  let store: PlatformStore;
  let gw: StartedGateway;
  const sockets = new Set<unknown>();
  let mostSockets = 0;
  const held: ServerResponse[] = [];
  let heldPeak = 0;

  beforeAll(async () => {
    upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      held.push(res);
      heldPeak = Math.max(heldPeak, held.length);
    });
    upstream.on('connection', (socket) => {
      sockets.add(socket);
      mostSockets = Math.max(mostSockets, sockets.size);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    store = await openStore({});
    gw = await startGateway(store, {
      env: {
        REGISTER_USERNAME: 'u',
        REGISTER_PASSWORD: 'p',
        CONNECTOR_REGISTER_BASE_URL: `http://127.0.0.1:${port}`,
        CONNECTOR_REGISTER_MAX_CONCURRENT: '50',
        CONNECTOR_REGISTER_MAX_CONNECTIONS: '3',
        RATE_LIMIT_PER_SECOND: '1000',
        RATE_LIMIT_BURST: '1000',
      },
    });
  });
  afterAll(async () => {
    for (const res of held.splice(0)) res.destroy();
    await gw?.close();
    await store?.close();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  it('opens no more connections than the setting, and every call beyond them waits and answers', async () => {
    const t = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const calls = Array.from({ length: 8 }, (_, i) =>
      rpc(gw.url, 'register', t.token, {
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'register__soeg_virksomhed', arguments: { query: `firm ${i}` } },
      }),
    );
    // Answer requests one at a time as they arrive, each only once three are held (or the rest are).
    let answered = 0;
    while (answered < 8) {
      const waitingFor = Math.min(3, 8 - answered);
      while (held.length < waitingFor) await new Promise((resolve) => setTimeout(resolve, 5));
      const res = held.shift()!;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hits: { total: 0, hits: [] } }));
      answered++;
    }
    const results = await Promise.all(calls);
    for (const r of results) {
      expect(r.status).toBe(200);
      expect((r.json as { result?: { isError?: boolean } }).result?.isError).not.toBe(true);
    }
    expect(heldPeak).toBe(3);
    expect(mostSockets).toBe(3);
  });
});

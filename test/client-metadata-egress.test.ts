// Client ID metadata documents against server-side request forgery (docs/decisions/mcp-authorization.md, 'MCP
// authorization hardening: public metadata addresses, iss, grants for operators'): a public
// host name that resolves to a loopback, private, link-local, unique-local, CGNAT, multicast or
// unspecified address (IPv4, IPv6, IPv4-mapped IPv6) is not connected to. The check is the
// connection's own name resolution (runtime/auth/public-egress.ts), so there is no second lookup
// for DNS rebinding to answer differently. Covered here: the address predicate, the guarded
// lookup with a fake resolver, and the real undici Agent + connector with a fake resolver against a
// local TCP server that counts connections (over https for the document fetch: refused before any
// connection; over plain http for the allowed case, with the predicate widened to the loopback
// server — no TLS certificate is needed for that, and the connector is the same for both schemes).
import type { LookupAddress } from 'node:dns';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientMetadataDocuments, publicMetadataFetch } from '../runtime/auth/client-metadata.ts';
import { guardedLookup, isPublicAddress, publicEgressAgent, type ResolveAll } from '../runtime/auth/public-egress.ts';

const NON_PUBLIC = [
  '127.0.0.1',
  '127.8.9.10',
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.0',
  '224.0.0.251',
  '239.255.255.250',
  '255.255.255.255',
  '198.18.0.1',
  '192.0.2.10',
  '::',
  '::1',
  'fc00::',
  'fd12:3456:789a::1',
  'fe80::1',
  'fe80::1%eth0',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::FFFF:10.0.0.1',
  '0:0:0:0:0:ffff:a9fe:a9fe',
  '::ffff:169.254.169.254',
  '64:ff9b::7f00:1',
  '64:ff9b::10.0.0.1',
  '64:ff9b:1::1',
  '::127.0.0.1',
  '100::1',
  '2001:db8::1',
  '2002:7f00:1::1',
  'not-an-address',
];
const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:82a::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

/** A resolver that answers the given addresses for every name, and counts its calls. */
function fakeResolver(addresses: readonly string[]): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const resolve = ((
    hostname: string,
    _options: unknown,
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    calls.push(hostname);
    queueMicrotask(() =>
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  }) as ResolveAll & { calls: string[] };
  resolve.calls = calls;
  return resolve;
}

function lookupOnce(
  resolve: ResolveAll,
  all: boolean,
): Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }> {
  return new Promise((done) =>
    guardedLookup({ resolve })('client.example.com', { all }, (error, address, family) =>
      done({ error, address, family }),
    ),
  );
}

describe('public addresses (net.BlockList)', () => {
  it.each(NON_PUBLIC)('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
  it.each(PUBLIC)('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('the guarded lookup of a connection (fake resolver)', () => {
  it.each(['127.0.0.1', '10.0.0.7', '169.254.169.254', '::1', 'fc00::', '::ffff:127.0.0.1'])(
    'fails the connection when the name resolves to %s',
    async (address) => {
      for (const all of [true, false]) {
        const answer = await lookupOnce(fakeResolver([address]), all);
        expect(answer.error?.code).toBe('ERR_NON_PUBLIC_ADDRESS');
        expect(answer.error?.message).not.toContain(address);
      }
    },
  );

  it('fails when any one of the addresses is not public (a rebinding answer that mixes them)', async () => {
    const answer = await lookupOnce(fakeResolver(['93.184.216.34', '127.0.0.1']), true);
    expect(answer.error?.code).toBe('ERR_NON_PUBLIC_ADDRESS');
  });

  it('answers a public address, as a list or as one address', async () => {
    const list = await lookupOnce(fakeResolver(['93.184.216.34', '2606:2800:220:1::1']), true);
    expect(list.error).toBeNull();
    expect(list.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    const one = await lookupOnce(fakeResolver(['93.184.216.34']), false);
    expect(one).toEqual({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('passes a resolution error on, and treats no address as not found', async () => {
    const failing: ResolveAll = (_h, _o, callback) => {
      const error: NodeJS.ErrnoException = new Error('getaddrinfo ENOTFOUND');
      error.code = 'ENOTFOUND';
      callback(error, []);
    };
    expect((await lookupOnce(failing, true)).error?.code).toBe('ENOTFOUND');
    expect((await lookupOnce(fakeResolver([]), true)).error?.code).toBe('ENOTFOUND');
  });
});

describe('the undici Agent of the default metadata fetch (fake resolver, local servers)', () => {
  let tcp: Server;
  let tcpPort = 0;
  let tcpConnections = 0;
  let http: HttpServer;
  let httpPort = 0;
  const hosts: string[] = [];

  beforeAll(async () => {
    // Plain TCP that counts connections (a TLS client connecting here fails its handshake: enough to count).
    tcp = createServer((socket) => {
      tcpConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    tcpPort = (tcp.address() as { port: number }).port;
    http = createHttpServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    httpPort = (http.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => tcp.close(resolve));
    await new Promise((resolve) => http.close(resolve));
  });

  it('refuses the document of an https host resolving to a loopback, private or link-local address', async () => {
    for (const address of ['127.0.0.1', '10.0.0.7', '169.254.169.254', '::1', 'fc00::', '::ffff:127.0.0.1']) {
      const resolve = fakeResolver([address]);
      const fetchFn = publicMetadataFetch({ resolve });
      const documents = new ClientMetadataDocuments(fetchFn);
      const url = `https://client.example.com:${tcpPort}/oauth/client.json`;
      const before = tcpConnections;
      expect(await documents.get(url)).toBeUndefined();
      expect(resolve.calls).toEqual(['client.example.com']);
      // Refused for its address (not some other failure), and no connection reached the server.
      const error = await fetchFn(url, { signal: AbortSignal.timeout(5000), redirect: 'error', headers: {} }).catch(
        (e: unknown) => e as { cause?: NodeJS.ErrnoException },
      );
      expect((error as { cause?: NodeJS.ErrnoException }).cause?.code).toBe('ERR_NON_PUBLIC_ADDRESS');
      expect(tcpConnections).toBe(before);
    }
  });

  it('(control) the same fetch with the address check widened connects: the count above would see it', async () => {
    const resolve = fakeResolver(['127.0.0.1']);
    const documents = new ClientMetadataDocuments(publicMetadataFetch({ resolve, addressAllowed: () => true }));
    const before = tcpConnections;
    // Not a TLS server: the document is not read, but the connection was made.
    expect(await documents.get(`https://client.example.com:${tcpPort}/oauth/client.json`)).toBeUndefined();
    expect(tcpConnections).toBe(before + 1);
  });

  it('refuses an IP literal in the connector itself (net.connect does not look those up)', async () => {
    const agent = publicEgressAgent({ resolve: fakeResolver(['93.184.216.34']) });
    try {
      const before = tcpConnections;
      await expect(undiciFetch(`http://127.0.0.1:${tcpPort}/`, { dispatcher: agent })).rejects.toThrow();
      expect(tcpConnections).toBe(before);
    } finally {
      await agent.close();
    }
  });

  it('over http: connects through the fake resolver when its address is allowed, refuses it otherwise', async () => {
    const resolve = fakeResolver(['127.0.0.1']);
    const widened = publicEgressAgent({ resolve, addressAllowed: (a) => a === '127.0.0.1' });
    const strict = publicEgressAgent({ resolve });
    try {
      const ok = await undiciFetch(`http://client.example.com:${httpPort}/oauth/client.json`, { dispatcher: widened });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ ok: true });
      expect(hosts.at(-1)).toBe(`client.example.com:${httpPort}`);
      const served = hosts.length;
      const error = await undiciFetch(`http://client.example.com:${httpPort}/oauth/client.json`, {
        dispatcher: strict,
      }).catch((e: unknown) => e as Error & { cause?: NodeJS.ErrnoException });
      expect(error).toBeInstanceOf(Error);
      expect((error as { cause?: NodeJS.ErrnoException }).cause?.code).toBe('ERR_NON_PUBLIC_ADDRESS');
      expect(hosts.length).toBe(served);
      expect(resolve.calls.every((h) => h === 'client.example.com')).toBe(true);
    } finally {
      await widened.close();
      await strict.close();
    }
  });
});

// The bare JSON echo that tools/list is compared with: node:http reads the body, parses it and
// answers a JSON-RPC result holding the parsed request. Nothing else.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exitWithParent, ready } from './ipc.ts';

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let out: string;
    try {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown };
      out = JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, result: message });
    } catch {
      out = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}` });
});
exitWithParent(async () => {
  server.closeAllConnections();
  server.close();
});

// The floor of `tools/list`: node:http reads the body, parses it and answers the same bytes the
// gateway answers (the gateway's own `tools/list` result, captured by the harness and passed as a
// file), with the request's id. No authentication, no rate limit, no routing: what serving the
// precomputed list costs at the least.
//
//   --result FILE   the JSON text of the `result` member to answer
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { argValue, exitWithParent, ready } from './ipc.ts';

const file = argValue('result');
if (!file) throw new Error('--result FILE is required');
const result = readFileSync(file, 'utf8');

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let out: string;
    try {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown };
      out = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id ?? null)},"result":${result}}`;
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

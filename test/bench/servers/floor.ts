// The floor: the least a server can do for a tools/call that reaches an upstream. A bare node:http
// server parses the JSON-RPC request, makes one undici request to the zero-latency upstream
// (keep-alive pool, through undici's handler API as the gateway does: lib/post.ts), and returns a
// JSON-RPC result: the gateway's own result for the same call (--result), else the upstream's answer
// as text. No checks, no validation, no metering, no logging: the gateway's work cannot go below this.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { post } from '../lib/post.ts';
import { argValue, exitWithParent, ready } from './ipc.ts';

const upstream = argValue('upstream');
if (!upstream) throw new Error('--upstream <url> is required');
const pool = new Pool(upstream, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
// --result FILE: answer this result (the gateway's own, read once) after the upstream request, so the
// floor and the gateway answer the same bytes; without it the upstream's answer as text.
const resultFile = argValue('result');
const fixed = resultFile ? readFileSync(resultFile, 'utf8') : undefined;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  readBody(req)
    .then(async (raw) => {
      const message = JSON.parse(raw) as {
        id: string | number;
        method: string;
        params?: { name?: string; arguments?: Record<string, unknown> };
      };
      if (message.method !== 'tools/call') throw new Error(`unsupported method ${message.method}`);
      const cvrNummer = Number(message.params?.arguments?.['cvrNummer']);
      const response = await post(
        pool,
        '/virksomhed/_search',
        { 'content-type': 'application/json' },
        JSON.stringify({ query: { term: { 'Vrvirksomhed.cvrNummer': cvrNummer } }, size: 1 }),
      );
      if (response.status !== 200) throw new Error(`upstream answered HTTP ${response.status}`);
      const upstreamJson = JSON.parse(response.text) as unknown;
      const out = fixed
        ? `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${fixed}}`
        : JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: { content: [{ type: 'text', text: JSON.stringify(upstreamJson) }] },
          });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    })
    .catch((error: unknown) => {
      const out = JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: (error as Error).message },
      });
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
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
  await pool.close();
});

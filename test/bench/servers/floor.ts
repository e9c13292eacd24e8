// The floor: the least a server can do for a tools/call that reaches an upstream. A bare node:http
// server parses the JSON-RPC request, makes one undici request to the zero-latency upstream
// (keep-alive pool, through undici's handler API as the gateway does: lib/post.ts), and returns a
// JSON-RPC result made by the tool's own mapping (lib/register-answer.ts, handlers/register/): the same
// request body and answer bytes as the gateway's. No checks, no validation, no metering, no logging:
// the gateway's work cannot go below this.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { post } from '../lib/post.ts';
import { registerAnswer, registerRequestBody } from '../lib/register-answer.ts';
import { AllocationSampler, allocationJob } from '../lib/allocation.ts';
import { argValue, exitWithParent, onJob, ready } from './ipc.ts';

const upstream = argValue('upstream');
if (!upstream) throw new Error('--upstream <url> is required');
const pool = new Pool(upstream, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

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
        registerRequestBody(cvrNummer),
      );
      if (response.status !== 200) throw new Error(`upstream answered HTTP ${response.status}`);
      const upstreamJson = JSON.parse(response.text) as unknown;
      const out = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: registerAnswer(upstreamJson, cvrNummer) });
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
// The harness samples what a call allocates here as in the gateway (lib/allocation.ts).
const allocation = new AllocationSampler();
onJob((job) => allocationJob(allocation, job['op']) ?? Promise.reject(new Error(`unknown job ${String(job['op'])}`)));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}` });
});
exitWithParent(async () => {
  server.closeAllConnections();
  server.close();
  await pool.close();
});

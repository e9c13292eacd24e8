// The peer pattern: the MCP TypeScript SDK's documented stateless Streamable HTTP server
// (examples/server/simpleStatelessStreamableHttp): express via `createMcpExpressApp()`, and for every
// request a new `McpServer` plus a new `StreamableHTTPServerTransport({ sessionIdGenerator:
// undefined })`, closed when the response closes. Its one tool makes the same upstream request as
// the floor (undici's handler API over a keep-alive pool: lib/post.ts) and returns the upstream
// answer as text.
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { Pool } from 'undici';
import * as z from 'zod/v4';
import { post } from '../lib/post.ts';
import { argValue, exitWithParent, ready } from './ipc.ts';

const upstream = argValue('upstream');
if (!upstream) throw new Error('--upstream <url> is required');
const pool = new Pool(upstream, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });

function getServer(): McpServer {
  const server = new McpServer({ name: 'bench-peer', version: '1.0.0' });
  server.registerTool(
    'register__hent_virksomhed',
    {
      title: 'Get company',
      description: 'One company by CVR number.',
      inputSchema: {
        cvrNummer: z.union([z.number().int().min(10000000).max(99999999), z.string().regex(/^[0-9]{8}$/)]),
      },
    },
    async ({ cvrNummer }) => {
      const response = await post(
        pool,
        '/virksomhed/_search',
        { 'content-type': 'application/json' },
        JSON.stringify({ query: { term: { 'Vrvirksomhed.cvrNummer': Number(cvrNummer) } }, size: 1 }),
      );
      if (response.status !== 200) throw new Error(`upstream answered HTTP ${response.status}`);
      const json = JSON.parse(response.text) as unknown;
      return { content: [{ type: 'text' as const, text: JSON.stringify(json) }] };
    },
  );
  return server;
}

const app = createMcpExpressApp();
app.post('/mcp', async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
  } catch (error) {
    console.error('Error handling MCP request:', error);
    if (!res.headersSent)
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
  }
});

const httpServer = app.listen(0, '127.0.0.1', () => {
  const { port } = httpServer.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}` });
});
exitWithParent(async () => {
  httpServer.closeAllConnections();
  httpServer.close();
  await pool.close();
});

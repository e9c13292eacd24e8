// The peer patterns: the MCP TypeScript SDK's own Streamable HTTP servers, as its documentation shows
// them (express via `createMcpExpressApp()`, the tool registered on an `McpServer`).
//   --mode stateless  examples/server/simpleStatelessStreamableHttp: for every request a new
//                     `McpServer` plus a new `StreamableHTTPServerTransport({ sessionIdGenerator:
//                     undefined })`, closed when the response closes.
//   --mode session    the README's pattern: a transport per session (`sessionIdGenerator:
//                     randomUUID`, kept in a map by `onsessioninitialized`), one `McpServer` connected
//                     to it at initialize; later requests carry `mcp-session-id` (the harness opens the
//                     sessions before the runs).
// Its one tool makes the same upstream request as the floor (undici's handler API over a keep-alive
// pool: lib/post.ts) and parses the answer; with `--result FILE` it answers that result (the
// gateway's own, so every server of a comparison answers the same bytes), else the upstream text.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import * as z from 'zod/v4';
import { post } from '../lib/post.ts';
import { argValue, exitWithParent, ready } from './ipc.ts';

const upstream = argValue('upstream');
if (!upstream) throw new Error('--upstream <url> is required');
const mode = argValue('mode', 'stateless');
if (mode !== 'stateless' && mode !== 'session') throw new Error('--mode is stateless or session');
const resultFile = argValue('result');
const fixed = resultFile ? (JSON.parse(readFileSync(resultFile, 'utf8')) as CallToolResult) : undefined;
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
      return fixed ?? { content: [{ type: 'text' as const, text: JSON.stringify(json) }] };
    },
  );
  return server;
}

function internalError(res: ServerResponse, error: unknown): void {
  console.error('Error handling MCP request:', error);
  if (!res.headersSent)
    res
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
}

const app = createMcpExpressApp();
type Request = IncomingMessage & { body?: unknown };

if (mode === 'stateless') {
  app.post('/mcp', async (req: Request, res: ServerResponse) => {
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
      internalError(res, error);
    }
  });
} else {
  const transports: Record<string, StreamableHTTPServerTransport> = {};
  app.post('/mcp', async (req: Request, res: ServerResponse) => {
    try {
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      let transport: StreamableHTTPServerTransport;
      if (sessionId && transports[sessionId]) transport = transports[sessionId];
      else if (!sessionId && isInitializeRequest(req.body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            transports[id] = transport;
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) delete transports[transport.sessionId];
        };
        await getServer().connect(transport);
      } else {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null }));
        return;
      }
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      internalError(res, error);
    }
  });
}

const httpServer = app.listen(0, '127.0.0.1', () => {
  const { port } = httpServer.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}`, mode });
});
exitWithParent(async () => {
  httpServer.closeAllConnections();
  httpServer.close();
  await pool.close();
});

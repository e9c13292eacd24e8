// Opens MCP sessions on a session-keeping server (the SDK's README pattern, servers/peer.ts
// --mode session) as its clients would: initialize, read `mcp-session-id`, send
// notifications/initialized. Returns each session's headers for the load generator's header sets.
import { request } from 'undici';

const PROTOCOL = '2025-06-18';

async function postJson(url: string, body: unknown, headers: Record<string, string>) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${url} answered HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  return { headers: res.headers, text };
}

export async function openSessions(url: string, count: number): Promise<Record<string, string>[]> {
  const sessions: Record<string, string>[] = [];
  for (let i = 0; i < count; i++) {
    const init = await postJson(
      url,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
      },
      {},
    );
    const id = init.headers['mcp-session-id'];
    if (typeof id !== 'string') throw new Error(`${url} opened no session: ${init.text.slice(0, 300)}`);
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
    await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    sessions.push(headers);
  }
  return sessions;
}

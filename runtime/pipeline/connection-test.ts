// The portal's "Test connection" of one endpoint instance (spec `connector.connectionTest`; docs/
// decisions/portal.md, 'Test connection runs one declared read as the user's call'): the connector's
// declared read tool, without arguments, runs as an ordinary call of the signed-in user — every check
// of a call, the stored connection (an OAuth grant refreshed first), metered once and in the call
// log, a key the upstream refuses marking the connection "needs reconnect" as any call does.
import type { Endpoint } from '../gateway-context.ts';
import type { Identity } from '../store/state.ts';
import type { CallToolResult, ToolCallRequest } from './call-types.ts';

/** What a test answered: the tool it ran, and on failure the call's one text block. */
export type ConnectionTestResult =
  | { readonly ok: true; readonly tool: string; readonly ms: number }
  | { readonly ok: false; readonly tool: string; readonly ms: number; readonly text: string };

/** Undefined when the connector declares no test (the portal then offers none). */
export async function testConnection(
  call: (request: ToolCallRequest) => Promise<CallToolResult>,
  endpoint: Endpoint,
  identity: Identity,
  signal: AbortSignal,
  reqId: string,
): Promise<ConnectionTestResult | undefined> {
  const tool = endpoint.connector.descriptor.connectionTest;
  if (!tool) return undefined;
  const started = performance.now();
  const result = await call({
    endpoint,
    identity,
    name: `${endpoint.instanceId}__${tool}`,
    rawArgs: {},
    signal,
    reqId,
  });
  const ms = Math.round(performance.now() - started);
  if (result.isError !== true) return { ok: true, tool, ms };
  return { ok: false, tool, ms, text: result.content[0]?.text ?? '' };
}

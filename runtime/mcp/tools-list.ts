// The `result` of tools/list per endpoint instance, as JSON bytes computed once: the connector's
// tools named `<instance>__<tool>`, plus the unprefixed system tool where the connector lists it.
// Nothing here switches over tool names.
import type { PlatformDescriptor, ToolDescriptor } from '../handler-api/descriptor-types.ts';
import type { Endpoint } from '../gateway-context.ts';

function listedTool(tool: ToolDescriptor, name: string, publishOutput: boolean): Record<string, unknown> {
  return {
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(publishOutput && tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** Both listings of each instance, made on first use. */
const lists = new WeakMap<Endpoint, { full?: Buffer; connect?: Buffer }>();

/** The `result` of tools/list as JSON bytes (computed once); `full` false lists only connect_account. */
export function toolsListBytes(endpoint: Endpoint, platform: PlatformDescriptor, full: boolean): Buffer {
  let cached = lists.get(endpoint);
  if (!cached) {
    cached = {};
    lists.set(endpoint, cached);
  }
  const kind = full ? 'full' : 'connect';
  const known = cached[kind];
  if (known) return known;
  const { descriptor } = endpoint.connector;
  const tools: Record<string, unknown>[] = [];
  if (full) for (const tool of descriptor.tools) tools.push(listedTool(tool, `${endpoint.instanceId}__${tool.name}`, descriptor.structuredContent));
  if (descriptor.connectAccount) {
    const connect = platform.systemTools.find((t) => t.name === 'connect_account');
    if (connect) tools.push(listedTool(connect, connect.name, false));
  }
  const bytes = Buffer.from(JSON.stringify({ tools }));
  cached[kind] = bytes;
  return bytes;
}

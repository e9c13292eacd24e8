// The `result` of tools/list per endpoint instance, as JSON text computed once: the connector's
// tools named `<instance>__<tool>`, plus the unprefixed system tool where the connector lists it;
// tool references in their texts rendered with the instance id.
// Nothing here switches over tool names.
import type { PlatformDescriptor, ToolDescriptor } from '../handler-api/descriptor-types.ts';
import { renderToolReferences, type Endpoint } from '../gateway-context.ts';

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
const lists = new WeakMap<Endpoint, { full?: string; connect?: string }>();

/**
 * The `result` of tools/list as JSON text (computed once) WITHOUT its closing brace, so the 2026
 * fields can follow the list; `full` false lists only connect_account. Text rather than bytes: an
 * answer written as one string goes out in one socket write with the HTTP head, a Buffer body is a
 * second chunk of a writev (measured: ~12 % of the CPU per tools/list answer).
 */
export function toolsListOpen(endpoint: Endpoint, platform: PlatformDescriptor, full: boolean): string {
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
  // Sibling tools named in descriptions read as this endpoint serves them (tool names are
  // [A-Za-z0-9_-], so rendering the JSON text renders every description and schema in it).
  const open = renderToolReferences(JSON.stringify({ tools }), endpoint.instanceId).slice(0, -1);
  cached[kind] = open;
  return open;
}

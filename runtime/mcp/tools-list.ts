// The `result` of tools/list per endpoint instance, as JSON text computed once: the connector's
// tools named `<instance>__<tool>`, plus the unprefixed system tool where the connector lists it;
// tool references in their texts rendered with the instance id.
// Nothing here switches over tool names.
import type { PlatformDescriptor, ToolDescriptor } from '../handler-api/descriptor-types.ts';
import { renderToolReferences, type Endpoint } from '../gateway-context.ts';
import { allows, EVERY_TOOL, selectionKey, type ToolSelection } from '../tool-selection.ts';

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

/** Listings per selection kept per instance (least recently used dropped first). */
export const SELECTED_LISTS_PER_ENDPOINT = 64;

/**
 * Both listings of each instance for every tool, made on first use, and the listings of the
 * selections clients made (docs/decisions/mcp-surface.md, 'Toolsets and read-only chosen by the
 * client, by header or path'): keyed by selectionKey, a Map in use order, at most
 * SELECTED_LISTS_PER_ENDPOINT of them.
 */
const lists = new WeakMap<Endpoint, { full?: string; connect?: string; selected?: Map<string, string> }>();

/**
 * The `result` of tools/list as JSON text (computed once) WITHOUT its closing brace, so the 2026
 * fields can follow the list; `full` false lists only connect_account. `selection` narrows the
 * connector's tools (the system tool stays); EVERY_TOOL is the unchanged fast path. Text rather
 * than bytes: an answer written as one string goes out in one socket write with the HTTP head, a
 * Buffer body is a second chunk of a writev (measured: ~12 % of the CPU per tools/list answer).
 */
export function toolsListOpen(
  endpoint: Endpoint,
  platform: PlatformDescriptor,
  full: boolean,
  selection: ToolSelection = EVERY_TOOL,
): string {
  let cached = lists.get(endpoint);
  if (!cached) {
    cached = {};
    lists.set(endpoint, cached);
  }
  if (full && selection !== EVERY_TOOL) return selectedList(endpoint, platform, selection, cached);
  const kind = full ? 'full' : 'connect';
  const known = cached[kind];
  if (known) return known;
  const open = render(endpoint, platform, full ? endpoint.connector.descriptor.tools : []);
  cached[kind] = open;
  return open;
}

function selectedList(
  endpoint: Endpoint,
  platform: PlatformDescriptor,
  selection: ToolSelection,
  cached: { selected?: Map<string, string> },
): string {
  const key = selectionKey(selection);
  if (!cached.selected) cached.selected = new Map();
  const selected = cached.selected;
  const known = selected.get(key);
  if (known !== undefined) {
    // Most recently used last.
    selected.delete(key);
    selected.set(key, known);
    return known;
  }
  const open = render(
    endpoint,
    platform,
    endpoint.connector.descriptor.tools.filter((tool) => allows(selection, tool)),
  );
  if (selected.size >= SELECTED_LISTS_PER_ENDPOINT) selected.delete(selected.keys().next().value!);
  selected.set(key, open);
  return open;
}

function render(endpoint: Endpoint, platform: PlatformDescriptor, connectorTools: readonly ToolDescriptor[]): string {
  const { descriptor } = endpoint.connector;
  const tools: Record<string, unknown>[] = [];
  for (const tool of connectorTools)
    tools.push(listedTool(tool, `${endpoint.instanceId}__${tool.name}`, descriptor.structuredContent));
  if (descriptor.connectAccount) {
    const connect = platform.systemTools.find((t) => t.name === 'connect_account');
    if (connect) tools.push(listedTool(connect, connect.name, false));
  }
  // Sibling tools named in descriptions read as this endpoint serves them (tool names are
  // [A-Za-z0-9_-], so rendering the JSON text renders every description and schema in it).
  return renderToolReferences(JSON.stringify({ tools }), endpoint.instanceId).slice(0, -1);
}

/** How many selected listings an instance keeps now (at most SELECTED_LISTS_PER_ENDPOINT). */
export function selectedListCount(endpoint: Endpoint): number {
  return lists.get(endpoint)?.selected?.size ?? 0;
}

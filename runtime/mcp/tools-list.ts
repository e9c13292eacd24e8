// The `result` of tools/list per endpoint instance, as JSON text computed once: the connector's
// tools named `<instance>__<tool>`, plus the unprefixed system tool where the connector lists it;
// tool references in their texts rendered with the instance id.
// Nothing here switches over tool names.
import type {
  Deprecation,
  JsonSchemaObject,
  PlatformDescriptor,
  ToolDescriptor,
} from '../handler-api/descriptor-types.ts';
import { formatText } from '../handler-api/tool-error.ts';
import { renderToolReferences, type Endpoint } from '../gateway-context.ts';
import { allows, EVERY_TOOL, selectionKey, type ToolSelection } from '../tool-selection.ts';

/**
 * The `_meta` keys of a deprecated tool's listing, under the project's reverse-DNS prefix (the spec
 * format's `$id` host, connector-gateway.dev): the tool's deprecation (`replacement` as served), and
 * its deprecated arguments by name. docs/decisions/mcp-surface.md, 'Deprecations in tools/list'.
 */
export const META_DEPRECATED = 'dev.connector-gateway/deprecated';
export const META_DEPRECATED_ARGUMENTS = 'dev.connector-gateway/deprecatedArguments';

type Instructions = PlatformDescriptor['instructions'];

/** The notice put before a deprecated tool's or argument's description (texts in specs/platform.yaml). */
function notice(texts: Instructions, kind: 'tool' | 'argument', d: Deprecation, replacement?: string): string {
  const text = replacement ? texts[`deprecated_${kind}_replaced`] : texts[`deprecated_${kind}`];
  return formatText(text ?? '', { reason: d.reason, sunset: d.sunset, replacement: replacement ?? '' });
}

/** The deprecated arguments' descriptions with their notice first (`deprecated: true` is in the schema already). */
function deprecatedInput(schema: JsonSchemaObject, args: Readonly<Record<string, Deprecation>>, texts: Instructions) {
  const properties = { ...(schema.properties as Record<string, JsonSchemaObject>) };
  for (const [name, d] of Object.entries(args)) {
    const p = properties[name];
    if (!p) continue;
    const own = typeof p.description === 'string' ? ` ${p.description}` : '';
    properties[name] = { ...p, description: `${notice(texts, 'argument', d, d.replacement)}${own}` };
  }
  return { ...schema, properties };
}

function listedTool(
  tool: ToolDescriptor,
  name: string,
  publishOutput: boolean,
  texts: Instructions,
  system: boolean,
): Record<string, unknown> {
  const d = tool.deprecated;
  const args = tool.deprecatedArguments;
  // A connector tool's replacement is written as a reference, rendered with the rest of the listing.
  const replacement = d?.replacement && !system ? `{{tool:${d.replacement}}}` : d?.replacement;
  const meta = {
    ...(d ? { [META_DEPRECATED]: { ...d, ...(replacement ? { replacement } : {}) } } : {}),
    ...(args ? { [META_DEPRECATED_ARGUMENTS]: args } : {}),
  };
  return {
    name,
    title: tool.title,
    description: d ? `${notice(texts, 'tool', d, replacement)}\n\n${tool.description}` : tool.description,
    inputSchema: args ? deprecatedInput(tool.inputSchema, args, texts) : tool.inputSchema,
    ...(publishOutput && tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: { title: tool.title, ...tool.annotations },
    ...(d || args ? { _meta: meta } : {}),
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
  const texts = platform.instructions;
  for (const tool of connectorTools)
    tools.push(listedTool(tool, `${endpoint.instanceId}__${tool.name}`, descriptor.structuredContent, texts, false));
  if (descriptor.connectAccount) {
    const connect = platform.systemTools.find((t) => t.name === 'connect_account');
    if (connect) tools.push(listedTool(connect, connect.name, false, texts, true));
  }
  // Sibling tools named in descriptions read as this endpoint serves them (tool names are
  // [A-Za-z0-9_-], so rendering the JSON text renders every description and schema in it).
  return renderToolReferences(JSON.stringify({ tools }), endpoint.instanceId).slice(0, -1);
}

/** How many selected listings an instance keeps now (at most SELECTED_LISTS_PER_ENDPOINT). */
export function selectedListCount(endpoint: Endpoint): number {
  return lists.get(endpoint)?.selected?.size ?? 0;
}

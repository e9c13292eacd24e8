// The catalog for reviewers: generated/catalog.json and generated/CATALOG.md, sorted and stable,
// so a pull request shows every change to the tool surface (names, arguments, limits, texts).
import type { ConnectorIR, DeprecationIR, ErrorIR, PlatformIR, ProtocolErrorIR, SpecIR, ToolIR } from '../ir.ts';
import { headerLine, jsonWithHeader } from '../printer.ts';
import { renderToolMarkers } from '../references.ts';
import { isObject, type JsonSchema } from '../schema.ts';

export interface ArgumentSummary {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly constraints: string;
  readonly description: string;
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The MCP revisions every endpoint speaks (test/catalog.test.ts checks them against the runtime's). */
export const MCP_REVISIONS: readonly { readonly version: string; readonly how: string }[] = [
  {
    version: '2026-07-28',
    how: 'stateless (server/discover, per-request _meta, Mcp-Method/Mcp-Name headers, cache hints)',
  },
  { version: '2025-11-25', how: 'initialize handshake' },
  { version: '2025-06-18', how: 'initialize handshake' },
  { version: '2025-03-26', how: 'initialize handshake' },
];

export function typeLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf ?? schema.oneOf))
    return ((schema.anyOf ?? schema.oneOf) as JsonSchema[]).map(typeLabel).join(' | ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [String(schema.type)] : ['any'];
  return types
    .map((t) => (t === 'array' ? `${isObject(schema.items) ? typeLabel(schema.items) : 'any'}[]` : t))
    .join(' | ');
}

export function constraintsOf(schema: JsonSchema): string {
  const parts: string[] = [];
  const range = (lo: unknown, hi: unknown, unit: string) => {
    if (lo !== undefined && hi !== undefined) parts.push(`${unit}${lo}–${hi}`);
    else if (lo !== undefined) parts.push(`${unit}≥ ${lo}`);
    else if (hi !== undefined) parts.push(`${unit}≤ ${hi}`);
  };
  range(schema.minimum, schema.maximum, '');
  range(schema.minLength, schema.maxLength, 'length ');
  range(schema.minItems, schema.maxItems, 'items ');
  if (typeof schema.format === 'string') parts.push(`format ${schema.format}`);
  if (typeof schema.pattern === 'string') parts.push(`pattern \`${schema.pattern}\``);
  if (schema.additionalProperties === false && isObject(schema.properties))
    parts.push(`keys: ${Object.keys(schema.properties).join(', ')}`);
  return parts.join('; ');
}

export function argumentsOf(tool: ToolIR): ArgumentSummary[] {
  const props = isObject(tool.inputSchema.properties)
    ? (tool.inputSchema.properties as Record<string, JsonSchema>)
    : {};
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [];
  return Object.entries(props)
    .map(([name, schema]) => ({
      name,
      type: typeLabel(schema),
      required: required.includes(name),
      ...('default' in schema ? { default: schema.default } : {}),
      constraints: constraintsOf(schema),
      description: typeof schema.description === 'string' ? schema.description.trim() : '',
    }))
    .sort(byName);
}

function errorsJson(errors: readonly ErrorIR[]): Record<string, unknown> {
  return Object.fromEntries(
    [...errors]
      .sort((a, b) => (a.code < b.code ? -1 : 1))
      .map((e) => [
        e.code,
        {
          text: e.text,
          ...(e.name ? { name: e.name } : {}),
          reconnect: e.reconnect,
          ...(e.upstream.length ? { upstream: e.upstream } : {}),
          ...(e.when ? { when: e.when } : {}),
        },
      ]),
  );
}

function protocolErrorsJson(errors: readonly ProtocolErrorIR[]): Record<string, unknown> {
  return Object.fromEntries(
    [...errors]
      .sort((a, b) => (a.code < b.code ? -1 : 1))
      .map((e) => [e.code, { text: e.text, ...(e.when ? { when: e.when } : {}) }]),
  );
}

const servedReplacement = (d: DeprecationIR, reference: boolean): DeprecationIR =>
  d.replacement && reference ? { ...d, replacement: `{{tool:${d.replacement}}}` } : d;

function toolJson(tool: ToolIR, connectorId: string | null): Record<string, unknown> {
  return {
    name: tool.name,
    servedAs: connectorId && !tool.system ? `${connectorId}__${tool.name}` : tool.name,
    title: tool.title,
    description: tool.description,
    // A connector tool's replacement as the default endpoint serves it, like every tool named in a text.
    ...(tool.deprecated ? { deprecated: servedReplacement(tool.deprecated, !tool.system) } : {}),
    ...(Object.keys(tool.deprecatedArguments).length ? { deprecatedArguments: tool.deprecatedArguments } : {}),
    ...(tool.toolset ? { toolset: tool.toolset } : {}),
    system: tool.system,
    write: tool.write,
    annotations: tool.annotations,
    arguments: argumentsOf(tool),
    // The published input schema in full: npm run catalog:diff compares it (types, enums, bounds).
    input: tool.inputSchema,
    limits: tool.limits,
    ...(tool.dataLayer ? { dataLayer: true } : {}),
    errors: [...tool.errors].sort(),
    result: tool.outputSchema ?? null,
  };
}

/** A connector's toolsets in spec order, each with its number of tools (each tool names its `toolset`). */
function toolsetsJson(c: ConnectorIR): Record<string, unknown>[] {
  return c.toolsets.map((s) => ({
    id: s.id,
    title: s.title,
    description: s.description,
    toolCount: c.tools.filter((t) => t.toolset === s.id).length,
  }));
}

/**
 * Version of catalog.json's shape (`toolsets` and each tool's `toolset` are optional keys of it).
 * 2 added what `npm run catalog:diff` classifies by: `input`
 * (published schemas), `limitKinds`, `stability` and `platform.checkOrder`.
 */
export const CATALOG_FORMAT = 2;

/** Tools served on a connector's endpoint: its own plus `connect_account` where listed. */
export function servedTools(c: ConnectorIR, platform: PlatformIR): ToolIR[] {
  const system = c.connectAccount ? platform.systemTools.filter((t) => t.name === 'connect_account') : [];
  return [...c.tools, ...system].sort(byName);
}

/**
 * A connector's entry with its texts' tool references rendered with the default id, as an
 * endpoint with that id serves them: reviewers read the names clients call. (Tool names are
 * [A-Za-z0-9_-], so rendering the JSON text is the same as rendering every string in it.)
 */
const renderedWithDefaultId = <T>(entry: T, id: string): T =>
  JSON.parse(renderToolMarkers(JSON.stringify(entry), id)) as T;

export function emitCatalogJson(ir: SpecIR): string {
  const connectors = ir.connectors.map((c) =>
    renderedWithDefaultId(
      {
        key: c.key,
        defaultId: c.id,
        title: c.title,
        description: c.description,
        stability: c.stability,
        credential: c.credential,
        connectAccount: c.connectAccount,
        structuredContent: c.structuredContent,
        upstream: c.upstream,
        limits: c.limits,
        limitKinds: c.limitKinds,
        errors: errorsJson(c.errors),
        texts: c.texts,
        toolCount: c.tools.length,
        toolsets: toolsetsJson(c),
        tools: servedTools(c, ir.platform).map((t) => toolJson(t, c.id)),
      },
      c.id,
    ),
  );
  const entries = connectors.reduce((n, c) => n + c.tools.length, 0);
  return jsonWithHeader([ir.platform.source, ...ir.connectors.map((c) => c.source)], {
    format: CATALOG_FORMAT,
    summary: { connectors: connectors.length, tools: ir.connectors.reduce((n, c) => n + c.tools.length, 0), entries },
    platform: {
      errors: errorsJson(ir.platform.errors),
      protocolErrors: protocolErrorsJson(ir.platform.protocolErrors),
      instructions: ir.platform.instructions,
      annotations: ir.platform.annotations,
      limits: ir.platform.limits,
      limitKinds: ir.platform.limitKinds,
      checkOrder: ir.platform.checkOrder,
      systemTools: [...ir.platform.systemTools].sort(byName).map((t) => toolJson(t, null)),
    },
    connectors,
  });
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const md = (value: unknown) => (value === undefined ? '' : `\`${JSON.stringify(value)}\``);

function annotationText(tool: ToolIR): string {
  return Object.entries(tool.annotations)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
}

function resultText(tool: ToolIR): string {
  const out = tool.outputSchema;
  if (!out) return 'not specified';
  const variants = Array.isArray(out.anyOf) ? (out.anyOf as JsonSchema[]) : [out];
  return variants
    .map((v) => (isObject(v.properties) ? `\`{ ${Object.keys(v.properties).join(', ')} }\`` : `\`${typeLabel(v)}\``))
    .join(' or ');
}

/** `name value (kind)` for every limit, sorted by name. */
function limitsText(limits: Readonly<Record<string, number>>, kinds: Readonly<Record<string, string>>): string {
  return Object.entries(limits)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k} ${v}${kinds[k] ? ` (${kinds[k]})` : ''}`)
    .join(', ');
}

/** `**Deprecated** (sunset 2027-01-31; use `x`): reason`; a tool's replacement as a reference, rendered per id. */
function deprecationText(d: DeprecationIR, replacement: string | undefined): string {
  return `**Deprecated** (sunset ${d.sunset}${replacement ? `; use \`${replacement}\`` : ''}): ${d.reason}`;
}

function toolMarkdown(tool: ToolIR, connectorId: string, kinds: Readonly<Record<string, string>>): string[] {
  const served = tool.system ? tool.name : `${connectorId}__${tool.name}`;
  const lines = [
    `### \`${served}\` — ${tool.title}`,
    '',
    ...(tool.deprecated
      ? [
          deprecationText(
            tool.deprecated,
            tool.deprecated.replacement && !tool.system ? `{{tool:${tool.deprecated.replacement}}}` : undefined,
          ),
          '',
        ]
      : []),
    ...tool.description.split('\n').map((l) => `> ${l}`.trimEnd()),
    '',
  ];
  lines.push(
    `${tool.toolset ? `Toolset: \`${tool.toolset}\` · ` : ''}${tool.write ? '**Write (confirm-gated).** ' : ''}` +
      `Annotations: ${annotationText(tool)}`,
    '',
  );
  const args = argumentsOf(tool);
  if (args.length === 0) lines.push('Arguments: none', '');
  else {
    lines.push('| Argument | Type | Required | Default | Limits | Description |', '|---|---|---|---|---|---|');
    for (const a of args) {
      const d = tool.deprecatedArguments[a.name];
      const description = d ? `${deprecationText(d, d.replacement)} ${a.description}`.trim() : a.description;
      lines.push(
        `| \`${a.name}\` | ${cell(a.type)} | ${a.required ? 'yes' : ''} | ` +
          `${cell(md(a.default))} | ${cell(a.constraints)} | ${cell(description)} |`,
      );
    }
    lines.push('');
  }
  lines.push(`Result: ${resultText(tool)}`, '');
  if (Object.keys(tool.limits).length) lines.push(`Limits: ${limitsText(tool.limits, kinds)}`, '');
  if (tool.dataLayer)
    lines.push("Data layer: reads and records the tenant's opt-in first-seen records (`ctx.dataLayer`)", '');
  lines.push(
    `Errors: ${
      [...tool.errors]
        .sort()
        .map((e) => `\`${e}\``)
        .join(', ') || 'none'
    }`,
    '',
  );
  return lines;
}

/** The connector's toolsets with their tools, in spec order. */
function toolsetsMarkdown(c: ConnectorIR): string[] {
  if (c.toolsets.length === 0) return [];
  const lines = ['Toolsets:', '', '| Toolset | Title | Description | Tools |', '|---|---|---|---|'];
  for (const s of c.toolsets) {
    const tools = c.tools.filter((t) => t.toolset === s.id).map((t) => `\`${c.id}__${t.name}\``);
    lines.push(
      `| \`${s.id}\` | ${cell(s.title)} | ${cell(s.description)} | ${tools.length}: ${tools.sort().join(', ')} |`,
    );
  }
  return [...lines, ''];
}

function errorsMarkdown(errors: readonly (ErrorIR | ProtocolErrorIR)[]): string[] {
  const lines = ['| Code | Text | When |', '|---|---|---|'];
  for (const e of [...errors].sort((a, b) => (a.code < b.code ? -1 : 1))) {
    const answers = 'upstream' in e && e.upstream.length ? ` (answers upstream ${e.upstream.join(', ')})` : '';
    lines.push(
      `| \`${e.code}\`` +
        `${'reconnect' in e && e.reconnect ? ' (reconnect)' : ''}${answers} | ` +
        `${cell(e.text)} | ${cell(e.when ?? '')} |`,
    );
  }
  return [...lines, ''];
}

export function emitCatalogMarkdown(ir: SpecIR): string {
  const total = ir.connectors.reduce((n, c) => n + c.tools.length, 0);
  const entries = ir.connectors.reduce((n, c) => n + servedTools(c, ir.platform).length, 0);
  const lines = [
    headerLine([ir.platform.source, ...ir.connectors.map((c) => c.source)], 'md'),
    '',
    '# Tool catalog',
    '',
  ];
  lines.push(
    `${ir.connectors.length} connectors, ${total} tools, ${entries} catalog ` +
      'entries (system tools counted on every endpoint that lists them).',
    '',
  );
  lines.push(
    `Every endpoint (\`POST /<id>/mcp\`, \`/<id>-<n>/mcp\`) speaks MCP ` +
      `${MCP_REVISIONS.map((r) => `\`${r.version}\``).join(', ')}: ` +
      `${MCP_REVISIONS.map((r) => `${r.version} ${r.how}`).join('; ')}.`,
    '',
  );
  lines.push(
    '| Connector | Default id | Stability | Credential | Tools | Toolsets | Upstream timeout | Throttle retry |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const c of ir.connectors) {
    lines.push(
      `| [${c.title}](#${c.key}) | \`${c.id}\` | ${c.stability} | ${c.credential} | ${c.tools.length}` +
        `${c.connectAccount ? ' + connect_account' : ''}` +
        ` | ${c.toolsets.map((s) => `\`${s.id}\``).join(', ')} | ${c.upstream.timeoutMs / 1000} s | ` +
        `${c.upstream.retry.onThrottle === 'once' ? `once, ≤ ${c.upstream.retry.maxWaitMs / 1000} s` : 'none'}` +
        ' |',
    );
  }
  lines.push('', '## Platform', '');
  if (ir.platform.checkOrder.length)
    lines.push(`Check order of a tools/call: ${ir.platform.checkOrder.join(' → ')}`, '');
  if (Object.keys(ir.platform.limits).length)
    lines.push(`Limits: ${limitsText(ir.platform.limits, ir.platform.limitKinds)}`, '');
  lines.push('Texts shared by every connector:', '', ...errorsMarkdown(ir.platform.errors));
  if (ir.platform.protocolErrors.length)
    lines.push(
      'Protocol errors (refusals before any tool runs: HTTP checks, the JSON-RPC envelope):',
      '',
      ...errorsMarkdown(ir.platform.protocolErrors),
    );
  for (const [k, v] of Object.entries(ir.platform.instructions).sort())
    lines.push(`Instructions \`${k}\`: ${cell(v)}`, '');
  for (const tool of [...ir.platform.systemTools].sort(byName))
    lines.push(...toolMarkdown(tool, '', ir.platform.limitKinds));
  for (const c of ir.connectors) {
    const start = lines.length;
    lines.push(`<a id="${c.key}"></a>`, '', `## ${c.title} (\`${c.id}\`)`, '');
    lines.push(
      `Spec: \`${c.source}\`${c.stability === 'stable' ? '' : ` · **${c.stability}**`} · ` +
        `credential ${c.credential} · upstream ${c.upstream.name} \`${c.upstream.baseUrl}\` · ` +
        `timeout ${c.upstream.timeoutMs} ms · response cap ${c.upstream.maxResponseBytes} ` +
        `bytes${c.structuredContent ? ' · structuredContent with published output schemas' : ''}`,
      '',
    );
    lines.push(
      'Instructions (initialize, for a subscribed account):',
      '',
      ...c.description.split('\n').map((l) => `> ${l}`.trimEnd()),
      '',
    );
    if (Object.keys(c.limits).length) lines.push(`Limits: ${limitsText(c.limits, c.limitKinds)}`, '');
    lines.push('Error texts:', '', ...errorsMarkdown(c.errors));
    lines.push(...toolsetsMarkdown(c));
    const texts = Object.entries(c.texts).sort(([a], [b]) => (a < b ? -1 : 1));
    if (texts.length)
      lines.push(
        'Other texts:',
        '',
        '| Name | Text |',
        '|---|---|',
        ...texts.map(([k, v]) => `| \`${k}\` | ${cell(v)} |`),
        '',
      );
    for (const tool of servedTools(c, ir.platform)) lines.push(...toolMarkdown(tool, c.id, c.limitKinds));
    // Tool references read as the default endpoint serves them (`cases__describe_type`).
    for (let i = start; i < lines.length; i++) lines[i] = renderToolMarkers(lines[i]!, c.id);
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

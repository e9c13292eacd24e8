// References from spec texts to tools and arguments: `{{tool:describe_type}}`, `{{arg:sortBy}}`,
// `{{arg:list_cases.sortBy}}` (docs/spec-format.md, "Naming tools and arguments in texts").
//
// A connector id is deployment configuration and `-<n>` instances exist, so the name a client
// calls (`cases-2__describe_type`) is known only per endpoint: the generator checks every
// reference (SPEC038) and every tool named without one (SPEC039), resolves what does not depend on
// the endpoint (argument names, system tools, which are served unprefixed) and leaves
// `{{tool:<name>}}` for a connector tool in the descriptor, for the runtime to render once per
// endpoint (runtime/gateway-context.ts `renderToolReferences`). The catalog renders it with the
// connector's default id.
import { closest } from './closest.ts';
import { diagnostic, type Diagnostic } from './diagnostics.ts';
import { locate, type PathSegment, type SpecSource } from './load.ts';
import { isObject } from './schema.ts';

/** Any `{{…}}` in a text; what is inside decides whether it is a valid reference. */
const BRACES = /\{\{([^{}]*)\}\}/g;
const TOOL_REF = /^tool:([A-Za-z0-9_-]+)$/;
const ARG_REF = /^arg:(?:([A-Za-z0-9_-]+)\.)?([A-Za-z0-9_$-]+)$/;
/** A connector tool's reference as the descriptor keeps it; the runtime's pattern is the same. */
export const TOOL_MARKER = /\{\{tool:([A-Za-z0-9_-]+)\}\}/g;

/** `{{tool:<name>}}` of a connector tool, rendered with an endpoint's (or the default) id. */
export function renderToolMarkers(text: string, instanceId: string): string {
  return text.includes('{{') ? text.replace(TOOL_MARKER, (_, name: string) => `${instanceId}__${name}`) : text;
}

/** What references in one file may name. */
export interface ReferenceScope {
  /** Tools of the file, by name, with their top-level argument names. */
  readonly tools: ReadonlyMap<string, ReadonlySet<string>>;
  /** System tools (served unprefixed), with their argument names. */
  readonly systemTools: ReadonlyMap<string, ReadonlySet<string>>;
  /** System tools this file's endpoints list (a connector: connect_account when `connectAccount`). */
  readonly listedSystemTools: ReadonlySet<string>;
  /** The connector's default id (`undefined` in the platform file). */
  readonly id?: string;
}

/**
 * The text as the descriptor holds it: argument references become the argument's name, references
 * to system tools their (unprefixed) name, and a connector tool's reference stays
 * `{{tool:<name>}}` for the endpoint to render. Anything the lints would refuse is left as written.
 */
export function resolveReferences(text: string, scope: Pick<ReferenceScope, 'tools' | 'systemTools'>): string {
  if (!text.includes('{{')) return text;
  return text.replace(BRACES, (whole, inner: string) => {
    const tool = TOOL_REF.exec(inner);
    if (tool) return scope.systemTools.has(tool[1]!) && !scope.tools.has(tool[1]!) ? tool[1]! : `{{tool:${tool[1]}}}`;
    const arg = ARG_REF.exec(inner);
    return arg ? arg[2]! : whole;
  });
}

/** A copy of a schema with every `description` (at any depth) passed through `fn`. */
export function mapDescriptions(schema: unknown, fn: (text: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => mapDescriptions(s, fn));
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' && typeof value === 'string') out[key] = fn(value);
    // Property names are names, not keywords: a property called `default` is a schema.
    else if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, mapDescriptions(child, fn)]));
    else if (VALUE_KEYS.has(key)) out[key] = value;
    else out[key] = mapDescriptions(value, fn);
  }
  return out;
}

/** Keys whose values are data, not schemas: a `description` inside them is not a text. */
const VALUE_KEYS: ReadonlySet<string> = new Set(['default', 'const', 'enum', 'examples']);

/** One text of a spec file the lints read, with the tool whose text it is (its own arguments). */
export interface TextSite {
  readonly path: PathSegment[];
  readonly what: string;
  readonly text: string;
  readonly ownTool?: string;
}

function argumentNames(input: unknown, definitions: Record<string, unknown>): Set<string> {
  let root = input;
  if (isObject(root) && typeof root.$ref === 'string') root = definitions[root.$ref.replace('#/definitions/', '')];
  return new Set(isObject(root) && isObject(root.properties) ? Object.keys(root.properties) : []);
}

/** The scope of a file: its tools (connector or system) and the system tools it may name. */
export function referenceScope(
  data: Record<string, unknown>,
  systemTools: ReadonlyMap<string, ReadonlySet<string>>,
): ReferenceScope {
  const definitions = isObject(data.definitions) ? data.definitions : {};
  const tools = new Map<string, ReadonlySet<string>>();
  for (const t of Array.isArray(data.tools) ? data.tools : []) {
    if (isObject(t) && typeof t.name === 'string') tools.set(t.name, argumentNames(t.input, definitions));
  }
  const connector = isObject(data.connector) ? data.connector : undefined;
  const listed = connector ? (connector.connectAccount === true ? ['connect_account'] : []) : [...systemTools.keys()];
  return {
    tools,
    systemTools,
    listedSystemTools: new Set(listed.filter((n) => systemTools.has(n))),
    ...(typeof connector?.id === 'string' ? { id: connector.id } : {}),
  };
}

/** System tools of the platform file, with their argument names. */
export function systemToolScope(platformData: Record<string, unknown> | undefined): Map<string, ReadonlySet<string>> {
  const out = new Map<string, ReadonlySet<string>>();
  const list = platformData && Array.isArray(platformData.systemTools) ? platformData.systemTools : [];
  for (const t of list) if (isObject(t) && typeof t.name === 'string') out.set(t.name, argumentNames(t.input, {}));
  return out;
}

function schemaSites(
  schema: unknown,
  path: PathSegment[],
  what: string,
  ownTool: string | undefined,
  out: TextSite[],
): void {
  if (Array.isArray(schema)) {
    for (const [i, s] of schema.entries()) schemaSites(s, [...path, i], what, ownTool, out);
    return;
  }
  if (!isObject(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' && typeof value === 'string')
      out.push({
        path: [...path, key],
        what: `${what} (${describeSchemaPath(path)})`,
        text: value,
        ...(ownTool ? { ownTool } : {}),
      });
    else if (key === 'deprecated' && isObject(value)) {
      if (typeof value.reason === 'string')
        out.push({
          path: [...path, key, 'reason'],
          what: `deprecation reason in ${what} (${describeSchemaPath(path)})`,
          text: value.reason,
          ...(ownTool ? { ownTool } : {}),
        });
    } else if (key === 'properties' && isObject(value))
      for (const [name, child] of Object.entries(value)) schemaSites(child, [...path, key, name], what, ownTool, out);
    else if (!VALUE_KEYS.has(key)) schemaSites(value, [...path, key], what, ownTool, out);
  }
}

/** `input.properties.sortBy` → `input.sortBy`, short enough for a message. */
function describeSchemaPath(path: PathSegment[]): string {
  const start = path.findIndex((p) => p === 'input' || p === 'output' || p === 'definitions');
  return (
    path
      .slice(start)
      .filter((p) => p !== 'properties')
      .join('.')
      .replace(/\.(\d+)/g, '[$1]') || 'schema'
  );
}

function errorSites(errors: unknown, base: PathSegment[], label: string, out: TextSite[]): void {
  if (!isObject(errors)) return;
  for (const [code, entry] of Object.entries(errors)) {
    if (typeof entry === 'string') out.push({ path: [...base, code], what: `${label} \`${code}\``, text: entry });
    else if (isObject(entry)) {
      if (typeof entry.text === 'string')
        out.push({ path: [...base, code, 'text'], what: `${label} \`${code}\``, text: entry.text });
      if (typeof entry.when === 'string')
        out.push({ path: [...base, code, 'when'], what: `\`when\` of ${label} \`${code}\``, text: entry.when });
    }
  }
}

function toolSites(tools: unknown, base: PathSegment[], out: TextSite[]): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((t, i) => {
    if (!isObject(t) || typeof t.name !== 'string') return;
    const name = t.name;
    for (const field of ['title', 'description'] as const) {
      if (typeof t[field] === 'string')
        out.push({
          path: [...base, i, field],
          what: `${field} of tool \`${name}\``,
          text: t[field] as string,
          ownTool: name,
        });
    }
    if (isObject(t.deprecated) && typeof t.deprecated.reason === 'string')
      out.push({
        path: [...base, i, 'deprecated', 'reason'],
        what: `deprecation reason of tool \`${name}\``,
        text: t.deprecated.reason,
        ownTool: name,
      });
    schemaSites(t.input, [...base, i, 'input'], `tool \`${name}\``, name, out);
    schemaSites(t.output, [...base, i, 'output'], `tool \`${name}\``, name, out);
  });
}

/** Every user-visible text of a spec file (connector or platform). */
export function textSites(data: Record<string, unknown>): TextSite[] {
  const out: TextSite[] = [];
  const connector = isObject(data.connector) ? data.connector : undefined;
  if (connector) {
    if (typeof connector.description === 'string')
      out.push({
        path: ['connector', 'description'],
        what: 'the connector description (initialize instructions)',
        text: connector.description,
      });
    errorSites(connector.errors, ['connector', 'errors'], 'error', out);
    if (isObject(connector.texts)) {
      for (const [name, text] of Object.entries(connector.texts))
        if (typeof text === 'string') out.push({ path: ['connector', 'texts', name], what: `text \`${name}\``, text });
    }
    toolSites(data.tools, ['tools'], out);
    if (isObject(data.definitions))
      for (const [name, def] of Object.entries(data.definitions))
        schemaSites(def, ['definitions', name], `definition \`${name}\``, undefined, out);
  }
  const platform = isObject(data.platform) ? data.platform : undefined;
  if (platform) {
    errorSites(platform.errors, ['platform', 'errors'], 'error', out);
    errorSites(platform.protocolErrors, ['platform', 'protocolErrors'], 'protocol error', out);
    errorSites(platform.portal, ['platform', 'portal'], 'portal text', out);
    if (isObject(platform.instructions)) {
      for (const [name, text] of Object.entries(platform.instructions))
        if (typeof text === 'string')
          out.push({ path: ['platform', 'instructions', name], what: `instructions \`${name}\``, text });
    }
    toolSites(platform.systemTools, ['platform', 'systemTools'], out);
  }
  return out;
}

function served(scope: ReferenceScope, name: string): string {
  if (scope.systemTools.has(name) && !scope.tools.has(name)) return `\`${name}\``;
  const id = scope.id ?? '<id>';
  return `\`${id}__${name}\` on endpoint ${id}, \`${id}-2__${name}\` on ${id}-2`;
}

/** SPEC038: a `{{…}}` reference that names no tool or argument (or is not a reference at all). */
function checkReference(inner: string, site: TextSite, scope: ReferenceScope): string | undefined {
  const write = (ref: string) => `write \`{{${ref}}}\``;
  const tool = TOOL_REF.exec(inner);
  if (tool) {
    const name = tool[1]!;
    if (scope.tools.has(name)) return undefined;
    if (scope.systemTools.has(name)) {
      return scope.listedSystemTools.has(name)
        ? undefined
        : `${site.what} refers to \`{{tool:${name}}}\`, but this connector's ` +
            `endpoints do not list ${name} (connector.connectAccount is not true)`;
    }
    const guess = closest(name, [...scope.tools.keys(), ...scope.listedSystemTools]);
    const where = scope.id ? ` in connector ${scope.id}` : ' among the system tools';
    return (
      `${site.what} refers to \`{{tool:${name}}}\`, but there is no tool ` +
      `\`${name}\`${where}${guess ? `; did you mean \`{{tool:${guess}}}\`?` : ''}`
    );
  }
  const arg = ARG_REF.exec(inner);
  if (arg) {
    const [, toolName, argName] = arg as unknown as [string, string | undefined, string];
    const owner = toolName ?? site.ownTool;
    if (owner === undefined)
      return (
        `${site.what} refers to \`{{arg:${argName}}}\` outside a tool's own ` +
        `texts: ${write(`arg:<tool>.${argName}`)} naming the tool`
      );
    const args = scope.tools.get(owner) ?? scope.systemTools.get(owner);
    if (!args)
      return (
        `${site.what} refers to \`{{${inner}}}\`, but there is no tool ` +
        `\`${owner}\`${scope.id ? ` in connector ${scope.id}` : ''}`
      );
    if (args.has(argName)) return undefined;
    const guess = closest(argName, args);
    const prefix = toolName ? `${toolName}.` : '';
    return (
      `${site.what} refers to \`{{${inner}}}\`, but tool \`${owner}\` has no argument \`${argName}\` (arguments: ` +
      `${[...args].join(', ') || 'none'})${guess ? `; did you mean \`{{arg:${prefix}${guess}}}\`?` : ''}`
    );
  }
  return (
    `${site.what} has \`{{${inner}}}\`, which is not a reference: write ` +
    `\`{{tool:<name>}}\` or \`{{arg:<name>}}\` / \`{{arg:<tool>.<name>}}\``
  );
}

/** Words before a one-word tool name that make it a tool's name rather than an English word. */
const CALL_WORDS = /(?:^|[^A-Za-z])(?:call|calls|calling|called|tool)\s+$/i;

/** A tool name written in a text without a reference (SPEC039), with where it is. */
export interface BareName {
  readonly name: string;
  /** Offsets of the whole match in the text, connector id prefix included. */
  readonly start: number;
  readonly end: number;
  /** `cases__` or `cases-2__` when the text wrote the served name out, else ''. */
  readonly prefix: string;
}

/**
 * SPEC039: tool names written in a text without a reference — bare (`describe_type`) or with a
 * connector id (`cases__describe_type`). A name with an underscore or a digit is found anywhere; a
 * one-word name (`query`, `aggregate`) is an English word too, so it is found only where it cannot
 * be one: in backticks, written with a connector id, after "call"/"tool", or before "tool".
 */
export function findBareNames(text: string, scope: Pick<ReferenceScope, 'tools' | 'systemTools'>): BareName[] {
  const names = [...new Set([...scope.tools.keys(), ...scope.systemTools.keys()])].sort((a, b) => b.length - a.length);
  if (names.length === 0) return [];
  // References are blanked out first, so the names inside them are not counted.
  const plain = text.replace(BRACES, (whole) => ' '.repeat(whole.length));
  const pattern = new RegExp(
    `(?<![A-Za-z0-9_.:/-])((?:[a-z][a-z0-9-]*__)?)(${names.map(escapeName).join('|')})(?![A-Za-z0-9_-])`,
    'g',
  );
  const found: BareName[] = [];
  for (const match of plain.matchAll(pattern)) {
    const name = match[2]!;
    const start = match.index;
    const end = start + match[0].length;
    if (!/[_0-9]/.test(name) && match[1] === '') {
      const before = plain.slice(0, start);
      const after = plain.slice(end);
      const backticked = before.endsWith('`') && after.startsWith('`');
      if (!backticked && !CALL_WORDS.test(before) && !/^\s+tools?\b/i.test(after)) continue;
    }
    found.push({ name, start, end, prefix: match[1]! });
  }
  return found;
}

function bareNames(text: string, scope: ReferenceScope): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { name } of findBareNames(text, scope)) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

function escapeName(name: string): string {
  return name.replace(/[-]/g, '\\-');
}

/** SPEC038 and SPEC039 over every text of one spec file. */
export function lintReferences(
  source: SpecSource,
  systemTools: ReadonlyMap<string, ReadonlySet<string>>,
): Diagnostic[] {
  if (!isObject(source.data)) return [];
  const scope = referenceScope(source.data, systemTools);
  const out: Diagnostic[] = [];
  for (const site of textSites(source.data)) {
    const at = locate(source, site.path);
    for (const match of site.text.matchAll(BRACES)) {
      const problem = checkReference(match[1]!.trim() === match[1] ? match[1]! : match[1]!.trim(), site, scope);
      if (problem) out.push(diagnostic('SPEC038', source.file, at, problem));
    }
    for (const [name, count] of bareNames(site.text, scope)) {
      out.push(
        diagnostic(
          'SPEC039',
          source.file,
          at,
          `${site.what} names the tool \`${name}\`${count > 1 ? ` (${count} times)` : ''} without a ` +
            `reference: write \`{{tool:${name}}}\` instead (served as ${served(scope, name)})`,
        ),
      );
    }
  }
  return out;
}

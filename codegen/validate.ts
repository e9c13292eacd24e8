// Checks loaded specs against the format schema and the lints, collecting every problem.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { DIAGNOSTICS, diagnostic, type Diagnostic } from './diagnostics.ts';
import { locate, pointerToPath, type PathSegment, type SpecSource } from './load.ts';
import { closest } from './closest.ts';
import {
  lintConnect,
  lintConnectionTest,
  lintLimitKinds,
  lintOAuth,
  lintUpstreamAnswers,
} from './validate-connector.ts';
import { checkValue, isObject, RefError, resolveRefs, walkSchema, type JsonSchema } from './schema.ts';

const FORMAT_SCHEMA_URL = new URL('../specs/spec-format.schema.json', import.meta.url);
export const CONNECTOR_ID_PATTERN = /^[a-z][a-z0-9-]*[a-z0-9]$/;
export const MAX_TOOL_NAME = 64;
export const MAX_INSTANCE_SUFFIX = '-99';

let formatValidator: ReturnType<Ajv['compile']> | undefined;
function formatSchemaValidator(): ReturnType<Ajv['compile']> {
  if (!formatValidator) {
    const schema = JSON.parse(readFileSync(FORMAT_SCHEMA_URL, 'utf8')) as JsonSchema;
    const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
    formatValidator = ajv.compile(schema);
  }
  return formatValidator;
}

function describePath(path: readonly PathSegment[], source: SpecSource): string {
  // Name tools by their name rather than their index, which is what authors search for.
  const parts: string[] = [];
  let node: unknown = source.data;
  for (const seg of path) {
    node = isObject(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[seg] : undefined;
    if (typeof seg === 'number' && isObject(node) && typeof node.name === 'string') parts.push(`[${node.name}]`);
    else parts.push(typeof seg === 'number' ? `[${seg}]` : parts.length ? `.${seg}` : seg);
  }
  return parts.join('') || '(root)';
}

/** Format-schema errors mapped to positions; the noise of `if` wrappers is dropped. */
export function checkFormat(source: SpecSource): Diagnostic[] {
  const validate = formatSchemaValidator();
  if (validate(source.data)) return [];
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const error of (validate.errors ?? []) as ErrorObject[]) {
    if (error.keyword === 'if') continue;
    const path = pointerToPath(error.instancePath);
    const where = describePath(path, source);
    let d: Diagnostic;
    if (error.keyword === 'additionalProperties') {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      const guess = closest(key, allowed);
      d = diagnostic(
        'SPEC003',
        source.file,
        locate(source, [...path, key], true),
        `unknown key \`${key}\` in ${where}`,
        guess ? `did you mean \`${guess}\`? ${DIAGNOSTICS.SPEC003.hint}` : undefined,
      );
    } else if (error.keyword === 'false schema') {
      d = diagnostic('SPEC003', source.file, locate(source, path, true), `\`${where}\` is not allowed in this file`);
    } else if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      const isTool =
        /^(tools|platform\.systemTools)\[/.test(where) && !where.includes('.input') && !where.includes('.output');
      const code = isTool && (missing === 'title' || missing === 'description') ? 'SPEC023' : 'SPEC004';
      d = diagnostic(code, source.file, locate(source, path), `${where} is missing \`${missing}\``);
    } else {
      const values =
        error.keyword === 'enum' ? (error.params as { allowedValues: unknown[] }).allowedValues : undefined;
      const allowed = values ? ` (allowed: ${values.map((v) => JSON.stringify(v)).join(', ')})` : '';
      d = diagnostic(
        'SPEC002',
        source.file,
        locate(source, path),
        `${where} ${error.message ?? 'is invalid'}${allowed}`,
      );
    }
    const dedupe = `${d.code}|${d.position.line}|${d.position.col}|${d.message}`;
    if (!seen.has(dedupe)) {
      seen.add(dedupe);
      out.push(d);
    }
  }
  return out;
}

interface RawTool {
  name?: unknown;
  title?: unknown;
  description?: unknown;
  write?: unknown;
  annotations?: unknown;
  input?: unknown;
  output?: unknown;
  errors?: unknown;
}

/**
 * Lints over one file; `platformErrors` are the codes specs/platform.yaml defines, `platformLimitKinds` the limit names
 * it gives a kind.
 */
export function lintSpec(
  source: SpecSource,
  platformErrors: ReadonlySet<string>,
  platformLimitKinds: ReadonlySet<string> = new Set(),
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const data = isObject(source.data) ? source.data : {};
  const definitions = isObject(data.definitions) ? data.definitions : {};
  const file = source.file;
  const at = (path: PathSegment[], key = false) => locate(source, path, key);

  const connector = isObject(data.connector) ? data.connector : undefined;
  const connectorErrors = new Set(isObject(connector?.errors) ? Object.keys(connector.errors) : []);
  const id = typeof connector?.id === 'string' ? connector.id : undefined;
  // Only these connectors publish output schemas in tools/list (system tools never do).
  const publishesOutput = connector?.structuredContent === true;
  if (connector && id !== undefined && (!CONNECTOR_ID_PATTERN.test(id) || id.includes('__'))) {
    out.push(
      diagnostic(
        'SPEC012',
        file,
        at(['connector', 'id']),
        `connector id \`${id}\` must match ${CONNECTOR_ID_PATTERN.source} and must not contain \`__\``,
      ),
    );
  }

  const toolLists: Array<{ tools: unknown[]; base: PathSegment[] }> = [];
  if (Array.isArray(data.tools)) toolLists.push({ tools: data.tools, base: ['tools'] });
  const platform = isObject(data.platform) ? data.platform : undefined;
  if (platform && Array.isArray(platform.systemTools))
    toolLists.push({ tools: platform.systemTools, base: ['platform', 'systemTools'] });

  const usedErrors = new Set<string>();
  const lint: ToolLint = {
    source,
    at,
    out,
    definitions,
    publishesOutput,
    connectorErrors,
    platformErrors,
    usedErrors,
  };
  for (const { tools, base } of toolLists) {
    const names = new Map<string, number>();
    tools.forEach((rawTool, index) => {
      if (!isObject(rawTool)) return;
      const tool = rawTool as RawTool;
      const path = [...base, index];
      const name = typeof tool.name === 'string' ? tool.name : undefined;
      if (name !== undefined) {
        const first = names.get(name);
        if (first !== undefined) {
          out.push(
            diagnostic(
              'SPEC010',
              file,
              at([...path, 'name']),
              `tool \`${name}\` is declared twice (first at line ${at([...base, first, 'name']).line})`,
            ),
          );
        } else names.set(name, index);
        const full = `${id ?? 'x'}${MAX_INSTANCE_SUFFIX}__${name}`;
        if (connector && (full.length > MAX_TOOL_NAME || !/^[A-Za-z0-9_-]+$/.test(name))) {
          out.push(
            diagnostic(
              'SPEC011',
              file,
              at([...path, 'name']),
              `served name \`${full}\` is ${full.length} ` +
                `characters${/^[A-Za-z0-9_-]+$/.test(name) ? '' : ' and has characters outside [A-Za-z0-9_-]'}; ` +
                `the limit is ${MAX_TOOL_NAME} of [A-Za-z0-9_-]`,
            ),
          );
        }
      }
      lintTool(lint, tool, path, name);
    });
  }
  for (const [name, def] of Object.entries(definitions))
    lintSchema(source, def, ['definitions', name], definitions, out, false);

  // The text the connect form shows for a refused credential is in use, though no tool lists it.
  if (connector && isObject(connector.connect) && typeof connector.connect.rejected === 'string')
    usedErrors.add(connector.connect.rejected);
  if (connector && isObject(connector.errors)) {
    for (const code of Object.keys(connector.errors)) {
      if (!usedErrors.has(code))
        out.push(
          diagnostic(
            'SPEC030',
            file,
            at(['connector', 'errors', code], true),
            `error \`${code}\` is defined but no tool lists it`,
          ),
        );
    }
    out.push(...lintUpstreamAnswers(source, connector.errors));
  }
  if (connector)
    out.push(
      ...lintOAuth(source, connector),
      ...lintConnect(source, connector, Array.isArray(data.tools) ? data.tools : []),
      ...lintConnectionTest(source, connector, Array.isArray(data.tools) ? data.tools : []),
    );
  out.push(...lintLimitKinds(source, connector ?? platform, toolLists, platformLimitKinds));
  return out;
}

/** What the lints of one tool read of its file, and where they write. */
interface ToolLint {
  readonly source: SpecSource;
  readonly at: (path: PathSegment[], key?: boolean) => ReturnType<typeof locate>;
  readonly out: Diagnostic[];
  readonly definitions: Record<string, unknown>;
  readonly publishesOutput: boolean;
  readonly connectorErrors: ReadonlySet<string>;
  readonly platformErrors: ReadonlySet<string>;
  /** Error codes some tool lists (SPEC030 reports the others). */
  readonly usedErrors: Set<string>;
}

/** Titles, roots, `confirm` of a write, readOnlyHint, listed error codes and both schemas of one tool. */
function lintTool(l: ToolLint, tool: RawTool, path: PathSegment[], name: string | undefined): void {
  for (const field of ['title', 'description'] as const) {
    if (typeof tool[field] === 'string' && (tool[field] as string).trim() === '') {
      l.out.push(
        diagnostic('SPEC023', l.source.file, l.at([...path, field]), `tool \`${name}\` has an empty ${field}`),
      );
    }
  }
  const { input, diagnostics } = lintRoots(l.source, tool, path, name, l.definitions, l.publishesOutput);
  l.out.push(...diagnostics);
  const write = tool.write === true;
  if (write) {
    const confirm = isObject(input) && isObject(input.properties) ? input.properties.confirm : undefined;
    const required = isObject(input) && Array.isArray(input.required) ? input.required : [];
    if (!isObject(confirm) || confirm.type !== 'boolean' || required.includes('confirm')) {
      l.out.push(
        diagnostic(
          'SPEC024',
          l.source.file,
          l.at([...path, 'input']),
          `write tool \`${name}\` has no optional boolean \`confirm\` argument`,
        ),
      );
    }
  }
  if (isObject(tool.annotations)) {
    const ro = tool.annotations.readOnlyHint;
    if ((write && ro === true) || (!write && ro === false)) {
      l.out.push(
        diagnostic(
          'SPEC029',
          l.source.file,
          l.at([...path, 'annotations', 'readOnlyHint']),
          `${write ? 'write' : 'read'} tool \`${name}\` sets readOnlyHint: ${String(ro)}`,
        ),
      );
    }
  }
  if (Array.isArray(tool.errors)) {
    tool.errors.forEach((code, i) => {
      if (typeof code !== 'string') return;
      l.usedErrors.add(code);
      if (!l.connectorErrors.has(code) && !l.platformErrors.has(code)) {
        const guess = closest(code, [...l.connectorErrors, ...l.platformErrors]);
        l.out.push(
          diagnostic(
            'SPEC025',
            l.source.file,
            l.at([...path, 'errors', i]),
            `tool \`${name}\` lists error code \`${code}\`, which no spec defines`,
            guess ? `did you mean \`${guess}\`? ${DIAGNOSTICS.SPEC025.hint}` : undefined,
          ),
        );
      }
    });
  }
  lintSchema(l.source, tool.input, [...path, 'input'], l.definitions, l.out, true);
  lintSchema(l.source, tool.output, [...path, 'output'], l.definitions, l.out, false);
}

/**
 * The input and output roots of one tool are objects (SPEC020, SPEC032); returns the input, its $refs
 * resolved, for the checks that follow.
 */
function lintRoots(
  source: SpecSource,
  tool: RawTool,
  path: PathSegment[],
  name: string | undefined,
  definitions: Record<string, unknown>,
  publishesOutput: boolean,
): { input: unknown; diagnostics: Diagnostic[] } {
  const out: Diagnostic[] = [];
  const file = source.file;
  const at = (p: PathSegment[]) => locate(source, p, false);
  // Input root must be an object.
  let input: unknown;
  try {
    input = resolveRefs(tool.input, definitions);
  } catch {
    input = undefined; // reported by the $ref walk below
  }
  if (isObject(input) && input.type !== 'object') {
    out.push(
      diagnostic(
        'SPEC020',
        file,
        at([...path, 'input']),
        `input of \`${name}\` has type ${JSON.stringify(input.type ?? 'unset')}; tool arguments must be \`type: ` +
          `object\``,
      ),
    );
  }
  // Output root must be an object too: MCP clients refuse a tools/list whose outputSchema root
  // is not `type: "object"`. Checked on every connector, published or not; the one exception is
  // a result the product spec allows to be null, on a connector that never publishes schemas.
  let output: unknown;
  try {
    output = resolveRefs(tool.output, definitions);
  } catch {
    output = undefined; // reported by the $ref walk below
  }
  if (isObject(output) && output.type !== 'object' && !(isNullableObject(output) && !publishesOutput)) {
    const why = isNullableObject(output) ? ' (a result that may be null cannot be structuredContent)' : '';
    out.push(
      diagnostic(
        'SPEC032',
        file,
        at([...path, 'output']),
        `output of \`${name}\` has type ${JSON.stringify(output.type ?? 'unset')}; an outputSchema must be ` +
          `\`type: object\` at its root${why}`,
      ),
    );
  }
  return { input, diagnostics: out };
}

/** An object-or-null root: `type: [object, null]`, or anyOf/oneOf of object branches and `type: null`. */
function isNullableObject(schema: Record<string, unknown>): boolean {
  if (Array.isArray(schema.type))
    return schema.type.length === 2 && schema.type.includes('object') && schema.type.includes('null');
  if (schema.type !== undefined) return false;
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (!branches?.every(isObject)) return false;
  const types = (branches as Record<string, unknown>[]).map((b) => b.type);
  return types.includes('null') && types.every((t) => t === 'null' || t === 'object');
}

function lintSchema(
  source: SpecSource,
  schema: unknown,
  base: PathSegment[],
  definitions: Record<string, unknown>,
  out: Diagnostic[],
  isInput: boolean,
): void {
  const file = source.file;
  walkSchema(schema, base, (node, path) => {
    let resolved: JsonSchema = node;
    if (typeof node.$ref === 'string') {
      try {
        resolved = resolveRefs(node, definitions) as JsonSchema;
      } catch (error) {
        if (error instanceof RefError)
          out.push(diagnostic('SPEC026', file, locate(source, [...path, '$ref']), error.message));
        return;
      }
    }
    if ('default' in node) {
      const why = checkValue(node.default, resolved);
      if (why)
        out.push(
          diagnostic(
            'SPEC021',
            file,
            locate(source, [...path, 'default']),
            `default ${JSON.stringify(node.default)} ${why}`,
          ),
        );
    }
    if (Array.isArray(resolved.required)) {
      // A `$ref` with a sibling `required` may name properties of the referenced definition.
      const props = isObject(resolved.properties) ? resolved.properties : {};
      resolved.required.forEach((name, i) => {
        if (typeof name !== 'string') return;
        const prop = props[name];
        if (prop === undefined) {
          out.push(
            diagnostic(
              'SPEC027',
              file,
              locate(source, [...path, 'required', i]),
              `\`${name}\` is required but not declared under properties`,
            ),
          );
          return;
        }
        if (!isInput) return;
        let resolvedProp: unknown = prop;
        try {
          resolvedProp = resolveRefs(prop, definitions);
        } catch {
          return;
        }
        if (isObject(resolvedProp) && 'default' in resolvedProp) {
          out.push(
            diagnostic(
              'SPEC022',
              file,
              locate(source, [...path, 'properties', name]),
              `required argument \`${name}\` has a default (${JSON.stringify(resolvedProp.default)})`,
            ),
          );
        }
      });
    }
  });
}

export function lintConnectorIds(sources: readonly SpecSource[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, SpecSource>();
  for (const source of sources) {
    const connector = isObject(source.data) && isObject(source.data.connector) ? source.data.connector : undefined;
    if (typeof connector?.id !== 'string') continue;
    const first = seen.get(connector.id);
    if (first)
      out.push(
        diagnostic(
          'SPEC013',
          source.file,
          locate(source, ['connector', 'id']),
          `connector id \`${connector.id}\` is already used by ${first.file}`,
        ),
      );
    else seen.set(connector.id, source);
  }
  return out;
}

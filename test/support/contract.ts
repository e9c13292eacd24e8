// The contract suite's machinery (test/contract.test.ts): argument probes derived from the generated
// input schemas, base arguments, tools/list checks, a request-counting upstream in front of every
// connector, one shared gateway with a tenant entitled to and connected on every connector, and the
// scan that finds which declared error codes some other test exercises. Nothing here names a
// connector or a tool: everything is read from the generated descriptors.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { registry, type ConnectorKey } from '../../generated/registry.ts';
import { platformDescriptor } from '../../generated/platform/descriptor.ts';
import { checkArguments } from '../../runtime/pipeline/arguments.ts';
import { renderToolReferences } from '../../runtime/gateway-context.ts';
import { META_DEPRECATED } from '../../runtime/mcp/tools-list.ts';
import type {
  CompiledValidator,
  ConnectorDescriptor,
  ConnectorRegistry,
  CredentialKind,
  ToolDescriptor,
} from '../../runtime/handler-api/descriptor-types.ts';

const modules: ConnectorRegistry = registry;
import { openStore } from '../../runtime/store/open-store.ts';
import type { PlatformStore } from '../../runtime/store/store.ts';
import { sandboxEnv, sandboxTenantCredentials } from '../../bin/demo.ts';
import { startSandboxes, type SandboxSet } from '../../sandbox/index.ts';
import {
  createTenant,
  mcpClient,
  startGateway,
  testConfig,
  usageOf,
  type StartedGateway,
  type Tenant,
} from './gateway.ts';

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

/** The JSON Schema subset of docs/spec-format.md, as the probes read it. */
export interface ArgSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, ArgSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | ArgSchema;
  readonly items?: ArgSchema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly description?: string;
  readonly title?: string;
}

/** Keywords the probe generator understands; any other keyword in an input schema fails the suite. */
export const PROBED_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'format',
  'description',
  'title',
  // The annotation on a deprecated argument (docs/spec-format.md, 'Deprecation'): nothing to probe.
  'deprecated',
]);

export const inputSchemaOf = (tool: ToolDescriptor): ArgSchema => tool.inputSchema as ArgSchema;

/** `path: keyword` for every keyword of the schema the probe generator does not understand. */
export function unsupportedKeywords(schema: ArgSchema, path = '(arguments)'): string[] {
  const out: string[] = [];
  for (const key of Object.keys(schema)) if (!PROBED_KEYWORDS.has(key)) out.push(`${path}: ${key}`);
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    out.push(...unsupportedKeywords(child, `${path}.${name}`));
  if (schema.items) out.push(...unsupportedKeywords(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object')
    out.push(...unsupportedKeywords(schema.additionalProperties, `${path}{*}`));
  return out;
}

const typesOf = (schema: ArgSchema): readonly string[] =>
  schema.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : schema.type;

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeAccepts(types: readonly string[], value: unknown): boolean {
  const t = jsonTypeOf(value);
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

// ---------------------------------------------------------------------------------------------
// Valid values
// ---------------------------------------------------------------------------------------------

/** A valid sample per `format` (and a value of the right shape that is not valid). */
const FORMAT_SAMPLES: Readonly<Record<string, { readonly valid: string; readonly invalid: string }>> = {
  date: { valid: '2025-01-15', invalid: '2025-02-30' },
  'date-time': { valid: '2025-01-15T10:00:00Z', invalid: '2025-01-15T25:00:00Z' },
  email: { valid: 'contract@example.test', invalid: 'contract.example.test' },
  uri: { valid: 'https://example.test/contract', invalid: 'not a uri' },
  uuid: { valid: '123e4567-e89b-12d3-a456-426614174000', invalid: '123e4567-e89b-12d3-a456-42661417400g' },
};

function firstOfClass(body: string): string | undefined {
  if (body.startsWith('^') || body.length === 0) return undefined;
  if (body.startsWith('\\')) return body[1] === 'd' ? '0' : body[1] === 'w' ? 'a' : body[1];
  return body[0];
}

/**
 * The shortest string this pattern derivation can build for simple patterns (anchors, literals,
 * escapes, character classes, `{n}`, `{n,m}`, `+`, `*`, `?`), or undefined where it cannot
 * (groups, alternation, negated classes). Always checked against the pattern itself.
 */
export function stringMatching(pattern: string): string | undefined {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    let atom: string | undefined;
    if (ch === '^' && i === 0) {
      i++;
      continue;
    }
    if (ch === '$' && i === pattern.length - 1) {
      i++;
      continue;
    }
    if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return undefined;
      atom = firstOfClass(pattern.slice(i + 1, end));
      i = end + 1;
    } else if (ch === '\\') {
      const escaped = pattern[i + 1] ?? '';
      atom = escaped === 'd' ? '0' : escaped === 'w' ? 'a' : /^[A-Za-z0-9]$/.test(escaped) ? undefined : escaped;
      i += 2;
    } else if (ch === '.') {
      atom = 'a';
      i++;
    } else if ('()|*+?{}$^'.includes(ch)) {
      return undefined;
    } else {
      atom = ch;
      i++;
    }
    if (atom === undefined) return undefined;
    let count = 1;
    const quantifier = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i));
    if (quantifier) {
      count = Number(quantifier[1]);
      i += quantifier[0].length;
    } else if (pattern[i] === '+') i++;
    else if (pattern[i] === '*' || pattern[i] === '?') {
      count = 0;
      i++;
    }
    out += atom.repeat(count);
  }
  return new RegExp(pattern, 'u').test(out) ? out : undefined;
}

const numericStep = (types: readonly string[]): number => (types.includes('number') ? 0.01 : 1);
const round = (n: number): number => Math.round(n * 1e6) / 1e6;

function lowerBound(schema: ArgSchema, step: number): number | undefined {
  if (schema.minimum !== undefined) return schema.minimum;
  if (schema.exclusiveMinimum !== undefined)
    return round(step === 1 ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + step);
  return undefined;
}

function upperBound(schema: ArgSchema, step: number): number | undefined {
  if (schema.maximum !== undefined) return schema.maximum;
  if (schema.exclusiveMaximum !== undefined)
    return round(step === 1 ? Math.ceil(schema.exclusiveMaximum) - 1 : schema.exclusiveMaximum - step);
  return undefined;
}

/** Pads or cuts a string to `length`, keeping its start. */
const withLength = (value: string, length: number): string =>
  value.length >= length ? value.slice(0, length) : value + 'x'.repeat(length - value.length);

/** A value that satisfies the schema (derived, not hand-written); undefined where it cannot be derived. */
export function sampleValue(schema: ArgSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const types = typesOf(schema);
  const type = types[0] ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'integer':
    case 'number': {
      const step = numericStep(types);
      const lo = lowerBound(schema, step);
      const hi = upperBound(schema, step);
      return lo ?? (hi === undefined ? 1 : Math.min(1, hi));
    }
    case 'string': {
      let value: string | undefined;
      if (schema.format !== undefined) value = FORMAT_SAMPLES[schema.format]?.valid;
      else if (schema.pattern !== undefined) value = stringMatching(schema.pattern);
      else value = 'x';
      if (value === undefined) return undefined;
      if (schema.minLength !== undefined && value.length < schema.minLength)
        value = withLength(value, schema.minLength);
      if (schema.maxLength !== undefined && value.length > schema.maxLength)
        value = withLength(value, schema.maxLength);
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return undefined;
      return value;
    }
    case 'boolean':
      return false;
    case 'array': {
      const n = schema.minItems ?? 0;
      const item = schema.items ? sampleValue(schema.items) : 'x';
      if (n > 0 && item === undefined) return undefined;
      return Array.from({ length: n }, () => item);
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) {
        const child = schema.properties?.[name];
        const value = child ? sampleValue(child) : 'x';
        if (value === undefined) return undefined;
        out[name] = value;
      }
      return out;
    }
    case 'null':
      return null;
    default:
      return 'x';
  }
}

// ---------------------------------------------------------------------------------------------
// Base arguments
// ---------------------------------------------------------------------------------------------

/** `<connector>.<tool>.<argument>` → a base value, for required arguments the derivation cannot build. */
export type BaseValueOverrides = Readonly<Record<string, unknown>>;

export interface BaseArguments {
  readonly args: Record<string, unknown>;
  /** Required arguments that could not be derived (and have no override). */
  readonly underived: readonly string[];
}

export function baseArguments(key: string, tool: ToolDescriptor, overrides: BaseValueOverrides): BaseArguments {
  const schema = inputSchemaOf(tool);
  const args: Record<string, unknown> = {};
  const underived: string[] = [];
  for (const name of schema.required ?? []) {
    const override = `${key}.${tool.name}.${name}`;
    if (override in overrides) {
      args[name] = overrides[override];
      continue;
    }
    const child = schema.properties?.[name];
    const value = child ? sampleValue(child) : undefined;
    if (value === undefined) underived.push(name);
    else args[name] = value;
  }
  return { args, underived };
}

/**
 * Stale override entries: the argument is gone or no longer required, or the derivation now builds a
 * value the validator accepts without the override.
 */
export function staleOverrides(overrides: BaseValueOverrides): string[] {
  const stale: string[] = [];
  for (const entry of Object.keys(overrides)) {
    const [key, toolName, arg] = entry.split('.');
    const connector = (
      registry as Record<
        string,
        { descriptor: ConnectorDescriptor; validators: Readonly<Record<string, CompiledValidator>> }
      >
    )[key ?? ''];
    const tool = connector?.descriptor.tools.find((t) => t.name === toolName);
    const schema = tool ? inputSchemaOf(tool) : undefined;
    if (!tool || !arg || !schema?.required?.includes(arg)) {
      stale.push(`${entry}: no such required argument`);
      continue;
    }
    const derived = baseArguments(key!, tool, {});
    const validator = connector!.validators[`input_${tool.name}`];
    if (derived.underived.length === 0 && validator && checkArguments(tool, validator, derived.args).ok)
      stale.push(`${entry}: derivation works without it`);
  }
  return stale;
}

// ---------------------------------------------------------------------------------------------
// Probes
// ---------------------------------------------------------------------------------------------

export type ProbeSide = 'inside' | 'outside';

export interface Probe {
  readonly label: string;
  readonly side: ProbeSide;
  readonly args: Readonly<Record<string, unknown>>;
}

interface ValueProbe {
  readonly label: string;
  readonly side: ProbeSide;
  readonly value: unknown;
}

const UNKNOWN_ARGUMENT = 'contractUnknownArgument';
const WRONG_TYPE_CANDIDATES: readonly unknown[] = [true, 'contract', 7, ['contract'], { contract: true }];

/** Probes of one value position (an argument, a nested property or an array item). */
function valueProbes(schema: ArgSchema, present: unknown, path: string, coerce: boolean): ValueProbe[] {
  const out: ValueProbe[] = [];
  const add = (side: ProbeSide, what: string, value: unknown) => out.push({ label: `${path}: ${what}`, side, value });
  const types = typesOf(schema);
  if (types.length > 0) {
    const declared = types.join('|');
    const wrong = WRONG_TYPE_CANDIDATES.find((v) => !typeAccepts(types, v) && !(schema.enum ?? []).includes(v));
    if (wrong !== undefined) add('outside', `type ${declared}, sent ${jsonTypeOf(wrong)}`, wrong);
    // null is what assistants send for "no value"; it is not absent.
    if (!types.includes('null')) add('outside', `type ${declared}, sent null`, null);
    const numeric = types.includes('integer') || types.includes('number');
    // No coercion beyond `coerce: integer`: a number as a string is the wrong type.
    if (numeric && !types.includes('string') && !coerce)
      add(
        'outside',
        `type ${declared}, sent the number as a string`,
        String(typeof present === 'number' ? present : 1),
      );
    if (types.includes('string') && !numeric && wrong !== 7) add('outside', `type ${declared}, sent a number`, 7);
    if (types.includes('integer') && !types.includes('number'))
      add('outside', 'integer, sent a fraction', round((typeof present === 'number' ? present : 1) + 0.5));
  }
  if (types.includes('integer') || types.includes('number')) {
    const step = numericStep(types);
    const digits = coerce && types.includes('integer');
    if (schema.minimum !== undefined) {
      add('inside', `minimum ${schema.minimum}`, schema.minimum);
      add('outside', `minimum ${schema.minimum}, sent ${round(schema.minimum - step)}`, round(schema.minimum - step));
      if (digits) {
        add('inside', `minimum ${schema.minimum} as a digit string`, String(schema.minimum));
        if (schema.minimum - 1 >= 0)
          add(
            'outside',
            `minimum ${schema.minimum}, sent the digit string "${schema.minimum - 1}"`,
            String(schema.minimum - 1),
          );
      }
    }
    if (schema.maximum !== undefined) {
      add('inside', `maximum ${schema.maximum}`, schema.maximum);
      add('outside', `maximum ${schema.maximum}, sent ${round(schema.maximum + step)}`, round(schema.maximum + step));
      if (digits)
        add(
          'outside',
          `maximum ${schema.maximum}, sent the digit string "${schema.maximum + 1}"`,
          String(schema.maximum + 1),
        );
    }
    if (schema.exclusiveMinimum !== undefined) {
      add(
        'inside',
        `exclusiveMinimum ${schema.exclusiveMinimum}, sent ${round(schema.exclusiveMinimum + step)}`,
        round(schema.exclusiveMinimum + step),
      );
      add('outside', `exclusiveMinimum ${schema.exclusiveMinimum}, sent it`, schema.exclusiveMinimum);
    }
    if (schema.exclusiveMaximum !== undefined) {
      add(
        'inside',
        `exclusiveMaximum ${schema.exclusiveMaximum}, sent ${round(schema.exclusiveMaximum - step)}`,
        round(schema.exclusiveMaximum - step),
      );
      add('outside', `exclusiveMaximum ${schema.exclusiveMaximum}, sent it`, schema.exclusiveMaximum);
    }
  }
  if (types.includes('string')) {
    const text = typeof present === 'string' ? present : typeof present === 'number' ? String(present) : 'x';
    if (schema.minLength !== undefined) {
      add('inside', `minLength ${schema.minLength}`, withLength(text, schema.minLength));
      if (schema.minLength > 0)
        add(
          'outside',
          `minLength ${schema.minLength}, sent ${schema.minLength - 1} characters`,
          withLength(text, schema.minLength - 1),
        );
    }
    if (schema.maxLength !== undefined) {
      add('inside', `maxLength ${schema.maxLength}`, withLength(text, schema.maxLength));
      add(
        'outside',
        `maxLength ${schema.maxLength}, sent ${schema.maxLength + 1} characters`,
        withLength(text, schema.maxLength + 1),
      );
    }
    if (schema.pattern !== undefined || schema.format !== undefined) {
      // The value in place where it is a string that fits (a coerced digit string keeps its numeric bounds), else a
      // derived one.
      const fits =
        typeof present === 'string' || coerce
          ? (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(text)) &&
            (schema.format === undefined || text === FORMAT_SAMPLES[schema.format]?.valid)
          : false;
      const sample = fits ? text : sampleValue({ ...schema, type: 'string' });
      const rule = schema.format === undefined ? `pattern ${schema.pattern}` : `format ${schema.format}`;
      if (typeof sample === 'string') add('inside', `${rule}, sent ${JSON.stringify(sample)}`, sample);
    }
    if (schema.pattern !== undefined) {
      const re = new RegExp(schema.pattern, 'u');
      const fits = (s: string) =>
        !re.test(s) &&
        (schema.minLength === undefined || s.length >= schema.minLength) &&
        (schema.maxLength === undefined || s.length <= schema.maxLength);
      const candidate = [`!${text.slice(1)}`, `${text}!`, '!', ''].find(fits);
      if (candidate !== undefined)
        add('outside', `pattern ${schema.pattern}, sent ${JSON.stringify(candidate)}`, candidate);
      // Surrounding whitespace is the classic sloppy input; where the pattern refuses it, so must the gateway.
      const padded = `${text} `;
      if (fits(padded) && padded !== candidate)
        add('outside', `pattern ${schema.pattern}, sent ${JSON.stringify(padded)}`, padded);
    }
    if (schema.format !== undefined) {
      const sample = FORMAT_SAMPLES[schema.format];
      if (sample) add('outside', `format ${schema.format}, sent ${JSON.stringify(sample.invalid)}`, sample.invalid);
    }
  }
  if (schema.enum) {
    for (const value of schema.enum) add('inside', `enum value ${JSON.stringify(value)}`, value);
    const first = schema.enum[0];
    const outside = typeof first === 'string' ? `${first}Contract` : 'contract-not-in-enum';
    if (!schema.enum.includes(outside)) add('outside', `enum, sent ${JSON.stringify(outside)}`, outside);
  }
  if (schema.const !== undefined)
    add(
      'outside',
      'const, sent another value',
      typeof schema.const === 'string' ? `${schema.const}Contract` : 'contract-not-const',
    );
  if (types.includes('array')) {
    const itemSchema = schema.items ?? {};
    const item = schema.items ? sampleValue(schema.items) : 'x';
    const existing = Array.isArray(present) ? present : [];
    const ofLength = (n: number): unknown[] =>
      Array.from({ length: n }, (_, i) => (i < existing.length ? existing[i] : item));
    if (item !== undefined) {
      if (schema.minItems !== undefined) {
        add('inside', `minItems ${schema.minItems}`, ofLength(schema.minItems));
        if (schema.minItems > 0)
          add(
            'outside',
            `minItems ${schema.minItems}, sent ${schema.minItems - 1} items`,
            ofLength(schema.minItems - 1),
          );
      }
      if (schema.maxItems !== undefined) {
        add('inside', `maxItems ${schema.maxItems}`, ofLength(schema.maxItems));
        add('outside', `maxItems ${schema.maxItems}, sent ${schema.maxItems + 1} items`, ofLength(schema.maxItems + 1));
      }
      // The first item's own bounds, in an array that is otherwise valid.
      const holder = ofLength(Math.max(schema.minItems ?? 0, 1));
      if (schema.maxItems === undefined || holder.length <= schema.maxItems) {
        for (const p of valueProbes(itemSchema, holder[0], `${path}[0]`, false))
          out.push({ label: p.label, side: p.side, value: [p.value, ...holder.slice(1)] });
      }
    }
  }
  if (types.includes('object') || (types.length === 0 && schema.properties)) {
    const base =
      present && typeof present === 'object' && !Array.isArray(present) ? (present as Record<string, unknown>) : {};
    for (const p of objectProbes(schema, base, `${path}.`)) out.push({ label: p.label, side: p.side, value: p.args });
  }
  return out;
}

/** Probes of an object's properties: their bounds, each required one omitted, an unknown one added. */
function objectProbes(
  schema: ArgSchema,
  base: Readonly<Record<string, unknown>>,
  prefix: string,
  coerce: readonly string[] = [],
): Probe[] {
  const out: Probe[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const present = name in base ? base[name] : sampleValue(child);
    for (const p of valueProbes(child, present, `${prefix}${name}`, coerce.includes(name)))
      out.push({ label: p.label, side: p.side, args: { ...base, [name]: p.value } });
  }
  for (const name of schema.required ?? []) {
    const { [name]: _omitted, ...rest } = base;
    out.push({ label: `${prefix}${name}: required, omitted`, side: 'outside', args: rest });
  }
  if (schema.additionalProperties === false)
    out.push({
      label: `${prefix}${UNKNOWN_ARGUMENT}: additionalProperties false`,
      side: 'outside',
      args: { ...base, [UNKNOWN_ARGUMENT]: 'x' },
    });
  return out;
}

/** Every probe of a tool: the base arguments (inside), then every argument's bounds from both sides. */
export function toolProbes(tool: ToolDescriptor, base: Readonly<Record<string, unknown>>): Probe[] {
  const probes = [
    { label: 'base arguments', side: 'inside' as const, args: base },
    ...objectProbes(inputSchemaOf(tool), base, '', tool.coerce),
  ];
  const seen = new Set<string>();
  return probes.filter((p) => {
    const id = `${p.side}|${JSON.stringify(p.args)}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Probes whose side the generated validator does not share (a probe-generator or validator bug). */
export function probeDisagreements(
  tool: ToolDescriptor,
  validator: CompiledValidator | undefined,
  probes: readonly Probe[],
): string[] {
  if (!validator) return [`no validator input_${tool.name}`];
  return probes
    .filter((p) => checkArguments(tool, validator, p.args).ok !== (p.side === 'inside'))
    .map((p) => `${p.label} (${p.side})`);
}

// ---------------------------------------------------------------------------------------------
// Successful results against the output schema
// ---------------------------------------------------------------------------------------------

/**
 * What is wrong with a successful result of `tool`, checked against its generated `output_<tool>`
 * validator, or undefined (also for a failure, which has no output schema). A connector with
 * `structuredContent` answers the result as `structuredContent` and as its JSON text, which must
 * agree; the others answer the JSON text only, which is checked in its place.
 */
export function outputProblem(
  descriptor: ConnectorDescriptor,
  validators: Readonly<Record<string, CompiledValidator>>,
  tool: ToolDescriptor,
  result: unknown,
): string | undefined {
  const { isError, content, structuredContent } = (result ?? {}) as {
    isError?: unknown;
    content?: unknown;
    structuredContent?: unknown;
  };
  if (isError === true) return undefined;
  const validate = validators[`output_${tool.name}`];
  if (!validate) return `no validator output_${tool.name}`;
  const [block] = Array.isArray(content) ? (content as Array<{ type?: unknown; text?: unknown }>) : [];
  if (!Array.isArray(content) || content.length !== 1 || block?.type !== 'text' || typeof block.text !== 'string')
    return 'a successful result is not exactly one text block';
  let parsed: unknown;
  try {
    parsed = JSON.parse(block.text);
  } catch {
    return `the text is not JSON: ${block.text.slice(0, 120)}`;
  }
  if (descriptor.structuredContent && parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    if (structuredContent === undefined) return 'structuredContent missing';
    if (JSON.stringify(structuredContent) !== JSON.stringify(parsed))
      return 'structuredContent differs from the JSON text';
  } else if (structuredContent !== undefined)
    return 'structuredContent answered although the connector publishes no output schema';
  // The validators fill in defaults (AJV_OPTIONS.useDefaults; no output schema declares one yet): check a copy.
  const value = structuredContent ?? parsed;
  if (validate(structuredClone(value))) return undefined;
  const errors = (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
  );
  return `output_${tool.name}: ${errors.join('; ')}`;
}

// ---------------------------------------------------------------------------------------------
// tools/list
// ---------------------------------------------------------------------------------------------

export interface ListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: { readonly type?: unknown };
  readonly outputSchema?: { readonly type?: unknown };
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** An input schema without the descriptions of its deprecated arguments (listed, they start with a notice). */
export function withoutDeprecatedDescriptions(schema: unknown, deprecated: Readonly<Record<string, unknown>> = {}) {
  const s = schema as { properties?: Record<string, Record<string, unknown>> } | undefined;
  if (!s?.properties) return schema;
  const properties = Object.fromEntries(
    Object.entries(s.properties).map(([name, p]) => {
      if (!(name in deprecated)) return [name, p];
      const { description: _, ...rest } = p;
      return [name, rest];
    }),
  );
  return { ...s, properties };
}

/** The tools an instance must list: every descriptor tool, namespaced, plus connect_account where declared. */
export function expectedTools(
  descriptor: ConnectorDescriptor,
  instanceId: string,
): Array<{ readonly served: string; readonly tool: ToolDescriptor; readonly publishOutput: boolean }> {
  const out = descriptor.tools.map((tool) => ({
    served: `${instanceId}__${tool.name}`,
    tool,
    publishOutput: descriptor.structuredContent,
  }));
  if (descriptor.connectAccount) {
    const connect = platformDescriptor.systemTools.find((t) => t.name === 'connect_account');
    if (connect) out.push({ served: connect.name, tool: connect, publishOutput: false });
  }
  return out;
}

/** Everything wrong with a tools/list result, as `<served name>: <problem>` lines. */
export function listingProblems(
  descriptor: ConnectorDescriptor,
  instanceId: string,
  listed: readonly ListedTool[],
): string[] {
  const problems: string[] = [];
  const expected = expectedTools(descriptor, instanceId);
  const byName = new Map(listed.map((t) => [t.name, t]));
  const expectedNames = new Set(expected.map((e) => e.served));
  for (const t of listed) if (!expectedNames.has(t.name)) problems.push(`${t.name}: listed but not in the descriptor`);
  if (listed.length !== byName.size) problems.push('(list): duplicate tool names');
  for (const { served, tool, publishOutput } of expected) {
    const got = byName.get(served);
    if (!got) {
      problems.push(`${served}: missing`);
      continue;
    }
    // Texts name sibling tools as this instance serves them (`{{tool:x}}` → `<instance>__x`).
    const title = renderToolReferences(tool.title, instanceId);
    if (!got.title || got.title !== title)
      problems.push(`${served}: title ${JSON.stringify(got.title)} is not the descriptor's`);
    // A deprecated tool's description is the notice, a blank line, then the descriptor's
    // (docs/decisions/mcp-surface.md, 'Deprecations in tools/list').
    const description = renderToolReferences(tool.description, instanceId);
    const described = tool.deprecated
      ? got.description?.startsWith('Deprecated: ') && got.description.endsWith(`\n\n${description}`)
      : got.description === description;
    if (!described) problems.push(`${served}: description is missing or not the descriptor's`);
    if (Boolean(tool.deprecated) !== Boolean(got._meta?.[META_DEPRECATED]))
      problems.push(`${served}: _meta ${META_DEPRECATED} does not match the descriptor's deprecation`);
    if (JSON.stringify(got).includes('{{')) problems.push(`${served}: a tool reference is served unrendered`);
    const { title: annotationTitle, ...annotations } = got.annotations ?? {};
    if (JSON.stringify(sortKeys(annotations)) !== JSON.stringify(sortKeys(tool.annotations)))
      problems.push(
        `${served}: annotations ${JSON.stringify(annotations)} are not ` +
          `the descriptor's ${JSON.stringify(tool.annotations)}`,
      );
    if (annotationTitle !== undefined && annotationTitle !== title)
      problems.push(`${served}: annotations.title is not the tool title`);
    if (got.inputSchema?.type !== 'object') problems.push(`${served}: inputSchema root is not type object`);
    if (publishOutput && tool.outputSchema) {
      if (!got.outputSchema) problems.push(`${served}: outputSchema missing`);
      else if (got.outputSchema.type !== 'object') problems.push(`${served}: outputSchema root is not type object`);
    } else if (got.outputSchema)
      problems.push(`${served}: outputSchema published although the descriptor does not publish one`);
  }
  return problems;
}

function sortKeys(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}

// ---------------------------------------------------------------------------------------------
// Counting upstreams
// ---------------------------------------------------------------------------------------------

/** A reverse proxy in front of one connector's upstream that counts requests (or, without a target, answers 503). */
export interface CountingUpstream {
  /** The base URL the gateway is configured with. */
  readonly baseUrl: string;
  readonly requests: () => number;
  close(): Promise<void>;
}

async function startCountingUpstream(target: URL | undefined): Promise<CountingUpstream> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    if (!target) {
      req.resume();
      res.writeHead(503, { 'content-type': 'text/plain' }).end('contract suite: this connector has no sandbox');
      return;
    }
    const headers = { ...req.headers, host: target.host };
    const upstream = httpRequest(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target ? target.pathname.replace(/\/+$/, '') : ''}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The shared environment
// ---------------------------------------------------------------------------------------------

/** Credentials no sandbox accepts (stored on another instance to drive the upstream's refusal); never a real secret. */
export const REJECTED_CREDENTIALS: Readonly<Record<CredentialKind, Record<string, string>>> = {
  api_key: { apiKey: 'contract-rejected-key-9Qx4' },
  static_token: { token: 'contract-rejected-token-9Qx4' },
  login_company: { username: 'contract', password: 'contract-Rejected-9Qx4', companyId: '1' },
  oauth2: { accessToken: 'contract-rejected-access-token-9Qx4' },
  managed_basic: {},
};

/**
 * Credentials stored for connectors whose sandbox has none: they are never used (no handler runs), but make the
 * connection check pass.
 */
const PLACEHOLDER_CREDENTIALS: Readonly<Record<CredentialKind, Record<string, string>>> = {
  api_key: { apiKey: 'contract-placeholder-key' },
  static_token: { token: 'contract-placeholder-token' },
  login_company: { username: 'contract', password: 'contract-Placeholder-7', companyId: '1' },
  oauth2: { accessToken: 'contract-placeholder-access-token' },
  managed_basic: {},
};

/**
 * Every failure result (`isError: true`) the suite's clients received, and a line for each that was
 * not exactly one content block of type text (spec 000, "Platform records": a tool failure is a
 * normal result with `isError: true` and exactly one text block).
 */
export interface FailureShapes {
  seen: number;
  readonly malformed: string[];
}

/** What is wrong with a failure result's shape, or undefined (also for a result that is not a failure). */
export function failureShapeProblem(result: unknown): string | undefined {
  const { isError, content } = (result ?? {}) as { isError?: unknown; content?: unknown };
  if (isError !== true) return undefined;
  if (!Array.isArray(content)) return 'no content array';
  if (content.length !== 1)
    return `${content.length} content blocks (${content.map((b: { type?: unknown }) => String(b?.type)).join(', ')})`;
  const [block] = content as Array<{ type?: unknown; text?: unknown }>;
  if (block!.type !== 'text' || typeof block!.text !== 'string') return `one block of type ${String(block!.type)}`;
  return undefined;
}

/** The client with its callTool checking every failure it returns into `shapes`. */
function watchFailures(client: Client, instanceId: string, shapes: FailureShapes): Client {
  const callTool = client.callTool.bind(client);
  client.callTool = async (...args: Parameters<Client['callTool']>) => {
    const result = await callTool(...args);
    if (result.isError === true) shapes.seen++;
    const problem = failureShapeProblem(result);
    if (problem) shapes.malformed.push(`${instanceId} ${args[0].name}: ${problem}`);
    return result;
  };
  return client;
}

export interface ContractEnvironment {
  readonly gateway: StartedGateway;
  readonly tenant: Tenant;
  readonly instanceIds: Readonly<Record<string, string>>;
  readonly upstreams: Readonly<Record<string, CountingUpstream>>;
  /** One SDK client per instance and caller (the suite's tenant unless `token` names another; created on first use). */
  client(instanceId: string, token?: string): Promise<Client>;
  /** The failure results every client of `client()` received, checked for their shape. */
  readonly failures: FailureShapes;
  /** Units metered so far: the account total, and one tool of one connector id. */
  metered(connectorId: string, tool: string): Promise<{ total: number; tool: number }>;
  /** Every tools/call and tools/list the suite made, and the usage reads. */
  readonly counts: { calls: number; lists: number; usageReads: number };
  close(): Promise<void>;
}

export async function startContractEnvironment(): Promise<ContractEnvironment> {
  const sandboxes: SandboxSet = await startSandboxes();
  let store: PlatformStore | undefined;
  let gateway: StartedGateway | undefined;
  const upstreams: Record<string, CountingUpstream> = {};
  const clients = new Map<string, Promise<Client>>();
  const close = async () => {
    for (const c of clients.values()) await (await c).close().catch(() => {});
    await gateway?.close();
    await Promise.all(Object.values(upstreams).map((u) => u.close()));
    await sandboxes.close();
    await store?.close();
  };
  try {
    store = await openStore({});
    const base = testConfig({ ...sandboxEnv(sandboxes), RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' });
    const keys = Object.keys(registry) as ConnectorKey[];
    const connectors = [];
    for (const c of base.connectors) {
      const spec = modules[c.key]!.descriptor.upstream.baseUrl;
      // The sandbox where the environment configures one; otherwise nothing real is ever reached.
      const upstream = await startCountingUpstream(c.baseUrl !== spec ? new URL(c.baseUrl) : undefined);
      upstreams[c.key] = upstream;
      connectors.push({ ...c, enabled: true, baseUrl: upstream.baseUrl });
    }
    gateway = await startGateway(store, { config: { ...base, connectors } });
    const tenant = await createTenant(store, { subscribe: keys });
    const vault = gateway.app.context.vault;
    const instanceIds: Record<string, string> = {};
    // OAuth sandboxes grant the tenant as a completed consent would, so their handlers reach real answers too.
    const credentials = sandboxTenantCredentials(sandboxes, `${gateway.url}/portal/oauth/callback`);
    for (const c of connectors) {
      instanceIds[c.key] = c.id;
      const descriptor = modules[c.key]!.descriptor;
      if (!descriptor.tenantCredential) continue;
      const credential = credentials[c.key] ?? PLACEHOLDER_CREDENTIALS[descriptor.credential];
      const sealed = vault.seal(JSON.stringify(credential), tenant.account.id, c.id);
      await store.connections.putConnection({
        accountId: tenant.account.id,
        instanceId: c.id,
        connectorKey: c.key,
        ...sealed,
      });
    }
    await gateway.app.context.state.refresh();
    const url = gateway.url;
    const counts = { calls: 0, lists: 0, usageReads: 0 };
    const failures: FailureShapes = { seen: 0, malformed: [] };
    return {
      gateway,
      tenant,
      instanceIds,
      upstreams,
      counts,
      failures,
      client(instanceId, token = tenant.token) {
        const key = `${token}|${instanceId}`;
        let c = clients.get(key);
        if (!c) {
          c = mcpClient(url, instanceId, token).then((client) => watchFailures(client, instanceId, failures));
          clients.set(key, c);
        }
        return c;
      },
      async metered(connectorId, tool) {
        counts.usageReads++;
        const record = await usageOf(url, tenant.token);
        return { total: record.usage.totalCostUnits, tool: record.usage.byConnector[connectorId]?.byTool[tool] ?? 0 };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Error codes reached by tests
// ---------------------------------------------------------------------------------------------

/** Every `*.test.ts` under `dir` (recursively), except the excluded paths (relative to `dir`). */
export function testFiles(
  dir: string,
  exclude: readonly string[],
): Array<{ readonly path: string; readonly text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'fixtures' && entry.name !== 'node_modules') walk(full);
      } else if (entry.name.endsWith('.test.ts') && !exclude.includes(relative(dir, full)))
        out.push({ path: relative(dir, full), text: readFileSync(full, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The connector error codes used by at least one tool whose handler has landed. */
export function landedErrorCodes(descriptor: ConnectorDescriptor, pending: readonly string[]): string[] {
  const used = new Set(descriptor.tools.filter((t) => !pending.includes(t.name)).flatMap((t) => t.errors));
  return Object.keys(descriptor.errors)
    .filter((code) => used.has(code))
    .sort();
}

/**
 * Whether a test text quotes the code ('code', "code", `code`), reads its text from a descriptor
 * (`.code.text`), or contains the text itself (`{upstream}` filled in, other placeholders as wildcards).
 */
export function mentionsErrorCode(descriptor: ConnectorDescriptor, code: string, text: string): boolean {
  const name = escapeRegExp(code);
  if (new RegExp(`['"\`]${name}['"\`]|\\.${name}\\.text\\b`).test(text)) return true;
  const entry = descriptor.errors[code];
  if (!entry) return false;
  const filled = entry.text.replaceAll('{upstream}', descriptor.upstream.name);
  // A long expected text may be split into concatenated literals ('… the ' + 'property …').
  text = text.replace(/(['"`])\s*\+\s*\1/g, '');
  const pattern = filled
    .split(/\{[A-Za-z0-9_]+\}/)
    .map(escapeRegExp)
    .join('[\\s\\S]{0,200}?');
  return new RegExp(pattern).test(text);
}

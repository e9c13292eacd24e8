// Helpers over the JSON Schema subset specs are written in: walking, $ref resolution, checks.
import type { PathSegment } from './load.ts';

export type JsonSchema = { [key: string]: unknown };

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const CHILD_MAPS = ['properties'] as const;
const CHILD_SCHEMAS = ['items', 'additionalProperties'] as const;
const CHILD_LISTS = ['anyOf', 'oneOf'] as const;

/** Calls `visit` for the schema and every sub-schema, with its path relative to `path`. */
export function walkSchema(
  schema: unknown,
  path: PathSegment[],
  visit: (node: JsonSchema, path: PathSegment[]) => void,
): void {
  if (!isObject(schema)) return;
  visit(schema, path);
  for (const key of CHILD_MAPS) {
    const map = schema[key];
    if (isObject(map)) for (const [name, child] of Object.entries(map)) walkSchema(child, [...path, key, name], visit);
  }
  for (const key of CHILD_SCHEMAS) walkSchema(schema[key], [...path, key], visit);
  for (const key of CHILD_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) {
      for (const [i, child] of list.entries()) walkSchema(child, [...path, key, i], visit);
    }
  }
}

export class RefError extends Error {
  readonly ref: string;
  readonly reason: 'missing' | 'circular';
  constructor(ref: string, reason: 'missing' | 'circular') {
    super(
      reason === 'missing' ? `$ref ${ref} names no entry of this file's definitions` : `$ref ${ref} refers to itself`,
    );
    this.ref = ref;
    this.reason = reason;
  }
}

/**
 * Inlines every `$ref: '#/definitions/x'`; keys beside `$ref` override the definition's keys
 * (so a tool can reuse a shared argument with its own default or description).
 */
export function resolveRefs(
  schema: unknown,
  definitions: Record<string, unknown>,
  seen: readonly string[] = [],
): unknown {
  if (Array.isArray(schema)) return schema.map((item) => resolveRefs(item, definitions, seen));
  if (!isObject(schema)) return schema;
  let base: Record<string, unknown> = schema;
  let stack = seen;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const name = ref.replace(/^#\/definitions\//, '');
    if (seen.includes(name)) throw new RefError(ref, 'circular');
    const target = definitions[name];
    if (!ref.startsWith('#/definitions/') || !isObject(target)) throw new RefError(ref, 'missing');
    stack = [...seen, name];
    const { $ref: _drop, ...siblings } = schema;
    const resolvedTarget = resolveRefs(target, definitions, stack) as Record<string, unknown>;
    base = { ...resolvedTarget, ...siblings };
    return resolveChildren(base, definitions, stack);
  }
  return resolveChildren(base, definitions, stack);
}

function resolveChildren(
  schema: Record<string, unknown>,
  definitions: Record<string, unknown>,
  seen: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, resolveRefs(child, definitions, seen)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) {
      out[key] = resolveRefs(value, definitions, seen);
    } else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((child) => resolveRefs(child, definitions, seen));
    } else {
      out[key] = value;
    }
  }
  return out;
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Why `value` does not satisfy the (resolved) `schema`'s own simple constraints, or null. */
export function checkValue(value: unknown, schema: JsonSchema): string | null {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = typeOfValue(value);
  const coerced =
    schema.coerce === 'integer' && typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
  if (
    types.length > 0 &&
    !types.some(
      (t) =>
        t === actual ||
        (t === 'number' && actual === 'integer') ||
        (schema.coerce === 'integer' && actual === 'string'),
    )
  ) {
    return `is ${actual}, but the schema's type is ${types.join(' | ')}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    return `is not one of the enum values ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    return `is not the const value ${JSON.stringify(schema.const)}`;
  if (typeof coerced === 'number') {
    if (typeof schema.minimum === 'number' && coerced < schema.minimum) return `is below the minimum ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && coerced > schema.maximum) return `is above the maximum ${schema.maximum}`;
    if (typeof schema.exclusiveMinimum === 'number' && coerced <= schema.exclusiveMinimum)
      return `is not above ${schema.exclusiveMinimum}`;
    if (typeof schema.exclusiveMaximum === 'number' && coerced >= schema.exclusiveMaximum)
      return `is not below ${schema.exclusiveMaximum}`;
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength)
      return `is shorter than minLength ${schema.minLength}`;
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength)
      return `is longer than maxLength ${schema.maxLength}`;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      return `does not match the pattern ${schema.pattern}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      return `has fewer than minItems ${schema.minItems}`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      return `has more than maxItems ${schema.maxItems}`;
    if (isObject(schema.items)) {
      for (const [i, item] of value.entries()) {
        const why = checkValue(item, schema.items);
        if (why) return `item ${i} ${why}`;
      }
    }
  }
  return null;
}

/** Deep copy without the given keywords (schema-valued children only; `default`, `enum`, … are data). */
export function stripKeys(schema: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(schema)) return schema.map((item) => stripKeys(item, keys));
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (keys.includes(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, stripKeys(child, keys)]));
    } else if (key === 'default' || key === 'const' || key === 'enum' || key === 'examples') {
      out[key] = value;
    } else {
      out[key] = stripKeys(value, keys);
    }
  }
  return out;
}

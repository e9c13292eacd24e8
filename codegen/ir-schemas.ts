// How a tool's schemas become the published one (tools/list) and the internal one (validation):
// coerced integers and defaults (codegen/ir.ts buildTool applies them).
import { isObject } from './schema.ts';

/**
 * Published form of a coerced integer: digits as a string are accepted too, in the form the spec's
 * `pattern` gives (e.g. exactly 8 digits for a CVR number), else any digit string.
 */
export function publishCoercion(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  if (schema.coerce === 'integer') {
    const { coerce: _c, pattern, ...rest } = schema;
    return { ...rest, type: ['integer', 'string'], pattern: typeof pattern === 'string' ? pattern : '^[0-9]+$' };
  }
  return mapChildren(schema, publishCoercion);
}

/**
 * Internal form of a coerced integer: the runtime has turned a digit string into a number before
 * validation, so the string form's `pattern` has nothing to check (the integer bounds do).
 */
export function internalCoercion(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  if (schema.coerce === 'integer') {
    const { coerce: _c, pattern: _p, ...rest } = schema;
    return rest;
  }
  return mapChildren(schema, internalCoercion);
}

function mapChildren(schema: Record<string, unknown>, fn: (child: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([n, c]) => [n, fn(c)]));
    else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) out[key] = fn(value);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map(fn);
    else out[key] = value;
  }
  return out;
}

/** Object schemas whose properties carry defaults list them as required: ajv fills them in. */
export function defaultsRequired(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const mapped = mapChildren(schema, defaultsRequired);
  if (isObject(mapped.properties)) {
    const withDefault = Object.entries(mapped.properties)
      .filter(([, p]) => isObject(p) && 'default' in p)
      .map(([n]) => n);
    if (withDefault.length > 0) {
      const required = Array.isArray(mapped.required) ? (mapped.required as string[]) : [];
      mapped.required = [...required, ...withDefault.filter((n) => !required.includes(n))];
    }
  }
  return mapped;
}

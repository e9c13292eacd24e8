// Argument validation with the generated, ahead-of-time compiled validators.
import type { CompiledValidator, ToolDescriptor } from '../handler-api/descriptor-types.ts';

export type ArgumentCheck =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

const DIGITS = /^[0-9]{1,15}$/;

/**
 * A deep copy of a value parsed from JSON (objects, arrays, strings, numbers, booleans, null), for
 * the validator to fill in defaults. structuredClone serialises and deserialises, ~2 % of the CPU of
 * a whole tools/call for a handful of arguments; this walks the value once. A key `__proto__` (JSON
 * may carry one as an own property) stays an own property: defined, never assigned.
 */
function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson((value as Record<string, unknown>)[key]);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out;
}

/**
 * Applies the spec's coercions (`coerce: integer`: a digit string becomes a number), then the
 * validator, which also fills in defaults. Works on a copy: the caller's object is not changed.
 * `reason` is for logs and tests only; clients get the connector's generic text.
 */
export function checkArguments(
  tool: Pick<ToolDescriptor, 'coerce'>,
  validate: CompiledValidator,
  raw: unknown,
): ArgumentCheck {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'arguments must be an object' };
  // A deep copy: the validator fills in defaults at every depth (nested array items too).
  const args = copyJson(raw) as Record<string, unknown>;
  for (const name of tool.coerce) {
    const value = args[name];
    // Only a string of digits (no sign, blank or other decoration) becomes a number
    // (docs/decisions/codegen-and-catalog.md, 'Integer coercion takes only a bare digit string').
    if (typeof value === 'string' && DIGITS.test(value)) args[name] = Number(value);
  }
  if (validate(args)) return { ok: true, args };
  const first = validate.errors?.[0];
  return {
    ok: false,
    reason: first ? `${first.instancePath || '(arguments)'} ${first.message ?? first.keyword}` : 'invalid arguments',
  };
}

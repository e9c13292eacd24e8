// Argument validation with the generated, ahead-of-time compiled validators.
import type { CompiledValidator, ToolDescriptor } from '../handler-api/descriptor-types.ts';

export type ArgumentCheck = { readonly ok: true; readonly args: Record<string, unknown> } | { readonly ok: false; readonly reason: string };

const DIGITS = /^[0-9]{1,15}$/;

/**
 * Applies the spec's coercions (`coerce: integer`: a digit string becomes a number), then the
 * validator, which also fills in defaults. Works on a copy: the caller's object is not changed.
 * `reason` is for logs and tests only; clients get the connector's generic text.
 */
export function checkArguments(tool: Pick<ToolDescriptor, 'coerce'>, validate: CompiledValidator, raw: unknown): ArgumentCheck {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'arguments must be an object' };
  // A deep copy: the validator fills in defaults at every depth (nested array items too).
  const args = structuredClone(raw) as Record<string, unknown>;
  for (const name of tool.coerce) {
    const value = args[name];
    // Only a string of digits (no sign, blank or other decoration) becomes a number (docs/decisions.md §4).
    if (typeof value === 'string' && DIGITS.test(value)) args[name] = Number(value);
  }
  if (validate(args)) return { ok: true, args };
  const first = validate.errors?.[0];
  return { ok: false, reason: first ? `${first.instancePath || '(arguments)'} ${first.message ?? first.keyword}` : 'invalid arguments' };
}

// Compares two JSON Schemas of the spec format's subset (docs/spec-format.md) in a direction. Each
// keyword's change makes the set of valid values narrower or wider: for an input a narrower schema
// refuses calls that passed before (breaking) and a wider one is information; for an output a
// wider schema hands clients values they were not promised (breaking) and a narrower one only
// values a client of the wider one already handles (information). A change whose direction cannot
// be told (a pattern that is neither narrower nor wider) counts as the breaking one for its side.
// No installed package ranks schema changes by direction (json-schema-compare only says equal or
// not), and the subset is small and closed; patterns are compared as languages (patterns.ts).
import type { ChangeCode } from './changes.ts';
import { comparePatterns } from './patterns.ts';

export type Side = 'input' | 'output';
type Schema = Record<string, unknown>;

/** Reports one change: class, path inside the tool (`input.limit`), words, values before and after. */
export type Report = (
  code: ChangeCode,
  path: string,
  message: string,
  before?: unknown,
  after?: unknown,
  key?: string,
) => void;

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const HANDLED = new Set<string>([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'description',
  'title',
  // The JSON Schema annotation codegen publishes on a deprecated argument: reported from the tool's
  // `deprecatedArguments` (codegen/diff/deprecations.ts).
  'deprecated',
  'default',
  'pattern',
  'format',
  'uniqueItems',
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
]);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const json = (v: unknown) => JSON.stringify(v);
const same = (a: unknown, b: unknown) => json(a) === json(b);

function typesOf(s: Schema): Set<string> | undefined {
  if (s.type === undefined) return undefined;
  return new Set(Array.isArray(s.type) ? s.type.map(String) : [String(s.type)]);
}

/** Whether type `t` is accepted by a schema with `types` (integer is a number). */
const covered = (t: string, types: Set<string>) => types.has(t) || (t === 'integer' && types.has('number'));

function valuesOf(s: Schema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum;
  if ('const' in s) return [s.const];
  return undefined;
}

function narrowed(side: Side, kind: 'type' | 'enum' | 'constraint'): ChangeCode {
  if (side === 'output') return 'output-narrowed';
  return kind === 'type' ? 'type-narrowed' : kind === 'enum' ? 'enum-value-removed' : 'constraint-tightened';
}

function widened(side: Side, kind: 'type' | 'enum' | 'constraint'): ChangeCode {
  if (side === 'output') return 'output-widened';
  return kind === 'type' ? 'type-widened' : kind === 'enum' ? 'enum-value-added' : 'constraint-loosened';
}

/** Both narrower and wider (or not known): what breaks on this side (an input refuses, an output surprises). */
const eitherWay = (side: Side): ChangeCode => (side === 'output' ? 'output-widened' : 'constraint-tightened');

/** `input.a.b[]` style paths; a root property of the input is an argument. */
const child = (path: string, name: string) => `${path}.${name}`;

export function diffSchema(a: unknown, b: unknown, side: Side, path: string, report: Report): void {
  if (same(a, b)) return;
  if (!isSchema(a) || !isSchema(b)) {
    // A published result schema appears or disappears (or a boolean schema changes).
    if (side === 'output' && a == null) report('output-field-added', path, `${path} now has a published schema`, a, b);
    else if (side === 'output' && b == null)
      report('output-field-removed', path, `${path} no longer has a published schema`, a, b);
    else report('schema-changed', path, `${path} changed`, a, b);
    return;
  }

  for (const key of ['title', 'description'] as const) {
    if (!same(a[key], b[key]))
      report(
        key === 'title' ? 'title-changed' : 'description-changed',
        path,
        `${key} of ${path} changed`,
        a[key],
        b[key],
        key,
      );
  }
  if (!same(a.default, b.default))
    report(
      'default-changed',
      path,
      `default of ${path}: ${json(a.default) ?? 'none'} → ${json(b.default) ?? 'none'}`,
      a.default,
      b.default,
      'default',
    );

  // Types (absent = any type).
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (!same(ta && [...ta].sort(), tb && [...tb].sort())) {
    const removed = ta ? [...ta].filter((t) => !tb || !covered(t, tb)) : tb ? ['any other type'] : [];
    const added = tb ? [...tb].filter((t) => !ta || !covered(t, ta)) : ta ? ['any type'] : [];
    if (removed.length)
      report(narrowed(side, 'type'), path, `${path} no longer accepts ${removed.join(', ')}`, a.type, b.type, 'type');
    if (added.length)
      report(widened(side, 'type'), path, `${path} now accepts ${added.join(', ')}`, a.type, b.type, 'type');
    if (!removed.length && !added.length)
      report('schema-changed', path, `${path} spells its type differently`, a.type, b.type, 'type');
  }

  diffValues(a, b, side, path, report);

  // Bounds.
  for (const key of LOWER_BOUNDS) bound(a[key], b[key], 'lower', key);
  for (const key of UPPER_BOUNDS) bound(a[key], b[key], 'upper', key);
  function bound(x: unknown, y: unknown, end: 'lower' | 'upper', key: string) {
    if (same(x, y)) return;
    const nx = typeof x === 'number' ? x : undefined;
    const ny = typeof y === 'number' ? y : undefined;
    const tighter = nx === undefined ? true : ny === undefined ? false : end === 'lower' ? ny > nx : ny < nx;
    const words = `${key} of ${path}: ${nx ?? 'none'} → ${ny ?? 'none'}`;
    report(tighter ? narrowed(side, 'constraint') : widened(side, 'constraint'), path, words, x, y, key);
  }

  diffKeywords(a, b, side, path, report);

  diffProperties(a, b, side, path, report);

  // Additional properties: absent = true; a schema sits between true and false.
  if (!same(a.additionalProperties, b.additionalProperties)) {
    const ap = a.additionalProperties ?? true;
    const bp = b.additionalProperties ?? true;
    if (isSchema(ap) && isSchema(bp)) diffSchema(ap, bp, side, `${path}.*`, report);
    else {
      const rank = (v: unknown) => (v === false ? 0 : v === true ? 2 : 1);
      const tighter = rank(bp) < rank(ap);
      const looser = rank(bp) > rank(ap);
      const words = `additional properties of ${path}: ${json(ap)} → ${json(bp)}`;
      if (tighter) report(narrowed(side, 'constraint'), path, words, ap, bp, 'additionalProperties');
      else if (looser) report(widened(side, 'constraint'), path, words, ap, bp, 'additionalProperties');
    }
  }

  // Items.
  if (!same(a.items, b.items)) {
    if (isSchema(a.items) && isSchema(b.items)) diffSchema(a.items, b.items, side, `${path}[]`, report);
    else if (a.items === undefined)
      report(narrowed(side, 'constraint'), `${path}[]`, `items of ${path} are now constrained`, undefined, b.items);
    else
      report(
        widened(side, 'constraint'),
        `${path}[]`,
        `items of ${path} are no longer constrained`,
        a.items,
        undefined,
      );
  }

  diffAlternatives(a, b, side, path, report);

  // Anything outside the subset: reported, not ranked.
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (HANDLED.has(key) || same(a[key], b[key])) continue;
    report('schema-changed', path, `${key} of ${path} changed`, a[key], b[key], key);
  }
}

/** Enumerations (const is a one-value enum): each value taken away or added. */
function diffValues(a: Schema, b: Schema, side: Side, path: string, report: Report): void {
  // Enumerations (const is a one-value enum).
  const va = valuesOf(a);
  const vb = valuesOf(b);
  if (!same(va, vb)) {
    if (va && vb) {
      const inB = new Set(vb.map(json));
      const inA = new Set(va.map(json));
      for (const v of va)
        if (!inB.has(json(v)))
          report(narrowed(side, 'enum'), path, `${path} no longer takes ${json(v)}`, v, undefined, `=${json(v)}`);
      for (const v of vb)
        if (!inA.has(json(v)))
          report(widened(side, 'enum'), path, `${path} now takes ${json(v)}`, undefined, v, `=${json(v)}`);
    } else if (vb)
      report(
        narrowed(side, 'constraint'),
        path,
        `${path} is now limited to ${vb.map(json).join(', ')}`,
        undefined,
        vb,
        'enum',
      );
    else
      report(
        widened(side, 'constraint'),
        path,
        `${path} is no longer limited to ${va!.map(json).join(', ')}`,
        va,
        undefined,
        'enum',
      );
  }
}

/** Alternatives (anyOf, oneOf), compared by position. */
function diffAlternatives(a: Schema, b: Schema, side: Side, path: string, report: Report): void {
  // Alternatives, by position.
  for (const key of ['anyOf', 'oneOf'] as const) {
    const xa = Array.isArray(a[key]) ? (a[key] as unknown[]) : [];
    const xb = Array.isArray(b[key]) ? (b[key] as unknown[]) : [];
    if (same(xa, xb)) continue;
    for (let i = 0; i < Math.min(xa.length, xb.length); i++) diffSchema(xa[i], xb[i], side, `${path}|${i}`, report);
    for (let i = xb.length; i < xa.length; i++)
      report(
        xb.length === 0 ? widened(side, 'constraint') : narrowed(side, 'type'),
        `${path}|${i}`,
        `${path} lost alternative ${i}`,
        xa[i],
        undefined,
      );
    for (let i = xa.length; i < xb.length; i++)
      report(
        xa.length === 0 ? narrowed(side, 'constraint') : widened(side, 'type'),
        `${path}|${i}`,
        `${path} gained alternative ${i}`,
        undefined,
        xb[i],
      );
  }
}

/** Properties and required: a property removed, added, made required or optional, and each kept one compared. */
function diffProperties(a: Schema, b: Schema, side: Side, path: string, report: Report): void {
  const pa = isSchema(a.properties) ? a.properties : {};
  const pb = isSchema(b.properties) ? b.properties : {};
  const ra = new Set(Array.isArray(a.required) ? a.required.map(String) : []);
  const rb = new Set(Array.isArray(b.required) ? b.required.map(String) : []);
  const isRoot = !path.includes('.');
  for (const name of Object.keys(pa)) {
    const at = child(path, name);
    if (!(name in pb)) {
      if (side === 'input')
        report('argument-removed', at, `${isRoot ? 'argument' : 'field'} ${at} removed`, pa[name], undefined);
      else report('output-field-removed', at, `output field ${at} removed`, pa[name], undefined);
      continue;
    }
    if (ra.has(name) !== rb.has(name)) {
      if (side === 'input')
        report(
          rb.has(name) ? 'argument-required' : 'argument-relaxed',
          at,
          `${at} is ${rb.has(name) ? 'now required' : 'no longer required'}`,
          ra.has(name),
          rb.has(name),
          'required',
        );
      else
        report(
          rb.has(name) ? 'output-field-added' : 'output-widened',
          at,
          `${at} is ${rb.has(name) ? 'now always present' : 'no longer always present'}`,
          ra.has(name),
          rb.has(name),
          'required',
        );
    }
    diffSchema(pa[name], pb[name], side, at, report);
  }
  for (const name of Object.keys(pb)) {
    if (name in pa) continue;
    const at = child(path, name);
    if (side === 'output') report('output-field-added', at, `output field ${at} added`, undefined, pb[name]);
    else if (rb.has(name))
      report('argument-required', at, `new required ${isRoot ? 'argument' : 'field'} ${at}`, undefined, pb[name]);
    else report('argument-added', at, `optional ${isRoot ? 'argument' : 'field'} ${at} added`, undefined, pb[name]);
  }
  for (const name of new Set([...ra, ...rb])) {
    // A required name without a property (SPEC027 prevents it in specs) still counts.
    if (name in pa || name in pb || ra.has(name) === rb.has(name)) continue;
    report(
      rb.has(name) ? narrowed(side, 'constraint') : widened(side, 'constraint'),
      path,
      `${path} ${rb.has(name) ? 'now requires' : 'no longer requires'} ${name}`,
      ra.has(name),
      rb.has(name),
      `required.${name}`,
    );
  }
}

/**
 * Pattern, format, uniqueness. Added is narrower and removed wider; a changed pattern is compared
 * as a language; a changed format is neither (each format accepts strings the other refuses).
 */
function diffKeywords(a: Schema, b: Schema, side: Side, path: string, report: Report): void {
  for (const key of ['pattern', 'format', 'uniqueItems'] as const) {
    if (same(a[key], b[key])) continue;
    const absent = (v: unknown) => v === undefined || v === false;
    const words = `${key} of ${path}: ${json(a[key]) ?? 'none'} → ${json(b[key]) ?? 'none'}`;
    let direction: 'narrower' | 'wider' | 'equal' | 'either';
    if (absent(b[key])) direction = 'wider';
    else if (absent(a[key])) direction = 'narrower';
    else if (key === 'pattern' && typeof a[key] === 'string' && typeof b[key] === 'string') {
      const relation = comparePatterns(a[key], b[key]);
      direction = relation === 'other' || relation === 'unknown' ? 'either' : relation;
    } else direction = 'either';
    if (direction === 'equal') report('schema-changed', path, `${words} (the same strings)`, a[key], b[key], key);
    else if (direction === 'narrower') report(narrowed(side, 'constraint'), path, words, a[key], b[key], key);
    else if (direction === 'wider') report(widened(side, 'constraint'), path, words, a[key], b[key], key);
    else report(eitherWay(side), path, `${words} (neither narrower nor wider)`, a[key], b[key], key);
  }
}

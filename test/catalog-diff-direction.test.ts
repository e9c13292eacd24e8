// catalog:diff compares schemas in their direction: narrowing an input or widening an output is
// breaking, widening an input or narrowing an output is information. Patterns are compared as
// languages (codegen/diff/patterns.ts), so a narrower output pattern is no longer a false positive.
import { describe, expect, it } from 'vitest';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { comparePatterns } from '../codegen/diff/patterns.ts';
import { catalogTool, goldenCatalog, type Mutable } from './support/golden-catalog.ts';

const DIGITS = '^[0-9]+$';
const EIGHT_DIGITS = '^[0-9]{8}$';

describe('patterns compared as languages', () => {
  it('tells narrower, wider, equal, other and unknown apart', () => {
    expect(comparePatterns(DIGITS, EIGHT_DIGITS)).toBe('narrower');
    expect(comparePatterns(EIGHT_DIGITS, DIGITS)).toBe('wider');
    expect(comparePatterns(DIGITS, '^[a-z]+$')).toBe('other');
    expect(comparePatterns('^\\d+$', DIGITS)).toBe('equal');
    // Unanchored patterns search: `[0-9]` accepts every string with a digit.
    expect(comparePatterns('[0-9]', DIGITS)).toBe('narrower');
    expect(comparePatterns(DIGITS, '[0-9]')).toBe('wider');
    expect(comparePatterns('^[0-9a-fA-F]{8}$', '^[0-9a-f]{8}$')).toBe('narrower');
  });

  it('a pattern it cannot read is unknown, never a crash', () => {
    expect(comparePatterns('^a|b$', '^a$')).toBe('unknown');
    expect(comparePatterns('(?=a)a', 'a')).toBe('unknown');
    expect(comparePatterns('([a-z]+)\\1', 'a')).toBe('unknown');
    expect(comparePatterns('^[', 'a')).toBe('unknown');
  });
});

/** The golden catalog with a string field `ref` in list_orders' input and in its result's items. */
function withRef(pattern?: string): Mutable {
  const c = goldenCatalog();
  const orders = catalogTool(c, 'list_orders');
  const field = pattern === undefined ? { type: 'string' } : { type: 'string', pattern };
  orders.input.properties.ref = structuredClone(field);
  orders.result.properties.items.items.properties.ref = structuredClone(field);
  return c;
}

const classes = (a: Mutable, b: Mutable) => diffCatalogs(a, b).map((c) => [c.where, c.code, c.severity]);
const INPUT = 'demo/list_orders/input.ref';
const OUTPUT = 'demo/list_orders/result.items[].ref';

describe('direction-aware schema changes', () => {
  it('a narrower pattern: breaking on the input, information on the output', () => {
    expect(classes(withRef(DIGITS), withRef(EIGHT_DIGITS))).toEqual([
      [INPUT, 'constraint-tightened', 'breaking'],
      [OUTPUT, 'output-narrowed', 'info'],
    ]);
  });

  it('a wider pattern: information on the input, breaking on the output', () => {
    expect(classes(withRef(EIGHT_DIGITS), withRef(DIGITS))).toEqual([
      [INPUT, 'constraint-loosened', 'info'],
      [OUTPUT, 'output-widened', 'breaking'],
    ]);
  });

  it('a pattern added or removed is narrower or wider; one neither is breaking on both sides', () => {
    expect(classes(withRef(), withRef(DIGITS))).toEqual([
      [INPUT, 'constraint-tightened', 'breaking'],
      [OUTPUT, 'output-narrowed', 'info'],
    ]);
    expect(classes(withRef(DIGITS), withRef())).toEqual([
      [INPUT, 'constraint-loosened', 'info'],
      [OUTPUT, 'output-widened', 'breaking'],
    ]);
    expect(classes(withRef(DIGITS), withRef('^[a-z]+$'))).toEqual([
      [INPUT, 'constraint-tightened', 'breaking'],
      [OUTPUT, 'output-widened', 'breaking'],
    ]);
    const changes = diffCatalogs(withRef(DIGITS), withRef('^[a-z]+$'));
    expect(changes[0]!.message).toContain('neither narrower nor wider');
  });

  it('a pattern spelled differently for the same strings is reported but not breaking', () => {
    const changes = diffCatalogs(withRef(DIGITS), withRef('^\\d+$'));
    expect(changes.map((c) => [c.code, c.severity])).toEqual([
      ['schema-changed', 'dangerous'],
      ['schema-changed', 'dangerous'],
    ]);
  });

  it('enums, bounds, types, additional properties and items follow the same rule', () => {
    const a = goldenCatalog();
    const b = goldenCatalog();
    const out = (c: Mutable) => catalogTool(c, 'list_orders').result;
    out(b).properties.items.items.properties.status.enum = ['open'];
    out(b).properties.count.minimum = 0;
    out(b).properties.items.items.properties.total.type = 'number';
    out(b).properties.items.items.additionalProperties = false;
    out(b).properties.items.maxItems = 100;
    expect(diffCatalogs(a, b).every((c) => c.code === 'output-narrowed' && c.severity === 'info')).toBe(true);
    expect(diffCatalogs(a, b)).toHaveLength(5);
    expect(diffCatalogs(b, a).every((c) => c.code === 'output-widened' && c.severity === 'breaking')).toBe(true);
    expect(diffCatalogs(b, a)).toHaveLength(5);
  });
});

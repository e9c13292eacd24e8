// Property-based tests of the argument check (runtime/pipeline/arguments.ts) over every tool of
// the registry: inputs guided by each tool's published input schema, mixed with arbitrary JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from './support/property.ts';
import { connectorKeys, registry } from '../generated/registry.ts';
import type { CompiledValidator, JsonSchemaObject, ToolDescriptor } from '../runtime/handler-api/descriptor-types.ts';
import { checkArguments } from '../runtime/pipeline/arguments.ts';

interface Tool {
  readonly id: string;
  readonly tool: ToolDescriptor;
  readonly validate: CompiledValidator;
}

const tools: Tool[] = connectorKeys.flatMap((key) => {
  const validators = registry[key].validators as unknown as Record<string, CompiledValidator>;
  return registry[key].descriptor.tools.map((tool) => ({
    id: `${key}.${tool.name}`,
    tool: tool as ToolDescriptor,
    validate: validators[`input_${tool.name}`]!,
  }));
});

type Schema = Readonly<Record<string, unknown>>;
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** Values near what the schema allows: in range, at and just past its bounds, and of other types. */
function arbitraryFor(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const alternatives = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryFor(s, depth)));
  const types = Array.isArray(schema['type'])
    ? (schema['type'] as string[])
    : typeof schema['type'] === 'string'
      ? [schema['type'] as string]
      : [];
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((t) => arbitraryForType(t, schema, depth)));
}

function arbitraryForType(type: string, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer': {
      const min = num(schema['minimum']) ?? -1000;
      const max = num(schema['maximum']) ?? Math.max(min + 1000, 1000);
      return fc.oneof(
        {
          arbitrary: fc.integer({
            min: Math.max(min, Number.MIN_SAFE_INTEGER),
            max: Math.min(max, Number.MAX_SAFE_INTEGER),
          }),
          weight: 6,
        },
        { arbitrary: fc.constantFrom(min - 1, min, max, max + 1), weight: 2 },
        { arbitrary: fc.integer(), weight: 1 },
      );
    }
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -1000, max: 1000 }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string': {
      const arbs: fc.Arbitrary<unknown>[] = [
        fc.string({
          minLength: num(schema['minLength']) ?? 0,
          maxLength: Math.min(num(schema['maxLength']) ?? 20, 40),
        }),
      ];
      if (schema['format'] === 'date')
        arbs.push(
          fc
            .date({ min: new Date('1990-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
            .map((d) => d.toISOString().slice(0, 10)),
        );
      if (schema['format'] === 'date-time')
        arbs.push(
          fc
            .date({ min: new Date('1990-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
            .map((d) => d.toISOString()),
        );
      if (typeof schema['pattern'] === 'string')
        arbs.push(fc.stringMatching(new RegExp(schema['pattern'])).filter((s) => s.length <= 40));
      // The format or pattern, when there is one, most of the time; any string of the lengths otherwise.
      return arbs.length === 1
        ? arbs[0]!
        : fc.oneof({ arbitrary: arbs[0]!, weight: 1 }, ...arbs.slice(1).map((arbitrary) => ({ arbitrary, weight: 4 })));
    }
    case 'array': {
      if (depth > 2) return fc.constant([]);
      const items = (schema['items'] as Schema | undefined) ?? {};
      return fc.array(arbitraryFor(items, depth + 1), {
        minLength: num(schema['minItems']) ?? 0,
        maxLength: Math.min(num(schema['maxItems']) ?? 4, 6),
      });
    }
    case 'object':
      return depth > 2 ? fc.constant({}) : objectFor(schema, depth + 1);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** `arbitrary`'s value one time in eight, null otherwise. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 7 }, { arbitrary, weight: 1 });
}

/** An object of the schema's properties (required ones usually present), sometimes with a stray key. */
function objectFor(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of Object.entries(properties))
    model[name] = fc.oneof(
      { arbitrary: arbitraryFor(s, depth), weight: 12 },
      { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
    );
  const names = Object.keys(properties);
  return fc
    .tuple(
      // Required properties present (but for the one sometimes dropped), optional ones now and then.
      fc.record(model, { requiredKeys: names.filter((n) => required.has(n)) }),
      rarely(required.size > 0 ? fc.constantFrom(...required) : fc.constant(null)),
      rarely(fc.tuple(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }))),
    )
    .map(([record, dropped, extra]) => {
      const out: Record<string, unknown> = {};
      for (const name of names) if (name in record && name !== dropped) out[name] = record[name];
      if (extra) out[extra[0]] = extra[1];
      return out;
    });
}

/** A tool and an input for it: schema-guided mostly, arbitrary JSON sometimes (built once per tool). */
const inputs = tools.map((t) =>
  fc.oneof(
    { arbitrary: objectFor(t.tool.inputSchema as Schema, 0) as fc.Arbitrary<unknown>, weight: 10 },
    { arbitrary: fc.jsonValue(), weight: 2 },
    { arbitrary: fc.constantFrom<unknown>(undefined, null, [], '', 0, {}), weight: 1 },
  ),
);
const toolAndInput = fc
  .integer({ min: 0, max: tools.length - 1 })
  .chain((i) => fc.tuple(fc.constant(tools[i]!), inputs[i]!));

const requiredOf = (schema: JsonSchemaObject): string[] => ((schema as Schema)['required'] ?? []) as string[];

describe('checkArguments, property-based over every tool of the registry', () => {
  it('never throws, leaves the input alone, and what it accepts passes the validator with all required args', () => {
    let accepted = 0;
    fc.assert(
      fc.property(toolAndInput, ([t, raw]) => {
        const before = JSON.stringify(raw);
        const result = checkArguments(t.tool, t.validate, raw);
        expect(JSON.stringify(raw)).toBe(before);
        if (!result.ok) {
          expect(typeof result.reason).toBe('string');
          return;
        }
        accepted++;
        expect(typeof result.args === 'object' && result.args !== null && !Array.isArray(result.args)).toBe(true);
        expect(t.validate(result.args)).toBe(true);
        for (const name of requiredOf(t.tool.inputSchema)) expect(result.args, `${t.id}: ${name}`).toHaveProperty(name);
      }),
      runs(500),
    );
    // The generator reaches the accepting side too, not only refusals.
    expect(accepted).toBeGreaterThan(50);
  });

  const coercing = tools.flatMap((t) => t.tool.coerce.map((name) => ({ ...t, name })));

  it('has coerced arguments to test', () => {
    expect(coercing.length).toBeGreaterThan(0);
  });

  it('a bare digit string of a coerce argument counts as its number', () => {
    fc.assert(
      fc.property(fc.constantFrom(...coercing), fc.stringMatching(/^[0-9]{1,15}$/), (t, digits) => {
        const asString = checkArguments(t.tool, t.validate, { [t.name]: digits });
        const asNumber = checkArguments(t.tool, t.validate, { [t.name]: Number(digits) });
        expect(asString).toEqual(asNumber);
        if (asString.ok) expect(asString.args[t.name]).toBe(Number(digits));
      }),
      runs(300),
    );
  });

  it('a coerce argument with anything besides its digits is refused', () => {
    const decorated = fc
      .tuple(
        fc.stringMatching(/^[0-9]{1,9}$/),
        fc.constantFrom(' ', '\t', '\n', '+', '-', '.0', 'e3', ',', '_', '0x', '\u00a0', 'a'),
        fc.boolean(),
      )
      .map(([digits, extra, before]) => (before ? extra + digits : digits + extra));
    const otherStrings = fc.string({ maxLength: 20 }).filter((s) => !/^[0-9]{1,15}$/.test(s));
    const fullWidth = fc
      .stringMatching(/^[0-9]{8}$/)
      .map((s) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))));
    const tooLong = fc.stringMatching(/^[1-9][0-9]{15,20}$/);
    fc.assert(
      fc.property(fc.constantFrom(...coercing), fc.oneof(decorated, otherStrings, fullWidth, tooLong), (t, value) => {
        expect(checkArguments(t.tool, t.validate, { [t.name]: value }).ok).toBe(false);
      }),
      runs(400),
    );
  });
});

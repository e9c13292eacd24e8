// Properties of catalog:diff over random catalogs (fast-check): a catalog diffed with itself is
// empty, and every single mutation (a value changed, or a member or element removed) anywhere in
// a random catalog is reported, each change in a named class, none in the catch-all `changed`.
// Over random schema pairs (a, b) with b a narrowing of a: narrowing an input or widening an
// output is breaking, widening an input or narrowing an output is information only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANGE_CLASSES, SEVERITIES } from '../codegen/diff/changes.ts';
import type { Catalog } from '../codegen/diff/catalog.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { diffSchema, type Side } from '../codegen/diff/schema-diff.ts';

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
const text = fc.stringMatching(/^[A-Za-z {}.]{1,20}$/);
const LIMIT_NAMES = ['resultMaxChars', 'maxRows', 'upstreamPageSize', 'maxPages', 'linkValidSeconds', 'windowMs'];
const KIND = fc.constantFrom('result', 'input', 'upstream', 'setting');
const CODES = ['generic', 'rejected', 'key_rejected', 'not_found'];

/** Schemas of the spec format's subset, three levels deep at most. */
const schema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record(
      {
        type: fc.constant('integer'),
        minimum: fc.integer({ min: 0, max: 10 }),
        maximum: fc.integer({ min: 11, max: 1000 }),
        default: fc.integer({ min: 0, max: 10 }),
        description: text,
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('string'),
        minLength: fc.nat(3),
        maxLength: fc.integer({ min: 4, max: 500 }),
        pattern: fc.constant('^[0-9]+$'),
        format: fc.constantFrom('date', 'uri'),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      { enum: fc.uniqueArray(word, { minLength: 1, maxLength: 4 }), description: text },
      { requiredKeys: ['enum'] },
    ),
    fc.record({ type: fc.constant(['number', 'null']) }),
    fc.record({ type: fc.constant('boolean'), default: fc.boolean() }, { requiredKeys: ['type'] }),
    fc.record(
      {
        type: fc.constant('array'),
        items: tie('node'),
        minItems: fc.nat(2),
        maxItems: fc.integer({ min: 3, max: 50 }),
        uniqueItems: fc.constant(true),
      },
      { requiredKeys: ['type', 'items'] },
    ),
    fc.dictionary(word, tie('node'), { maxKeys: 3 }).chain((properties) =>
      fc.record(
        {
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.subarray(Object.keys(properties)),
          additionalProperties: fc.constant(false),
          anyOf: fc.constant([{ required: Object.keys(properties).slice(0, 1) }]),
        },
        { requiredKeys: ['type', 'properties'] },
      ),
    ),
  ),
})).node;

const objectSchema = fc.dictionary(word, schema, { minKeys: 1, maxKeys: 4 }).chain((properties) =>
  fc.record({
    type: fc.constant('object'),
    properties: fc.constant(properties),
    required: fc.subarray(Object.keys(properties)),
    additionalProperties: fc.constant(false),
  }),
);

const annotations = fc.record(
  {
    readOnlyHint: fc.boolean(),
    destructiveHint: fc.boolean(),
    idempotentHint: fc.boolean(),
    openWorldHint: fc.boolean(),
  },
  { requiredKeys: ['readOnlyHint', 'destructiveHint', 'openWorldHint'] },
);

const tool = fc.record(
  {
    title: text,
    description: text,
    write: fc.boolean(),
    annotations,
    input: objectSchema,
    limits: fc.dictionary(fc.constantFrom(...LIMIT_NAMES), fc.integer({ min: 1, max: 100000 }), { maxKeys: 2 }),
    dataLayer: fc.constant(true),
    errors: fc.subarray(CODES, { minLength: 1 }),
    result: fc.option(objectSchema, { nil: null }),
  },
  { requiredKeys: ['title', 'description', 'write', 'annotations', 'input', 'limits', 'errors', 'result'] },
);

const tools = fc
  .uniqueArray(fc.tuple(word, tool), { minLength: 1, maxLength: 3, selector: ([name]) => name })
  .map((list) => list.map(([name, t]) => ({ name, ...t })));

const errorEntry = fc.record(
  {
    text,
    name: fc.constant('DemoError'),
    reconnect: fc.boolean(),
    upstream: fc.subarray(['auth', 'throttled', 'timeout'], { minLength: 1 }),
    when: text,
  },
  { requiredKeys: ['text', 'reconnect'] },
);
const errors = fc.record(Object.fromEntries(CODES.map((c) => [c, errorEntry])));

const connector = fc.record({
  defaultId: word,
  title: text,
  description: text,
  stability: fc.constantFrom('stable', 'early-access', 'experimental'),
  credential: fc.constantFrom('api_key', 'oauth2'),
  structuredContent: fc.boolean(),
  upstream: fc.record({
    name: word,
    baseUrl: fc.constantFrom('https://a.example', 'https://b.example'),
    timeoutMs: fc.integer({ min: 1000, max: 30000 }),
    retry: fc.record({ onThrottle: fc.constantFrom('none', 'once'), maxWaitMs: fc.integer({ min: 1, max: 5000 }) }),
    maxResponseBytes: fc.integer({ min: 1024, max: 1 << 24 }),
  }),
  limits: fc.dictionary(fc.constantFrom(...LIMIT_NAMES), fc.integer({ min: 1, max: 100000 }), { maxKeys: 3 }),
  kinds: fc.record(Object.fromEntries(LIMIT_NAMES.map((n) => [n, KIND]))),
  errors,
  texts: fc.dictionary(word, text, { maxKeys: 2 }),
  tools,
});

const catalog: fc.Arbitrary<Catalog> = fc
  .record({
    platform: fc.record({
      errors,
      protocolErrors: fc.dictionary(word, fc.record({ text, when: text }, { requiredKeys: ['text'] }), { maxKeys: 2 }),
      instructions: fc.dictionary(word, text, { maxKeys: 2 }),
      annotations: fc.record({ read: annotations, write: annotations }),
      limits: fc.dictionary(fc.constantFrom(...LIMIT_NAMES), fc.integer({ min: 1, max: 100000 }), { maxKeys: 2 }),
      kinds: fc.record(Object.fromEntries(LIMIT_NAMES.map((n) => [n, KIND]))),
      checkOrder: fc.shuffledSubarray(
        ['tool_name', 'subscription', 'seat', 'connection', 'fair_use', 'arguments', 'upstream'],
        { minLength: 2 },
      ),
      systemTools: tools,
    }),
    connectors: fc
      .uniqueArray(fc.tuple(word, connector), { minLength: 1, maxLength: 2, selector: ([key]) => key })
      .map((list) => list.map(([key, c]) => ({ key, ...withKinds(c, c.tools) }))),
  })
  .map(
    ({ platform, connectors }) =>
      ({ format: 2, platform: withKinds(platform, platform.systemTools), connectors }) as unknown as Catalog,
  );

/**
 * As the generator does: `limitKinds` has a kind for every limit name the section and its tools use, and only those.
 */
function withKinds<T extends { kinds: Record<string, string>; limits: Record<string, number> }>(
  section: T,
  list: ReadonlyArray<{ limits: Record<string, number> }>,
) {
  const { kinds, ...rest } = section;
  const used = new Set([...Object.keys(section.limits), ...list.flatMap((t) => Object.keys(t.limits))]);
  return { ...rest, limitKinds: Object.fromEntries(Object.entries(kinds).filter(([n]) => used.has(n))) };
}

type Path = Array<string | number>;

/** Members whose removal would leave the catalog without its skeleton (what identifies a connector or tool). */
const STRUCTURAL = new Set(['platform', 'connectors', 'tools', 'systemTools', 'key', 'name', 'defaultId']);
/** Members whose absence means this very value: removing them changes nothing. */
const DEFAULTS: Record<string, unknown> = { stability: 'stable', reconnect: false, result: null };

/** Every place a single mutation can hit: each value (changed) and each member or element (removed). */
function places(value: unknown, path: Path = []): Array<{ path: Path; kind: 'change' | 'remove' }> {
  const out: Array<{ path: Path; kind: 'change' | 'remove' }> = [];
  const last = path[path.length - 1];
  // Removing an empty container changes nothing a client sees ({} and [] mean "none").
  const empty = typeof value === 'object' && value !== null && Object.keys(value).length === 0;
  const isDefault = typeof last === 'string' && last in DEFAULTS && DEFAULTS[last] === value;
  if (path.length > 1 && !(typeof last === 'string' && STRUCTURAL.has(last)) && !empty && !isDefault)
    out.push({ path, kind: 'remove' });
  if (Array.isArray(value)) value.forEach((v, i) => void out.push(...places(v, [...path, i])));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...places(v, [...path, k]));
  else if (path.length > 1) out.push({ path, kind: 'change' });
  return out;
}

function mutate(root: Catalog, { path, kind }: { path: Path; kind: 'change' | 'remove' }): Catalog {
  const copy = structuredClone(root) as unknown as Record<string | number, unknown>;
  let parent: any = copy;
  for (const seg of path.slice(0, -1)) parent = parent[seg];
  const key = path[path.length - 1]!;
  if (kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else {
    const v = parent[key];
    parent[key] =
      typeof v === 'number'
        ? v + 1
        : typeof v === 'boolean'
          ? !v
          : typeof v === 'string'
            ? `${v}~`
            : v === null
              ? {}
              : v;
  }
  return copy as unknown as Catalog;
}

describe('catalog diff properties', () => {
  it('a catalog diffed with itself (or with a copy) is empty', () => {
    fc.assert(
      fc.property(catalog, (c) => {
        expect(diffCatalogs(c, c)).toEqual([]);
        expect(diffCatalogs(c, structuredClone(c))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('every single mutation of a random catalog is reported, each change in a named class', () => {
    const withPlace = catalog.chain((c) => {
      const all = places(c);
      return fc.tuple(fc.constant(c), fc.constantFrom(...all));
    });
    fc.assert(
      fc.property(withPlace, ([c, place]) => {
        const mutated = mutate(c, place);
        const changes = diffCatalogs(c, mutated);
        expect(changes.length, `${place.kind} ${place.path.join('/')}`).toBeGreaterThan(0);
        for (const change of changes) {
          expect(change.code in CHANGE_CLASSES).toBe(true);
          expect(change.code, `${place.kind} ${place.path.join('/')}: ${change.message}`).not.toBe('changed');
          expect(SEVERITIES).toContain(change.severity);
        }
        expect(new Set(changes.map((x) => x.id)).size).toBe(changes.length);
      }),
      { numRuns: 1500 },
    );
  });
});

type Node = Record<string, any>;

/** Every way to narrow one node of a schema (each accepts a subset of what the node accepted). */
function narrowings(node: Node): Array<(n: Node) => void> {
  const ops: Array<(n: Node) => void> = [];
  for (const key of ['minimum', 'minLength', 'minItems'])
    if (typeof node[key] === 'number') ops.push((n) => (n[key] += 1));
  for (const key of ['maximum', 'maxLength', 'maxItems'])
    if (typeof node[key] === 'number') ops.push((n) => (n[key] -= 1));
  if (node.type === 'integer' && node.maximum === undefined) ops.push((n) => (n.maximum = 5000));
  if (node.type === 'string') {
    if (node.pattern === undefined) ops.push((n) => (n.pattern = '^[0-9]+$'));
    else if (node.pattern === '^[0-9]+$') ops.push((n) => (n.pattern = '^[0-9]{1,8}$'));
    if (node.format === undefined) ops.push((n) => (n.format = 'date'));
  }
  if (Array.isArray(node.enum) && node.enum.length > 1) ops.push((n) => n.enum.pop());
  if (Array.isArray(node.type) && node.type.includes('null')) {
    ops.push((n) => (n.type = 'number'));
    ops.push((n) => (n.type = 'integer'));
  }
  if (node.type === 'array' && node.uniqueItems === undefined) ops.push((n) => (n.uniqueItems = true));
  if (node.type === 'object') {
    const required: string[] = node.required ?? [];
    for (const name of Object.keys(node.properties ?? {}))
      if (!required.includes(name)) ops.push((n) => (n.required = [...(n.required ?? []), name]));
    if (node.additionalProperties !== false) ops.push((n) => (n.additionalProperties = false));
  }
  return ops;
}

/** The nodes of a schema, by path: the root, its properties' and its items' schemas. */
function nodes(node: Node, path: Array<string> = []): Array<{ path: string[]; node: Node }> {
  const out = [{ path, node }];
  for (const [name, child] of Object.entries<Node>(node.properties ?? {}))
    out.push(...nodes(child, [...path, 'properties', name]));
  if (node.items && typeof node.items === 'object') out.push(...nodes(node.items, [...path, 'items']));
  return out;
}

/** One narrowing step anywhere in the schema, or none when no node can be narrowed. */
function narrowOnce(schema: Node): fc.Arbitrary<Node | undefined> {
  const steps = nodes(schema).flatMap(({ path, node }) => narrowings(node).map((op) => ({ path, op })));
  if (steps.length === 0) return fc.constant(undefined);
  return fc.constantFrom(...steps).map(({ path, op }) => {
    const copy = structuredClone(schema);
    op(path.reduce<Node>((n, seg) => n[seg], copy));
    return copy;
  });
}

/** A schema and a narrowing of it by one to three steps (schemas nothing in can be narrowed are left out). */
const narrowedPair = objectSchema
  .chain((a) =>
    narrowOnce(a)
      .chain((b) =>
        b
          ? fc.oneof(
              fc.constant(b),
              narrowOnce(b).map((c) => c ?? b),
            )
          : fc.constant(undefined),
      )
      .chain((b) =>
        b
          ? fc.oneof(
              fc.constant(b),
              narrowOnce(b).map((c) => c ?? b),
            )
          : fc.constant(undefined),
      )
      .map((b): readonly [Node, Node | undefined] => [a, b]),
  )
  .filter((pair): pair is readonly [Node, Node] => pair[1] !== undefined);

function severities(a: Node, b: Node, side: Side): string[] {
  const out: string[] = [];
  diffSchema(a, b, side, side === 'input' ? 'input' : 'result', (code) => out.push(CHANGE_CLASSES[code].severity));
  return out;
}

describe('catalog diff properties: schemas in their direction', () => {
  it('b narrows a: input a→b breaks, output a→b is information only', () => {
    fc.assert(
      fc.property(narrowedPair, ([a, b]) => {
        expect(severities(a, b, 'input')).toContain('breaking');
        const output = severities(a, b, 'output');
        expect(output.length).toBeGreaterThan(0);
        expect(output.every((s) => s === 'info')).toBe(true);
      }),
      { numRuns: 500, endOnFailure: true },
    );
  });

  it('and symmetric: input b→a is information only, output b→a breaks', () => {
    fc.assert(
      fc.property(narrowedPair, ([a, b]) => {
        const input = severities(b, a, 'input');
        expect(input.length).toBeGreaterThan(0);
        expect(input.every((s) => s === 'info')).toBe(true);
        expect(severities(b, a, 'output')).toContain('breaking');
      }),
      { numRuns: 500, endOnFailure: true },
    );
  });
});

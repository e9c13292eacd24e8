// Property-based tests of the case-management document check (handlers/cases/document-check.ts):
// it never throws, whatever the text, and no document holding a mutation or a subscription gets
// through. Documents come from a small GraphQL grammar: fields with aliases, arguments (strings
// that mention `mutation`, variables, lists, objects), nesting, inline fragments, fragment
// spreads, comments, and any mix of query, mutation and subscription operations with fragments.
// The cost limit is checked against a model: random trees of list and plain fields, with aliases,
// page sizes as literals, variables or missing, through inline and named fragments.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from './support/property.ts';
import { checkDocument, DEFAULT_DOCUMENT_LIMITS } from '../handlers/cases/document-check.ts';

/** Cost limits out of the way, for the properties about the read-only guarantee. */
const NO_COST_LIMIT = { maxListSelections: 1e12, maxEstimatedRows: 1e15 };

const NAMES = [
  'a',
  'id',
  'cases',
  'items',
  'caseById',
  'mutation',
  'subscription',
  'query',
  'fragment',
  'on',
  'updateCase',
] as const;
const FRAGMENTS = ['F0', 'F1', 'F2', 'F3'] as const;

const name = fc.constantFrom(...NAMES);
const ignored = fc.constantFrom(' ', '\n', ',', ' # mutation { x }\n', '\t', '\r\n');

const value: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: -5, max: 99999999 }).map(String),
    fc.constantFrom(
      '"mutation { updateCase(id: 1) { id } }"',
      '"""subscription { x }"""',
      '"a\\"b"',
      'true',
      'null',
      'ASC',
      '$id',
      '1.5e3',
    ),
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(' ')}]`),
    fc
      .array(fc.tuple(name, tie('value')), { maxLength: 3 })
      .map((kv) => `{${kv.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
  ),
})).value;

const args = fc
  .array(fc.tuple(name, value), { maxLength: 2 })
  .map((kv) => (kv.length === 0 ? '' : `(${kv.map(([k, v]) => `${k}: ${v}`).join(', ')})`));

/** A selection set; `spreads` lists the fragments it may spread. */
function selectionSet(spreads: readonly string[]): fc.Arbitrary<string> {
  return fc.letrec<{ set: string; selection: string }>((tie) => ({
    set: fc
      .array(tie('selection'), { minLength: 1, maxLength: 3 })
      .chain((selections) => ignored.map((ws) => `{${ws}${selections.join(ws)}${ws}}`)),
    selection: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc
        .tuple(fc.option(name, { freq: 3 }), name, args)
        .map(([alias, field, a]) => `${alias ? `${alias}: ` : ''}${field}${a}`),
      fc.tuple(name, args, tie('set')).map(([field, a, set]) => `${field}${a} ${set}`),
      tie('set').map((set) => `... on Case ${set}`),
      ...(spreads.length > 0 ? [fc.constantFrom(...spreads).map((f) => `...${f}`)] : []),
    ),
  })).set;
}

type Kind = 'query' | 'mutation' | 'subscription';

interface Definition {
  readonly kind: Kind | 'fragment';
  readonly text: string;
}

/** An operation: shorthand `{…}` for an anonymous query sometimes, a keyword and a name otherwise. */
function operation(kind: Kind, spreads: readonly string[]): fc.Arbitrary<Definition> {
  const head = fc.tuple(
    fc.option(fc.constantFrom('Read', 'Write', 'query', 'mutation'), { freq: 2 }),
    fc.option(fc.constant('($id: Int = 1)'), { freq: 3 }),
  );
  return fc.tuple(head, selectionSet(spreads), fc.boolean()).map(([[opName, vars], set, shorthand]) => ({
    kind,
    text: kind === 'query' && shorthand ? set : `${kind}${opName ? ` ${opName}` : ''}${vars ?? ''} ${set}`,
  }));
}

/** Fragments F0..F<n-1>; each may spread only the ones after it, so there is never a cycle. */
function fragments(n: number): fc.Arbitrary<Definition[]> {
  return fc.tuple(
    ...Array.from({ length: n }, (_, i) =>
      selectionSet(FRAGMENTS.slice(i + 1, n)).map((set) => ({
        kind: 'fragment' as const,
        text: `fragment ${FRAGMENTS[i]} on Case ${set}`,
      })),
    ),
  );
}

/** A document: some operations of the given kinds plus every fragment they may spread, shuffled. */
function documentOf(kinds: fc.Arbitrary<Kind[]>): fc.Arbitrary<{ kinds: Kind[]; text: string }> {
  return fc
    .tuple(kinds, fc.integer({ min: 0, max: FRAGMENTS.length }))
    .chain(([ks, n]) =>
      fc
        .tuple(fc.tuple(...ks.map((k) => operation(k, FRAGMENTS.slice(0, n)))), fragments(n), ignored)
        .chain(([ops, frags, ws]) =>
          fc
            .shuffledSubarray([...ops, ...frags], { minLength: ops.length + frags.length })
            .map((defs) => ({ kinds: ks, text: defs.map((d) => d.text).join(`\n${ws}`) })),
        ),
    );
}

const kind = fc.constantFrom<Kind>('query', 'mutation', 'subscription');
const writing = fc
  .tuple(
    fc.array(kind, { maxLength: 2 }),
    fc.constantFrom<Kind>('mutation', 'subscription'),
    fc.array(kind, { maxLength: 2 }),
  )
  .map(([before, w, after]) => [...before, w, ...after]);

/** Printable text with plenty of GraphQL punctuation and keywords. */
const graphqlish = fc
  .array(
    fc.constantFrom(
      '{',
      '}',
      '(',
      ')',
      '[',
      ']',
      '"',
      '"""',
      '\\',
      '#',
      '\n',
      '...',
      ':',
      '$',
      '@',
      '!',
      '=',
      ' ',
      'a',
      '1',
      'query',
      'mutation',
      'subscription',
      'fragment',
      'on',
      'type',
      'extend',
    ),
    {
      maxLength: 60,
    },
  )
  .map((parts) => parts.join(''));

describe('checkDocument, property-based', () => {
  it('never throws on arbitrary text, and always answers ok or a refusal with a reason', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), graphqlish),
        (source) => {
          const result = checkDocument(source);
          if (!result.ok) expect(typeof result.reason).toBe('string');
          else expect(result.operation.operation).toBe('query');
        },
      ),
      runs(400),
    );
  });

  it('never accepts a document with a mutation or a subscription operation', () => {
    fc.assert(
      fc.property(documentOf(writing), ({ kinds, text }) => {
        const result = checkDocument(text);
        expect(result.ok, text).toBe(false);
        if (!result.ok) expect(kinds.length === 1 ? 'not_a_query' : 'several_operations').toBe(result.reason);
      }),
      runs(300),
    );
  });

  it('accepts a single query with its fragments, whatever the keywords in names, strings and comments', () => {
    fc.assert(
      fc.property(documentOf(fc.constant<Kind[]>(['query'])), ({ text }) => {
        const result = checkDocument(text, NO_COST_LIMIT);
        expect(result.ok ? 'ok' : `${result.reason}: ${result.detail}`, text).toBe('ok');
      }),
      runs(300),
    );
  });
});

/**
 * A field of the cost model: a paged list (page size a literal, the variable `$n`, or missing) or a plain object field.
 */
interface CostNode {
  readonly list: boolean;
  readonly limit: number | 'var' | null;
  readonly fragment: 'none' | 'inline' | 'named';
  readonly children: readonly CostNode[];
}

/** Cost nodes nested at most `depth` levels (three levels of lists already reach 300³ rows). */
function costNode(depth: number): fc.Arbitrary<CostNode> {
  return fc.record({
    list: fc.boolean(),
    limit: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant<'var'>('var'), fc.constant(null)),
    fragment: fc.constantFrom<CostNode['fragment']>('none', 'none', 'inline', 'named'),
    children: depth <= 1 ? fc.constant([]) : fc.array(costNode(depth - 1), { maxLength: 3 }),
  });
}

/** The document of a forest of cost nodes, with every named fragment it spreads. */
function costDocument(roots: readonly CostNode[]): string {
  const fragments: string[] = [];
  let alias = 0;
  const set = (nodes: readonly CostNode[]): string => nodes.map(field).join(' ');
  const field = (node: CostNode): string => {
    let inner = `id ${set(node.children)}`;
    if (node.fragment === 'inline') inner = `... on T { ${inner} }`;
    if (node.fragment === 'named') {
      const name = `F${fragments.length}`;
      fragments.push('');
      fragments[Number(name.slice(1))] = `fragment ${name} on T { ${inner} }`;
      inner = `...${name}`;
    }
    const a = `a${alias++}`;
    if (!node.list) return `${a}: caseById(id: 1) { ${inner} }`;
    const limit =
      node.limit === null ? '' : `(pagination: { cursor: null, limit: ${node.limit === 'var' ? '$n' : node.limit} })`;
    // Without pagination, the field is known as a list by its `items`.
    return node.limit === null
      ? `${a}: caseMaterials(type: MATERIAL) { items { ${inner} } }`
      : `${a}: cases${limit} { items { ${inner} } nextCursor }`;
  };
  const operation = `query Q($n: Int) { ${set(roots)} }`;
  return [operation, ...fragments].join('\n');
}

/** The model: one selection per list node, rows = page size × the rows of its list ancestors. */
function modelCost(
  roots: readonly CostNode[],
  n: number | undefined,
): { listSelections: number; estimatedRows: number } {
  let listSelections = 0;
  let estimatedRows = 0;
  const walk = (nodes: readonly CostNode[], multiplier: number) => {
    for (const node of nodes) {
      let m = multiplier;
      if (node.list) {
        const size = node.limit === null ? 200 : node.limit === 'var' ? (n ?? 200) : node.limit;
        m = multiplier * size;
        listSelections += 1;
        estimatedRows += m;
      }
      walk(node.children, m);
    }
  };
  walk(roots, 1);
  return { listSelections, estimatedRows };
}

describe('checkDocument cost limit, property-based', () => {
  it('counts list selections and estimated rows as the model does, and refuses exactly above the limits', () => {
    const outcomes = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(
        fc.array(costNode(3), { minLength: 1, maxLength: 4 }),
        fc.option(fc.integer({ min: 0, max: 300 })),
        (roots, n) => {
          const text = costDocument(roots);
          const expected = modelCost(roots, n ?? undefined);
          const result = checkDocument(text, undefined, n === null ? undefined : { n });
          if (!result.ok && result.reason !== 'too_costly') expect.fail(`${result.reason}: ${result.detail}\n${text}`);
          expect(result.cost, text).toEqual(expected);
          const over =
            expected.listSelections > DEFAULT_DOCUMENT_LIMITS.maxListSelections ||
            expected.estimatedRows > DEFAULT_DOCUMENT_LIMITS.maxEstimatedRows;
          expect(result.ok, text).toBe(!over);
          outcomes[result.ok ? 'accepted' : 'refused']++;
        },
      ),
      runs(300),
    );
    // The generator reaches both sides of the limits.
    expect(outcomes.accepted).toBeGreaterThan(30);
    expect(outcomes.refused).toBeGreaterThan(30);
  });
});

// The case-management document check: the read-only guarantee in front of a full-access API key.
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkDocument, DEFAULT_DOCUMENT_LIMITS } from '../handlers/cases/document-check.ts';
import type { DocumentRefusal } from '../handlers/cases/document-check.ts';
import { casesDescriptor } from '../generated/cases/descriptor.ts';

const MAX = 65_536;

/** `text` padded with trailing spaces to exactly `length` characters. */
function padTo(text: string, length: number): string {
  return text + ' '.repeat(length - text.length);
}

/** A valid query followed by `#` comment lines until the document is exactly `length` characters. */
function commentPadded(length: number): string {
  const head = '{ caseById(id: 1) { id } }\n';
  const line = '#'.repeat(79) + '\n';
  let text = head + line.repeat(Math.floor((length - head.length) / line.length));
  text += '#'.repeat(length - text.length);
  return text;
}

/** Fragments F0..F<n-1>, each spreading the next twice; the last selects two fields. */
function fragmentBomb(n: number, nested: boolean): string {
  const parts = ['query { ...F0 }'];
  for (let i = 0; i < n - 1; i++) {
    parts.push(
      nested
        ? `fragment F${i} on Query { x { ...F${i + 1} } y { ...F${i + 1} } }`
        : `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
    );
  }
  parts.push(`fragment F${n - 1} on Query { a b }`);
  return parts.join('\n');
}

/** A chain of `n` fragments, each spreading the next; `cyclic` makes the last spread the first. */
function fragmentChain(n: number, cyclic: boolean): string {
  const parts = ['{...a0}'];
  for (let i = 0; i < n - 1; i++) parts.push(`fragment a${i} on Q{...a${i + 1}}`);
  parts.push(cyclic ? `fragment a${n - 1} on Q{...a0}` : `fragment a${n - 1} on Q{id}`);
  return parts.join('\n');
}

/** `{ a(x: [1 1 … 1]) }` with exactly `tokens` lexical tokens (9 tokens besides the list items). */
function tokenDocument(tokens: number): string {
  return `{ a(x: [${'1 '.repeat(tokens - 9)}]) }`;
}

const fullIntrospection = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
});

const hostile: [string, string, DocumentRefusal | DocumentRefusal[]][] = [
  ['mutation', 'mutation { updateCase(id: 1, description: "x") { id } }', 'not_a_query'],
  ['anonymous-looking mutation with variables', 'mutation M($id: Int!) { updateCase(id: $id) { id } }', 'not_a_query'],
  ['subscription', 'subscription { caseUpdated { id } }', 'not_a_query'],
  ['mutation with a fragment', 'mutation { updateCase(id: 1) { ...C } } fragment C on Case { id }', 'not_a_query'],
  [
    'mutation hidden after a query',
    '{ cases { items { id } } }\n\n\n mutation { updateCase(id: 1) { id } }',
    'several_operations',
  ],
  [
    'query plus mutation, as operationName would pick the query',
    'query Read { caseById(id: 1) { id } } mutation Write { updateCase(id: 1) { id } }',
    'several_operations',
  ],
  ['two queries', 'query A { a } query B { b }', 'several_operations'],
  ['anonymous and named query', '{ a } query B { b }', 'several_operations'],
  ['object type definition', 'type X { a: Int }', 'type_system_definition'],
  ['type extension', 'extend type Query { x: Int }', 'type_system_definition'],
  ['schema definition', 'schema { query: Q }', 'type_system_definition'],
  ['schema extension', 'extend schema { mutation: M }', 'type_system_definition'],
  ['directive definition', 'directive @d on FIELD', 'type_system_definition'],
  ['scalar definition', 'scalar Date', 'type_system_definition'],
  ['input definition', 'input I { a: Int }', 'type_system_definition'],
  ['query with a type definition', '{ a } type X { a: Int }', 'type_system_definition'],
  ['unparseable text', 'hello world', 'syntax'],
  ['unclosed selection', 'query { a', 'syntax'],
  ['unclosed arguments', '{ a(', 'syntax'],
  ['stray closing brace', '} { a }', 'syntax'],
  ['empty string', '', 'syntax'],
  ['whitespace only', ' \n\t ,,, ', 'syntax'],
  ['comment only', '# mutation { updateCase(id: 1) { id } }', 'syntax'],
  ['unterminated string', '{ a(x: "abc) }', 'syntax'],
  ['fragment arguments (experimental syntax, not enabled)', '{ ...F(x: 1) } fragment F($x: Int) on Q { a }', 'syntax'],
  ['only fragments', 'fragment A on Case { id } fragment B on Case { caseNumber }', 'no_operation'],
  ['65,537 characters', padTo('{ a }', MAX + 1), 'too_long'],
  ['comment padding to 65,537 characters', commentPadded(MAX + 1), 'too_long'],
  ['20,001 tokens', tokenDocument(20_001), 'too_many_tokens'],
  ['20,001 tokens of fields', `{ ${'a '.repeat(19_999)}}`, 'too_many_tokens'],
  ['10,000-deep nesting', '{a'.repeat(10_000) + '}'.repeat(10_000), 'too_deep'],
  ['65,536 opening braces', '{'.repeat(MAX), 'too_deep'],
  ['deep list value', `{ a(x: ${'['.repeat(30_000)}${']'.repeat(30_000)}) }`, 'too_deep'],
  ['deep object value', `{ a(x: ${'{a:'.repeat(15_000)}1${'}'.repeat(15_000)}) }`, 'too_deep'],
  ['deep list type', `query($v: ${'['.repeat(30_000)}Int${']'.repeat(30_000)}) { a }`, 'too_deep'],
  ['deep nesting after an unterminated string', `{ a(x: "abc\n${'{a'.repeat(20_000)}`, 'too_deep'],
  ['depth 41 (within the raw nesting limit)', '{a'.repeat(41) + '}'.repeat(41), 'too_deep'],
  [
    'depth through a chain of fragments',
    fragmentChain(60, false).replace(/\{\.\.\.a(\d+)\}/g, '{x{...a$1}}'),
    'too_deep',
  ],
  [
    '50,000 aliases',
    `{ ${Array.from({ length: 50_000 }, (_, i) => `a${i}: caseById(id: ${i}) { id }`).join(' ')} }`,
    ['too_long', 'too_many_tokens', 'too_many_fields'],
  ],
  ['alias fan-out within 65,536 characters', `{${'a:b '.repeat(16_000)}}`, 'too_many_tokens'],
  ['alias fan-out within 20,000 tokens', `{${'a:b '.repeat(6_000)}}`, 'too_many_fields'],
  ['2,001 fields', `{${'a '.repeat(2_001)}}`, 'too_many_fields'],
  ['fragment bomb (F0..F20, each spreading the next twice)', fragmentBomb(21, false), 'too_many_fields'],
  ['nested fragment bomb', fragmentBomb(21, true), 'too_many_fields'],
  ['fragment cycle', '{ ...A } fragment A on Q { ...B } fragment B on Q { a { ...A } }', 'fragment_cycle'],
  ['fragment spreading itself', '{ ...A } fragment A on Q { a { ...A } }', 'fragment_cycle'],
  ['cycle in an unused fragment', '{ a } fragment A on Q { ...A }', 'fragment_cycle'],
  ['2,100-fragment cycle', fragmentChain(2_100, true), 'fragment_cycle'],
  ['unknown fragment', '{ ...Nope }', 'unknown_fragment'],
  ['unknown fragment inside a fragment', '{ ...A } fragment A on Q { b { ...Nope } }', 'unknown_fragment'],
  ['duplicate fragment', '{ ...A } fragment A on Q { a } fragment A on Q { b }', 'duplicate_fragment'],
];

const accepted: [string, string][] = [
  ['plain query', '{ cases(pagination: { cursor: null, limit: 10 }) { items { id caseNumber } nextCursor } }'],
  [
    'named query with variables',
    'query Hours($case: Int, $from: Int = 0) { hours(pagination: { cursor: null, limit: 200 }, between: { ' +
      'field: startTime, from: $from }, filters: { case: $case }) { items { id costPrice } nextCursor } }',
  ],
  [
    'fragments and inline fragments',
    'query { caseById(id: 1) { ...CaseFields ... on Case { economy { offer } } ... { ' +
      'updatedAt } } } fragment CaseFields on Case { id caseNumber customer { ' +
      '...Customer } } fragment Customer on Customer { name fullAddress }',
  ],
  [
    '@include and @skip',
    'query Q($a: Boolean!) { caseById(id: 1) { id description @include(if: $a) status @skip(if: $a) { text } } }',
  ],
  ['full introspection query', fullIntrospection],
  ['a field named mutation', '{ mutation subscription }'],
  ['strings containing braces and mutation text', '{ a(x: "} mutation { updateCase(id: 1) { id } } {{{{") }'],
  ['escaped quotes in a string', '{ a(x: "\\" } mutation { x } \\"") }'],
  [
    'block string with braces and mutation text',
    '{ a(x: """\n} mutation { updateCase(id: 1) { id } }\n\\""" still inside {{{ \n""") }',
  ],
  [
    'comments with braces and mutation text',
    '# mutation { updateCase(id: 1) { id } }\n{ a # }}}} mutation { x }\n b }',
  ],
  ['a description on the operation', '"Read one case" query { caseById(id: 1) { id } }'],
  ['unused fragment', '{ a } fragment A on Q { b }'],
  ['exactly 65,536 characters', padTo('{ a }', MAX)],
  ['comment padding to exactly 65,536 characters', commentPadded(MAX)],
  ['30,000 comments (comments are not tokens)', '{ a }\n' + '#\n'.repeat(30_000)],
  ['exactly 20,000 tokens', tokenDocument(20_000)],
  ['braces inside a 60,000-character string', `{ a(x: "${'{'.repeat(60_000)}") }`],
  ['depth 40', '{a'.repeat(40) + '}'.repeat(40)],
  ['2,000 fields', `{${'a '.repeat(2_000)}}`],
  ['2,100-fragment chain', fragmentChain(2_100, false)],
  ['fragment bomb of 10 levels (1,024 fields)', fragmentBomb(10, false)],
];

describe('checkDocument', () => {
  it('exports the spec limits as defaults', () => {
    expect(DEFAULT_DOCUMENT_LIMITS).toMatchObject({
      maxChars: 65_536,
      maxTokens: 20_000,
      maxDepth: 40,
      maxFields: 2_000,
    });
    expect(Object.isFrozen(DEFAULT_DOCUMENT_LIMITS)).toBe(true);
  });

  it.each(hostile)('refuses %s', (_name, source, expected) => {
    const result = checkDocument(source);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const reasons = Array.isArray(expected) ? expected : [expected];
    expect(reasons).toContain(result.reason);
    expect(result.detail.length).toBeGreaterThan(0);
    expect(result.detail.length).toBeLessThan(500);
  });

  it.each(accepted)('accepts %s', (_name, source) => {
    const result = checkDocument(source);
    if (!result.ok) expect.fail(`${result.reason}: ${result.detail}`);
    expect(result.operation.operation).toBe('query');
    expect(result.document.definitions).toContain(result.operation);
  });

  it('checks the length before parsing and counts UTF-16 code units', () => {
    expect(checkDocument(padTo('{ a(x: "ø😀") }', MAX)).ok).toBe(true);
    const r = checkDocument(padTo('{ a(x: "ø😀") }', MAX + 1));
    expect(r.ok || r.reason).toBe('too_long');
  });

  it('reports the first refusal in order: length, nesting, tokens, syntax, definitions, operations', () => {
    expect(reason('mutation ' + '{'.repeat(MAX))).toBe('too_long');
    expect(reason('mutation ' + '{a'.repeat(100))).toBe('too_deep');
    expect(reason(`mutation { ${'a '.repeat(20_000)}}`)).toBe('too_many_tokens');
    expect(reason('mutation { a } type X { a: Int }')).toBe('type_system_definition');
    expect(reason('mutation { a } query { b }')).toBe('several_operations');
  });

  it('honours partial limits and ignores unusable values', () => {
    expect(reason('{ a { b { c } } }', { maxDepth: 2 })).toBe('too_deep');
    expect(reason('{ a b c }', { maxFields: 2 })).toBe('too_many_fields');
    expect(reason('{ a b c }', { maxTokens: 4 })).toBe('too_many_tokens');
    expect(reason('{ a b c }', { maxChars: 8 })).toBe('too_long');
    expect(reason('{ a { b } }', { maxNesting: 1 })).toBe('too_deep');
    expect(checkDocument(`{${'a '.repeat(5_000)}}`, { maxFields: 5_000 }).ok).toBe(true);
    expect(checkDocument('{ a }', { maxDepth: undefined, maxFields: Number.NaN, maxChars: -1 }).ok).toBe(true);
  });

  it('never throws on inputs outside the type', () => {
    expect(reason(undefined as unknown as string)).toBe('syntax');
    expect(reason(42 as unknown as string)).toBe('syntax');
    expect(reason('{ a(x: "\u0000") }')).toBe('ok'); // a NUL inside a string is a valid source character
    expect(reason('\u0000')).toBe('syntax');
  });

  it('finishes the 65,536-character worst cases in a loop of 20 each', () => {
    // No timing assertion: the suite must simply finish well inside the test timeout.
    const worst: string[] = [
      '{'.repeat(MAX),
      padTo('{a'.repeat(32), MAX),
      '{a'.repeat(MAX / 4) + '}'.repeat(MAX / 4),
      `{${'a '.repeat(MAX / 2 - 1)}}`,
      tokenDocument(20_000).padEnd(MAX, ' '),
      `{${'a:b '.repeat(MAX / 4 - 1)}}`,
      `{${'a '.repeat(10_000)}}`.padEnd(MAX, ' '),
      commentPadded(MAX),
      '{ a }\n' + '#\n'.repeat((MAX - 6) / 2),
      `{ a(x: "${'{'.repeat(MAX - 12)}") }`,
      `{ a(x: """${'{ "" '.repeat((MAX - 16) / 5)}""") }`.padEnd(MAX, ' '),
      fragmentChain(2_100, false),
      fragmentChain(2_100, true),
      fragmentBomb(21, true).padEnd(MAX, ' '),
      `${'"'.repeat(MAX)}`,
      `${'#{\n'.repeat(MAX / 3)}`,
    ];
    for (const source of worst) expect(source.length).toBeLessThanOrEqual(MAX);
    for (let round = 0; round < 20; round++) {
      for (const source of worst) {
        const result = checkDocument(source);
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });
});

/** `n` aliases of a list field with the given page size, each selecting `inner` under `items`. */
function aliases(n: number, limit: number | null, inner = 'id'): string {
  const pagination = limit === null ? '' : `(pagination: { limit: ${limit} })`;
  return Array.from({ length: n }, (_, i) => `c${i}: cases${pagination} { items { ${inner} } }`).join(' ');
}

describe('checkDocument cost limit (list selections and estimated rows)', () => {
  const cost = (source: string, variables?: Record<string, unknown>) => {
    const r = checkDocument(source, undefined, variables);
    return r.ok
      ? { ok: true, ...r.cost }
      : r.reason === 'too_costly'
        ? { ok: false, ...r.cost }
        : { ok: false, reason: r.reason };
  };

  it('uses the limits declared in specs/cases.yaml as its defaults', () => {
    const limits = casesDescriptor.limits;
    expect(limits).toMatchObject({
      documentMaxListSelections: 20,
      documentMaxEstimatedRows: 10_000,
      documentAssumedPageSize: 200,
    });
    expect(DEFAULT_DOCUMENT_LIMITS).toMatchObject({
      maxListSelections: limits.documentMaxListSelections,
      maxEstimatedRows: limits.documentMaxEstimatedRows,
      assumedPageSize: limits.documentAssumedPageSize,
    });
  });

  it("refuses the issue's alias bomb: 660 aliases of cases(pagination: {limit: 200}) { items { id } }", () => {
    const bomb = `{ ${aliases(660, 200)} }`;
    expect(bomb.length).toBeLessThan(65_536);
    const r = checkDocument(bomb);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('too_costly');
    expect(r.reason === 'too_costly' && r.cost).toEqual({ listSelections: 660, estimatedRows: 132_000 });
    expect(r.detail.length).toBeLessThan(500);
  });

  it('counts every alias and every spread, at the boundary of 20 list selections', () => {
    expect(cost(`{ ${aliases(20, 200)} }`)).toEqual({ ok: true, listSelections: 20, estimatedRows: 4_000 });
    expect(cost(`{ ${aliases(21, 10)} }`)).toEqual({ ok: false, listSelections: 21, estimatedRows: 210 });
    // The same list field spread through a fragment many times counts each time.
    const spread =
      `{ ${Array.from({ length: 21 }, (_, i) => `f${i}: caseById(id: ${i}) { ...Hours }`).join(' ')} ` +
      '} fragment Hours on Case { hours(pagination: { limit: 1 }) { items { id } } }';
    expect(cost(spread)).toEqual({ ok: false, listSelections: 21, estimatedRows: 21 });
    // A fragment of list fields spread 7 times: 3 × 7 = 21.
    const fragment =
      `{ ${Array.from({ length: 7 }, (_, i) => `x${i}: caseById(id: ${i}) { ...Three }`).join(' ')} } ` +
      'fragment Three on Case { a: hours(pagination: { limit: 1 }) { items { id } } b: hours(pagination: { ' +
      'limit: 1 }) { items { id } } c: hours(pagination: { limit: 1 }) { items { id } } }';
    expect(cost(fragment)).toEqual({ ok: false, listSelections: 21, estimatedRows: 21 });
  });

  it('estimates rows as the product of page sizes along nested lists, summed, at the boundary of 10,000', () => {
    const nested = (outer: number, inner: number) =>
      `{ cases(pagination: { limit: ${outer} }) { items { id ` +
      `hours(pagination: { limit: ${inner} }) { items { id } } } } }`;
    expect(cost(nested(200, 49))).toEqual({ ok: true, listSelections: 2, estimatedRows: 200 + 200 * 49 });
    expect(cost(nested(200, 50))).toEqual({ ok: false, listSelections: 2, estimatedRows: 200 + 200 * 50 });
    // Through a fragment spread inside a list: the fragment's rows scale with the rows it is spread into.
    const viaFragment =
      '{ cases(pagination: { limit: 100 }) { items { ...H } } } fragment H on ' +
      'Case { hours(pagination: { limit: 100 }) { items { id } } }';
    expect(cost(viaFragment)).toEqual({ ok: false, listSelections: 2, estimatedRows: 100 + 100 * 100 });
    // A single page over the limit is refused too (the spec caps `limit` at 200 anyway).
    expect(cost('{ cases(pagination: { limit: 10001 }) { items { id } } }')).toEqual({
      ok: false,
      listSelections: 1,
      estimatedRows: 10_001,
    });
    // Depth 40 of nested lists saturates instead of overflowing.
    const deep = `{ ${'l: cases(pagination: { limit: 200 }) { items { '.repeat(13)}id${' } }'.repeat(13)} }`;
    const r = checkDocument(deep);
    expect(!r.ok && r.reason === 'too_costly' && Number.isSafeInteger(r.cost.estimatedRows)).toBe(true);
  });

  it('reads page sizes from variables and their defaults, and assumes 200 where none is given', () => {
    const byVariable =
      'query Q($n: Int!) { cases(pagination: { limit: $n }) { items { id ' +
      'hours(pagination: { limit: $n }) { items { id } } } } }';
    expect(cost(byVariable, { n: 10 })).toEqual({ ok: true, listSelections: 2, estimatedRows: 110 });
    expect(cost(byVariable, { n: 100 })).toEqual({ ok: false, listSelections: 2, estimatedRows: 10_100 });
    expect(cost(byVariable)).toEqual({ ok: false, listSelections: 2, estimatedRows: 200 + 200 * 200 });
    expect(cost(byVariable, { n: 'ten' })).toEqual({ ok: false, listSelections: 2, estimatedRows: 200 + 200 * 200 });
    const withDefault =
      'query Q($n: Int = 5) { cases(pagination: { limit: $n }) { items { id ' +
      'hours(pagination: { limit: $n }) { items { id } } } } }';
    expect(cost(withDefault)).toEqual({ ok: true, listSelections: 2, estimatedRows: 30 });
    expect(cost(withDefault, { n: 150 })).toEqual({ ok: false, listSelections: 2, estimatedRows: 150 + 150 * 150 });
    const wholeObject =
      'query Q($p: PaginationInput!) { cases(pagination: $p) { items { id hours(pagination: $p) { items { id } } } } }';
    expect(cost(wholeObject, { p: { cursor: null, limit: 20 } })).toEqual({
      ok: true,
      listSelections: 2,
      estimatedRows: 420,
    });
    expect(cost(wholeObject, { p: { cursor: null } })).toEqual({ ok: false, listSelections: 2, estimatedRows: 40_200 });
    // A collection without pagination (caseMaterials takes it optionally) is known by its `items`.
    expect(
      cost('{ cases(pagination: { limit: 50 }) { items { caseMaterials(type: MATERIAL) { items { id } } } } }'),
    ).toEqual({ ok: false, listSelections: 2, estimatedRows: 50 + 50 * 200 });
    expect(
      cost(
        '{ caseById(id: 1) { caseMaterials(type: MATERIAL) { ...Items } } } ' +
          'fragment Items on CaseMaterialConnection { items { id } }',
      ),
    ).toEqual({
      ok: true,
      listSelections: 1,
      estimatedRows: 200,
    });
    expect(cost(`{ ${aliases(21, null)} }`)).toEqual({ ok: false, listSelections: 21, estimatedRows: 4_200 });
  });

  it('lets ordinary documents through: the fixed tools, introspection, a dashboard of every collection', () => {
    expect(cost(fullIntrospection)).toEqual({ ok: true, listSelections: 0, estimatedRows: 0 });
    const dashboard = `{ cases(pagination: { limit: 200 }) { items { id caseNumber } nextCursor }
      hours(pagination: { limit: 200 }) { items { id costPrice } }
      salesInvoices(pagination: { limit: 200 }) { items { id amount } }
      caseMaterials(type: MATERIAL, pagination: { limit: 200 }) { items { id } }
      one: caseById(id: 1) { id hours(pagination: { limit: 200 }) { items { id } } }
      two: caseById(id: 2) { id hours(pagination: { limit: 200 }) { items { id } } } }`;
    expect(cost(dashboard)).toEqual({ ok: true, listSelections: 6, estimatedRows: 1_200 });
    expect(
      cost('{ cases(pagination: { limit: 50 }) { items { id hours(pagination: { limit: 10 }) { items { id } } } } }'),
    ).toEqual({ ok: true, listSelections: 2, estimatedRows: 550 });
  });

  it('checks the cost after every other refusal, and honours partial cost limits', () => {
    expect(reason(`mutation { ${aliases(660, 200)} }`)).toBe('not_a_query');
    expect(reason(`{ ${aliases(2, 200)} }`, { maxListSelections: 1 })).toBe('too_costly');
    expect(reason(`{ ${aliases(2, 200)} }`, { maxEstimatedRows: 399 })).toBe('too_costly');
    expect(reason(`{ ${aliases(2, null)} }`, { assumedPageSize: 10, maxEstimatedRows: 20 })).toBe('ok');
  });
});

function reason(source: string, limits?: Parameters<typeof checkDocument>[1]): DocumentRefusal | 'ok' {
  const result = checkDocument(source, limits);
  return result.ok ? 'ok' : result.reason;
}

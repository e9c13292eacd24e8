// Read-only guarantee of the case-management connector: the document check that runs before ANY
// upstream request (free `graphql_query` documents and the documents the fixed tools build).
// The upstream API key has full write access, so a document that could write must never leave
// the gateway. Spec ("Case-management connector", document check): the document must parse,
// contain exactly one operation, and that operation must be a `query` (fragment definitions
// allowed); mutations, subscriptions, several operations, type-system definitions/extensions,
// unparseable documents, documents over 65,536 characters and over 20,000 tokens are refused.
//
// Beyond the spec, pathological documents are refused without crashing or stalling the process:
// - bracket nesting is pre-scanned on the raw text (strings, block strings and comments skipped)
//   BEFORE parsing, because graphql-js parses selection sets, list/object values and list types
//   recursively and would overflow the JS stack on e.g. 10,000 nested `{`;
// - field depth and field count are computed AFTER expanding fragment spreads, per fragment with
//   memoisation in dependency order (a "fragment bomb" costs O(fragments) to count), with explicit
//   stacks instead of recursion;
// - fragment cycles, unknown and duplicate fragments are refused (the expansion needs them sound);
// - a cost limit bounds the work one document can ask of the upstream (an alias bomb of list
//   fields such as 660 × `cases(pagination: {limit: 200}) { items { id } }` is one call and one
//   cost unit, but 660 list resolvers upstream): list-field selections are counted after
//   expansion (every alias and every spread of a fragment counts), and the estimated rows are the
//   product of the page sizes along nested list fields, summed over the document. The check has
//   no schema (it runs before any upstream request), so a list field is recognised by the
//   upstream's collection convention: a field with a `pagination` argument, or one that selects
//   `items`. Its page size is `pagination.limit` when the document (or its variables) gives a
//   number, else `assumedPageSize` (the largest page the connector allows).
//
// How graphql 17.1 counts tokens (read from node_modules/graphql/language/parser.mjs, lexer.mjs):
// `Parser.advanceLexer` increments a counter for every token the lexer hands the parser except
// <EOF> (and the initial <SOF> is never advanced onto), and throws the syntax error
// "Document contains more than N tokens. Parsing aborted." as soon as the counter exceeds N.
// `Lexer.lookahead` skips COMMENT tokens, so comments do NOT count (they are bounded separately
// by the optional `maxComments`, which we leave unset: the 65,536-character cap bounds them).
// Commas, whitespace, line terminators and the BOM are ignored characters and never tokens; `...`
// is one token; a string or block string is one token whatever its length. The counting is lazy,
// so parsing stops at token N+1 and never lexes the rest. In 17.1 the option is named
// `maxLexicalTokens`; `maxTokens` is its deprecated alias (removed in v18), so we pass the new name
// (package.json requires ^17.1.0). The parsed DocumentNode also carries a non-enumerable
// `tokenCount`.
import { Kind, OperationTypeNode, parse, GraphQLError, valueFromASTUntyped } from 'graphql';
import type {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  OperationDefinitionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';

export type DocumentRefusal =
  | 'too_long' // over maxChars UTF-16 code units (checked before anything else)
  | 'too_deep' // raw bracket nesting over maxNesting, or field depth over maxDepth after expansion
  | 'too_many_tokens' // over maxTokens lexical tokens (graphql-js counter, comments excluded)
  | 'syntax' // does not parse (includes the empty document)
  | 'type_system_definition' // schema/type/directive definitions or extensions
  | 'no_operation' // no operation at all (for example only fragments)
  | 'several_operations' // more than one operation, whatever operationName would select
  | 'not_a_query' // the one operation is a mutation or a subscription
  | 'duplicate_fragment' // two fragment definitions with the same name
  | 'unknown_fragment' // a spread names a fragment that is not defined
  | 'fragment_cycle' // fragments spread each other in a cycle
  | 'too_many_fields' // over maxFields field selections after expanding fragment spreads
  | 'too_costly'; // over maxListSelections list-field selections or maxEstimatedRows estimated rows

/** What a document asks of the upstream: list-field selections and estimated rows (both saturate at `COST_CAP`). */
export type DocumentCost = { listSelections: number; estimatedRows: number };

export type DocumentCheck =
  | { ok: true; document: DocumentNode; operation: OperationDefinitionNode; cost: DocumentCost }
  | { ok: false; reason: Exclude<DocumentRefusal, 'too_costly'>; detail: string }
  | { ok: false; reason: 'too_costly'; detail: string; cost: DocumentCost };

export type DocumentLimits = {
  /** Spec: documents over 65,536 characters (UTF-16 code units) are refused. */
  maxChars: number;
  /** Spec: documents over 20,000 tokens are refused (graphql-js lexical tokens, comments excluded). */
  maxTokens: number;
  /** Deepest field nesting after expanding fragments (`{ a { b } }` has depth 2). */
  maxDepth: number;
  /** Field selections after expanding fragment spreads (every occurrence counts, aliases too). */
  maxFields: number;
  /** Deepest nesting of `{`, `[`, `(` in the raw text; bounds the parser's recursion. */
  maxNesting: number;
  /** Selections of list fields after expanding fragments (every alias and every spread counts). */
  maxListSelections: number;
  /** Estimated rows: per list field the product of the page sizes along its list ancestors, summed. */
  maxEstimatedRows: number;
  /** Page size assumed for a list field whose `pagination.limit` the document does not give as a number. */
  assumedPageSize: number;
};

// Limits: the full graphql 17 introspection query with every option (2,068 characters, 183 tokens)
// has field depth 15 after expansion (its `ofType` chain), raw bracket nesting 10 and 229 expanded
// fields; realistic case queries have depth ~15 and a few hundred fields. maxDepth 40 and maxFields
// 2,000 leave ample room for both; maxNesting 64 allows depth-40 selections plus nested argument
// objects and lists while keeping the parser's recursion a few hundred frames deep at most.
// The cost defaults are the connector's (specs/cases.yaml; docs/decisions/connector-cases.md,
// 'GraphQL documents have a cost limit: list selections and estimated rows'):
// 20 list selections, 10,000 estimated rows, 200 rows per page when the document does not say.
export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = Object.freeze({
  maxChars: 65_536,
  maxTokens: 20_000,
  maxDepth: 40,
  maxFields: 2_000,
  maxNesting: 64,
  maxListSelections: 20,
  maxEstimatedRows: 10_000,
  assumedPageSize: 200,
});

/** Costs saturate here, so a fragment bomb's product never overflows into Infinity or loses integers. */
export const COST_CAP = Number.MAX_SAFE_INTEGER;

function refuse(reason: Exclude<DocumentRefusal, 'too_costly'>, detail: string): DocumentCheck {
  return { ok: false, reason, detail };
}

/**
 * Checks that `source` is a read-only GraphQL document: exactly one `query` operation (fragments
 * allowed), within the size, token, nesting, depth, field and cost limits. `variables` (the values
 * sent with the document) resolve page sizes given as variables. Never throws on any input.
 */
export function checkDocument(
  source: string,
  limits?: Partial<DocumentLimits>,
  variables?: Readonly<Record<string, unknown>>,
): DocumentCheck {
  const l: DocumentLimits = { ...DEFAULT_DOCUMENT_LIMITS, ...definedOnly(limits) };
  if (typeof source !== 'string') return refuse('syntax', 'The document is not a string.');

  // 1. Size, before any parsing.
  if (source.length > l.maxChars) {
    return refuse('too_long', `The document has ${source.length} characters; at most ${l.maxChars} are allowed.`);
  }

  // 2. Raw bracket nesting, before parsing (graphql-js recurses per nesting level).
  const nesting = scanNesting(source, l.maxNesting);
  if (nesting > l.maxNesting) {
    return refuse('too_deep', `Brackets are nested more than ${l.maxNesting} levels deep.`);
  }

  // 3. Parse with the token limit.
  let document: DocumentNode;
  try {
    document = parse(source, { maxLexicalTokens: l.maxTokens, noLocation: true });
  } catch (error) {
    if (error instanceof GraphQLError) {
      if (/contains more than \d+ tokens/.test(error.message)) {
        return refuse('too_many_tokens', `The document has more than ${l.maxTokens} tokens.`);
      }
      const at = error.locations?.[0];
      return refuse('syntax', at ? `${error.message} (line ${at.line}, column ${at.column})` : error.message);
    }
    // Fail closed on anything unexpected (a RangeError would mean the nesting scan missed a case).
    if (error instanceof RangeError) return refuse('too_deep', 'The document is nested too deeply to parse.');
    return refuse('syntax', `The document could not be parsed: ${String(error)}`);
  }

  // 4. Definitions: only executable ones, exactly one operation, and it must be a query.
  const operations: OperationDefinitionNode[] = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations.push(definition);
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      const name = definition.name.value;
      if (fragments.has(name)) return refuse('duplicate_fragment', `Fragment "${name}" is defined more than once.`);
      fragments.set(name, definition);
    } else {
      return refuse('type_system_definition', `Type-system definitions are not allowed (found ${definition.kind}).`);
    }
  }
  if (operations.length === 0) return refuse('no_operation', 'The document contains no operation.');
  if (operations.length > 1) {
    return refuse(
      'several_operations',
      `The document contains ${operations.length} operations; exactly one query is allowed.`,
    );
  }
  const operation = operations[0]!;
  if (operation.operation !== OperationTypeNode.QUERY) {
    return refuse('not_a_query', `Only query operations are allowed (found ${operation.operation}).`);
  }

  // 5. Fragment graph: direct spreads per fragment, unknown names, cycles, dependency order.
  const spreads = new Map<string, string[]>();
  for (const [name, fragment] of fragments) {
    const names = directSpreads(fragment.selectionSet);
    for (const target of names) {
      if (!fragments.has(target)) return refuse('unknown_fragment', `Unknown fragment "${target}".`);
    }
    spreads.set(name, names);
  }
  const order = dependencyOrder(fragments, spreads);
  if (!order.ok) return refuse('fragment_cycle', `Fragment "${order.fragment}" spreads itself through a cycle.`);
  const operationSpreads = directSpreads(operation.selectionSet);
  for (const target of operationSpreads) {
    if (!fragments.has(target)) return refuse('unknown_fragment', `Unknown fragment "${target}".`);
  }

  // 6. Depth and field count after expansion, memoised per fragment (dependencies first).
  const cap = l.maxFields + 1; // saturate: a fragment bomb's true count is irrelevant past the cap
  const measured = new Map<string, Measure>();
  for (const name of order.names) {
    measured.set(name, measure(fragments.get(name)!.selectionSet, measured, cap));
  }
  const total = measure(operation.selectionSet, measured, cap);
  if (total.depth > l.maxDepth) {
    return refuse(
      'too_deep',
      `Fields are nested ${total.depth} levels deep after expanding fragments; at most ${l.maxDepth} are allowed.`,
    );
  }
  if (total.fields > l.maxFields) {
    return refuse('too_many_fields', `The query selects more than ${l.maxFields} fields after expanding fragments.`);
  }

  // 7. Cost: list-field selections and estimated rows after expansion (fragments memoised the same way).
  const pageSize = pageSizeReader(operation, variables, l.assumedPageSize);
  const costs = new Map<string, FragmentCost>();
  for (const name of order.names) costs.set(name, cost(fragments.get(name)!.selectionSet, costs, pageSize));
  const { listSelections, rows: estimatedRows } = cost(operation.selectionSet, costs, pageSize);
  if (listSelections > l.maxListSelections || estimatedRows > l.maxEstimatedRows) {
    return {
      ok: false,
      reason: 'too_costly',
      detail:
        `The query selects ${listSelections} list fields (at most ${l.maxListSelections}) ` +
        `with an estimated ${estimatedRows} rows (at most ${l.maxEstimatedRows}).`,
      cost: { listSelections, estimatedRows },
    };
  }
  return { ok: true, document, operation, cost: { listSelections, estimatedRows } };
}

function definedOnly(limits: Partial<DocumentLimits> | undefined): Partial<DocumentLimits> {
  const out: Partial<DocumentLimits> = {};
  if (!limits) return out;
  for (const key of Object.keys(DEFAULT_DOCUMENT_LIMITS) as (keyof DocumentLimits)[]) {
    const value = limits[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}

/**
 * Deepest nesting of `{`, `[` and `(` in the raw text, ignoring strings, block strings and
 * comments; stops early once `limit` is exceeded. Lexing follows the GraphQL spec: a comment runs
 * to `\n` or `\r`; a block string ends at the first `"""` not escaped as `\"""`; a string ends at
 * an unescaped `"`. An unterminated string ends at a line terminator here (graphql-js would fail
 * there), so brackets after it are still counted: the scan never sees less nesting than the parser.
 * Closers never take the count below zero.
 */
function scanNesting(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x0a || d === 0x0d) break;
        i++;
      }
    } else if (c === 0x22 /* " */) {
      if (text.charCodeAt(i + 1) === 0x22 && text.charCodeAt(i + 2) === 0x22) {
        i += 3;
        for (;;) {
          if (i >= n) break;
          const d = text.charCodeAt(i);
          if (d === 0x5c /* \ */ && text.startsWith('"""', i + 1)) {
            i += 4;
          } else if (d === 0x22 && text.charCodeAt(i + 1) === 0x22 && text.charCodeAt(i + 2) === 0x22) {
            i += 3;
            break;
          } else {
            i++;
          }
        }
      } else {
        i++;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (d === 0x5c) {
            i += 2;
          } else if (d === 0x22) {
            i++;
            break;
          } else if (d === 0x0a || d === 0x0d) {
            break;
          } else {
            i++;
          }
        }
      }
    } else {
      if (c === 0x7b /* { */ || c === 0x5b /* [ */ || c === 0x28 /* ( */) {
        depth++;
        if (depth > max) {
          max = depth;
          if (max > limit) return max;
        }
      } else if ((c === 0x7d /* } */ || c === 0x5d /* ] */ || c === 0x29) /* ) */ && depth > 0) {
        depth--;
      }
      i++;
    }
  }
  return max;
}

/** Names of the fragments spread directly in a selection set (inline fragments walked through). */
function directSpreads(root: SelectionSetNode): string[] {
  const names = new Set<string>();
  const stack: SelectionSetNode[] = [root];
  for (let set = stack.pop(); set; set = stack.pop()) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) names.add(selection.name.value);
      else if (selection.selectionSet) stack.push(selection.selectionSet);
    }
  }
  return [...names];
}

/** Fragment names with every fragment after the fragments it spreads, or a fragment on a cycle. */
function dependencyOrder(
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  spreads: ReadonlyMap<string, readonly string[]>,
): { ok: true; names: string[] } | { ok: false; fragment: string } {
  // Iterative depth-first post-order: 1 = on the current path, 2 = done.
  const state = new Map<string, 1 | 2>();
  const names: string[] = [];
  for (const start of fragments.keys()) {
    if (state.has(start)) continue;
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = spreads.get(top.name) ?? [];
      if (top.next < targets.length) {
        const target = targets[top.next++]!;
        const s = state.get(target);
        if (s === 1) return { ok: false, fragment: target };
        if (s === undefined) {
          state.set(target, 1);
          stack.push({ name: target, next: 0 });
        }
      } else {
        state.set(top.name, 2);
        names.push(top.name);
        stack.pop();
      }
    }
  }
  return { ok: true, names };
}

type Measure = { depth: number; fields: number };

/**
 * Field depth and field count of a selection set with fragment spreads expanded, using the
 * already measured fragments (`measured` holds every fragment this set can spread). Counts
 * saturate at `cap`. Inline fragments and spreads add no depth of their own.
 */
function measure(root: SelectionSetNode, measured: ReadonlyMap<string, Measure>, cap: number): Measure {
  let depth = 0;
  let fields = 0;
  const stack: { set: SelectionSetNode; depth: number }[] = [{ set: root, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    for (const selection of item.set.selections) {
      if (selection.kind === Kind.FIELD) {
        const d = item.depth + 1;
        if (d > depth) depth = d;
        fields = Math.min(cap, fields + 1);
        if (selection.selectionSet) stack.push({ set: selection.selectionSet, depth: d });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        stack.push({ set: selection.selectionSet, depth: item.depth });
      } else {
        const m = measured.get(selection.name.value);
        if (!m) continue; // unreachable: unknown fragments were refused before measuring
        if (item.depth + m.depth > depth) depth = item.depth + m.depth;
        fields = Math.min(cap, fields + m.fields);
      }
    }
  }
  return { depth, fields };
}

/** Cost of a selection set relative to one row of its parent; `selectsItems`: it selects `items` at its own level. */
type FragmentCost = { listSelections: number; rows: number; selectsItems: boolean };

const addCapped = (a: number, b: number) => Math.min(COST_CAP, a + b);
const mulCapped = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(COST_CAP, a * b));

/**
 * List-field selections and rows of a selection set with fragment spreads expanded, for one row of
 * its parent: a list field adds one selection and `pageSize` rows per parent row, and multiplies
 * the rows below it by its page size. Fragment costs are linear in the parent's rows, so a spread
 * adds the fragment's cost scaled by the rows it is spread into. Explicit stack, no recursion.
 */
function cost(
  root: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentCost>,
  pageSize: (field: FieldNode) => number,
): FragmentCost {
  let listSelections = 0;
  let rows = 0;
  const selectsItems = selectsItemsDirectly(root, fragments);
  const stack: { set: SelectionSetNode; multiplier: number }[] = [{ set: root, multiplier: 1 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    for (const selection of item.set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.selectionSet) continue;
        let multiplier = item.multiplier;
        if (isListField(selection, fragments)) {
          listSelections = addCapped(listSelections, 1);
          multiplier = mulCapped(multiplier, pageSize(selection));
          rows = addCapped(rows, multiplier);
        }
        stack.push({ set: selection.selectionSet, multiplier });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        stack.push({ set: selection.selectionSet, multiplier: item.multiplier });
      } else {
        const c = fragments.get(selection.name.value);
        if (!c) continue; // unreachable: unknown fragments were refused before measuring
        listSelections = addCapped(listSelections, c.listSelections);
        rows = addCapped(rows, mulCapped(item.multiplier, c.rows));
      }
    }
  }
  return { listSelections, rows, selectsItems };
}

/** A collection by the upstream's convention: it takes `pagination`, or it selects `items`. */
function isListField(field: FieldNode, fragments: ReadonlyMap<string, FragmentCost>): boolean {
  if (field.arguments?.some((a) => a.name.value === 'pagination')) return true;
  return field.selectionSet !== undefined && selectsItemsDirectly(field.selectionSet, fragments);
}

/** Whether a selection set selects a field named `items` at its own level (through inline fragments and spreads). */
function selectsItemsDirectly(root: SelectionSetNode, fragments: ReadonlyMap<string, FragmentCost>): boolean {
  const stack: SelectionSetNode[] = [root];
  for (let set = stack.pop(); set; set = stack.pop()) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === 'items') return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        stack.push(selection.selectionSet);
      } else if (fragments.get(selection.name.value)?.selectsItems) {
        return true;
      }
    }
  }
  return false;
}

/**
 * The page size of a list field: `pagination: { limit: <int> }`, where the pagination object or
 * the limit may be a variable (its value from `variables`, else the variable's default); anything
 * that is not a non-negative number is `assumed`.
 */
function pageSizeReader(
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  assumed: number,
): (field: FieldNode) => number {
  const values = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (variables && Object.hasOwn(variables, name)) values.set(name, variables[name]);
    else if (definition.defaultValue) values.set(name, valueFromASTUntyped(definition.defaultValue));
  }
  const asSize = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.ceil(value) : assumed;
  const resolve = (node: ValueNode): unknown =>
    node.kind === Kind.VARIABLE ? values.get(node.name.value) : valueFromASTUntyped(node);
  return (field) => {
    const pagination = field.arguments?.find((a) => a.name.value === 'pagination')?.value;
    if (!pagination) return assumed;
    if (pagination.kind === Kind.OBJECT) {
      const limit = pagination.fields.find((f) => f.name.value === 'limit')?.value;
      return limit ? asSize(resolve(limit)) : assumed;
    }
    const value = resolve(pagination);
    return value !== null && typeof value === 'object' ? asSize((value as Record<string, unknown>).limit) : assumed;
  };
}

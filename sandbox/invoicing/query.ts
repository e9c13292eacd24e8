// The e-conomic collection query grammar (../shared/upstreams/invoicing.md §2 "Filter", "Sort"):
// `prop$op:value` with `$eq: $ne: $gt: $gte: $lt: $lte: $like: $in: $nin:`, joined by `$and:` /
// `$or:` (`$and:` binds tighter), grouped with `( )`; `$like:` takes `*` wildcards (none =
// contains); strings compare case-insensitively; `$in:`/`$nin:` take `[2,5,7]` (numeric only, at
// most 200 items); the value `$null:` is a missing value; escapes `$$ $( $) $* $, $[ $]`. Sort:
// `name`, `-name`, `-name,age`, `~name` (alphabetical even for numbers).
import type { Json, Row } from './data.ts';

export const FILTER_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'in', 'nin'] as const;
type Operator = (typeof FILTER_OPERATORS)[number];
export const MAX_IN_ITEMS = 200;

/** A query-string problem: answered with the string-array 400 form. */
export class QueryError extends Error {
  readonly kind: 'filter' | 'sort';
  readonly allowed: readonly string[];
  constructor(kind: 'filter' | 'sort', message: string, allowed: readonly string[]) {
    super(message);
    this.kind = kind;
    this.allowed = allowed;
  }
}

type Value =
  | { readonly kind: 'null' }
  | { readonly kind: 'text'; readonly text: string; readonly literalStars: readonly number[] }
  | { readonly kind: 'list'; readonly items: readonly number[] };
type Node =
  | { readonly op: 'and' | 'or'; readonly left: Node; readonly right: Node }
  | { readonly op: 'cmp'; readonly prop: string; readonly operator: Operator; readonly value: Value };

const ESCAPABLE = '$()*,[]';

/** Parses a filter; every property must be in `filterable`. */
export function parseFilter(source: string, filterable: readonly string[]): Node {
  let i = 0;
  const fail = (message: string): never => {
    throw new QueryError('filter', message, filterable);
  };
  const startsJoin = (): 'and' | 'or' | null =>
    source.startsWith('$and:', i) ? 'and' : source.startsWith('$or:', i) ? 'or' : null;

  const parseValue = (operator: Operator): Value => {
    if (source.startsWith('$null:', i)) {
      i += 6;
      if (operator !== 'eq' && operator !== 'ne') fail(`The value $null: is only allowed with $eq: and $ne:.`);
      return { kind: 'null' };
    }
    let text = '';
    const literalStars: number[] = [];
    while (i < source.length) {
      const c = source[i]!;
      if (c === '$') {
        if (startsJoin()) break;
        const next = source[i + 1];
        if (next !== undefined && ESCAPABLE.includes(next)) {
          if (next === '*') literalStars.push(text.length);
          text += next;
          i += 2;
          continue;
        }
        fail(`Unexpected '$' at position ${i}.`);
      }
      if (c === ')') break;
      if (c === '(' || c === '[' || c === ']' || c === ',') {
        if (operator === 'in' || operator === 'nin') {
          text += c;
          i++;
          continue;
        }
        // The docs define `$( $[ $] $,` as escapes: the bare characters are syntax, not text.
        fail(`Unescaped '${c}' at position ${i}.`);
      }
      text += c;
      i++;
    }
    if (operator === 'in' || operator === 'nin') {
      const m = /^\[(.*)\]$/.exec(text);
      if (!m) fail(`$${operator}: takes a list like [2,5,7].`);
      const parts = m![1]!.split(',');
      if (parts.length > MAX_IN_ITEMS) fail(`$${operator}: takes at most ${MAX_IN_ITEMS} items.`);
      const items = parts.map((p) => {
        const t = p.trim();
        if (!/^-?\d+(\.\d+)?$/.test(t)) fail(`$${operator}: takes numeric values only.`);
        return Number(t);
      });
      return { kind: 'list', items };
    }
    return { kind: 'text', text, literalStars };
  };

  const parseTerm = (): Node => {
    if (source[i] === '(') {
      i++;
      const inner = parseOr();
      if (source[i] !== ')') fail(`Missing ')' at position ${i}.`);
      i++;
      return inner;
    }
    const m = /^([A-Za-z][A-Za-z0-9.]*)\$([a-z]+):/.exec(source.slice(i));
    if (!m) fail(`Expected 'property$operator:value' at position ${i}.`);
    const prop = m![1]!;
    const operator = m![2]! as Operator;
    if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) fail(`Unknown operator '$${operator}:'.`);
    if (!filterable.some((f) => f.toLowerCase() === prop.toLowerCase()))
      fail(`Filtering is not allowed on property '${prop}'.`);
    i += m![0].length;
    return {
      op: 'cmp',
      prop: filterable.find((f) => f.toLowerCase() === prop.toLowerCase())!,
      operator,
      value: parseValue(operator),
    };
  };
  const parseAnd = (): Node => {
    let left = parseTerm();
    while (startsJoin() === 'and') {
      i += 5;
      left = { op: 'and', left, right: parseTerm() };
    }
    return left;
  };
  function parseOr(): Node {
    let left = parseAnd();
    while (startsJoin() === 'or') {
      i += 4;
      left = { op: 'or', left, right: parseAnd() };
    }
    return left;
  }
  if (source === '') fail('The filter is empty.');
  const tree = parseOr();
  if (i !== source.length) fail(`Unexpected '${source[i]}' at position ${i}.`);
  return tree;
}

export function valueAt(row: Row, path: string): Json | undefined {
  let cur: Json | undefined = row;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Row)[key];
  }
  return cur;
}

/** Booleans are omitted when false, so a missing boolean field reads as false. */
function compare(actual: Json | undefined, text: string, booleanField: boolean): number | null {
  const a = actual === undefined && booleanField ? false : actual;
  if (a === undefined || a === null) return null;
  if (typeof a === 'number') {
    const n = Number(text);
    return Number.isNaN(n) || text.trim() === '' ? null : Math.sign(a - n);
  }
  if (typeof a === 'boolean') {
    const t = text.toLowerCase();
    if (t !== 'true' && t !== 'false') return null;
    return a === (t === 'true') ? 0 : a ? 1 : -1;
  }
  if (typeof a === 'string') {
    const x = a.toLowerCase();
    const y = text.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return null;
}

function like(actual: Json | undefined, value: { text: string; literalStars: readonly number[] }): boolean {
  if (actual === undefined || actual === null || typeof actual === 'object') return false;
  const subject = String(actual).toLowerCase();
  const pattern = value.text.toLowerCase();
  let hasWildcard = false;
  let regex = '';
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k]!;
    if (c === '*' && !value.literalStars.includes(k)) {
      hasWildcard = true;
      regex += '.*';
    } else regex += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return hasWildcard ? new RegExp(`^${regex}$`, 's').test(subject) : subject.includes(pattern);
}

export function matches(node: Node, row: Row, booleanFields: ReadonlySet<string>): boolean {
  if (node.op !== 'cmp')
    return node.op === 'and'
      ? matches(node.left, row, booleanFields) && matches(node.right, row, booleanFields)
      : matches(node.left, row, booleanFields) || matches(node.right, row, booleanFields);
  const actual = valueAt(row, node.prop);
  const v = node.value;
  const missing = actual === undefined || actual === null;
  if (v.kind === 'null') return node.operator === 'eq' ? missing : !missing;
  if (v.kind === 'list') {
    const inList = typeof actual === 'number' && v.items.includes(actual);
    return node.operator === 'in' ? inList : !inList;
  }
  if (node.operator === 'like') return like(actual, v);
  const c = compare(actual, v.text, booleanFields.has(node.prop));
  switch (node.operator) {
    case 'eq':
      return c === 0;
    case 'ne':
      return c !== 0;
    case 'gt':
      return c !== null && c > 0;
    case 'gte':
      return c !== null && c >= 0;
    case 'lt':
      return c !== null && c < 0;
    default:
      return c !== null && c <= 0;
  }
}

export interface SortKey {
  readonly prop: string;
  readonly descending: boolean;
  readonly alphabetical: boolean;
}

export function parseSort(source: string, sortable: readonly string[]): SortKey[] {
  return source.split(',').map((raw) => {
    let s = raw.trim();
    let descending = false;
    let alphabetical = false;
    for (;;) {
      if (s.startsWith('-')) descending = true;
      else if (s.startsWith('~')) alphabetical = true;
      else break;
      s = s.slice(1);
    }
    const prop = sortable.find((f) => f.toLowerCase() === s.toLowerCase());
    if (!prop) throw new QueryError('sort', `Sorting is not allowed on property '${s}'.`, sortable);
    return { prop, descending, alphabetical };
  });
}

export function sortRows(rows: Row[], keys: readonly SortKey[]): Row[] {
  const cmp = (a: Json | undefined, b: Json | undefined, alphabetical: boolean): number => {
    if (a === undefined || a === null) return b === undefined || b === null ? 0 : -1;
    if (b === undefined || b === null) return 1;
    if (typeof a === 'number' && typeof b === 'number' && !alphabetical) return a - b;
    const x = String(a).toLowerCase();
    const y = String(b).toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return [...rows].sort((p, q) => {
    for (const k of keys) {
      const c = cmp(valueAt(p, k.prop), valueAt(q, k.prop), k.alphabetical);
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  });
}

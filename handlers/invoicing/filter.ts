// The `filter` and `sort` arguments of the list tools, checked against the upstream grammar
// (upstreams/invoicing.md §2 "Filter", "Sort") before anything is sent. A filter is parsed into
// clauses `field$op:value` joined with `$and:`/`$or:` and grouped with parentheses, and written back
// with every value character the grammar treats as syntax escaped with `$` (`$$ $( $) $* $, $[ $]`):
// a value can never open a group, end one, start another clause or add a list item, and the whole
// expression is then percent-encoded as one query value, so it cannot add query parameters either.
// Anything that is not the grammar is refused with `invalid_filter` (not metered, nothing sent).
import type { InvoicingContextWith } from '#generated/invoicing/contract.ts';

export type FilterContext = InvoicingContextWith<'invalid_filter', { readonly maxFilterInItems: number }>;
export type SortContext = InvoicingContextWith<'invalid_sort'>;

const OPERATORS = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'in', 'nin']);
/** Characters a value must escape; `*` is a wildcard only after `$like:`. */
const ESCAPABLE = new Set(['$', '(', ')', '*', ',', '[', ']']);
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;
const NULL_VALUE = '$null:';

/** Control characters shown as `?`, so a refusal text stays on one line. */
function printable(text: string): string {
  let out = '';
  for (const character of text) {
    const code = character.charCodeAt(0);
    out += code < 0x20 || code === 0x7f ? '?' : character;
  }
  return out;
}

class FilterSyntaxError extends Error {
  readonly position: number;
  constructor(position: number) {
    super('filter syntax');
    this.position = position;
  }
}

/** The filter as sent upstream (values escaped), or the spec's refusal. */
export function checkedFilter(ctx: FilterContext, filter: string | undefined): string | undefined {
  if (filter === undefined) return undefined;
  try {
    return normalizeFilter(filter, ctx.limits.maxFilterInItems);
  } catch (error) {
    if (!(error instanceof FilterSyntaxError)) throw error;
    const at = Math.min(error.position, filter.length);
    const near = printable(filter.slice(at, at + 24) || filter.slice(Math.max(0, at - 24)));
    return ctx.refuseArguments('invalid_filter', { position: at + 1, near, max_in: ctx.limits.maxFilterInItems });
  }
}

/** The sort as sent upstream (`name`, `-name`, `~name`, comma-separated), or the spec's refusal. */
export function checkedSort(ctx: SortContext, sort: string | undefined): string | undefined {
  if (sort === undefined) return undefined;
  const keys = sort.split(',');
  if (keys.every((key) => FIELD.test(key.replace(/^[-~]/, '')))) return sort;
  return ctx.refuseArguments('invalid_sort', { sort: printable(sort.slice(0, 200)) });
}

/** The `[2,5,7]` list of an `$in`/`$nin` clause starting at `i`: its items and the index after `]`. */
function numberList(input: string, i: number, maxInItems: number): { items: string[]; next: number } {
  if (input[i] !== '[') throw new FilterSyntaxError(i);
  const end = input.indexOf(']', i);
  if (end < 0) throw new FilterSyntaxError(i);
  const raw = input.slice(i + 1, end).split(',');
  if (raw.length > maxInItems) throw new FilterSyntaxError(i);
  // Spaces around an item (`[2, 5]`) are dropped: the documented form is `[2,5,7]`.
  const items = raw.map((item) => item.trim());
  let at = i + 1;
  for (const [k, item] of items.entries()) {
    if (!NUMBER.test(item)) throw new FilterSyntaxError(at);
    at += raw[k]!.length + 1;
  }
  return { items, next: end + 1 };
}

/** Parses and re-serialises a filter expression; throws FilterSyntaxError with the offending position. */
export function normalizeFilter(input: string, maxInItems: number): string {
  let i = 0;
  let depth = 0;
  let out = '';

  const expression = (): void => {
    term();
    for (;;) {
      if (input.startsWith('$and:', i)) {
        out += '$and:';
        i += 5;
      } else if (input.startsWith('$or:', i)) {
        out += '$or:';
        i += 4;
      } else return;
      term();
    }
  };

  const term = (): void => {
    if (input[i] === '(') {
      out += '(';
      i += 1;
      depth += 1;
      expression();
      if (input[i] !== ')') throw new FilterSyntaxError(i);
      out += ')';
      i += 1;
      depth -= 1;
      return;
    }
    clause();
  };

  const clause = (): void => {
    const dollar = input.indexOf('$', i);
    if (dollar <= i) throw new FilterSyntaxError(i);
    const field = input.slice(i, dollar);
    if (!FIELD.test(field)) throw new FilterSyntaxError(i);
    const colon = input.indexOf(':', dollar);
    const operator = colon > dollar ? input.slice(dollar + 1, colon) : '';
    if (!OPERATORS.has(operator)) throw new FilterSyntaxError(dollar);
    out += `${field}$${operator}:`;
    i = colon + 1;
    if (operator === 'in' || operator === 'nin') list();
    else value(operator === 'like');
  };

  const list = (): void => {
    const end = numberList(input, i, maxInItems);
    out += `[${end.items.join(',')}]`;
    i = end.next;
  };

  /** A scalar value up to `$and:`, `$or:`, the `)` closing a group, or the end. */
  const value = (wildcards: boolean): void => {
    const start = i;
    if (input.startsWith(NULL_VALUE, i) && ends(i + NULL_VALUE.length)) {
      out += NULL_VALUE;
      i += NULL_VALUE.length;
      return;
    }
    let text = '';
    /** `(` written inside this value and not yet closed: its `)` is text, not the group's end. */
    let open = 0;
    while (i < input.length) {
      const character = input[i]!;
      const code = character.charCodeAt(0);
      if (code < 0x20 || code === 0x7f) throw new FilterSyntaxError(i);
      if (character === '$') {
        if (input.startsWith('$and:', i) || input.startsWith('$or:', i)) break;
        const next = input[i + 1];
        // An escape the grammar defines is kept; any other `$` is a literal dollar.
        if (next !== undefined && ESCAPABLE.has(next)) {
          text += `$${next}`;
          i += 2;
        } else {
          text += '$$';
          i += 1;
        }
        continue;
      }
      if (character === ')') {
        if (open === 0 && depth > 0) break;
        if (open > 0) open -= 1;
        text += '$)';
        i += 1;
        continue;
      }
      if (character === '(') open += 1;
      if (character === '*' && wildcards) text += '*';
      else text += ESCAPABLE.has(character) ? `$${character}` : character;
      i += 1;
    }
    if (text === '') throw new FilterSyntaxError(start);
    out += text;
  };

  const ends = (at: number): boolean =>
    at === input.length ||
    input.startsWith('$and:', at) ||
    input.startsWith('$or:', at) ||
    (depth > 0 && input[at] === ')');

  if (input.trim() === '') throw new FilterSyntaxError(0);
  expression();
  if (i !== input.length) throw new FilterSyntaxError(i);
  return out;
}

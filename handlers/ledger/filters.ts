// QueryFilter entries of the ledger tools (upstreams/ledger.md §2, §3 #4, #5, #10). Every refusal
// happens before the login, so a refused argument costs no upstream call.
import type { LedgerContextWith } from '#generated/ledger/contract.ts';
import type { QueryFilter } from './client.ts';

/** Filters refuse arguments with the generic text, which every ledger tool lists. */
type FilterContext = LedgerContextWith<'generic'>;

/** `;` (list) and `..` (range) change what a FilterValue means. */
function hasOperators(value: string): boolean {
  return value.includes(';') || value.includes('..');
}

/** `*` (any run) and `?` (one character) make a FilterValue a pattern; the syntax has no escape. */
function hasWildcards(value: string): boolean {
  return value.includes('*') || value.includes('?');
}

/**
 * An exact match (`account`, `cvr`, `item`, `group`): a value with `;`, `..`, `*` or `?` would be
 * read as a list, range or pattern, so it is refused (the upstream syntax has no escape).
 */
export function exact(ctx: FilterContext, property: string, value: string | undefined): QueryFilter | undefined {
  if (value === undefined) return undefined;
  if (hasOperators(value) || hasWildcards(value)) ctx.refuseArguments('generic');
  return { PropertyName: property, FilterValue: value };
}

/** A name search: `x` becomes `*x*` unless the caller placed `*` themselves; `;`/`..` refused. */
export function search(ctx: FilterContext, property: string, value: string | undefined): QueryFilter | undefined {
  if (value === undefined) return undefined;
  if (hasOperators(value)) ctx.refuseArguments('generic');
  return { PropertyName: property, FilterValue: value.includes('*') ? value : `*${value}*` };
}

/** Several exact values as the list syntax `a;b;c` (blanks dropped); `..`, `*` and `?` are refused. */
export function list(ctx: FilterContext, property: string, value: string | undefined): QueryFilter | undefined {
  if (value === undefined) return undefined;
  if (value.includes('..') || hasWildcards(value)) ctx.refuseArguments('generic');
  const values = value
    .split(';')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (values.length === 0) ctx.refuseArguments('generic');
  return { PropertyName: property, FilterValue: values.join(';') };
}

export const OPEN_FROM = '01-01-1900';
export const OPEN_TO = '31-12-2099';

/** `YYYY-MM-DD` (already validated) as the documented filter literal `dd-MM-yyyy`. */
export function ledgerDate(date: string): string {
  return `${date.slice(8, 10)}-${date.slice(5, 7)}-${date.slice(0, 4)}`;
}

/**
 * The inclusive range `dd-MM-yyyy..dd-MM-yyyy` on a date property; a missing bound is open
 * (1900-01-01 / 2099-12-31). A range that ends before it starts is refused.
 */
export function dateRange(
  ctx: FilterContext,
  property: string,
  from: string | undefined,
  to: string | undefined,
): QueryFilter | undefined {
  if (from === undefined && to === undefined) return undefined;
  if (from !== undefined && to !== undefined && from > to) ctx.refuseArguments('generic');
  return {
    PropertyName: property,
    FilterValue: `${from === undefined ? OPEN_FROM : ledgerDate(from)}..${to === undefined ? OPEN_TO : ledgerDate(to)}`,
  };
}

/** A sort entry: `OrderByDescending: true`, or `OrderBy: true` for ascending. */
export function sortEntry(property: string, descending: boolean): QueryFilter {
  return descending ? { PropertyName: property, OrderByDescending: true } : { PropertyName: property, OrderBy: true };
}

/** A separate paging entry; `Skip` only when the caller paged (`Take: 0` would mean "all"). */
export function pageEntry(take: number, skip: number | undefined): QueryFilter {
  return skip === undefined ? { Take: take } : { Skip: skip, Take: take };
}

/** The entries that apply, in order. */
export function body(...entries: ReadonlyArray<QueryFilter | undefined>): QueryFilter[] {
  return entries.filter((e): e is QueryFilter => e !== undefined);
}

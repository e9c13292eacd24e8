// Paging, ordering and ranges of the case-management sandbox's GraphQL resolvers, with the context
// they run in and the Laravel-style validation error they answer with (schema.ts holds the schema,
// the resolvers and executeCasesQuery).
import { GraphQLError } from 'graphql';
import type { CaseRecord, CompanyData, HourRecord, InvoiceRecord, MaterialRecord, ProductRecord } from './data.ts';

export const INVALID_CURSOR_MESSAGE = 'The cursor is malformed.';
export const FOREIGN_CURSOR_MESSAGE = 'The cursor does not match the requested orderBy.';

/** Resolver-level switches (a subset of the server switches). */
export interface CasesResolverSwitches {
  /** Largest accepted `pagination.limit` (default 200). */
  limitCap: number;
  /** Over the cap: a validation error, or silently use the cap. */
  overCap: 'error' | 'clamp';
  /** Whether `between.to` includes rows exactly at `to`. */
  betweenTo: 'inclusive' | 'exclusive';
  /** `Type.field` that fails with an SQLSTATE error (null: none), e.g. "Query.salesInvoices". */
  sqlErrorField: string | null;
}

export interface CasesContext {
  company: CompanyData;
  switches: CasesResolverSwitches;
  /** Every executed mutation field is appended here. */
  mutationLog: string[];
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** A Laravel-style validation error: message "validation", messages per argument path. */
export function validationError(fields: Record<string, string[]>): GraphQLError {
  return new GraphQLError('validation', { extensions: { category: 'validation', validation: fields } });
}

// ---------------------------------------------------------------------------------------------
// Paging, ordering, ranges
// ---------------------------------------------------------------------------------------------

type SortValue = number | string;

interface SortKeySpec<T> {
  type: 'number' | 'string';
  get: (item: T) => SortValue;
}

interface Collection<T> {
  keys: Record<string, SortKeySpec<T>>;
  defaultOrder: OrderKey[];
}

interface OrderKey {
  field: string;
  direction: 'ASC' | 'DESC';
}

export interface PaginationArg {
  cursor?: string | null;
  limit: number;
}

interface OrderByArg {
  field: string;
  direction: 'ASC' | 'DESC';
}

/** `orderBy` as a resolver receives it: a list, or one object where the schema declares one. */
export type OrderByValue = ReadonlyArray<OrderByArg | null> | OrderByArg | null | undefined;

export interface BetweenArg {
  field: string;
  from?: number | null;
  to?: number | null;
}

export interface SearchArg {
  query?: string | null;
  fields: ReadonlyArray<string | null>;
}

export interface Connection<T> {
  items: T[];
  nextCursor: string | null;
  previousCursor: string | null;
}

const num = <T>(get: (item: T) => number): SortKeySpec<T> => ({ type: 'number', get });
const idKey = num<{ id: number }>((item) => item.id);

export const CASES: Collection<CaseRecord> = {
  keys: {
    updatedAt: num((c) => c.updatedAt),
    id: idKey,
    createdAt: num((c) => c.createdAt),
    caseNumber: { type: 'string', get: (c) => c.caseNumber },
  },
  defaultOrder: [{ field: 'id', direction: 'ASC' }],
};

export const HOURS: Collection<HourRecord> = {
  keys: {
    id: idKey,
    startTime: num((h) => h.startTime),
    createdAt: num((h) => h.createdAt),
    updatedAt: num((h) => h.updatedAt),
  },
  defaultOrder: [{ field: 'id', direction: 'ASC' }],
};

export const INVOICES: Collection<InvoiceRecord> = {
  keys: { id: idKey, date: num((i) => i.date), createdAt: num((i) => i.createdAt) },
  defaultOrder: [{ field: 'id', direction: 'ASC' }],
};

export const MATERIALS: Collection<MaterialRecord> = {
  keys: { id: idKey, createdAt: num((m) => m.createdAt) },
  defaultOrder: [{ field: 'id', direction: 'ASC' }],
};

export const PRODUCTS: Collection<ProductRecord> = {
  keys: { id: idKey, createdAt: num((p) => p.createdAt), updatedAt: num((p) => p.updatedAt) },
  defaultOrder: [{ field: 'id', direction: 'ASC' }],
};

export const BY_ID: Collection<{ id: number }> = {
  keys: { id: idKey },
  defaultOrder: [{ field: 'id', direction: 'ASC' }],
};

function activeOrder<T>(orderBy: OrderByValue, collection: Collection<T>): OrderKey[] {
  const keys: OrderKey[] = [];
  const problems: Record<string, string[]> = {};
  // `orderBy: OrderByInput` (shape "object") arrives as one object, `[OrderByInput]` as a list.
  const entries =
    orderBy === null || orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy as OrderByArg];
  entries.forEach((entry, index) => {
    if (entry === null) return;
    if (!Object.hasOwn(collection.keys, entry.field)) {
      problems[`orderBy.${index}.field`] = [`The selected orderBy.${index}.field is invalid.`];
      return;
    }
    if (!keys.some((k) => k.field === entry.field)) keys.push({ field: entry.field, direction: entry.direction });
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const order = keys.length > 0 ? keys : [...collection.defaultOrder];
  // Ties always break on id, in the direction of the first key.
  if (!order.some((k) => k.field === 'id')) order.push({ field: 'id', direction: order[0]!.direction });
  return order;
}

function compareValues(a: SortValue, b: SortValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareVectors(a: readonly SortValue[], b: readonly SortValue[], order: readonly OrderKey[]): number {
  for (let i = 0; i < order.length; i++) {
    const c = compareValues(a[i]!, b[i]!);
    if (c !== 0) return order[i]!.direction === 'ASC' ? c : -c;
  }
  return 0;
}

function encodeCursor(vector: readonly SortValue[], order: readonly OrderKey[], pointsToNextItems: boolean): string {
  const payload: Record<string, SortValue | boolean> = {};
  order.forEach((key, i) => {
    payload[key.field] = vector[i]!;
  });
  payload._pointsToNextItems = pointsToNextItems;
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function decodeCursor<T>(
  cursor: string,
  order: readonly OrderKey[],
  collection: Collection<T>,
): { vector: SortValue[]; next: boolean } {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(cursor)) throw new GraphQLError(INVALID_CURSOR_MESSAGE);
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new GraphQLError(INVALID_CURSOR_MESSAGE);
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new GraphQLError(INVALID_CURSOR_MESSAGE);
  const record = payload as Record<string, unknown>;
  const next = record._pointsToNextItems;
  if (typeof next !== 'boolean') throw new GraphQLError(INVALID_CURSOR_MESSAGE);
  const fields = Object.keys(record).filter((k) => k !== '_pointsToNextItems');
  if (fields.length !== order.length || !order.every((k) => Object.hasOwn(record, k.field)))
    throw new GraphQLError(FOREIGN_CURSOR_MESSAGE);
  const vector = order.map((key) => {
    const value = record[key.field];
    const spec = collection.keys[key.field]!;
    const ok = spec.type === 'number' ? Number.isSafeInteger(value) : typeof value === 'string';
    if (!ok) throw new GraphQLError(INVALID_CURSOR_MESSAGE);
    return value as SortValue;
  });
  return { vector, next };
}

function checkedLimit(limit: number, switches: CasesResolverSwitches): number {
  if (limit < 1) throw validationError({ 'pagination.limit': ['The pagination.limit must be at least 1.'] });
  if (limit > switches.limitCap) {
    if (switches.overCap === 'clamp') return switches.limitCap;
    throw validationError({
      'pagination.limit': [`The pagination.limit may not be greater than ${switches.limitCap}.`],
    });
  }
  return limit;
}

export function paginate<T>(
  items: readonly T[],
  collection: Collection<T>,
  args: { pagination?: PaginationArg | null; orderBy?: OrderByValue },
  ctx: CasesContext,
  defaultLimit = 50,
): Connection<T> {
  const order = activeOrder(args.orderBy, collection);
  const limit = checkedLimit(args.pagination?.limit ?? defaultLimit, ctx.switches);
  const getters = order.map((key) => collection.keys[key.field]!.get);
  const rows = items.map((item) => ({ item, vector: getters.map((get) => get(item)) }));
  rows.sort((a, b) => compareVectors(a.vector, b.vector, order));
  const cursor = args.pagination?.cursor;
  let start = 0;
  let end = Math.min(limit, rows.length);
  if (cursor !== undefined && cursor !== null) {
    const position = decodeCursor(cursor, order, collection);
    if (position.next) {
      start = rows.findIndex((row) => compareVectors(row.vector, position.vector, order) > 0);
      if (start < 0) start = rows.length;
      end = Math.min(start + limit, rows.length);
    } else {
      end = rows.findIndex((row) => compareVectors(row.vector, position.vector, order) >= 0);
      if (end < 0) end = rows.length;
      start = Math.max(0, end - limit);
    }
  }
  const page = rows.slice(start, end);
  const first = page[0];
  const last = page[page.length - 1];
  return {
    items: page.map((row) => row.item),
    nextCursor: last !== undefined && end < rows.length ? encodeCursor(last.vector, order, true) : null,
    previousCursor: first !== undefined && start > 0 ? encodeCursor(first.vector, order, false) : null,
  };
}

function normaliseColumn(value: string): string {
  return value.replace(/_/g, '').toLowerCase();
}

export function applyBetween<T>(
  items: readonly T[],
  between: BetweenArg | null | undefined,
  columns: Record<string, (item: T) => number>,
  ctx: CasesContext,
): readonly T[] {
  if (between === null || between === undefined) return items;
  const get = columns[normaliseColumn(between.field)];
  if (get === undefined) throw validationError({ 'between.field': ['The selected between.field is invalid.'] });
  const from = between.from ?? null;
  const to = between.to ?? null;
  const inclusive = ctx.switches.betweenTo === 'inclusive';
  return items.filter((item) => {
    const value = get(item);
    if (from !== null && value < from) return false;
    if (to !== null && (inclusive ? value > to : value >= to)) return false;
    return true;
  });
}

export function applySearch<T>(
  items: readonly T[],
  search: SearchArg | null | undefined,
  fields: Record<string, (item: T) => string>,
): readonly T[] {
  if (search === null || search === undefined) return items;
  const problems: Record<string, string[]> = {};
  const chosen: Array<(item: T) => string> = [];
  search.fields.forEach((field, index) => {
    if (field === null || !Object.hasOwn(fields, field))
      problems[`search.fields.${index}`] = [`The selected search.fields.${index} is invalid.`];
    else chosen.push(fields[field]!);
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const query = (search.query ?? '').trim().toLowerCase();
  if (query === '') return items;
  const getters = chosen.length > 0 ? chosen : Object.values(fields);
  return items.filter((item) => getters.some((get) => get(item).toLowerCase().includes(query)));
}

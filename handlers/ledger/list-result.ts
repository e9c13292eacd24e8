// The spec's list result `{ entity, count, total, items }` over a reply without any count
// (upstreams/ledger.md §3 #3):
// - no server-side sort or page: one read of at most `maxScanRows` + 1 rows (`Take`); when no more
//   than `maxScanRows` came back that is the whole filtered set and `total` is its length, then the
//   `limit` cap; otherwise the set is not counted: no `total`, `truncated: true` (a real ledger's
//   52,000 postings must not be read on every call to count them);
// - with a sort or `offset`: one page `Take = limit` (+ `Skip`), no `total`, `truncated` when the
//   page is full; `offset`/`nextOffset` only when the caller passed `offset`, and then one row more
//   is read to check the boundary with the next page (`unstableOrder`, order.ts);
// - `fields` keeps only the named properties and echoes names present in no returned row in
//   `unknownFields` (a real property that is null in every row is reported too, §3 #11).
import type { LedgerSession, QueryFilter, Row } from './client.ts';
import { pageEntry } from './filters.ts';
import { boundaryUnstable, pagingOrder } from './order.ts';

export interface ListRequest {
  readonly entity: string;
  readonly filters: readonly QueryFilter[];
  readonly limit: number;
  /** Rows read to count `total` without a sort or offset (`maxScanRows` of the spec). */
  readonly maxScanRows: number;
  /** A server-side sort: one page only. */
  readonly sort?: { readonly property: string; readonly descending: boolean };
  /** Rows skipped server-side: one page only, with `offset`/`nextOffset` in the result. */
  readonly offset?: number;
  readonly fields?: readonly string[];
  /** A row test applied after the read (whole-set reads count only the rows it keeps). */
  readonly keep?: (row: Row) => boolean;
}

/** The whole filtered set was read (`total` is known), or more than the scan bound exists (`truncated`). */
export type WholeSetResult = {
  entity: string;
  count: number;
  total?: number;
  truncated?: boolean;
  unknownFields?: string[];
  items: Row[];
};

/** One server-side page: no `total`. */
export type PageResult = {
  entity: string;
  count: number;
  truncated: boolean;
  offset?: number;
  nextOffset?: number | null;
  unstableOrder?: boolean;
  unknownFields?: string[];
  items: Row[];
};

/** Keeps the named properties of every row; names present in no row come back as unknown. */
export function project(rows: readonly Row[], fields: readonly string[]): { items: Row[]; unknownFields: string[] } {
  const names = [...new Set(fields)];
  const present = new Set<string>();
  const items = rows.map((row) => {
    const out: Row = {};
    for (const name of names) {
      if (Object.hasOwn(row, name)) {
        out[name] = row[name];
        present.add(name);
      }
    }
    return out;
  });
  return { items, unknownFields: names.filter((n) => !present.has(n)) };
}

function withFields<T extends { items: Row[]; unknownFields?: string[] }>(
  result: T,
  fields: readonly string[] | undefined,
): T {
  if (fields === undefined) return result;
  const { items, unknownFields } = project(result.items, fields);
  result.items = items;
  if (unknownFields.length > 0) result.unknownFields = unknownFields;
  return result;
}

/** The whole-set result of rows already read (pure: the list rules without the upstream). */
export function wholeSetResult(
  entity: string,
  rows: readonly Row[],
  limit: number,
  fields?: readonly string[],
): WholeSetResult {
  const items = rows.slice(0, limit);
  return withFields({ entity, count: items.length, total: rows.length, items }, fields);
}

/** The page result of one page already read (pure). */
export function pageResult(
  entity: string,
  rows: readonly Row[],
  limit: number,
  offset: number | undefined,
  fields?: readonly string[],
): PageResult {
  // An upstream that ignored `Take` still yields at most `limit` rows, marked truncated.
  const items = rows.slice(0, limit);
  const full = rows.length >= limit;
  const result: PageResult = { entity, count: items.length, truncated: full, items };
  if (offset !== undefined) {
    result.offset = offset;
    result.nextOffset = full ? offset + items.length : null;
  }
  return withFields(result, fields);
}

/**
 * Reads the filtered set up to `maxScanRows` (`Take` one more to see whether more exist); `total`
 * counts the rows `keep` accepts when the whole set came back, else it is left out and the result
 * is `truncated`.
 */
export async function readWholeSet(
  session: LedgerSession,
  request: Omit<ListRequest, 'sort' | 'offset'>,
): Promise<WholeSetResult> {
  const rows = await session.query(request.entity, [...request.filters, pageEntry(request.maxScanRows + 1, undefined)]);
  const bounded = rows.length > request.maxScanRows;
  const scanned = bounded ? rows.slice(0, request.maxScanRows) : rows;
  const kept = request.keep ? scanned.filter(request.keep) : scanned;
  const result = wholeSetResult(request.entity, kept, request.limit, request.fields);
  if (!bounded) return result;
  const { total: _uncounted, ...rest } = result;
  return { ...rest, truncated: true };
}

/**
 * Reads one page: the filters, the sort entry when there is one and the entity's documented key
 * (order.ts), then `Take` (+ `Skip`). With `offset` one row more is read, never returned: when it
 * ties with the page's last row on every sort value (or there is no sort at all), the page at
 * `nextOffset` may repeat or miss rows, and the result says so with `unstableOrder`.
 */
export async function readPage(session: LedgerSession, request: ListRequest): Promise<PageResult> {
  const order = pagingOrder(request.entity, request.sort);
  const paged = request.offset !== undefined;
  const take = paged ? request.limit + 1 : request.limit;
  const rows = await session.query(request.entity, [
    ...request.filters,
    ...order.entries,
    pageEntry(take, request.offset),
  ]);
  // An upstream that ignored `Take` still yields at most `limit` rows, marked truncated.
  const page = rows.slice(0, request.limit);
  // A row test after a page read could only shrink the page; `truncated` still follows the page.
  const kept = request.keep ? page.filter(request.keep) : page;
  const result = pageResult(request.entity, kept, request.limit, request.offset, request.fields);
  if (page.length >= request.limit && !result.truncated) {
    result.truncated = true;
    if (result.offset !== undefined) result.nextOffset = result.offset + page.length;
  }
  const next = rows[request.limit];
  const unorderedMiddle = order.properties.length === 0 && (request.offset ?? 0) > 0;
  if (paged && (unorderedMiddle || (next !== undefined && boundaryUnstable(order, page[page.length - 1]!, next))))
    result.unstableOrder = true;
  return result;
}

/** A page when the request sorts or pages server-side, else the whole set. */
export function readList(session: LedgerSession, request: ListRequest): Promise<WholeSetResult | PageResult> {
  return request.sort !== undefined || request.offset !== undefined
    ? readPage(session, request)
    : readWholeSet(session, request);
}

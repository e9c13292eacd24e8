// The spec's list result over an e-conomic collection (upstreams/invoicing.md §2 "Collections",
// §3 #2): `items = collection`; `pagination { results, pageSize, skipPages, hasMore }` with
// `hasMore` true when the upstream links a `nextPage` (or, should it not, when the counts say a
// further page exists). Paging goes upstream as lower-case `skippages` and `pagesize`.
import { type InvoicingReadContext, economicRead, isRow, queryString, type Row } from './wire.ts';

export interface ListPage {
  readonly pagesize: number;
  readonly skippages: number;
  /** Already checked and escaped (filter.ts). */
  readonly filter?: string | undefined;
  /** Already checked (filter.ts). */
  readonly sort?: string | undefined;
}

export interface Pagination {
  results: number;
  pageSize: number;
  skipPages: number;
  hasMore: boolean;
}

const integer = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) ? value : undefined;

/** `path?skippages=…&pagesize=…&filter=…&sort=…` (each value percent-encoded as a whole). */
export function listPath(path: string, page: ListPage): string {
  return (
    path + queryString({ skippages: page.skippages, pagesize: page.pagesize, filter: page.filter, sort: page.sort })
  );
}

/**
 * One page of a collection. `keep` tells the rows the spec's item type describes (its required
 * number); a collection holding anything else is not what the upstream documents (generic text).
 */
export async function readList<T>(
  ctx: InvoicingReadContext,
  path: string,
  page: ListPage,
  keep: (row: Row) => row is Row & T,
): Promise<{ items: T[]; pagination: Pagination }> {
  const body = await economicRead(ctx, listPath(path, page));
  if (!isRow(body) || !Array.isArray(body['collection']))
    throw new Error(`e-conomic answered ${path} without a collection`);
  const items: T[] = [];
  for (const row of body['collection']) {
    if (!isRow(row) || !keep(row)) throw new Error(`e-conomic answered ${path} with a row the spec does not describe`);
    items.push(row);
  }
  const upstream = isRow(body['pagination']) ? body['pagination'] : {};
  const pageSize = integer(upstream['pageSize']) ?? page.pagesize;
  const skipPages = integer(upstream['skipPages']) ?? page.skippages;
  const results = integer(upstream['results']) ?? skipPages * pageSize + items.length;
  const next = upstream['nextPage'];
  const hasMore = (typeof next === 'string' && next !== '') || (skipPages + 1) * pageSize < results;
  return { items, pagination: { results, pageSize, skipPages, hasMore } };
}

/** Rows whose `key` is an integer (customerNumber, bookedInvoiceNumber …). */
export function withInteger<K extends string>(key: K): (row: Row) => row is Row & Record<K, number> {
  return (row): row is Row & Record<K, number> => integer(row[key]) !== undefined;
}

/**
 * Rows whose `key` is a string (productNumber, vatCode, year). The docs make these strings, but a
 * `year` of `2024` or a product number `7` written as a JSON number is the same identifier: it is
 * kept, as its string (what the year-based tools and the write lines take).
 */
export function withString<K extends string>(key: K): (row: Row) => row is Row & Record<K, string> {
  return (row): row is Row & Record<K, string> => {
    const value = row[key];
    if (typeof value === 'number' && Number.isFinite(value)) row[key] = String(value);
    return typeof row[key] === 'string';
  };
}

/** Any object row (year totals, entries: the spec requires no field). */
export function anyRow(row: Row): row is Row {
  return isRow(row);
}

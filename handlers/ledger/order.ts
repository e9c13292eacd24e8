// A paging order from documented properties only (docs/decisions/connector-ledger.md, 'The ledger
// pages without RowId: documented keys, checked boundaries'). Uniconta's `Query/Get` pages
// with Skip/Take over the body's sort entries; a reply has no row id the docs name, so the order is
// made total, where the docs allow it, with the documented key properties of the entity
// (upstreams/ledger.md §2), and checked on the rows themselves: a page boundary that falls inside a
// run of rows with equal sort values is the one place where pages can repeat or skip rows.
import type { QueryFilter, Row } from './client.ts';
import { sortEntry } from './filters.ts';

/**
 * The properties that identify a row of an entity, as ledger.md §2 names them (own properties of
 * the swagger). Entities without a documented key (open items, other entities of `query`) are
 * absent: their pages are checked at the boundaries only.
 */
const DOCUMENTED_KEYS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    CompanyClient: ['PrimaryKeyId'],
    DebtorClient: ['Account'],
    DebtorClientUser: ['Account'],
    CreditorClient: ['Account'],
    GLAccountClient: ['Account'],
    GLVatClient: ['Vat'],
    DebtorInvoiceClient: ['PrimaryKeyId'],
    DebtorOrderClient: ['OrderNumber'],
    InvItemClient: ['Item'],
    InvItemClientUser: ['Item'],
    InvGroupClient: ['Group'],
    // A posting is its voucher line.
    GLTransClient: ['Voucher', 'VoucherLine'],
    // No documented key: the posting date, item and line number order the rows as far as the docs allow.
    InvTransClient: ['Date', 'Item', 'LineNumber'],
  }).map(([entity, key]) => [entity.toLowerCase(), key]),
);

export interface SortRequest {
  readonly property: string;
  readonly descending: boolean;
}

/** The sort of a paged read: its entries for the body and the properties they name, in order. */
export interface PagingOrder {
  readonly entries: readonly QueryFilter[];
  readonly properties: readonly string[];
}

/**
 * The caller's sort (when given), then the entity's documented key properties ascending (those not
 * already sorted on). No property the docs do not name for the entity is added, so an upstream
 * that rejects unknown properties accepts every entry the connector itself adds.
 */
export function pagingOrder(entity: string, sort: SortRequest | undefined): PagingOrder {
  const sorts: SortRequest[] = sort === undefined ? [] : [sort];
  for (const property of DOCUMENTED_KEYS.get(entity.toLowerCase()) ?? []) {
    if (!sorts.some((s) => s.property.toLowerCase() === property.toLowerCase()))
      sorts.push({ property, descending: false });
  }
  return { entries: sorts.map((s) => sortEntry(s.property, s.descending)), properties: sorts.map((s) => s.property) };
}

/** A row's value of a property, the name matched case-insensitively (the upstream's binder does). */
function propertyValue(row: Row, property: string): unknown {
  if (Object.hasOwn(row, property)) return row[property];
  const wanted = property.toLowerCase();
  for (const key of Object.keys(row)) if (key.toLowerCase() === wanted) return row[key];
  return undefined;
}

/**
 * A row's sort values as one comparable string. Strings compare as the upstream's database most
 * likely does (case-insensitive, trailing blanks ignored), so two values it may treat as equal are
 * equal here too: a tie is never missed, at worst one is reported that the upstream did not have.
 */
export function sortTuple(row: Row, properties: readonly string[]): string {
  return JSON.stringify(
    properties.map((p) => {
      const v = propertyValue(row, p);
      return typeof v === 'string' ? v.trimEnd().toLowerCase() : v === undefined ? null : v;
    }),
  );
}

/**
 * Whether the boundary between row `before` and row `after` (neighbours in the upstream's order)
 * may move between two requests: without any sort the order itself is unknown; with one, only when
 * both rows have the same sort values (ties come back in no fixed order).
 */
export function boundaryUnstable(order: PagingOrder, before: Row, after: Row): boolean {
  if (order.properties.length === 0) return true;
  return sortTuple(before, order.properties) === sortTuple(after, order.properties);
}

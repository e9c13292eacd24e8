// The Dinero sandbox's query handling: `fields` projection (checked against documented-fields.ts),
// `queryFilter` clauses, paging and the `{Collection, Pagination}` envelope, lifecycle filters
// (`deletedOnly`, `changesSince`), guid look-ups and the sales-document and contact lists.
import { sendJson } from '../http-kit.ts';
import type { OrganizationData, Row } from './data.ts';
import { BOOKS_FIELDS, type BooksFieldsEndpoint, isDocumentedField } from './documented-fields.ts';
import { type BooksState, notFound, type Req, validation } from './state.ts';
import { BOOKS_DEFAULT_PAGE_SIZE, BOOKS_MAX_PAGE_SIZE } from './switches.ts';

export const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const FILE_GUID = /^[a-z0-9]{32}$/;
export const CHANGES_SINCE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The row's value of a property named case-insensitively, and its real name. */
function lookup(row: Row, name: string): [string, unknown] | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(row))
    if (!key.startsWith('__') && key.toLowerCase() === wanted) return [key, value];
  return undefined;
}

/** The `fields` names of a request: the comma list, or the endpoint's documented defaults without it. */
function fieldNames(fields: string | undefined, endpoint: BooksFieldsEndpoint): readonly string[] {
  if (fields === undefined || fields.trim() === '') return BOOKS_FIELDS[endpoint].defaults;
  const names = fields
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  for (const name of names)
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw validation('fields', `'${name}' is not a valid field name.`);
  return names;
}

/** Strips the sandbox's internal properties (`__…`). */
export function publicRow(row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('__')));
}

interface Clause {
  readonly field: string;
  readonly op: 'eq' | 'contains';
  readonly value: string;
}

/** `queryFilter`: `<Field> <eq|contains> '<value>'` clauses joined by `;` (AND). */
export function parseQueryFilter(text: string | undefined, allowed: readonly string[]): Clause[] {
  if (text === undefined || text.trim() === '') return [];
  const clauses: Clause[] = [];
  const pattern = /^\s*([A-Za-z]+)\s+(eq|contains)\s+'([^']*)'\s*(?:;|$)/i;
  let rest = text;
  while (rest.trim() !== '') {
    const m = pattern.exec(rest);
    if (m === null)
      throw validation(
        'queryFilter',
        'The query filter could not be parsed near ' +
          `'${rest.slice(0, 40)}'. Use <Field> eq|contains '<value>' joined by ';'.`,
      );
    const field = allowed.find((f) => f.toLowerCase() === m[1]!.toLowerCase());
    if (field === undefined)
      throw validation('queryFilter', `The field '${m[1]}' cannot be filtered on. Allowed: ${allowed.join(', ')}.`);
    clauses.push({ field, op: m[2]!.toLowerCase() as Clause['op'], value: m[3]! });
    rest = rest.slice(m[0].length);
  }
  return clauses;
}

export function matches(row: Row, clauses: readonly Clause[]): boolean {
  return clauses.every((c) => {
    const value = row[c.field];
    const text = value === null || value === undefined ? '' : String(value).toLowerCase();
    return c.op === 'eq' ? text === c.value.toLowerCase() : text.includes(c.value.toLowerCase());
  });
}

export function boolParam(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null) return fallback;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  throw validation(name, `'${value}' is not a boolean.`);
}

export function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const value = query.get(name);
  if (value === null) return fallback;
  if (!/^\d+$/.test(value)) throw validation(name, `'${value}' is not a non-negative integer.`);
  return Number(value);
}

const CONTACT_FILTER_FIELDS = ['Name', 'Email', 'Phone', 'VatNumber', 'EanNumber', 'ExternalReference', 'IsPerson'];
const SALES_FILTER_FIELDS = ['ContactGuid', 'ExternalReference', 'Description'];
export const TRADE_OFFER_FILTER_FIELDS = [
  'ContactName',
  'Description',
  'ExternalReference',
  'Currency',
  'Number',
  'Date',
  'Address',
  'Comment',
];
export const PRODUCT_FILTER_FIELDS = ['Name', 'ProductNumber', 'ExternalReference'];
const STATUSES = ['Draft', 'Booked', 'Paid', 'OverPaid', 'Overdue'];

export function byGuid(s: BooksState, rows: readonly Row[], guid: string, what: string, key = 'Guid'): Row {
  if (!GUID.test(guid)) throw validation(key, `'${guid}' is not a valid guid.`);
  const row = rows.find((r) => String(r[key]).toLowerCase() === guid.toLowerCase());
  if (row === undefined) throw notFound(s, what);
  return row;
}

export function paging(s: BooksState, q: URLSearchParams, defaultSize: number): { page: number; pageSize: number } {
  const page = intParam(q, 'page', 0);
  let pageSize = intParam(q, 'pageSize', defaultSize);
  if (pageSize === 0) throw validation('pageSize', 'pageSize must be at least 1.');
  if (pageSize > BOOKS_MAX_PAGE_SIZE) {
    if (s.switches.pageSizeOverMax === 'reject')
      throw validation('pageSize', `pageSize must be at most ${BOOKS_MAX_PAGE_SIZE}.`);
    pageSize = BOOKS_MAX_PAGE_SIZE;
  }
  return { page, pageSize };
}

/**
 * `fields`: exactly the requested names in the requested casing (a documented name the row lacks
 * is null); without it the endpoint's documented defaults. A name the endpoint does not document
 * is recorded, then refused (400 code 42) or left out, as the `unknownFields` switch says.
 */
export function project(
  s: BooksState,
  path: string,
  rows: readonly Row[],
  fields: string | undefined,
  endpoint: BooksFieldsEndpoint,
): Row[] {
  const names = fieldNames(fields, endpoint).filter((name) => {
    if (isDocumentedField(endpoint, name)) return true;
    s.stats.undocumentedFields.push({ path, field: name });
    if (s.switches.unknownFields === 'reject') throw validation('fields', `Unknown field '${name}'.`);
    return false;
  });
  return rows.map((row) => Object.fromEntries(names.map((name) => [name, lookup(row, name)?.[1] ?? null])));
}

/** The `{Collection, Pagination}` envelope. */
export function envelope(r: Req, all: readonly Row[], filtered: readonly Row[], endpoint: BooksFieldsEndpoint): void {
  const { page, pageSize } = paging(r.s, r.query, BOOKS_DEFAULT_PAGE_SIZE);
  const slice = filtered.slice(page * pageSize, page * pageSize + pageSize);
  const collection = project(r.s, r.path, slice.map(publicRow), r.query.get('fields') ?? undefined, endpoint);
  sendJson(r.res, 200, {
    Collection: collection,
    Pagination: {
      MaxPageSizeAllowed: BOOKS_MAX_PAGE_SIZE,
      PageSize: pageSize,
      Result: collection.length,
      ResultWithoutFilter: r.s.switches.resultWithoutFilter === 'beforePaging' ? filtered.length : all.length,
      Page: page,
    },
  });
}

export function changesSince(q: URLSearchParams): string | undefined {
  const value = q.get('changesSince');
  if (value === null) return undefined;
  if (!CHANGES_SINCE.test(value))
    throw validation('changesSince', `'${value}' is not a UTC timestamp of the form YYYY-MM-DDTHH:mm:ssZ.`);
  return value;
}

/** Live rows by default; `deletedOnly=true` only deleted ones; `changesSince` on UpdatedAt. */
export function lifecycle(rows: readonly Row[], q: URLSearchParams): Row[] {
  const deletedOnly = boolParam(q, 'deletedOnly', false);
  const since = changesSince(q);
  return rows.filter(
    (r) =>
      (deletedOnly ? r.DeletedAt !== null : r.DeletedAt === null) &&
      (since === undefined || String(r.UpdatedAt ?? r.CreatedAt) >= since),
  );
}

/** Invoices, sales and credit notes: the list filters of books.md §2 and §4 "Invoice filters". */
export function salesList(r: Req, all: readonly Row[], endpoint: BooksFieldsEndpoint): void {
  const q = r.query;
  const start = q.get('startDate');
  const end = q.get('endDate');
  if ((start === null) !== (end === null))
    throw validation(start === null ? 'startDate' : 'endDate', 'startDate and endDate must be given together.');
  for (const [name, value] of [
    ['startDate', start],
    ['endDate', end],
  ] as const)
    if (value !== null && !DATE.test(value)) throw validation(name, `'${value}' is not a date (YYYY-MM-DD).`);
  const statusText = q.get('statusFilter');
  const statuses = statusText === null ? undefined : statusText.split(',').map((s) => s.trim());
  for (const s of statuses ?? [])
    if (!STATUSES.includes(s))
      throw validation('statusFilter', `'${s}' is not a status. Allowed: ${STATUSES.join(', ')}.`);
  const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, SALES_FILTER_FIELDS);
  const free = q.get('freeTextSearch')?.toLowerCase();
  const sort = q.get('sort');
  const sortOrder = q.get('sortOrder') ?? 'descending';
  if (sort !== null && !['VoucherNumber', 'VoucherDate', 'Status', 'Contact'].includes(sort))
    throw validation('sort', `'${sort}' is not a sort field.`);
  if (!['ascending', 'descending'].includes(sortOrder))
    throw validation('sortOrder', `'${sortOrder}' must be ascending or descending.`);
  const filtered = lifecycle(all, q).filter(
    (row) =>
      // Drafts ignore the date filter.
      (start === null || row.Status === 'Draft' || (String(row.Date) >= start && String(row.Date) <= end!)) &&
      (statuses === undefined || statuses.includes(String(row.Status))) &&
      matches(row, clauses) &&
      (free === undefined ||
        [row.Number, row.ContactName, row.Description, row.TotalInclVat].some(
          (v) => v !== null && String(v).toLowerCase().includes(free),
        )),
  );
  const keyOf = (row: Row): string | number =>
    sort === 'VoucherNumber'
      ? ((row.Number as number | null) ?? -1)
      : sort === 'Status'
        ? String(row.Status)
        : sort === 'Contact'
          ? String(row.ContactName)
          : String(row.Date);
  filtered.sort((a, b) => {
    const x = keyOf(a);
    const y = keyOf(b);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return sortOrder === 'ascending' ? c : -c;
  });
  envelope(r, lifecycle(all, new URLSearchParams()), filtered, endpoint);
}

/** The contact list (v1, or v2 where leaving `deletedOnly` out returns deleted and live rows together, books.md §2). */
export function contactList(r: Req, org: OrganizationData, version: 'v1' | 'v2'): void {
  const q = r.query;
  const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, CONTACT_FILTER_FIELDS);
  const bothKinds = version === 'v2' && q.get('deletedOnly') === null;
  const since = changesSince(q);
  const base = bothKinds
    ? org.contacts.filter((x) => since === undefined || String(x.UpdatedAt ?? x.CreatedAt) >= since)
    : lifecycle(org.contacts, q);
  envelope(
    r,
    bothKinds ? org.contacts : org.contacts.filter((x) => x.DeletedAt === null),
    base.filter((x) => matches(x, clauses)),
    version === 'v2' ? 'contactsV2' : 'contacts',
  );
}

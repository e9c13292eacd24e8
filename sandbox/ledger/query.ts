// The `POST /Query/Get/{Entity}` semantics of the ledger sandbox (../shared/upstreams/ledger.md §2, §4).
//
// The body is a JSON array of QueryFilter entries `{PropertyName, FilterValue, Skip, Take, OrderBy,
// OrderByDescending}` (member names matched case-insensitively, as ASP.NET's binder does). Every
// entry with a PropertyName of the entity and a non-empty FilterValue is a filter; filters are ANDed.
// A FilterValue is a `;`-separated list of alternatives (ORed), each one an inclusive range `a..b`
// (either side may be empty), a wildcard pattern (`*` any run of characters, `?` exactly one,
// anywhere) or an exact value. Strings compare
// case-insensitively; numbers numerically; dates by calendar day, written `dd-MM-yyyy` (ISO
// `yyyy-MM-dd` only when `acceptIsoDates` is on). `OrderBy: true` / `OrderByDescending: true` on an
// entry sorts by its PropertyName (several sort entries: first one is the primary key; ties keep
// the natural row order). `Skip`/`Take` may sit in their own entry or in any other entry (the last
// one given wins); `Take` 0 or missing means "all rows". A PropertyName the entity does not have is
// ignored here, for filters and sorts alike, and listed in `ignoredProperties`: the server either
// leaves it at that (ledger.md §4, the reason a custom field only works on the `…ClientUser`
// variants) or answers 400 naming it (its `unknownProperties: 'reject'` switch, ledger.md §2).
//
// Malformed input (a body that is not an array, an entry that is not an object, a negative Skip, a
// filter value that cannot be read as the property's type) is a LedgerQueryError with status 400
// and a short text, which the server sends as text/plain.

import { LEDGER_ENTITIES, LEDGER_ENTITY_SCHEMAS } from './data.ts';
import type { LedgerEntity, LedgerEntitySchema, LedgerPropertyType, LedgerRow, LedgerValue } from './data.ts';

export class LedgerQueryError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function badRequest(message: string): LedgerQueryError {
  return new LedgerQueryError(400, message);
}

const ENTITY_BY_LOWER: ReadonlyMap<string, LedgerEntity> = new Map(LEDGER_ENTITIES.map((e) => [e.toLowerCase(), e]));

/** Entity names are resolved case-insensitively; undefined when the entity does not exist. */
export function resolveLedgerEntity(name: string): LedgerEntity | undefined {
  return ENTITY_BY_LOWER.get(name.toLowerCase());
}

export interface LedgerQueryOptions {
  /** Also read `yyyy-MM-dd` (and `yyyy-MM-ddTHH:mm:ss`) date literals, not only `dd-MM-yyyy`. */
  acceptIsoDates: boolean;
  /** Properties hidden for this request: treated as unknown and removed from the returned rows. */
  omit?: ReadonlySet<string>;
}

type RowPredicate = (row: LedgerRow) => boolean;

interface SortKey {
  property: string;
  descending: boolean;
}

export interface ParsedLedgerQuery {
  readonly filters: readonly RowPredicate[];
  readonly sort: readonly SortKey[];
  readonly skip: number;
  /** 0 = no limit. */
  readonly take: number;
  /** Filter and sort property names that the entity does not have (ignored). */
  readonly ignoredProperties: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Parsing the body
// ---------------------------------------------------------------------------------------------

const MEMBERS = ['propertyname', 'filtervalue', 'skip', 'take', 'orderby', 'orderbydescending'] as const;
type Member = (typeof MEMBERS)[number];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function members(entry: Record<string, unknown>): Partial<Record<Member, unknown>> {
  const out: Partial<Record<Member, unknown>> = {};
  for (const [key, value] of Object.entries(entry)) {
    const lower = key.toLowerCase() as Member;
    if ((MEMBERS as readonly string[]).includes(lower)) out[lower] = value;
  }
  return out;
}

function readCount(value: unknown, name: string, index: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw badRequest(`Invalid ${name} in query entry ${index}: ${JSON.stringify(value)}`);
  return n;
}

function readFlag(value: unknown, name: string, index: number): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw badRequest(`Invalid ${name} in query entry ${index}: ${JSON.stringify(value)}`);
  return value;
}

/** Parses and compiles a Query/Get body for one entity schema. Throws LedgerQueryError (400). */
export function parseLedgerQuery(
  schema: LedgerEntitySchema,
  body: unknown,
  options: LedgerQueryOptions,
): ParsedLedgerQuery {
  if (!Array.isArray(body)) throw badRequest('The request body must be a JSON array of QueryFilter objects.');
  const filters: RowPredicate[] = [];
  const sort: SortKey[] = [];
  const ignored: string[] = [];
  let skip = 0;
  let take = 0;
  body.forEach((entry: unknown, index) => {
    if (!isPlainObject(entry)) throw badRequest(`Query entry ${index} is not a QueryFilter object.`);
    const m = members(entry);
    const s = readCount(m.skip, 'Skip', index);
    const t = readCount(m.take, 'Take', index);
    if (s !== undefined) skip = s;
    if (t !== undefined) take = t;
    const asc = readFlag(m.orderby, 'OrderBy', index);
    const desc = readFlag(m.orderbydescending, 'OrderByDescending', index);
    const property = m.propertyname;
    if (property === undefined || property === null || property === '') return;
    if (typeof property !== 'string') throw badRequest(`Invalid PropertyName in query entry ${index}.`);
    const raw = m.filtervalue;
    if (
      raw !== undefined &&
      raw !== null &&
      typeof raw !== 'string' &&
      typeof raw !== 'number' &&
      typeof raw !== 'boolean'
    ) {
      throw badRequest(`Invalid FilterValue in query entry ${index}.`);
    }
    const type = options.omit?.has(property) ? undefined : schema[property];
    if (type === undefined) {
      ignored.push(property);
      return;
    }
    const value = raw === undefined || raw === null ? '' : String(raw);
    if (value.trim() !== '') filters.push(compileFilter(property, type, value, options));
    if (desc) sort.push({ property, descending: true });
    else if (asc) sort.push({ property, descending: false });
  });
  return { filters, sort, skip, take, ignoredProperties: ignored };
}

// ---------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------

type ValueMatcher = (value: LedgerValue | undefined) => boolean;

const DMY = /^(\d{1,2})-(\d{1,2})-(\d{4})$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;

/** `yyyy-MM-dd` of a filter date literal, or a 400. */
function parseDateLiteral(text: string, property: string, options: LedgerQueryOptions): string {
  let y: number | undefined;
  let mo: number | undefined;
  let d: number | undefined;
  const dmy = DMY.exec(text);
  if (dmy !== null) {
    d = Number(dmy[1]);
    mo = Number(dmy[2]);
    y = Number(dmy[3]);
  } else if (options.acceptIsoDates) {
    const iso = ISO.exec(text);
    if (iso !== null) {
      y = Number(iso[1]);
      mo = Number(iso[2]);
      d = Number(iso[3]);
    }
  }
  const valid =
    y !== undefined &&
    mo !== undefined &&
    d !== undefined &&
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (!valid) {
    const expected = options.acceptIsoDates ? 'dd-MM-yyyy or yyyy-MM-dd' : 'dd-MM-yyyy';
    throw badRequest(`Invalid date '${text}' in filter on ${property}; expected ${expected}.`);
  }
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function parseNumberLiteral(text: string, property: string): number {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n)) throw badRequest(`Invalid number '${text}' in filter on ${property}.`);
  return n;
}

function parseBooleanLiteral(text: string, property: string): number {
  const t = text.toLowerCase();
  if (t === 'true' || t === '1') return 1;
  if (t === 'false' || t === '0') return 0;
  throw badRequest(`Invalid boolean '${text}' in filter on ${property}.`);
}

/** Comparable form of a filter literal for range and exact matching. */
function literal(
  type: LedgerPropertyType,
  text: string,
  property: string,
  options: LedgerQueryOptions,
): string | number {
  switch (type) {
    case 'number':
    case 'integer':
      return parseNumberLiteral(text, property);
    case 'boolean':
      return parseBooleanLiteral(text, property);
    case 'date':
      return parseDateLiteral(text, property, options);
    case 'string':
      return text.toLowerCase();
  }
}

/** Comparable form of a row value; undefined when the value cannot be compared as `type`. */
function comparable(type: LedgerPropertyType, value: LedgerValue | undefined): string | number | undefined {
  if (value === undefined) return undefined;
  switch (type) {
    case 'number':
    case 'integer':
      return typeof value === 'number' ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? (value ? 1 : 0) : undefined;
    case 'date':
      return typeof value === 'string' ? value.slice(0, 10) : undefined;
    case 'string':
      return String(value).toLowerCase();
  }
}

/** The texts a wildcard is tested against: the value, and for dates also its `dd-MM-yyyy` form. */
function wildcardTexts(type: LedgerPropertyType, value: LedgerValue | undefined): string[] {
  if (value === undefined) return [''];
  const text = String(value);
  if (type === 'date' && /^\d{4}-\d{2}-\d{2}/.test(text))
    return [text, `${text.slice(8, 10)}-${text.slice(5, 7)}-${text.slice(0, 4)}`];
  return [text];
}

function compileAlternative(
  property: string,
  type: LedgerPropertyType,
  alt: string,
  options: LedgerQueryOptions,
): ValueMatcher {
  const rangeAt = alt.indexOf('..');
  if (rangeAt >= 0) {
    const loText = alt.slice(0, rangeAt).trim();
    const hiText = alt.slice(rangeAt + 2).trim();
    const lo = loText === '' ? undefined : literal(type, loText, property, options);
    const hi = hiText === '' ? undefined : literal(type, hiText, property, options);
    return (value) => {
      const v = comparable(type, value);
      if (v === undefined) return false;
      if (lo !== undefined && v < lo) return false;
      if (hi !== undefined && v > hi) return false;
      return true;
    };
  }
  if (alt.includes('*') || alt.includes('?')) {
    const pattern = alt
      .split('*')
      .map((part) =>
        part
          .split('?')
          .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.'),
      )
      .join('.*');
    const regex = new RegExp(`^${pattern}$`, 'is');
    return (value) => wildcardTexts(type, value).some((text) => regex.test(text));
  }
  const exact = literal(type, alt, property, options);
  return (value) => comparable(type, value) === exact;
}

function compileFilter(
  property: string,
  type: LedgerPropertyType,
  filterValue: string,
  options: LedgerQueryOptions,
): RowPredicate {
  const alternatives = filterValue
    .split(';')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (alternatives.length === 0) return () => true;
  const matchers = alternatives.map((alt) => compileAlternative(property, type, alt, options));
  if (matchers.length === 1) {
    const only = matchers[0]!;
    return (row) => only(row[property]);
  }
  return (row) => {
    const value = row[property];
    for (const m of matchers) if (m(value)) return true;
    return false;
  };
}

// ---------------------------------------------------------------------------------------------
// Sorting (cached per row set and sort specification) and paging
// ---------------------------------------------------------------------------------------------

const sortCache = new WeakMap<readonly LedgerRow[], Map<string, Uint32Array>>();

type SortValue = string | number | boolean | undefined;

function typeRank(v: SortValue): number {
  if (v === undefined) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  return 3;
}

function compareSortValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  return (a as string | number | boolean) < (b as string | number | boolean) ? -1 : 1;
}

/** A 32-bit mix of a row index and a seed (the order of ties under `tieSeed`). */
function mix(index: number, seed: number): number {
  let h = Math.imul(index ^ seed, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/**
 * Row indices in sort order. Ties keep the natural order (built once per rows and spec), or with a
 * `tieSeed` come in an order that depends on the seed, as a database returns rows whose sort keys
 * are equal in whatever order its plan gives (not cached).
 */
function sortedOrder(rows: readonly LedgerRow[], sort: readonly SortKey[], tieSeed?: number): Uint32Array {
  const spec = sort.map((k) => `${k.property}:${k.descending ? 'desc' : 'asc'}`).join(',');
  let perRows = sortCache.get(rows);
  if (perRows === undefined) {
    perRows = new Map();
    sortCache.set(rows, perRows);
  }
  const cached = tieSeed === undefined ? perRows.get(spec) : undefined;
  if (cached !== undefined) return cached;
  const columns = sort.map((k) =>
    rows.map((row): SortValue => {
      const v = row[k.property];
      return typeof v === 'string' ? v.toLowerCase() : v;
    }),
  );
  const order = new Uint32Array(rows.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((x, y) => {
    for (let k = 0; k < sort.length; k++) {
      const column = columns[k]!;
      const c = compareSortValues(column[x], column[y]);
      if (c !== 0) return sort[k]!.descending ? -c : c;
    }
    return tieSeed === undefined ? x - y : mix(x, tieSeed) - mix(y, tieSeed) || x - y;
  });
  if (tieSeed === undefined) perRows.set(spec, order);
  return order;
}

/**
 * Applies filters, sort, Skip and Take to `rows` (which must not change afterwards: sort orders are
 * cached per array). With `tieSeed`, rows that the sort leaves tied come in a seed-dependent order.
 */
export function runLedgerQuery(
  rows: readonly LedgerRow[],
  query: ParsedLedgerQuery,
  omit?: ReadonlySet<string>,
  tieSeed?: number,
): LedgerRow[] {
  const order = query.sort.length === 0 ? undefined : sortedOrder(rows, query.sort, tieSeed);
  const { filters, skip, take } = query;
  const out: LedgerRow[] = [];
  let skipped = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[order === undefined ? i : order[i]!]!;
    let match = true;
    for (const f of filters) {
      if (!f(row)) {
        match = false;
        break;
      }
    }
    if (!match) continue;
    if (skipped < skip) {
      skipped++;
      continue;
    }
    out.push(row);
    if (take > 0 && out.length >= take) break;
  }
  if (omit === undefined || omit.size === 0) return out;
  return out.map((row) => {
    const copy: Record<string, LedgerValue> = {};
    for (const [key, value] of Object.entries(row)) if (!omit.has(key)) copy[key] = value;
    return copy;
  });
}

/** Schema of an entity (re-exported for the server). */
export function ledgerEntitySchema(entity: LedgerEntity): LedgerEntitySchema {
  return LEDGER_ENTITY_SCHEMAS[entity];
}

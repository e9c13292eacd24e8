// The OData v4 query options of the ERP sandbox, as Business Central API v2.0 takes them
// (../shared/upstreams/erp.md §2): $filter (eq ne gt ge lt le, and or not, contains startswith
// endswith substring tolower toupper; strings single-quoted with doubled quotes; bare numbers,
// dates, datetimes and GUIDs), $select, $expand (nested, with its own options), $orderby, $top,
// $skip, $count. Problems throw ODataError (400 BadRequest): a quoted date, an unknown field, `or`
// across two different fields, an unknown $select/$orderby/$expand name, a syntax error.
//
// The $filter expression lives in odata-filter.ts (its exports are re-exported here).
import { type ErpEntitySchema, type ErpFieldType, type ErpStoredRow, erpSchema } from './data.ts';
import { compareValues, type FilterExpr, matches, ODataError, parseFilter, unknownProperty } from './odata-filter.ts';

export { type FilterExpr, matches, ODataError, parseFilter, unknownProperty } from './odata-filter.ts';

// ---------------------------------------------------------------------------------------------
// $select, $orderby, $expand, and the whole option set
// ---------------------------------------------------------------------------------------------

export interface OrderKey {
  readonly field: string;
  readonly type: ErpFieldType;
  readonly desc: boolean;
}

export interface ExpandItem {
  readonly nav: string;
  readonly options: QueryOptions;
}

export interface QueryOptions {
  readonly filter?: FilterExpr;
  readonly select?: readonly string[];
  readonly expand?: readonly ExpandItem[];
  readonly orderby?: readonly OrderKey[];
  readonly top?: number;
  readonly skip?: number;
  readonly count?: boolean;
}

/** Splits on `sep` at parenthesis depth 0, outside string literals. */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") inString = !inString;
    else if (!inString && c === '(') depth++;
    else if (!inString && c === ')') depth--;
    else if (!inString && depth === 0 && c === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw new ODataError(`Unbalanced parentheses in '${text}'.`);
  }
  if (depth !== 0 || inString) throw new ODataError(`Unbalanced parentheses or quotes in '${text}'.`);
  parts.push(text.slice(start));
  return parts;
}

function parseSelect(text: string, schema: ErpEntitySchema): string[] {
  const names = text.split(',').map((s) => s.trim());
  if (names.includes('*')) return Object.keys(schema.fields);
  for (const name of names) {
    if (name === '') throw new ODataError(`Syntax error in $select '${text}'.`);
    if (schema.fields[name] === undefined) throw unknownProperty(name, schema);
  }
  return names;
}

function parseOrderby(text: string, schema: ErpEntitySchema): OrderKey[] {
  return text.split(',').map((part) => {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s+(asc|desc))?\s*$/.exec(part);
    if (m === null) throw new ODataError(`Syntax error in $orderby '${text}'.`);
    const type = schema.fields[m[1]!];
    if (type === undefined) throw unknownProperty(m[1]!, schema);
    return { field: m[1]!, type, desc: m[2] === 'desc' };
  });
}

function parseCount(text: string, what: string): number {
  if (!/^\d{1,9}$/.test(text))
    throw new ODataError(`Invalid value '${text}' for ${what}: a non-negative integer is expected.`);
  return Number(text);
}

function parseExpand(text: string, schema: ErpEntitySchema): ExpandItem[] {
  return splitTop(text, ',').map((raw) => {
    const part = raw.trim();
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?$/s.exec(part);
    if (m === null) throw new ODataError(`Syntax error in $expand '${text}'.`);
    const nav = schema.navigations[m[1]!];
    if (nav === undefined) throw unknownProperty(m[1]!, schema);
    const target = erpSchema(nav.target)!;
    const options: Record<string, string> = {};
    if (m[2] !== undefined && m[2].trim() !== '') {
      for (const opt of splitTop(m[2], ';')) {
        const eq = opt.indexOf('=');
        if (eq < 0) throw new ODataError(`Syntax error in $expand '${text}'.`);
        options[opt.slice(0, eq).trim()] = opt.slice(eq + 1).trim();
      }
    }
    return { nav: m[1]!, options: parseOptions(options, target, true) };
  });
}

const TOP_LEVEL_OPTIONS = new Set([
  '$filter',
  '$select',
  '$expand',
  '$orderby',
  '$top',
  '$skip',
  '$count',
  '$skiptoken',
  '$schemaversion',
  '$format',
]);
const NESTED_OPTIONS = new Set(['$filter', '$select', '$expand', '$orderby', '$top', '$skip']);

/** Parses the query options of a set read (top-level or inside $expand). */
export function parseOptions(
  raw: Readonly<Record<string, string>>,
  schema: ErpEntitySchema,
  nested = false,
): QueryOptions {
  const allowed = nested ? NESTED_OPTIONS : TOP_LEVEL_OPTIONS;
  for (const name of Object.keys(raw)) {
    if (name.startsWith('$') && !allowed.has(name))
      throw new ODataError(`The query parameter '${name}' is not supported.`);
  }
  const out: {
    filter?: FilterExpr;
    select?: readonly string[];
    expand?: readonly ExpandItem[];
    orderby?: readonly OrderKey[];
    top?: number;
    skip?: number;
    count?: boolean;
  } = {};
  if (raw.$filter !== undefined) out.filter = parseFilter(raw.$filter, schema);
  if (raw.$select !== undefined) out.select = parseSelect(raw.$select, schema);
  if (raw.$expand !== undefined) out.expand = parseExpand(raw.$expand, schema);
  if (raw.$orderby !== undefined) out.orderby = parseOrderby(raw.$orderby, schema);
  if (raw.$top !== undefined) out.top = parseCount(raw.$top, '$top');
  if (raw.$skip !== undefined) out.skip = parseCount(raw.$skip, '$skip');
  if (raw.$count !== undefined) {
    if (raw.$count !== 'true' && raw.$count !== 'false')
      throw new ODataError(`Invalid value '${raw.$count}' for $count: true or false is expected.`);
    out.count = raw.$count === 'true';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running a query
// ---------------------------------------------------------------------------------------------

/** Looks up the rows of a set (real name) in the caller's scope (a company, or the environment). */
export type RowSource = (set: string) => readonly ErpStoredRow[];

/** Filters and orders rows (not paged). */
export function selectRows(rows: readonly ErpStoredRow[], options: QueryOptions): ErpStoredRow[] {
  const kept = options.filter === undefined ? [...rows] : rows.filter((r) => matches(options.filter!, r.fields));
  const order = options.orderby;
  if (order !== undefined && order.length > 0) {
    const indexed = kept.map((row, index) => ({ row, index }));
    indexed.sort((a, b) => {
      for (const key of order) {
        const x = a.row.fields[key.field];
        const y = b.row.fields[key.field];
        let c: number;
        if (x === y) c = 0;
        else if (x === null || x === undefined) c = -1;
        else if (y === null || y === undefined) c = 1;
        else c = compareValues(x, y, key.type);
        if (c !== 0) return key.desc ? -c : c;
      }
      return a.index - b.index;
    });
    return indexed.map((x) => x.row);
  }
  return kept;
}

/** One row as the API returns it: `@odata.etag`, the selected fields, then expanded navigations. */
export function shapeRow(
  row: ErpStoredRow,
  schema: ErpEntitySchema,
  options: QueryOptions,
  source: RowSource,
): Record<string, unknown> {
  const out: Record<string, unknown> = { '@odata.etag': row.etag };
  if (options.select === undefined) {
    for (const [key, v] of Object.entries(row.fields)) out[key] = v;
  } else {
    for (const name of options.select) out[name] = row.fields[name] ?? null;
  }
  for (const item of options.expand ?? []) {
    const nav = schema.navigations[item.nav]!;
    const target = erpSchema(nav.target)!;
    const parentValue = row.fields[nav.parentField];
    const related = source(nav.target).filter(
      (child) => parentValue !== undefined && parentValue !== null && child.fields[nav.childField] === parentValue,
    );
    let children = selectRows(related, item.options);
    if (item.options.skip !== undefined) children = children.slice(item.options.skip);
    if (item.options.top !== undefined) children = children.slice(0, item.options.top);
    const shaped = children.map((child) => shapeRow(child, target, item.options, source));
    out[item.nav] = nav.many ? shaped : (shaped[0] ?? null);
  }
  return out;
}

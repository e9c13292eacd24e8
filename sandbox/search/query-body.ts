// The searchAnalytics.query request body, validated as Google documents it (400 INVALID_ARGUMENT):
// dates, dimensions, type, filters, aggregationType, rowLimit, startRow, dataState (search.md §2).
import {
  type CellFilter,
  dayNumber,
  SEARCH_APPEARANCES,
  SEARCH_COUNTRIES,
  SEARCH_DEVICES,
  SEARCH_DIMENSIONS,
  SEARCH_TYPES,
  type SearchDimension,
  type SearchType,
  searchPageUrl,
  searchQueryText,
} from './data.ts';
import { invalid } from './google-error.ts';

/** Largest `rowLimit` Google accepts. */
export const SEARCH_MAX_ROW_LIMIT = 25_000;

/** Lower case without underscores: `BY_PAGE` and `byPage` compare equal. */
const fold = (value: string) => value.replace(/_/g, '').toLowerCase();

function enumValue<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  const found = typeof value === 'string' ? allowed.find((a) => fold(a) === fold(value)) : undefined;
  if (found === undefined)
    throw invalid(`Invalid value at '${field}' (${JSON.stringify(value)}): expected one of ${allowed.join(', ')}.`);
  return found;
}

const BODY_FIELDS = [
  'startDate',
  'endDate',
  'dimensions',
  'type',
  'searchType',
  'dimensionFilterGroups',
  'aggregationType',
  'rowLimit',
  'startRow',
  'dataState',
];
const OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'includingRegex', 'excludingRegex'] as const;
const AGGREGATIONS = ['auto', 'byProperty', 'byPage', 'byNewsShowcasePanel'] as const;
const DATA_STATES = ['final', 'all', 'hourlyAll'] as const;
const FILTER_DIMENSIONS = ['query', 'page', 'country', 'device', 'searchAppearance'] as const;

export interface ParsedQuery {
  readonly firstDay: number;
  readonly lastDay: number;
  readonly dimensions: SearchDimension[];
  readonly type: SearchType;
  readonly filters: CellFilter[];
  /** The filters as sent, for the result cache key. */
  readonly filterKey: string;
  readonly byPage: boolean;
  readonly aggregation: (typeof AGGREGATIONS)[number];
  readonly rowLimit: number;
  readonly startRow: number;
  readonly dataState: (typeof DATA_STATES)[number];
}

function integerField(body: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const value = body[name];
  if (value === undefined) return fallback;
  // Google's JSON mapping also takes an int32 as a digit string.
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (!Number.isSafeInteger(n) || (n as number) < min || (n as number) > max)
    throw invalid(`Invalid value at '${name}' (${JSON.stringify(value)}): must be an integer from ${min} to ${max}.`);
  return n as number;
}

function dateField(body: Record<string, unknown>, name: string): number {
  const value = body[name];
  if (value === undefined) throw invalid(`${name} field is required.`);
  const day = typeof value === 'string' ? dayNumber(value) : undefined;
  if (day === undefined)
    throw invalid(`Invalid value at '${name}' (${JSON.stringify(value)}): must be a date in the format YYYY-MM-DD.`);
  return day;
}

function compileFilter(
  raw: unknown,
  at: string,
): { filter: CellFilter; dimension: (typeof FILTER_DIMENSIONS)[number] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid(`Invalid value at '${at}': expected an object.`);
  const f = raw as Record<string, unknown>;
  for (const key of Object.keys(f))
    if (!['dimension', 'operator', 'expression'].includes(key))
      throw invalid(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`);
  const dimension = enumValue(f.dimension, FILTER_DIMENSIONS, `${at}.dimension`);
  const operator = f.operator === undefined ? 'equals' : enumValue(f.operator, OPERATORS, `${at}.operator`);
  const expression = f.expression;
  if (typeof expression !== 'string') throw invalid(`Invalid value at '${at}.expression': a string is required.`);
  if (expression.length > 4096) throw invalid(`Invalid value at '${at}.expression': at most 4096 characters.`);
  // equals/notEquals are case-sensitive for query and page only (search.md §2).
  const exact = dimension === 'query' || dimension === 'page';
  let test: (value: string) => boolean;
  if (operator === 'equals' || operator === 'notEquals') {
    const wanted = exact ? expression : expression.toLowerCase();
    const same = (v: string) => (exact ? v : v.toLowerCase()) === wanted;
    test = operator === 'equals' ? same : (v) => !same(v);
  } else if (operator === 'contains' || operator === 'notContains') {
    const wanted = expression.toLowerCase();
    test = operator === 'contains' ? (v) => v.toLowerCase().includes(wanted) : (v) => !v.toLowerCase().includes(wanted);
  } else {
    let re: RegExp;
    try {
      re = new RegExp(expression, 'u');
    } catch {
      throw invalid(`Invalid value at '${at}.expression': invalid regular expression.`);
    }
    test = operator === 'includingRegex' ? (v) => re.test(v) : (v) => !re.test(v);
  }
  const filter: CellFilter =
    dimension === 'query'
      ? { query: (rank) => test(searchQueryText(rank)) }
      : dimension === 'page'
        ? { page: (index) => test(searchPageUrl(index)) }
        : dimension === 'country'
          ? { country: (index) => test(SEARCH_COUNTRIES[index]!) }
          : dimension === 'device'
            ? { device: (index) => test(SEARCH_DEVICES[index]!) }
            : { searchAppearance: (index) => test(index < 0 ? '' : SEARCH_APPEARANCES[index]!) };
  return { filter, dimension };
}

export function parseQuery(body: unknown): ParsedQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('Invalid JSON payload received. Expected an object.');
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b))
    if (!BODY_FIELDS.includes(key))
      throw invalid(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
  const firstDay = dateField(b, 'startDate');
  const lastDay = dateField(b, 'endDate');
  if (firstDay > lastDay) throw invalid('startDate must be earlier than or equal to endDate.');
  const rawDimensions = b.dimensions ?? [];
  if (!Array.isArray(rawDimensions)) throw invalid("Invalid value at 'dimensions': expected a list.");
  const dimensions: SearchDimension[] = [];
  for (const [i, d] of rawDimensions.entries()) {
    const dimension = enumValue(d, SEARCH_DIMENSIONS, `dimensions[${i}]`);
    if (dimensions.includes(dimension))
      throw invalid(`Invalid value at 'dimensions[${i}]': the dimension ${dimension} is requested twice.`);
    dimensions.push(dimension);
  }
  const type = enumValue(b.type ?? b.searchType ?? 'web', SEARCH_TYPES, b.type !== undefined ? 'type' : 'searchType');
  const filters: CellFilter[] = [];
  let pageFilter = false;
  const groups = b.dimensionFilterGroups ?? [];
  if (!Array.isArray(groups)) throw invalid("Invalid value at 'dimensionFilterGroups': expected a list.");
  for (const [g, group] of groups.entries()) {
    const at = `dimensionFilterGroups[${g}]`;
    if (typeof group !== 'object' || group === null || Array.isArray(group))
      throw invalid(`Invalid value at '${at}': expected an object.`);
    const gr = group as Record<string, unknown>;
    for (const key of Object.keys(gr))
      if (key !== 'groupType' && key !== 'filters')
        throw invalid(`Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`);
    if (gr.groupType !== undefined) enumValue(gr.groupType, ['and'], `${at}.groupType`);
    const list = gr.filters ?? [];
    if (!Array.isArray(list)) throw invalid(`Invalid value at '${at}.filters': expected a list.`);
    for (const [i, raw] of list.entries()) {
      const { filter, dimension } = compileFilter(raw, `${at}.filters[${i}]`);
      filters.push(filter);
      if (dimension === 'page') pageFilter = true;
    }
  }
  const byPage = pageFilter || dimensions.includes('page');
  const aggregation = enumValue(b.aggregationType ?? 'auto', AGGREGATIONS, 'aggregationType');
  if (aggregation === 'byProperty' && byPage)
    throw invalid('Cannot aggregate by property when grouping or filtering by page.');
  if (aggregation === 'byNewsShowcasePanel' && ((type !== 'news' && type !== 'googleNews') || byPage))
    throw invalid(
      'byNewsShowcasePanel aggregation needs search type news or googleNews and no page grouping or filtering.',
    );
  const dataState = enumValue(b.dataState ?? 'final', DATA_STATES, 'dataState');
  if (dimensions.includes('hour') && dataState !== 'hourlyAll')
    throw invalid('The hour dimension needs dataState HOURLY_ALL.');
  return {
    firstDay,
    lastDay,
    dimensions,
    type,
    filters,
    filterKey: JSON.stringify(groups),
    byPage,
    aggregation,
    rowLimit: integerField(b, 'rowLimit', 1000, 1, SEARCH_MAX_ROW_LIMIT),
    startRow: integerField(b, 'startRow', 0, 0, 2_147_483_647),
    dataState,
  };
}

// Parsing of a register `_search` request body into the query tree the sandbox evaluates
// (../shared/upstreams/register.md §4); anything outside the subset is a 400 in the ES error shape.
import { FIELDS, type FieldType, SUPPORTED_FIELDS, analyze } from './analysis.ts';
import { isPlainObject, NOT_IN_SANDBOX, parsingError, illegalArgument, shardFailure, tokenKind } from './es-errors.ts';

/** `index.max_result_window` of the real service. */
export const MAX_RESULT_WINDOW = 3000;

const DEFAULT_SIZE = 10;

export type QueryNode =
  | { kind: 'match_all'; boost: number }
  | { kind: 'long'; field: string; value: number; boost: number }
  | { kind: 'text'; field: string; tokens: string[]; operator: 'and' | 'or'; boost: number }
  | { kind: 'bool'; must: QueryNode[]; boost: number };

const ES_QUERY_TYPES = new Set([
  'terms',
  'range',
  'exists',
  'prefix',
  'wildcard',
  'regexp',
  'fuzzy',
  'ids',
  'match_phrase',
  'match_phrase_prefix',
  'multi_match',
  'query_string',
  'simple_query_string',
  'nested',
  'has_child',
  'has_parent',
  'constant_score',
  'dis_max',
  'function_score',
  'boosting',
  'script',
  'more_like_this',
  'common',
  'type',
  'match_none',
  'terms_set',
  'geo_shape',
  'geo_distance',
  'geo_bounding_box',
  'geo_polygon',
  'span_term',
  'span_near',
  'parent_id',
]);

const ES_MATCH_OPTIONS = new Set([
  'analyzer',
  'fuzziness',
  'prefix_length',
  'max_expansions',
  'minimum_should_match',
  'lenient',
  'zero_terms_query',
  'cutoff_frequency',
  'auto_generate_synonyms_phrase_query',
  'fuzzy_transpositions',
  'fuzzy_rewrite',
  'type',
  'slop',
  '_name',
]);

const ES_BOOL_CLAUSES = new Set([
  'filter',
  'should',
  'must_not',
  'minimum_should_match',
  'adjust_pure_negative',
  'disable_coord',
  '_name',
]);

function parseBoost(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw parsingError(`[${name}] query malformed, [boost] must be a non-negative number`);
  return value;
}

function singleField(name: string, body: unknown): [string, unknown] {
  if (!isPlainObject(body)) throw parsingError(`[${name}] query malformed, no start_object after query name`);
  const keys = Object.keys(body);
  if (keys.length === 0) throw parsingError(`[${name}] query malformed, no field to query`);
  if (keys.length > 1)
    throw parsingError(`[${name}] query doesn't support multiple fields, found [${keys[0]}] and [${keys[1]}]`);
  const field = keys[0]!;
  return [field, body[field]];
}

function fieldType(name: string, field: string): FieldType {
  const type = FIELDS.get(field);
  if (type === undefined) {
    throw parsingError(
      `[${name}] on field [${field}] ${NOT_IN_SANDBOX}; supported fields: ${SUPPORTED_FIELDS.join(', ')}`,
    );
  }
  return type;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** A value for a numeric (`long`) field: an integer or an integer string, as ES coerces it. */
function parseLong(name: string, field: string, value: string | number | boolean, indexName: string): number {
  const text = String(value).trim();
  if (typeof value !== 'boolean' && /^[+-]?\d{1,15}$/.test(text)) return Number(text);
  const reason =
    typeof value === 'number' && Number.isFinite(value)
      ? `Value [${value}] has a decimal part`
      : `For input string: "${String(value)}"`;
  throw shardFailure(indexName, {
    type: 'query_shard_exception',
    reason: `failed to create query: {\n  "${name}" : {\n    "${field}" : ${JSON.stringify(value)}\n  }\n}`,
    caused_by: { type: typeof value === 'number' ? 'illegal_argument_exception' : 'number_format_exception', reason },
  });
}

function parseTerm(body: unknown, indexName: string): QueryNode {
  const [field, spec] = singleField('term', body);
  let value: unknown = spec;
  let boost = 1;
  if (isPlainObject(spec)) {
    value = undefined;
    for (const [key, v] of Object.entries(spec)) {
      if (key === 'value') value = v;
      else if (key === 'boost') boost = parseBoost('term', v);
      else if (key === '_name') throw parsingError(`[term] option [_name] ${NOT_IN_SANDBOX}`);
      else throw parsingError(`[term] query does not support [${key}]`);
    }
  }
  if (value === undefined || value === null) throw parsingError('[term] query malformed, no value specified');
  if (!isScalar(value)) throw parsingError(`[term] query does not support value of type [${tokenKind(value)}]`);
  const type = fieldType('term', field);
  if (type === 'long') return { kind: 'long', field, value: parseLong('term', field, value, indexName), boost };
  // A term is not analysed: it only matches a token that is spelled exactly like it.
  return { kind: 'text', field, tokens: [String(value)], operator: 'and', boost };
}

function parseMatch(body: unknown, indexName: string): QueryNode {
  const [field, spec] = singleField('match', body);
  let query: unknown = spec;
  let operator: 'and' | 'or' = 'or';
  let boost = 1;
  if (isPlainObject(spec)) {
    query = undefined;
    for (const [key, v] of Object.entries(spec)) {
      if (key === 'query') query = v;
      else if (key === 'boost') boost = parseBoost('match', v);
      else if (key === 'operator') {
        const op = typeof v === 'string' ? v.toLowerCase() : '';
        if (op !== 'and' && op !== 'or')
          throw parsingError(`[match] query does not support [operator] value [${String(v)}], expected [and] or [or]`);
        operator = op;
      } else if (ES_MATCH_OPTIONS.has(key)) throw parsingError(`[match] option [${key}] ${NOT_IN_SANDBOX}`);
      else throw parsingError(`[match] query does not support [${key}]`);
    }
  }
  if (query === undefined || query === null) throw parsingError('[match] requires query value');
  if (!isScalar(query)) throw parsingError(`[match] unknown token [${tokenKind(query)}] after [query]`);
  const type = fieldType('match', field);
  if (type === 'long') return { kind: 'long', field, value: parseLong('match', field, query, indexName), boost };
  return { kind: 'text', field, tokens: analyze(String(query)), operator, boost };
}

function parseBool(body: unknown, indexName: string): QueryNode {
  if (!isPlainObject(body)) throw parsingError('[bool] query malformed, no start_object after query name');
  const must: QueryNode[] = [];
  let boost = 1;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'must') {
      const clauses = Array.isArray(value) ? value : [value];
      for (const clause of clauses) must.push(parseQuery(clause, indexName));
    } else if (key === 'boost') boost = parseBoost('bool', value);
    else if (ES_BOOL_CLAUSES.has(key)) throw parsingError(`[bool] clause [${key}] ${NOT_IN_SANDBOX} (only [must] is)`);
    else throw parsingError(`[bool] query does not support [${key}]`);
  }
  return { kind: 'bool', must, boost };
}

function parseQuery(value: unknown, indexName: string): QueryNode {
  if (!isPlainObject(value)) throw parsingError(`[_na] query malformed, must start with start_object`);
  const keys = Object.keys(value);
  if (keys.length === 0) throw parsingError('query malformed, empty clause found');
  if (keys.length > 1) throw parsingError(`[${keys[0]}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
  const name = keys[0]!;
  const body = value[name];
  switch (name) {
    case 'match_all': {
      if (!isPlainObject(body)) throw parsingError('[match_all] query malformed, no start_object after query name');
      let boost = 1;
      for (const [key, v] of Object.entries(body)) {
        if (key === 'boost') boost = parseBoost('match_all', v);
        else throw parsingError(`[match_all] query does not support [${key}]`);
      }
      return { kind: 'match_all', boost };
    }
    case 'term':
      return parseTerm(body, indexName);
    case 'match':
      return parseMatch(body, indexName);
    case 'bool':
      return parseBool(body, indexName);
    default:
      if (ES_QUERY_TYPES.has(name))
        throw parsingError(`[${name}] query ${NOT_IN_SANDBOX}; use term, match, match_all or bool.must`);
      throw parsingError(`no [query] registered for [${name}]`);
  }
}

// ---------------------------------------------------------------------------------------------
// Request parsing
// ---------------------------------------------------------------------------------------------

export interface SourceFilter {
  includes: string[];
  excludes: string[];
}

export interface ParsedSearch {
  query: QueryNode;
  size: number;
  from: number;
  source: SourceFilter | false;
}

const ES_TOP_LEVEL_KEYS = new Set([
  'sort',
  'aggs',
  'aggregations',
  'search_after',
  'script_fields',
  'highlight',
  'post_filter',
  'min_score',
  'explain',
  'version',
  'seq_no_primary_term',
  'stored_fields',
  'docvalue_fields',
  'timeout',
  'terminate_after',
  'collapse',
  'suggest',
  'rescore',
  'indices_boost',
  'slice',
  'profile',
  'track_scores',
  'track_total_hits',
  'stats',
  'ext',
  'scroll',
]);

function parseCount(name: 'size' | 'from', value: unknown): number {
  const n = typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw parsingError(`[${name}] must be an integer, found [${tokenKind(value)}]`);
  if (n < 0) throw illegalArgument(`[${name}] parameter cannot be negative, found [${n}]`);
  return n;
}

function stringList(name: string, value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw parsingError(`[_source] [${name}] must be a string or an array of strings, found [${tokenKind(value)}]`);
}

function parseSource(value: unknown): SourceFilter | false {
  if (value === true) return { includes: [], excludes: [] };
  if (value === false) return false;
  if (typeof value === 'string' || Array.isArray(value))
    return { includes: stringList('includes', value), excludes: [] };
  if (isPlainObject(value)) {
    const filter: SourceFilter = { includes: [], excludes: [] };
    for (const [key, v] of Object.entries(value)) {
      if (key === 'includes' || key === 'include') filter.includes = stringList(key, v);
      else if (key === 'excludes' || key === 'exclude') filter.excludes = stringList(key, v);
      else throw parsingError(`Unknown key for a ${tokenKind(v)} in [${key}].`);
    }
    return filter;
  }
  throw parsingError(`Unknown key for a ${tokenKind(value)} in [_source].`);
}

export function parseSearchBody(body: unknown, indexName: string): ParsedSearch {
  const parsed: ParsedSearch = {
    query: { kind: 'match_all', boost: 1 },
    size: DEFAULT_SIZE,
    from: 0,
    source: { includes: [], excludes: [] },
  };
  if (body === undefined || body === null) return parsed;
  if (!isPlainObject(body)) throw parsingError(`Expected [START_OBJECT] but found [${tokenKind(body)}]`);
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'query':
        parsed.query = parseQuery(value, indexName);
        break;
      case 'size':
        parsed.size = parseCount('size', value);
        break;
      case 'from':
        parsed.from = parseCount('from', value);
        break;
      case '_source':
        parsed.source = parseSource(value);
        break;
      default:
        if (ES_TOP_LEVEL_KEYS.has(key)) throw parsingError(`[${key}] ${NOT_IN_SANDBOX}`);
        throw parsingError(`Unknown key for a ${tokenKind(value)} in [${key}].`);
    }
  }
  if (parsed.from + parsed.size > MAX_RESULT_WINDOW) {
    throw shardFailure(indexName, {
      type: 'illegal_argument_exception',
      reason:
        'Result window is too large, from + size must be less than or equal to: ' +
        `[${MAX_RESULT_WINDOW}] but was [${parsed.from + parsed.size}]. ` +
        'See the scroll api for a more efficient way to request large data sets. ' +
        'This limit can be set by changing the [index.max_result_window] index level setting.',
    });
  }
  return parsed;
}

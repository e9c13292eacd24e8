// The query subset of the company-register sandbox (../shared/upstreams/register.md §4).
//
// Elasticsearch 6 semantics for what the connector sends: `term` on id and relation fields
// (numeric fields take a number or a numeric string; text fields compare the raw term against the
// analysed tokens, so `term: { enhedstype: "PERSON" }` finds nothing, as on the public mappings),
// `match` with the default `or` or `operator: "and"` (standard-analyser tokens: lower-cased,
// Unicode letters incl. æøå, split on punctuation such as the slash in "A/S"), `match_all`,
// `bool.must`, `size`/`from` within the 3000-document result window, `_source` filtering, and the
// ES 6 envelope (integer `hits.total` before `size`, `_type: "_doc"`, `_id` = `enhedsNummer`,
// BM25-style scores). Everything else is answered with a 400 `parsing_exception` in the ES error
// shape, naming the sandbox when real ES would have accepted the request.

import { REGISTER_INDEX_NAMES, companySources, participantSources, unitSources } from './data.ts';

export type RegisterAlias = 'virksomhed' | 'produktionsenhed' | 'deltager';

export const REGISTER_ALIASES: readonly RegisterAlias[] = ['virksomhed', 'produktionsenhed', 'deltager'];

/** `index.max_result_window` of the real service. */
export const MAX_RESULT_WINDOW = 3000;

const SHARDS_PER_INDEX = 6;
const DEFAULT_SIZE = 10;

export interface SearchDocument {
  id: string;
  source: Readonly<Record<string, unknown>>;
}

export interface SearchIndex {
  alias: RegisterAlias;
  index: string;
  root: string;
  docs: readonly SearchDocument[];
}

export interface EsErrorCause {
  type: string;
  reason: string;
  [key: string]: unknown;
}

export interface EsErrorBody {
  error: EsErrorCause & { root_cause: EsErrorCause[] };
  status: number;
}

export interface SearchHit {
  _index: string;
  _type: '_doc';
  _id: string;
  _score: number;
  _source?: unknown;
}

export interface SearchResponseBody {
  took: number;
  timed_out: false;
  _shards: { total: number; successful: number; skipped: number; failed: number };
  hits: { total: number; max_score: number | null; hits: SearchHit[] };
}

export type SearchResult = { status: 200; body: SearchResponseBody } | { status: number; body: EsErrorBody };

function toDocuments(sources: ReadonlyArray<object>, root: string): SearchDocument[] {
  return sources.map((s) => {
    const source = s as Record<string, unknown>;
    const enhedsNummer = (source[root] as { enhedsNummer: number }).enhedsNummer;
    return { id: String(enhedsNummer), source };
  });
}

/** The three aliases of the sandbox, filled with the seeded demo documents. */
export const registerIndices: Readonly<Record<RegisterAlias, SearchIndex>> = {
  virksomhed: { alias: 'virksomhed', index: REGISTER_INDEX_NAMES.virksomhed, root: 'Vrvirksomhed', docs: toDocuments(companySources, 'Vrvirksomhed') },
  produktionsenhed: {
    alias: 'produktionsenhed',
    index: REGISTER_INDEX_NAMES.produktionsenhed,
    root: 'VrproduktionsEnhed',
    docs: toDocuments(unitSources, 'VrproduktionsEnhed'),
  },
  deltager: { alias: 'deltager', index: REGISTER_INDEX_NAMES.deltager, root: 'Vrdeltagerperson', docs: toDocuments(participantSources, 'Vrdeltagerperson') },
};

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** An Elasticsearch error body: `{ error: { root_cause: [...], type, reason, ... }, status }`. */
export function esErrorBody(status: number, type: string, reason: string, extra: Record<string, unknown> = {}, rootCause?: EsErrorCause[]): EsErrorBody {
  return { error: { root_cause: rootCause ?? [{ type, reason }], type, reason, ...extra }, status };
}

class QueryError extends Error {
  readonly status: number;
  readonly body: EsErrorBody;
  constructor(body: EsErrorBody) {
    super(body.error.reason);
    this.status = body.status;
    this.body = body;
  }
}

function parsingError(reason: string): QueryError {
  return new QueryError(esErrorBody(400, 'parsing_exception', reason));
}

function illegalArgument(reason: string): QueryError {
  return new QueryError(esErrorBody(400, 'illegal_argument_exception', reason));
}

/** A failure raised on the shards: wrapped in `search_phase_execution_exception` as ES 6 does. */
function shardFailure(index: string, cause: EsErrorCause): QueryError {
  return new QueryError(
    esErrorBody(400, 'search_phase_execution_exception', 'all shards failed', { phase: 'query', grouped: true, failed_shards: [{ shard: 0, index, node: 'sandbox-node-0', reason: cause }] }, [
      { ...cause, index_uuid: 'sandbox', index },
    ]),
  );
}

const NOT_IN_SANDBOX = 'is not supported by the register sandbox';

function tokenKind(value: unknown): string {
  if (value === null) return 'VALUE_NULL';
  if (Array.isArray(value)) return 'START_ARRAY';
  switch (typeof value) {
    case 'object':
      return 'START_OBJECT';
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    default:
      return 'VALUE_EMBEDDED_OBJECT';
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Fields and analysis
// ---------------------------------------------------------------------------------------------

type FieldType = 'long' | 'text';

/** Fields the sandbox can query; term/match on any other field is refused with a parsing_exception. */
const FIELDS: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
  ['Vrvirksomhed.cvrNummer', 'long'],
  ['Vrvirksomhed.enhedsNummer', 'long'],
  ['Vrvirksomhed.penheder.pNummer', 'long'],
  ['Vrvirksomhed.deltagerRelation.deltager.enhedsNummer', 'long'],
  ['Vrvirksomhed.deltagerRelation.deltager.forretningsnoegle', 'long'],
  ['Vrvirksomhed.virksomhedMetadata.nyesteNavn.navn', 'text'],
  ['Vrvirksomhed.navne.navn', 'text'],
  ['Vrvirksomhed.enhedstype', 'text'],
  ['VrproduktionsEnhed.pNummer', 'long'],
  ['VrproduktionsEnhed.enhedsNummer', 'long'],
  ['VrproduktionsEnhed.produktionsEnhedMetadata.nyesteCvrNummerRelation', 'long'],
  ['VrproduktionsEnhed.virksomhedsrelation.cvrNummer', 'long'],
  ['VrproduktionsEnhed.produktionsEnhedMetadata.nyesteNavn.navn', 'text'],
  ['VrproduktionsEnhed.navne.navn', 'text'],
  ['VrproduktionsEnhed.enhedstype', 'text'],
  ['Vrdeltagerperson.enhedsNummer', 'long'],
  ['Vrdeltagerperson.virksomhedSummariskRelation.virksomhed.cvrNummer', 'long'],
  ['Vrdeltagerperson.navne.navn', 'text'],
  ['Vrdeltagerperson.enhedstype', 'text'],
]);

/** The fields the sandbox supports in `term` and `match` (for documentation and error texts). */
export const SUPPORTED_FIELDS: readonly string[] = [...FIELDS.keys()];

const TOKEN = /[\p{L}\p{M}\p{N}_]+(?:['’.][\p{L}\p{M}\p{N}_]+)*/gu;

/** Approximates the ES standard analyser: Unicode word tokens, lower-cased ("Ærø A/S" → ["ærø", "a", "s"]). */
export function analyze(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** All leaf values under a dotted path, looking through arrays at every level (ES object flattening). */
function extract(node: unknown, segments: readonly string[], i: number, out: unknown[]): unknown[] {
  if (Array.isArray(node)) {
    for (const element of node) extract(element, segments, i, out);
    return out;
  }
  if (i === segments.length) {
    if (node !== null && node !== undefined) out.push(node);
    return out;
  }
  if (isPlainObject(node)) extract(node[segments[i]!], segments, i + 1, out);
  return out;
}

interface FieldStats {
  /** Per document index: term frequencies and field length. */
  docs: Array<{ tf: Map<string, number>; length: number } | undefined>;
  docFreq: Map<string, number>;
  docCount: number;
  avgLength: number;
}

const statsCache = new WeakMap<SearchIndex, Map<string, FieldStats>>();

function textStats(index: SearchIndex, field: string): FieldStats {
  let perIndex = statsCache.get(index);
  if (perIndex === undefined) {
    perIndex = new Map();
    statsCache.set(index, perIndex);
  }
  const cached = perIndex.get(field);
  if (cached !== undefined) return cached;
  const segments = field.split('.');
  const stats: FieldStats = { docs: [], docFreq: new Map(), docCount: 0, avgLength: 0 };
  let totalLength = 0;
  index.docs.forEach((doc, i) => {
    const tokens = extract(doc.source, segments, 0, []).flatMap((v) => (typeof v === 'object' ? [] : analyze(String(v))));
    if (tokens.length === 0) return;
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) stats.docFreq.set(t, (stats.docFreq.get(t) ?? 0) + 1);
    stats.docs[i] = { tf, length: tokens.length };
    stats.docCount++;
    totalLength += tokens.length;
  });
  stats.avgLength = stats.docCount === 0 ? 1 : totalLength / stats.docCount;
  perIndex.set(field, stats);
  return stats;
}

const K1 = 1.2;
const B = 0.75;

function bm25(stats: FieldStats, docIndex: number, token: string): number | null {
  const doc = stats.docs[docIndex];
  const tf = doc?.tf.get(token);
  if (doc === undefined || tf === undefined) return null;
  const df = stats.docFreq.get(token) ?? 0;
  const idf = Math.log(1 + (stats.docCount - df + 0.5) / (df + 0.5));
  return (idf * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * doc.length) / stats.avgLength));
}

/** A score as ES prints it: a 32-bit float in its shortest decimal form. */
function esFloat(x: number): number {
  const f = Math.fround(x);
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = Number(f.toPrecision(precision));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// Query parsing
// ---------------------------------------------------------------------------------------------

type QueryNode =
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

const ES_BOOL_CLAUSES = new Set(['filter', 'should', 'must_not', 'minimum_should_match', 'adjust_pure_negative', 'disable_coord', '_name']);

function parseBoost(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw parsingError(`[${name}] query malformed, [boost] must be a non-negative number`);
  return value;
}

function singleField(name: string, body: unknown): [string, unknown] {
  if (!isPlainObject(body)) throw parsingError(`[${name}] query malformed, no start_object after query name`);
  const keys = Object.keys(body);
  if (keys.length === 0) throw parsingError(`[${name}] query malformed, no field to query`);
  if (keys.length > 1) throw parsingError(`[${name}] query doesn't support multiple fields, found [${keys[0]}] and [${keys[1]}]`);
  const field = keys[0]!;
  return [field, body[field]];
}

function fieldType(name: string, field: string): FieldType {
  const type = FIELDS.get(field);
  if (type === undefined) {
    throw parsingError(`[${name}] on field [${field}] ${NOT_IN_SANDBOX}; supported fields: ${SUPPORTED_FIELDS.join(', ')}`);
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
  const reason = typeof value === 'number' && Number.isFinite(value) ? `Value [${value}] has a decimal part` : `For input string: "${String(value)}"`;
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
        if (op !== 'and' && op !== 'or') throw parsingError(`[match] query does not support [operator] value [${String(v)}], expected [and] or [or]`);
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
      if (ES_QUERY_TYPES.has(name)) throw parsingError(`[${name}] query ${NOT_IN_SANDBOX}; use term, match, match_all or bool.must`);
      throw parsingError(`no [query] registered for [${name}]`);
  }
}

// ---------------------------------------------------------------------------------------------
// Request parsing
// ---------------------------------------------------------------------------------------------

interface SourceFilter {
  includes: string[];
  excludes: string[];
}

interface ParsedSearch {
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
  if (typeof n !== 'number' || !Number.isInteger(n)) throw parsingError(`[${name}] must be an integer, found [${tokenKind(value)}]`);
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
  if (typeof value === 'string' || Array.isArray(value)) return { includes: stringList('includes', value), excludes: [] };
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

function parseSearchBody(body: unknown, indexName: string): ParsedSearch {
  const parsed: ParsedSearch = { query: { kind: 'match_all', boost: 1 }, size: DEFAULT_SIZE, from: 0, source: { includes: [], excludes: [] } };
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
        `Result window is too large, from + size must be less than or equal to: [${MAX_RESULT_WINDOW}] but was [${parsed.from + parsed.size}]. ` +
        'See the scroll api for a more efficient way to request large data sets. ' +
        'This limit can be set by changing the [index.max_result_window] index level setting.',
    });
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

function evaluate(node: QueryNode, index: SearchIndex, docIndex: number): number | null {
  switch (node.kind) {
    case 'match_all':
      return node.boost;
    case 'long': {
      const values = extract(index.docs[docIndex]!.source, node.field.split('.'), 0, []);
      return values.some((v) => (typeof v === 'number' || typeof v === 'string') && Number(v) === node.value) ? node.boost : null;
    }
    case 'text': {
      if (node.tokens.length === 0) return null;
      const stats = textStats(index, node.field);
      let score = 0;
      let matched = 0;
      for (const token of node.tokens) {
        const s = bm25(stats, docIndex, token);
        if (s === null) {
          if (node.operator === 'and') return null;
          continue;
        }
        score += s;
        matched++;
      }
      return matched === 0 ? null : score * node.boost;
    }
    case 'bool': {
      if (node.must.length === 0) return node.boost;
      let score = 0;
      for (const clause of node.must) {
        const s = evaluate(clause, index, docIndex);
        if (s === null) return null;
        score += s;
      }
      return score * node.boost;
    }
  }
}

function matchesPattern(pattern: string, path: string): boolean {
  if (!pattern.includes('*')) return pattern === path;
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(path);
}

function mayMatchBelow(pattern: string, path: string): boolean {
  if (pattern.includes('*')) {
    const prefix = pattern.slice(0, pattern.indexOf('*'));
    return prefix.startsWith(`${path}.`) || `${path}.`.startsWith(prefix) || prefix.startsWith(path);
  }
  return pattern.startsWith(`${path}.`);
}

/** ES source filtering: dotted include/exclude paths (with `*`), looking through arrays. */
function filterSource(value: unknown, path: string, filter: SourceFilter, included: boolean): { keep: boolean; value: unknown } {
  if (path !== '' && filter.excludes.some((p) => matchesPattern(p, path))) return { keep: false, value: undefined };
  const inside = included || (path !== '' && filter.includes.some((p) => matchesPattern(p, path)));
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const element of value) {
      if (typeof element === 'object' && element !== null) {
        const r = filterSource(element, path, filter, inside);
        if (r.keep) out.push(r.value);
      } else if (inside) out.push(element);
    }
    return { keep: inside || out.length > 0, value: out };
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      if (!inside && !filter.includes.some((p) => matchesPattern(p, childPath) || mayMatchBelow(p, childPath))) continue;
      const r = filterSource(child, childPath, filter, inside);
      if (r.keep) out[key] = r.value;
    }
    return { keep: inside || Object.keys(out).length > 0, value: out };
  }
  return { keep: inside, value };
}

function applySourceFilter(source: Readonly<Record<string, unknown>>, filter: SourceFilter): unknown {
  if (filter.includes.length === 0 && filter.excludes.length === 0) return source;
  const r = filterSource(source, '', filter, filter.includes.length === 0);
  return r.keep ? r.value : {};
}

/**
 * Runs one `_search` request body against the given indices and returns the ES response (or the
 * ES error) with its HTTP status. `body` is the parsed JSON (undefined for an empty body).
 */
export function executeSearch(indices: readonly SearchIndex[], body: unknown): SearchResult {
  const started = performance.now();
  let parsed: ParsedSearch;
  try {
    parsed = parseSearchBody(body, indices[0]?.index ?? 'cvr-permanent');
  } catch (error) {
    if (error instanceof QueryError) return { status: error.status, body: error.body };
    throw error;
  }
  const matches: Array<{ index: SearchIndex; docIndex: number; score: number; order: number }> = [];
  let order = 0;
  for (const index of indices) {
    for (let docIndex = 0; docIndex < index.docs.length; docIndex++) {
      const score = evaluate(parsed.query, index, docIndex);
      if (score !== null) matches.push({ index, docIndex, score: esFloat(score), order });
      order++;
    }
  }
  matches.sort((a, b) => b.score - a.score || a.order - b.order);
  const hits: SearchHit[] = matches.slice(parsed.from, parsed.from + parsed.size).map((m) => {
    const doc = m.index.docs[m.docIndex]!;
    const hit: SearchHit = { _index: m.index.index, _type: '_doc', _id: doc.id, _score: m.score };
    if (parsed.source !== false) hit._source = applySourceFilter(doc.source, parsed.source);
    return hit;
  });
  const maxScore = matches.length === 0 ? null : parsed.size === 0 ? 0 : matches[0]!.score;
  const shards = SHARDS_PER_INDEX * indices.length;
  return {
    status: 200,
    body: {
      took: Math.max(1, Math.round(performance.now() - started)),
      timed_out: false,
      _shards: { total: shards, successful: shards, skipped: 0, failed: 0 },
      hits: { total: matches.length, max_score: maxScore, hits },
    },
  };
}

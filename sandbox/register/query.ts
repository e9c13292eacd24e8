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
//
// This file evaluates and answers; the request parser is query-parse.ts, fields, analysis and
// scoring are analysis.ts, the ES error bodies es-errors.ts.

import { REGISTER_INDEX_NAMES, companySources, participantSources, unitSources } from './data.ts';
import {
  bm25,
  esFloat,
  extract,
  type RegisterAlias,
  type SearchDocument,
  type SearchIndex,
  textStats,
} from './analysis.ts';
import { type EsErrorBody, QueryError, isPlainObject } from './es-errors.ts';
import { type ParsedSearch, parseSearchBody, type QueryNode, type SourceFilter } from './query-parse.ts';

export { analyze, SUPPORTED_FIELDS } from './analysis.ts';
export type { RegisterAlias, SearchDocument, SearchIndex } from './analysis.ts';
export { esErrorBody } from './es-errors.ts';
export type { EsErrorBody, EsErrorCause } from './es-errors.ts';
export { MAX_RESULT_WINDOW } from './query-parse.ts';

export const REGISTER_ALIASES: readonly RegisterAlias[] = ['virksomhed', 'produktionsenhed', 'deltager'];

const SHARDS_PER_INDEX = 6;

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
  virksomhed: {
    alias: 'virksomhed',
    index: REGISTER_INDEX_NAMES.virksomhed,
    root: 'Vrvirksomhed',
    docs: toDocuments(companySources, 'Vrvirksomhed'),
  },
  produktionsenhed: {
    alias: 'produktionsenhed',
    index: REGISTER_INDEX_NAMES.produktionsenhed,
    root: 'VrproduktionsEnhed',
    docs: toDocuments(unitSources, 'VrproduktionsEnhed'),
  },
  deltager: {
    alias: 'deltager',
    index: REGISTER_INDEX_NAMES.deltager,
    root: 'Vrdeltagerperson',
    docs: toDocuments(participantSources, 'Vrdeltagerperson'),
  },
};

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

function evaluate(node: QueryNode, index: SearchIndex, docIndex: number): number | null {
  switch (node.kind) {
    case 'match_all':
      return node.boost;
    case 'long': {
      const values = extract(index.docs[docIndex]!.source, node.field.split('.'), 0, []);
      return values.some((v) => (typeof v === 'number' || typeof v === 'string') && Number(v) === node.value)
        ? node.boost
        : null;
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
function filterSource(
  value: unknown,
  path: string,
  filter: SourceFilter,
  included: boolean,
): { keep: boolean; value: unknown } {
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
      if (!inside && !filter.includes.some((p) => matchesPattern(p, childPath) || mayMatchBelow(p, childPath)))
        continue;
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

// Fields, analysis and scoring of the register sandbox: the fields `term` and `match` may name,
// the standard-analyser approximation, ES object flattening and BM25 with ES's float printing.
import { isPlainObject } from './es-errors.ts';

export type RegisterAlias = 'virksomhed' | 'produktionsenhed' | 'deltager';

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

export type FieldType = 'long' | 'text';

/** Fields the sandbox can query; term/match on any other field is refused with a parsing_exception. */
export const FIELDS: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
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
export function extract(node: unknown, segments: readonly string[], i: number, out: unknown[]): unknown[] {
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

export interface FieldStats {
  /** Per document index: term frequencies and field length. */
  docs: Array<{ tf: Map<string, number>; length: number } | undefined>;
  docFreq: Map<string, number>;
  docCount: number;
  avgLength: number;
}

const statsCache = new WeakMap<SearchIndex, Map<string, FieldStats>>();

export function textStats(index: SearchIndex, field: string): FieldStats {
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
    const tokens = extract(doc.source, segments, 0, []).flatMap((v) =>
      typeof v === 'object' ? [] : analyze(String(v)),
    );
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

export function bm25(stats: FieldStats, docIndex: number, token: string): number | null {
  const doc = stats.docs[docIndex];
  const tf = doc?.tf.get(token);
  if (doc === undefined || tf === undefined) return null;
  const df = stats.docFreq.get(token) ?? 0;
  const idf = Math.log(1 + (stats.docCount - df + 0.5) / (df + 0.5));
  return (idf * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * doc.length) / stats.avgLength));
}

/** A score as ES prints it: a 32-bit float in its shortest decimal form. */
export function esFloat(x: number): number {
  const f = Math.fround(x);
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = Number(f.toPrecision(precision));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

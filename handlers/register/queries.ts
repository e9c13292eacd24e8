// The Elasticsearch request bodies of the five tools (upstreams/register.md §2 "Queries per
// tool"). Every body is bounded by `size`; none scrolls or pages. `_source` include lists keep
// the responses to the fields the mapping reads.

const COMPANY = 'Vrvirksomhed';
const UNIT = 'VrproduktionsEnhed';
const PARTICIPANT = 'Vrdeltagerperson';

const EMPLOYMENT = [
  'nyesteAarsbeskaeftigelse',
  'nyesteKvartalsbeskaeftigelse',
  'nyesteMaanedsbeskaeftigelse',
  'nyesteErstMaanedsbeskaeftigelse',
];

const COMPANY_METADATA = [
  'nyesteNavn',
  'nyesteVirksomhedsform',
  'nyesteBeliggenhedsadresse',
  'nyesteHovedbranche',
  'sammensatStatus',
  'stiftelsesDato',
  ...EMPLOYMENT,
];

/** Company master data as returned by `soeg_virksomhed` (no capital). */
export const COMPANY_SOURCE: readonly string[] = [
  `${COMPANY}.cvrNummer`,
  `${COMPANY}.reklamebeskyttet`,
  ...COMPANY_METADATA.map((f) => `${COMPANY}.virksomhedMetadata.${f}`),
];

/** `hent_virksomhed` adds the attributes holding KAPITAL and KAPITALVALUTA. */
export const COMPANY_DETAIL_SOURCE: readonly string[] = [...COMPANY_SOURCE, `${COMPANY}.attributter`];

export const OWNERS_SOURCE: readonly string[] = [
  `${COMPANY}.cvrNummer`,
  `${COMPANY}.virksomhedMetadata.nyesteNavn`,
  `${COMPANY}.deltagerRelation`,
];

const UNIT_METADATA = [
  'nyesteNavn',
  'nyesteBeliggenhedsadresse',
  'nyesteHovedbranche',
  'sammensatStatus',
  ...EMPLOYMENT,
];

export const UNIT_SOURCE: readonly string[] = [
  `${UNIT}.pNummer`,
  `${UNIT}.reklamebeskyttet`,
  ...UNIT_METADATA.map((f) => `${UNIT}.produktionsEnhedMetadata.${f}`),
];

export const PERSON_SOURCE: readonly string[] = [
  `${PARTICIPANT}.enhedsNummer`,
  `${PARTICIPANT}.enhedstype`,
  `${PARTICIPANT}.navne`,
  `${PARTICIPANT}.virksomhedSummariskRelation`,
];

/** `soeg_virksomhed`: every word of the query in the newest registered name. */
export function companySearchBody(query: string, size: number): Record<string, unknown> {
  return {
    query: { match: { [`${COMPANY}.virksomhedMetadata.nyesteNavn.navn`]: { query, operator: 'and' } } },
    size,
    _source: COMPANY_SOURCE,
  };
}

/** `hent_virksomhed` and `find_ejere`: the one company with this CVR number. */
export function companyByCvrBody(cvrNummer: number, source: readonly string[]): Record<string, unknown> {
  return {
    query: { term: { [`${COMPANY}.cvrNummer`]: cvrNummer } },
    size: 1,
    _source: source,
  };
}

/** `find_produktionsenheder`: units whose current parent is the company (register.md §3). */
export function unitsByCvrBody(cvrNummer: number, size: number): Record<string, unknown> {
  return {
    query: { term: { [`${UNIT}.produktionsEnhedMetadata.nyesteCvrNummerRelation`]: cvrNummer } },
    size,
    _source: UNIT_SOURCE,
  };
}

/**
 * `find_virksomheder_for_person`: all words of the name, persons only. `enhedstype` is analysed
 * text in public mappings, so it is a `match`, not a `term` (which would find nothing).
 */
export function personSearchBody(navn: string, size: number): Record<string, unknown> {
  return {
    query: {
      bool: {
        must: [
          { match: { [`${PARTICIPANT}.navne.navn`]: { query: navn, operator: 'and' } } },
          { match: { [`${PARTICIPANT}.enhedstype`]: 'PERSON' } },
        ],
      },
    },
    size,
    _source: PERSON_SOURCE,
  };
}

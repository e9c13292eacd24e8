// From CVR Elasticsearch documents to the spec's records (upstreams/register.md §2 field mapping,
// §3 resolutions). Documents are read defensively: a missing or oddly typed field becomes null,
// never a guessed value (no null count turned into 0, no enhedsNummer passed off as a CVR number).
import type {
  FindEjereResult,
  FindProduktionsenhederResult,
  FindVirksomhederForPersonResult,
  HentVirksomhedResult,
  SoegVirksomhedResult,
} from '#generated/register/types.ts';

export type Company = SoegVirksomhedResult['companies'][number];
export type CompanyDetail = Exclude<HentVirksomhedResult, { found: false }>;
export type ProductionUnit = FindProduktionsenhederResult['units'][number];
export type Owners = Exclude<FindEjereResult, { found: false }>;
export type Participant = Owners['ejere'][number];
export type Role = Participant['roller'][number];
export type Person = FindVirksomhederForPersonResult['personer'][number];
export type PersonCompany = Person['virksomheder'][number];
export type Address = NonNullable<Company['adresse']>;
export type Employment = NonNullable<Company['beskaeftigelse']>;
export type Share = NonNullable<Participant['ejerandel']>;
export type Period = { gyldigFra: string | null; gyldigTil: string | null };

// ---------------------------------------------------------------------------------------------
// Defensive readers

type Doc = Record<string, unknown>;

function rec(value: unknown): Doc | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Doc) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function integer(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value)) return Number(value);
  return null;
}

function decimal(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const parsed = Number(value.trim());
  return Number.isFinite(parsed) ? parsed : null;
}

/** An 8-digit CVR number, or null. */
function cvr(value: unknown): number | null {
  const n = integer(value);
  return n !== null && n >= 10_000_000 && n <= 99_999_999 ? n : null;
}

// ---------------------------------------------------------------------------------------------
// Periods: every history element carries `periode { gyldigFra, gyldigTil }`; an open
// `gyldigTil` (null) means current.

export function periodOf(value: unknown): Period {
  const p = rec(rec(value)?.['periode']);
  return { gyldigFra: text(p?.['gyldigFra']), gyldigTil: text(p?.['gyldigTil']) };
}

export function isOpen(period: Period): boolean {
  return period.gyldigTil === null;
}

/** Code-unit order: ISO dates sort as text (no locale collation, which is slower and not asked for). */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Later first: open before closed, then by gyldigTil, then by gyldigFra (ISO dates sort as text). */
function newerFirst(a: Period, b: Period): number {
  if (isOpen(a) !== isOpen(b)) return isOpen(a) ? -1 : 1;
  const byTil = byText(b.gyldigTil ?? '', a.gyldigTil ?? '');
  return byTil !== 0 ? byTil : byText(b.gyldigFra ?? '', a.gyldigFra ?? '');
}

/**
 * The current element of a history array (open period), else the most recent one: of equally
 * recent elements the first. One pass, each period read once (no sort of the whole history).
 */
export function current(history: unknown): Doc | undefined {
  let best: Doc | undefined;
  let bestPeriod: Period | undefined;
  for (const item of list(history)) {
    const entry = rec(item);
    if (entry === undefined) continue;
    const period = periodOf(entry);
    if (bestPeriod === undefined || newerFirst(period, bestPeriod) < 0) {
      best = entry;
      bestPeriod = period;
    }
  }
  return best;
}

/** The value of an open period among `vaerdier` (the newest open one), else undefined. */
function openValue(vaerdier: unknown): unknown {
  const entry = current(vaerdier);
  return entry && isOpen(periodOf(entry)) ? entry['vaerdi'] : undefined;
}

/** `attributter[]` entries of one type (`KAPITAL`, `FUNKTION`, `EJERANDEL_PROCENT`, …). */
function attributes(attributter: unknown, type: string): Doc[] {
  return list(attributter)
    .map(rec)
    .filter((a): a is Doc => a !== undefined && a['type'] === type);
}

function openAttribute(attributter: unknown, type: string): unknown {
  for (const attribute of attributes(attributter, type)) {
    const value = openValue(attribute['vaerdier']);
    if (value !== undefined) return value;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces of company and unit records

/** `nyesteBeliggenhedsadresse` → the spec's address (kommune may be an object with a name). */
export function mapAddress(value: unknown): Address | null {
  const a = rec(value);
  if (!a) return null;
  const kommune = rec(a['kommune']);
  return {
    vejnavn: text(a['vejnavn']),
    husnummerFra: integer(a['husnummerFra']),
    bogstavFra: text(a['bogstavFra']),
    etage: text(a['etage']),
    sidedoer: text(a['sidedoer']),
    postnummer: integer(a['postnummer']),
    postdistrikt: text(a['postdistrikt']),
    bynavn: text(a['bynavn']),
    kommune: kommune ? text(kommune['kommuneNavn']) : text(a['kommune']),
    landekode: text(a['landekode']),
    conavn: text(a['conavn']),
    postboks: text(a['postboks']),
  };
}

/** A 6-digit industry code stays a string; a numeric one gets its leading zeros back. */
function branchekode(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return String(value).padStart(6, '0');
  return null;
}

/** Employment sources, finest first: on equal recency the finer (and newer) series wins. */
const EMPLOYMENT_SOURCES: readonly { readonly field: string; readonly grain: 'maaned' | 'kvartal' | 'aar' }[] = [
  { field: 'nyesteErstMaanedsbeskaeftigelse', grain: 'maaned' },
  { field: 'nyesteMaanedsbeskaeftigelse', grain: 'maaned' },
  { field: 'nyesteKvartalsbeskaeftigelse', grain: 'kvartal' },
  { field: 'nyesteAarsbeskaeftigelse', grain: 'aar' },
];

/**
 * The newest non-null of the `nyeste…beskaeftigelse` objects. Counts stay null when the register
 * gives only interval codes (`ANTAL_20_49`); an object without any count or code is skipped.
 */
export function mapEmployment(metadata: Doc | undefined): Employment | null {
  let best: { employment: Employment; rank: number } | undefined;
  for (const { field, grain } of EMPLOYMENT_SOURCES) {
    const e = rec(metadata?.[field]);
    if (!e) continue;
    const aar = integer(e['aar']);
    const employment: Employment = {
      ...(aar !== null ? { aar } : {}),
      kvartal: grain === 'kvartal' ? integer(e['kvartal']) : null,
      maaned: grain === 'maaned' ? integer(e['maaned']) : null,
      antalAnsatte: decimal(e['antalAnsatte']),
      antalAarsvaerk: decimal(e['antalAarsvaerk']),
      intervalKodeAntalAnsatte: text(e['intervalKodeAntalAnsatte']),
      intervalKodeAntalAarsvaerk: text(e['intervalKodeAntalAarsvaerk']),
    };
    const hasData =
      employment.antalAnsatte !== null ||
      employment.antalAarsvaerk !== null ||
      employment.intervalKodeAntalAnsatte !== null ||
      employment.intervalKodeAntalAarsvaerk !== null;
    if (!hasData) continue;
    const endMonth =
      grain === 'aar' ? 12 : grain === 'kvartal' ? (employment.kvartal ?? 0) * 3 : (employment.maaned ?? 0);
    const rank = (aar ?? 0) * 100 + endMonth;
    if (!best || rank > best.rank) best = { employment, rank };
  }
  return best?.employment ?? null;
}

// ---------------------------------------------------------------------------------------------
// Companies and production units

/** `_source.Vrvirksomhed` → company; undefined when the document has no CVR number. */
export function mapCompany(source: unknown): Company | undefined {
  const root = rec(rec(source)?.['Vrvirksomhed']);
  const cvrNummer = cvr(root?.['cvrNummer']);
  if (!root || cvrNummer === null) return undefined;
  const meta = rec(root['virksomhedMetadata']);
  const branche = rec(meta?.['nyesteHovedbranche']);
  return {
    cvrNummer,
    navn: text(rec(meta?.['nyesteNavn'])?.['navn']) ?? text(current(root['navne'])?.['navn']) ?? '',
    status: text(meta?.['sammensatStatus']),
    virksomhedsform: text(rec(meta?.['nyesteVirksomhedsform'])?.['kortBeskrivelse']),
    branchekode: branchekode(branche?.['branchekode']),
    branchetekst: text(branche?.['branchetekst']),
    adresse: mapAddress(meta?.['nyesteBeliggenhedsadresse']),
    stiftelsesDato: text(meta?.['stiftelsesDato']),
    beskaeftigelse: mapEmployment(meta),
    reklamebeskyttet: root['reklamebeskyttet'] === true,
  };
}

/** Company plus the open-period `KAPITAL` (a number) and `KAPITALVALUTA`. */
export function mapCompanyDetail(source: unknown): CompanyDetail | undefined {
  const company = mapCompany(source);
  if (!company) return undefined;
  const attributter = rec(rec(source)?.['Vrvirksomhed'])?.['attributter'];
  return {
    ...company,
    kapital: decimal(openAttribute(attributter, 'KAPITAL')),
    kapitalValuta: text(openAttribute(attributter, 'KAPITALVALUTA')),
  };
}

/** `_source.VrproduktionsEnhed` → production unit; undefined without a P-number. */
export function mapProductionUnit(source: unknown): ProductionUnit | undefined {
  const root = rec(rec(source)?.['VrproduktionsEnhed']);
  const pNummer = integer(root?.['pNummer']);
  if (!root || pNummer === null) return undefined;
  const meta = rec(root['produktionsEnhedMetadata']);
  const branche = rec(meta?.['nyesteHovedbranche']);
  return {
    pNummer,
    navn: text(rec(meta?.['nyesteNavn'])?.['navn']),
    status: text(meta?.['sammensatStatus']),
    branchekode: branchekode(branche?.['branchekode']),
    branchetekst: text(branche?.['branchetekst']),
    adresse: mapAddress(meta?.['nyesteBeliggenhedsadresse']),
    beskaeftigelse: mapEmployment(meta),
    reklamebeskyttet: root['reklamebeskyttet'] === true,
  };
}

// ---------------------------------------------------------------------------------------------
// Shares: fractions in strings ("0.6667", "1.0") → 0 to 100 percent, 2 decimals

/**
 * A register share as a percentage rounded half-up to 2 decimals, computed on the decimal digits
 * so no float noise appears (`"0.07"` → 7, not 7.000000000000001). Values above 1 are taken as
 * percentages already; anything else unreadable or outside 0 to 100 % gives null.
 */
export function sharePercent(raw: string): number | null {
  const s = raw.trim().replace(',', '.');
  const m = /^(\d*)(?:\.(\d*))?$/.exec(s);
  let percent: number;
  if (m && (m[1] !== '' || (m[2] ?? '') !== '')) {
    const intPart = m[1] === '' ? '0' : m[1]!;
    const frac = m[2] ?? '';
    const asFraction = Number(`${intPart}.${frac || '0'}`) <= 1;
    const keep = asFraction ? 4 : 2; // digits kept after the point, in hundredths of a percent
    const digits = intPart + frac.padEnd(keep + 1, '0').slice(0, keep);
    const roundUp = frac.padEnd(keep + 1, '0')[keep]! >= '5' ? 1 : 0;
    percent = (Number(digits) + roundUp) / 100;
  } else {
    const value = Number(s);
    if (s === '' || !Number.isFinite(value) || value < 0) return null;
    percent = Math.round((value <= 1 ? value * 100 : value) * 100) / 100;
  }
  return percent >= 0 && percent <= 100 ? percent : null;
}

export function normaliseShare(raw: string, kilde: string): Share | null {
  const procent = sharePercent(raw);
  return procent === null ? null : { procent, raavaerdi: raw, kilde };
}

// ---------------------------------------------------------------------------------------------
// Roles: `organisationer[{ hovedtype, organisationsNavn[], medlemsData[{ attributter[] }] }]`

/** A role as returned, with the organ's main type kept (`LEDELSESORGAN`, `REGISTER`, …). */
export type TypedRole = Role & {
  organisation: string;
  funktion: string | null;
  aktiv: boolean;
  periode: Period;
  hovedtype: string | null;
};

/** Organs whose open membership makes a participant count in `antalAktive` (not auditors, not founders). */
const ACTIVE_COUNT_TYPES: ReadonlySet<string> = new Set(['LEDELSESORGAN', 'REGISTER', 'FULDT_ANSVARLIG_DELTAGERE']);

/** Span of all attribute values of a membership: earliest start, open if any value is open. */
function membershipPeriod(attributter: unknown): Period | undefined {
  const periods = list(attributter).flatMap((a) => list(rec(a)?.['vaerdier']).map(periodOf));
  if (periods.length === 0) return undefined;
  const starts = periods
    .map((p) => p.gyldigFra)
    .filter((d): d is string => d !== null)
    .sort();
  const open = periods.some(isOpen);
  const ends = periods
    .map((p) => p.gyldigTil)
    .filter((d): d is string => d !== null)
    .sort();
  return { gyldigFra: starts[0] ?? null, gyldigTil: open ? null : (ends[ends.length - 1] ?? null) };
}

/**
 * One role per membership value with its own period: each `FUNKTION` value is a role; a
 * membership without `FUNKTION` (owners' register entries) is one role spanning its attribute
 * values; one without any values falls back to the period of the organ's name.
 */
export function mapRoles(organisationer: unknown): TypedRole[] {
  const roles: TypedRole[] = [];
  for (const organisationValue of list(organisationer)) {
    const organisation = rec(organisationValue);
    if (!organisation) continue;
    const hovedtype = text(organisation['hovedtype']);
    const nameEntry = current(organisation['organisationsNavn']);
    const name = text(nameEntry?.['navn']) ?? hovedtype ?? 'UKENDT';
    for (const memberValue of list(organisation['medlemsData'])) {
      const attributter = rec(memberValue)?.['attributter'];
      const functions = attributes(attributter, 'FUNKTION').flatMap((a) =>
        list(a['vaerdier'])
          .map(rec)
          .filter((v): v is Doc => v !== undefined),
      );
      if (functions.length > 0) {
        for (const value of functions) {
          const periode = periodOf(value);
          roles.push({
            organisation: name,
            hovedtype,
            funktion: text(value['vaerdi']),
            aktiv: isOpen(periode),
            periode,
          });
        }
      } else {
        const periode =
          membershipPeriod(attributter) ?? (nameEntry ? periodOf(nameEntry) : { gyldigFra: null, gyldigTil: null });
        roles.push({ organisation: name, hovedtype, funktion: null, aktiv: isOpen(periode), periode });
      }
    }
  }
  return roles;
}

/** Open `FUNKTION` values, each once, in register order. */
function openFunctions(roles: readonly TypedRole[]): string[] {
  const out: string[] = [];
  for (const role of roles)
    if (role.aktiv && role.funktion !== null && !out.includes(role.funktion)) out.push(role.funktion);
  return out;
}

/** Share registers by preference: the legal owners' register (direct ownership) first. */
function registerRank(organisation: string): number {
  const name = organisation.trim().toUpperCase();
  if (name === 'EJERREGISTER') return 0;
  if (name === 'REELLE EJERE') return 1;
  return 2;
}

/** The open value of a share attribute, from the preferred register when several hold one. */
function openShare(organisationer: unknown, type: 'EJERANDEL_PROCENT' | 'EJERANDEL_STEMMERET_PROCENT'): Share | null {
  let best: { share: Share; rank: number } | undefined;
  for (const organisationValue of list(organisationer)) {
    const organisation = rec(organisationValue);
    if (!organisation) continue;
    const kilde =
      text(current(organisation['organisationsNavn'])?.['navn']) ?? text(organisation['hovedtype']) ?? 'UKENDT';
    const rank = registerRank(kilde);
    if (best && best.rank <= rank) continue;
    for (const memberValue of list(organisation['medlemsData'])) {
      const raw = openAttribute(rec(memberValue)?.['attributter'], type);
      const share = typeof raw === 'string' || typeof raw === 'number' ? normaliseShare(String(raw), kilde) : null;
      if (share) {
        best = { share, rank };
        break;
      }
    }
  }
  return best?.share ?? null;
}

// ---------------------------------------------------------------------------------------------
// Participants of a company (`find_ejere`)

/** One `deltagerRelation[]` entry → participant, with whether it counts in `antalAktive`. */
export function mapParticipant(relationValue: unknown): { participant: Participant; countsActive: boolean } {
  const relation = rec(relationValue);
  const deltager = rec(relation?.['deltager']);
  const rawType = text(deltager?.['enhedstype']);
  const kind = rawType?.trim().toUpperCase();
  const roles = mapRoles(relation?.['organisationer']);
  const participant: Participant = {
    navn: text(current(deltager?.['navne'])?.['navn']),
    type: kind === 'PERSON' ? 'PERSON' : 'VIRKSOMHED',
    enhedsNummer: integer(deltager?.['enhedsNummer']),
    // The CVR number of a company participant is its business key; enhedsNummer is internal.
    cvrNummer: kind === 'VIRKSOMHED' ? cvr(deltager?.['forretningsnoegle']) : null,
    aktiv: roles.some((r) => r.aktiv),
    roller: roles,
    funktioner: openFunctions(roles),
    ejerandel: openShare(relation?.['organisationer'], 'EJERANDEL_PROCENT'),
    stemmeret: openShare(relation?.['organisationer'], 'EJERANDEL_STEMMERET_PROCENT'),
  };
  // DECISIONS §20: ANDEN_DELTAGER (and any other non-person type) is reported as VIRKSOMHED
  // without a CVR number, the raw type kept alongside.
  if (rawType !== null && kind !== 'PERSON' && kind !== 'VIRKSOMHED') participant.enhedstype = rawType;
  const countsActive = roles.some(
    (r) => r.aktiv && r.hovedtype !== null && ACTIVE_COUNT_TYPES.has(r.hovedtype.trim().toUpperCase()),
  );
  return { participant, countsActive };
}

/** `_source.Vrvirksomhed` with `deltagerRelation` → the `find_ejere` result. */
export function mapOwners(source: unknown, cvrNummer: number): Owners {
  const root = rec(rec(source)?.['Vrvirksomhed']);
  const relations = list(root?.['deltagerRelation']);
  const mapped = relations.map(mapParticipant);
  return {
    cvrNummer: cvr(root?.['cvrNummer']) ?? cvrNummer,
    navn: text(rec(rec(root?.['virksomhedMetadata'])?.['nyesteNavn'])?.['navn']),
    antal: relations.length,
    antalAktive: mapped.filter((m) => m.countsActive).length,
    ejere: mapped.map((m) => m.participant),
  };
}

// ---------------------------------------------------------------------------------------------
// Persons (`find_virksomheder_for_person`)

/** `_source.Vrdeltagerperson` → person with the companies related to them; undefined without an id. */
export function mapPerson(source: unknown, id: string | undefined): Person | undefined {
  const root = rec(rec(source)?.['Vrdeltagerperson']);
  const enhedsNummer = integer(root?.['enhedsNummer']) ?? integer(id);
  if (enhedsNummer === null) return undefined;
  const virksomheder: PersonCompany[] = list(root?.['virksomhedSummariskRelation']).map((relationValue) => {
    const relation = rec(relationValue);
    const company = rec(relation?.['virksomhed']);
    const roles = mapRoles(relation?.['organisationer']);
    return {
      cvrNummer: cvr(company?.['cvrNummer']),
      navn: text(current(company?.['navne'])?.['navn']) ?? text(rec(company?.['nyesteNavn'])?.['navn']),
      aktiv: roles.some((r) => r.aktiv),
      roller: roles,
    };
  });
  return { enhedsNummer, navn: text(current(root?.['navne'])?.['navn']), virksomheder };
}

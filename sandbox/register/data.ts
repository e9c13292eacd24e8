// Seeded demo data for the company-register sandbox (sandbox/register/server.ts).
//
// The documents are real CVR distribution `_source` shapes (`Vrvirksomhed`, `VrproduktionsEnhed`,
// `Vrdeltagerperson`) as described in ../shared/upstreams/register.md §2: history arrays whose
// elements carry `periode` and `sidstOpdateret`, every attribute `vaerdi` a string, shares as
// fractions in strings, and metadata (`virksomhedMetadata`, `produktionsEnhedMetadata`) derived
// from the history arrays so the two always agree. Company participants carry their CVR number in
// `deltager.forretningsnoegle`; a person's `virksomhedSummariskRelation` is built from the same
// relation table as the companies' `deltagerRelation`, so both sides agree.
//
// Everything is deterministic: a fixed-seed PRNG fills in the details nobody looks at (street
// codes, timestamps, P-numbers), and the same input always yields byte-identical documents.
// None of this is real register data; names and numbers are invented.
import { mulberry32 } from '../seeded-random.ts';

// ---------------------------------------------------------------------------------------------
// Document types (only the fields the sandbox writes; the real documents hold more)
// ---------------------------------------------------------------------------------------------

export interface Periode {
  gyldigFra: string | null;
  gyldigTil: string | null;
}

export interface Historik {
  periode: Periode;
  sidstOpdateret: string | null;
}

export interface NavnEntry extends Historik {
  navn: string;
}

export interface KommuneEntry extends Historik {
  kommuneKode: number;
  kommuneNavn: string;
}

export interface AdresseEntry extends Historik {
  landekode: string;
  fritekst: string | null;
  vejkode: number | null;
  kommune: KommuneEntry | null;
  husnummerFra: number | null;
  adresseId: string | null;
  sidstValideret: string | null;
  husnummerTil: number | null;
  bogstavFra: string | null;
  bogstavTil: string | null;
  etage: string | null;
  sidedoer: string | null;
  conavn: string | null;
  postboks: string | null;
  vejnavn: string | null;
  bynavn: string | null;
  postnummer: number | null;
  postdistrikt: string | null;
}

export interface BrancheEntry extends Historik {
  branchekode: string;
  branchetekst: string;
}

export interface VirksomhedsformEntry extends Historik {
  virksomhedsformkode: number;
  kortBeskrivelse: string;
  langBeskrivelse: string;
  ansvarligDataleverandoer: string;
}

export interface VirksomhedsstatusEntry extends Historik {
  status: string;
}

export interface VaerdiEntry extends Historik {
  vaerdi: string;
}

export interface Attribut {
  sekvensnr: number;
  type: string;
  vaerditype: string;
  vaerdier: VaerdiEntry[];
}

export interface PenhedEntry extends Historik {
  pNummer: number;
}

export interface VirksomhedsrelationEntry extends Historik {
  cvrNummer: number;
}

export interface AarsBeskaeftigelse {
  aar: number;
  antalInklusivEjere: number | null;
  antalAarsvaerk: number | null;
  antalAnsatte: number | null;
  intervalKodeAntalInklusivEjere: string | null;
  intervalKodeAntalAarsvaerk: string | null;
  intervalKodeAntalAnsatte: string | null;
  sidstOpdateret: string;
}

export interface KvartalsBeskaeftigelse {
  aar: number;
  kvartal: number;
  antalAarsvaerk: number | null;
  antalAnsatte: number | null;
  intervalKodeAntalAarsvaerk: string | null;
  intervalKodeAntalAnsatte: string | null;
  sidstOpdateret: string;
}

export interface MaanedsBeskaeftigelse {
  aar: number;
  maaned: number;
  antalAarsvaerk: number | null;
  antalAnsatte: number | null;
  intervalKodeAntalAarsvaerk: string | null;
  intervalKodeAntalAnsatte: string | null;
  sidstOpdateret: string;
}

export interface Organisation {
  enhedsNummerOrganisation: number;
  hovedtype: string;
  organisationsNavn: NavnEntry[];
  attributter: Attribut[];
  medlemsData: Array<{ attributter: Attribut[] }>;
}

export interface Deltager {
  enhedsNummer: number;
  enhedstype: 'PERSON' | 'VIRKSOMHED' | 'ANDEN_DELTAGER';
  forretningsnoegle: number | null;
  organisationstype: null;
  sidstIndlaest: string;
  sidstOpdateret: string | null;
  navne: NavnEntry[];
  beliggenhedsadresse: AdresseEntry[];
}

export interface DeltagerRelation {
  deltager: Deltager;
  kontorsteder: never[];
  organisationer: Organisation[];
}

export interface VirksomhedMetadata {
  nyesteNavn: NavnEntry;
  nyesteBinavne: string[];
  nyesteVirksomhedsform: VirksomhedsformEntry;
  nyesteBeliggenhedsadresse: AdresseEntry;
  nyesteHovedbranche: BrancheEntry;
  nyesteBibranche1: null;
  nyesteBibranche2: null;
  nyesteBibranche3: null;
  nyesteStatus: null;
  nyesteKontaktoplysninger: string[];
  antalPenheder: number;
  nyesteAarsbeskaeftigelse: AarsBeskaeftigelse | null;
  nyesteKvartalsbeskaeftigelse: KvartalsBeskaeftigelse | null;
  nyesteMaanedsbeskaeftigelse: MaanedsBeskaeftigelse | null;
  nyesteErstMaanedsbeskaeftigelse: MaanedsBeskaeftigelse | null;
  sammensatStatus: string;
  stiftelsesDato: string;
  virkningsDato: string;
}

export interface Vrvirksomhed {
  cvrNummer: number;
  regNummer: never[];
  brancheAnsvarskode: null;
  reklamebeskyttet: boolean;
  navne: NavnEntry[];
  binavne: NavnEntry[];
  postadresse: AdresseEntry[];
  beliggenhedsadresse: AdresseEntry[];
  telefonNummer: never[];
  telefaxNummer: never[];
  elektroniskPost: never[];
  hjemmeside: never[];
  obligatoriskEmail: never[];
  livsforloeb: Historik[];
  hovedbranche: BrancheEntry[];
  bibranche1: never[];
  bibranche2: never[];
  bibranche3: never[];
  status: never[];
  virksomhedsstatus: VirksomhedsstatusEntry[];
  virksomhedsform: VirksomhedsformEntry[];
  aarsbeskaeftigelse: AarsBeskaeftigelse[];
  kvartalsbeskaeftigelse: KvartalsBeskaeftigelse[];
  maanedsbeskaeftigelse: MaanedsBeskaeftigelse[];
  erstMaanedsbeskaeftigelse: MaanedsBeskaeftigelse[];
  attributter: Attribut[];
  penheder: PenhedEntry[];
  deltagerRelation: DeltagerRelation[];
  fusioner: never[];
  spaltninger: never[];
  virksomhedMetadata: VirksomhedMetadata;
  samtId: number;
  fejlRegistreret: boolean;
  dataAdgang: number;
  enhedsNummer: number;
  enhedstype: 'VIRKSOMHED';
  sidstIndlaest: string;
  sidstOpdateret: string | null;
  fejlVedIndlaesning: boolean;
  naermesteFremtidigeDato: null;
  fejlBeskrivelse: null;
  virkningsAktoer: string;
}

export interface ProduktionsEnhedMetadata {
  nyesteCvrNummerRelation: number;
  sammensatStatus: 'Aktiv' | 'Ophørt';
  nyesteKontaktoplysninger: string[];
  nyesteBibranche1: null;
  nyesteBibranche2: null;
  nyesteBibranche3: null;
  nyesteNavn: NavnEntry;
  nyesteAarsbeskaeftigelse: AarsBeskaeftigelse | null;
  nyesteHovedbranche: BrancheEntry;
  nyesteBeliggenhedsadresse: AdresseEntry;
  nyesteKvartalsbeskaeftigelse: KvartalsBeskaeftigelse | null;
}

export interface VrproduktionsEnhed {
  pNummer: number;
  enhedsNummer: number;
  enhedstype: 'PRODUKTIONSENHED';
  reklamebeskyttet: boolean;
  navne: NavnEntry[];
  beliggenhedsadresse: AdresseEntry[];
  postadresse: AdresseEntry[];
  hovedbranche: BrancheEntry[];
  bibranche1: never[];
  bibranche2: never[];
  bibranche3: never[];
  virksomhedsrelation: VirksomhedsrelationEntry[];
  livsforloeb: Historik[];
  telefonNummer: never[];
  elektroniskPost: never[];
  aarsbeskaeftigelse: AarsBeskaeftigelse[];
  kvartalsbeskaeftigelse: KvartalsBeskaeftigelse[];
  attributter: Attribut[];
  deltagerRelation: DeltagerRelation[];
  produktionsEnhedMetadata: ProduktionsEnhedMetadata;
  samtId: number;
  fejlRegistreret: boolean;
  dataAdgang: number;
  sidstIndlaest: string;
  sidstOpdateret: string | null;
  fejlVedIndlaesning: boolean;
  fejlBeskrivelse: null;
}

export interface VirksomhedSummarisk {
  enhedsNummer: number;
  enhedstype: 'VIRKSOMHED';
  fejlRegistreret: boolean;
  sidstIndlaest: string;
  sidstOpdateret: string | null;
  cvrNummer: number;
  regNummer: never[];
  navne: NavnEntry[];
  livsforloeb: Historik[];
  status: never[];
  virksomhedsstatus: VirksomhedsstatusEntry[];
  virksomhedsform: VirksomhedsformEntry[];
}

export interface Vrdeltagerperson {
  enhedsNummer: number;
  enhedstype: 'PERSON' | 'ANDEN_DELTAGER';
  forretningsnoegle: null;
  navne: NavnEntry[];
  postadresse: AdresseEntry[];
  beliggenhedsadresse: AdresseEntry[];
  forretningsadresse: AdresseEntry[];
  telefonNummer: never[];
  telefaxNummer: never[];
  elektroniskPost: never[];
  stilling: null;
  statusKode: null;
  attributter: Attribut[];
  virksomhedSummariskRelation: Array<{ virksomhed: VirksomhedSummarisk; organisationer: Organisation[] }>;
  deltagerpersonMetadata: { nyesteBeliggenhedsadresse: AdresseEntry | null; nyesteKontaktoplysninger: string[] };
  samtId: number;
  fejlRegistreret: boolean;
  dataAdgang: number;
  sidstIndlaest: string;
  sidstOpdateret: string | null;
  fejlVedIndlaesning: boolean;
  naermesteFremtidigeDato: null;
  fejlBeskrivelse: null;
}

export interface CompanySource {
  Vrvirksomhed: Vrvirksomhed;
}

export interface UnitSource {
  VrproduktionsEnhed: VrproduktionsEnhed;
}

export interface ParticipantSource {
  Vrdeltagerperson: Vrdeltagerperson;
}

// ---------------------------------------------------------------------------------------------
// Well-known numbers for tests and demos
// ---------------------------------------------------------------------------------------------

const CVR_WEIGHTS = [2, 7, 6, 5, 4, 3, 2, 1] as const;

/** The first valid CVR number whose first seven digits are `prefix` or a later prefix. */
function cvrFrom(prefix: number): number {
  for (let p = prefix; ; p++) {
    const digits = String(p);
    let sum = 0;
    for (let i = 0; i < 7; i++) sum += Number(digits[i]) * CVR_WEIGHTS[i]!;
    const check = (11 - (sum % 11)) % 11;
    if (check < 10) return p * 10 + check;
  }
}

/** Demo Data A/S: the showcase company (owners of every kind, board, management, auditor, units). */
export const DEMO_CVR = cvrFrom(1234567); // 12345674
/** Demo Data Services ApS: owned 100 % ("1.0") by Demo Data A/S; received a unit that moved. */
export const DEMO_SUBSIDIARY_CVR = cvrFrom(2345678);
/** Demo Holding ApS: legal owner of Demo Data A/S at the 66⅔ % band ("0.6667"). */
export const DEMO_HOLDING_CVR = cvrFrom(3456789);
/** Demo Byg ApS: two owners at "0.5". */
export const DEMO_BYG_CVR = cvrFrom(4567890);
/** Demo Consult ApS: dissolved after voluntary liquidation (all periods closed). */
export const DISSOLVED_CVR = cvrFrom(5678901);
/** Bageriet Ærtebjerg ApS: reklamebeskyttet, owners at "0.9" and "0.05". */
export const PROTECTED_CVR = cvrFrom(3141592);
/** Østergaard Landbrug I/S: branchekode "011100" (leading zero), partners (Interessenter). */
export const AGRICULTURE_CVR = cvrFrom(2718281);
/** Skagen Havfiskeri ApS: branchekode "031100"; an estate (ANDEN_DELTAGER) owns half. */
export const ESTATE_OWNED_CVR = cvrFrom(1618033);
/** Kaffebaren Trekanten ApS: three owners at "0.3333", a former owner and former board member. */
export const THIRDS_CVR = cvrFrom(1414213);
/** Nørgaard & Holm Revision A/S: the auditor of several demo companies; headcounts with numbers. */
export const AUDITOR_CVR = cvrFrom(2236067);
/** Nordisk Logistik A/S: five units (one ceased), a foreign ANDEN_DELTAGER owner, capital in EUR. */
export const LOGISTICS_CVR = cvrFrom(1732050);
/** Aalborg Maskinfabrik A/S: status UNDER KONKURS. */
export const BANKRUPT_CVR = cvrFrom(2645751);
/** Møllers Cykler: a sole proprietorship that ceased (sammensatStatus "Ophørt"). */
export const CEASED_ENK_CVR = cvrFrom(3316624);
/** A well-formed CVR number that no demo company has. */
export const UNKNOWN_CVR = cvrFrom(9876543);

/** The Demo Data A/S head-office unit. */
export const DEMO_HQ_PNUMMER = 1012345678;
/** Demo Data A/S, Odense: ceased ("Ophørt"). */
export const DEMO_CEASED_PNUMMER = 1012345679;
/** Customer service unit that moved from Demo Data A/S to Demo Data Services ApS on 2023-01-01. */
export const MOVED_PNUMMER = 1012345680;

/** Lars Bøgh Jensen: "Reelle ejere" of Demo Data A/S at "0.688" with voting share "0.72". */
export const BENEFICIAL_OWNER_ENHEDSNUMMER = 4000800001;
/** Two different persons registered under exactly this name. */
export const NAMESAKE_NAME = 'Jens Peter Hansen';
export const NAMESAKE_ENHEDSNUMRE = [4000800007, 4000800008] as const;
/** Boet efter Karen Mikkelsen: an ANDEN_DELTAGER (estate) that owns half of Skagen Havfiskeri ApS. */
export const ANDEN_DELTAGER_ENHEDSNUMMER = 4000809001;

/** Index names reported in `_index` (the real service rolls these over; the date is illustrative). */
export const REGISTER_INDEX_NAMES = {
  virksomhed: 'cvr-v-20220630',
  produktionsenhed: 'cvr-p-20220630',
  deltager: 'cvr-e-20220630',
} as const;

// ---------------------------------------------------------------------------------------------
// Deterministic helpers
// ---------------------------------------------------------------------------------------------

const random = mulberry32(0x5eedc0de);

function randomInt(min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A register timestamp on `date` (local Danish time with its UTC offset), or null. */
function stamp(date: string | null): string | null {
  if (date === null) return null;
  const month = Number(date.slice(5, 7));
  const offset = month >= 4 && month <= 10 ? '+02:00' : '+01:00';
  return `${date}T${pad(randomInt(6, 21))}:${pad(randomInt(0, 59))}:${pad(randomInt(0, 59))}.000${offset}`;
}

function uuid(): string {
  let hex = '';
  for (let i = 0; i < 32; i++) hex += randomInt(0, 15).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const SIDST_INDLAEST = '2024-06-01T03:12:45.118+02:00';

function periode(fra: string | null, til: string | null = null): Periode {
  return { gyldigFra: fra, gyldigTil: til };
}

/** `[value, gyldigFra, gyldigTil?]`: one history element; an omitted end means open (current). */
type Span<T> = readonly [T, string | null, (string | null)?];

function spanFrom<T>(span: Span<T>): string | null {
  return span[1];
}

function spanTo<T>(span: Span<T>): string | null {
  return span[2] ?? null;
}

function hist<T extends object>(fields: T, span: Span<unknown>): T & Historik {
  return {
    ...fields,
    periode: periode(spanFrom(span), spanTo(span)),
    sidstOpdateret: stamp(spanFrom(span) ?? spanTo(span)),
  };
}

function last<T>(items: readonly T[]): T {
  const item = items[items.length - 1];
  if (item === undefined) throw new Error('register sandbox data: empty history');
  return item;
}

/** Newest date mentioned by a set of spans (for `sidstOpdateret` of a whole document). */
function newestDate(spans: ReadonlyArray<Span<unknown>>): string | null {
  let newest: string | null = null;
  for (const s of spans) {
    for (const d of [spanFrom(s), spanTo(s)]) if (d !== null && (newest === null || d > newest)) newest = d;
  }
  return newest;
}

// ---------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------

interface AddressSpec {
  vej: string;
  nr: number;
  bogstav?: string;
  etage?: string;
  side?: string;
  postnr: number;
  distrikt: string;
  kommune: readonly [number, string];
  bynavn?: string;
  conavn?: string;
}

function address(spec: AddressSpec, span: Span<unknown>): AdresseEntry {
  const fra = spanFrom(span);
  return {
    landekode: 'DK',
    fritekst: null,
    vejkode: randomInt(10, 9899),
    kommune: {
      kommuneKode: spec.kommune[0],
      kommuneNavn: spec.kommune[1],
      periode: periode('2007-01-01'),
      sidstOpdateret: '2006-11-13T00:00:00.000+01:00',
    },
    husnummerFra: spec.nr,
    adresseId: uuid(),
    sidstValideret: stamp(fra !== null && fra > '2015-01-01' ? fra : '2015-01-01'),
    husnummerTil: null,
    bogstavFra: spec.bogstav ?? null,
    bogstavTil: null,
    etage: spec.etage ?? null,
    sidedoer: spec.side ?? null,
    conavn: spec.conavn ?? null,
    postboks: null,
    vejnavn: spec.vej,
    bynavn: spec.bynavn ?? null,
    postnummer: spec.postnr,
    postdistrikt: spec.distrikt,
    periode: periode(fra, spanTo(span)),
    sidstOpdateret: stamp(fra),
  };
}

const FORMS = {
  ENK: {
    virksomhedsformkode: 10,
    kortBeskrivelse: 'ENK',
    langBeskrivelse: 'Enkeltmandsvirksomhed',
    ansvarligDataleverandoer: 'T&S',
  },
  IS: {
    virksomhedsformkode: 30,
    kortBeskrivelse: 'I/S',
    langBeskrivelse: 'Interessentskab',
    ansvarligDataleverandoer: 'T&S',
  },
  AS: {
    virksomhedsformkode: 60,
    kortBeskrivelse: 'A/S',
    langBeskrivelse: 'Aktieselskab',
    ansvarligDataleverandoer: 'E&S',
  },
  APS: {
    virksomhedsformkode: 80,
    kortBeskrivelse: 'APS',
    langBeskrivelse: 'Anpartsselskab',
    ansvarligDataleverandoer: 'E&S',
  },
} as const;
type FormKey = keyof typeof FORMS;

const KOMMUNER = {
  koebenhavn: [101, 'KØBENHAVN'],
  frederiksberg: [147, 'FREDERIKSBERG'],
  broendby: [153, 'BRØNDBY'],
  gentofte: [157, 'GENTOFTE'],
  roskilde: [265, 'ROSKILDE'],
  bornholm: [400, 'BORNHOLM'],
  odense: [461, 'ODENSE'],
  soenderborg: [540, 'SØNDERBORG'],
  esbjerg: [561, 'ESBJERG'],
  varde: [573, 'VARDE'],
  aabenraa: [580, 'AABENRAA'],
  fredericia: [607, 'FREDERICIA'],
  kolding: [621, 'KOLDING'],
  vejle: [630, 'VEJLE'],
  aarhus: [751, 'AARHUS'],
  viborg: [791, 'VIBORG'],
  frederikshavn: [813, 'FREDERIKSHAVN'],
  aalborg: [851, 'AALBORG'],
} as const satisfies Record<string, readonly [number, string]>;

/** Employment: interval codes only unless `counts` is given (as the register serves non-authority users). */
interface EmploymentSpec {
  /** Interval code for the quarterly and monthly series, e.g. `ANTAL_20_49`. */
  band: string;
  /** Interval code for the annual series (annual data has finer buckets such as `ANTAL_20_29`). */
  annualBand?: string;
  /** Which series exist. */
  series: 'annual' | 'annual+quarterly' | 'all';
  /** Last year with annual data (defaults to 2023). Ceased units stop earlier. */
  lastYear?: number;
  /** Head count and full-time equivalents; only one demo company has them. */
  counts?: readonly [number, number];
}

interface EmploymentArrays {
  aarsbeskaeftigelse: AarsBeskaeftigelse[];
  kvartalsbeskaeftigelse: KvartalsBeskaeftigelse[];
  maanedsbeskaeftigelse: MaanedsBeskaeftigelse[];
  erstMaanedsbeskaeftigelse: MaanedsBeskaeftigelse[];
}

function employment(spec: EmploymentSpec | null): EmploymentArrays {
  const out: EmploymentArrays = {
    aarsbeskaeftigelse: [],
    kvartalsbeskaeftigelse: [],
    maanedsbeskaeftigelse: [],
    erstMaanedsbeskaeftigelse: [],
  };
  if (spec === null) return out;
  const annual = spec.annualBand ?? spec.band;
  const lastYear = spec.lastYear ?? 2023;
  const [ansatte, aarsvaerk] = spec.counts ?? [null, null];
  for (const aar of [lastYear - 1, lastYear]) {
    out.aarsbeskaeftigelse.push({
      aar,
      antalInklusivEjere: ansatte === null ? null : ansatte + 2,
      antalAarsvaerk: aarsvaerk,
      antalAnsatte: ansatte,
      intervalKodeAntalInklusivEjere: annual,
      intervalKodeAntalAarsvaerk: annual,
      intervalKodeAntalAnsatte: annual,
      sidstOpdateret: stamp(`${aar + 1}-03-${pad(randomInt(1, 28))}`)!,
    });
  }
  if (spec.series === 'annual') return out;
  for (const [aar, kvartal] of [
    [2023, 4],
    [2024, 1],
  ] as const) {
    out.kvartalsbeskaeftigelse.push({
      aar,
      kvartal,
      antalAarsvaerk: aarsvaerk,
      antalAnsatte: ansatte,
      intervalKodeAntalAarsvaerk: spec.band,
      intervalKodeAntalAnsatte: spec.band,
      sidstOpdateret: stamp(kvartal === 4 ? '2024-02-15' : '2024-05-15')!,
    });
  }
  if (spec.series !== 'all') return out;
  for (const maaned of [1, 2, 3]) {
    out.maanedsbeskaeftigelse.push({
      aar: 2024,
      maaned,
      antalAarsvaerk: aarsvaerk,
      antalAnsatte: ansatte,
      intervalKodeAntalAarsvaerk: spec.band,
      intervalKodeAntalAnsatte: spec.band,
      sidstOpdateret: stamp(`2024-${pad(maaned + 1)}-20`)!,
    });
  }
  for (const maaned of [1, 2, 3, 4]) {
    out.erstMaanedsbeskaeftigelse.push({
      aar: 2024,
      maaned,
      antalAarsvaerk: aarsvaerk,
      antalAnsatte: ansatte,
      intervalKodeAntalAarsvaerk: spec.band,
      intervalKodeAntalAnsatte: spec.band,
      sidstOpdateret: stamp(`2024-${pad(maaned + 1)}-25`)!,
    });
  }
  return out;
}

function newestOrNull<T>(items: readonly T[]): T | null {
  return items.length === 0 ? null : last(items);
}

function attribute(type: string, vaerditype: string, values: ReadonlyArray<Span<string>>, sekvensnr = 0): Attribut {
  return { sekvensnr, type, vaerditype, vaerdier: values.map((v) => hist({ vaerdi: v[0] }, v)) };
}

// ---------------------------------------------------------------------------------------------
// Companies
// ---------------------------------------------------------------------------------------------

interface CompanySpec {
  key: string;
  cvr: number;
  reklamebeskyttet?: boolean;
  names: ReadonlyArray<Span<string>>;
  forms: ReadonlyArray<Span<FormKey>>;
  branches: ReadonlyArray<Span<readonly [string, string]>>;
  addresses: ReadonlyArray<Span<AddressSpec>>;
  start: string;
  end?: string;
  /** `virksomhedsstatus` history; empty for sole proprietorships and partnerships. */
  statuses: ReadonlyArray<Span<string>>;
  sammensatStatus: string;
  capital?: { values: ReadonlyArray<Span<string>>; currency: string };
  purpose?: string;
  signing?: string;
  auditOptOut?: string;
  employment: EmploymentSpec | null;
}

const cph = KOMMUNER.koebenhavn;

const COMPANY_SPECS: readonly CompanySpec[] = [
  {
    key: 'demoData',
    cvr: DEMO_CVR,
    names: [
      ['Demo Software ApS', '2012-03-01', '2016-06-30'],
      ['Demo Data A/S', '2016-07-01'],
    ],
    forms: [
      ['APS', '2012-03-01', '2016-06-30'],
      ['AS', '2016-07-01'],
    ],
    branches: [[['620100', 'Computerprogrammering'], '2012-03-01']],
    addresses: [
      [
        { vej: 'Vesterbrogade', nr: 10, etage: '2', postnr: 1620, distrikt: 'København V', kommune: cph },
        '2012-03-01',
        '2018-04-30',
      ],
      [
        { vej: 'Njalsgade', nr: 21, bogstav: 'F', etage: '3', postnr: 2300, distrikt: 'København S', kommune: cph },
        '2018-05-01',
      ],
    ],
    start: '2012-03-01',
    statuses: [['NORMAL', '2012-03-01']],
    sammensatStatus: 'NORMAL',
    capital: {
      values: [
        ['50000.00', '2012-03-01', '2016-06-30'],
        ['1000000.00', '2016-07-01'],
      ],
      currency: 'DKK',
    },
    purpose: 'Selskabets formål er at udvikle og sælge software og dermed beslægtet virksomhed.',
    signing: 'Selskabet tegnes af bestyrelsens formand i forening med en direktør eller af den samlede bestyrelse.',
    employment: { band: 'ANTAL_20_49', annualBand: 'ANTAL_20_29', series: 'all' },
  },
  {
    key: 'demoServices',
    cvr: DEMO_SUBSIDIARY_CVR,
    names: [['Demo Data Services ApS', '2022-09-01']],
    forms: [['APS', '2022-09-01']],
    branches: [[['620200', 'Konsulentbistand vedrørende informationsteknologi'], '2022-09-01']],
    addresses: [
      [
        { vej: 'Njalsgade', nr: 21, bogstav: 'F', etage: '4', postnr: 2300, distrikt: 'København S', kommune: cph },
        '2022-09-01',
      ],
    ],
    start: '2022-09-01',
    statuses: [['NORMAL', '2022-09-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['40000.00', '2022-09-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at yde it-konsulentbistand og kundeservice.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_10_19', series: 'all' },
  },
  {
    key: 'demoHolding',
    cvr: DEMO_HOLDING_CVR,
    names: [
      ['LBJ Holding ApS', '2015-01-05', '2016-06-30'],
      ['Demo Holding ApS', '2016-07-01'],
    ],
    forms: [['APS', '2015-01-05']],
    branches: [[['642020', 'Ikke-finansielle holdingselskaber'], '2015-01-05']],
    addresses: [
      [{ vej: 'Strandvejen', nr: 150, postnr: 2900, distrikt: 'Hellerup', kommune: KOMMUNER.gentofte }, '2015-01-05'],
    ],
    start: '2015-01-05',
    statuses: [['NORMAL', '2015-01-05']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['80000.00', '2015-01-05']], currency: 'DKK' },
    purpose: 'Selskabets formål er at eje kapitalandele i andre selskaber.',
    signing: 'Selskabet tegnes af en direktør.',
    auditOptOut: '2016-01-01',
    employment: null,
  },
  {
    key: 'demoByg',
    cvr: DEMO_BYG_CVR,
    names: [['Demo Byg ApS', '2017-04-03']],
    forms: [['APS', '2017-04-03']],
    branches: [[['412000', 'Opførelse af nye bygninger'], '2017-04-03']],
    addresses: [
      [{ vej: 'Sønder Allé', nr: 9, postnr: 8000, distrikt: 'Aarhus C', kommune: KOMMUNER.aarhus }, '2017-04-03'],
    ],
    start: '2017-04-03',
    statuses: [['NORMAL', '2017-04-03']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['50000.00', '2017-04-03']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive entreprenørvirksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_5_9', series: 'annual+quarterly' },
  },
  {
    key: 'demoConsult',
    cvr: DISSOLVED_CVR,
    names: [['Demo Consult ApS', '2014-02-01', '2021-06-30']],
    forms: [['APS', '2014-02-01', '2021-06-30']],
    branches: [[['702200', 'Virksomhedsrådgivning og anden rådgivning om driftsledelse'], '2014-02-01', '2021-06-30']],
    addresses: [
      [
        {
          vej: 'Gammel Kongevej',
          nr: 120,
          etage: 'st',
          side: 'th',
          postnr: 1850,
          distrikt: 'Frederiksberg C',
          kommune: KOMMUNER.frederiksberg,
        },
        '2014-02-01',
        '2021-06-30',
      ],
    ],
    start: '2014-02-01',
    end: '2021-06-30',
    statuses: [
      ['NORMAL', '2014-02-01', '2020-11-30'],
      ['UNDER FRIVILLIG LIKVIDATION', '2020-12-01', '2021-06-29'],
      ['OPLØST EFTER FRIVILLIG LIKVIDATION', '2021-06-30', '2021-06-30'],
    ],
    sammensatStatus: 'OPLØSTEFTERFRIVILLIGLIKVIDATION',
    capital: { values: [['80000.00', '2014-02-01', '2021-06-30']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive konsulentvirksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_1_1', series: 'annual', lastYear: 2020 },
  },
  {
    key: 'bageri',
    cvr: PROTECTED_CVR,
    reklamebeskyttet: true,
    names: [['Bageriet Ærtebjerg ApS', '2009-08-17']],
    forms: [['APS', '2009-08-17']],
    branches: [[['107100', 'Fremstilling af brød og friske bagværk og kager'], '2009-08-17']],
    addresses: [
      [{ vej: 'Algade', nr: 31, postnr: 4000, distrikt: 'Roskilde', kommune: KOMMUNER.roskilde }, '2009-08-17'],
    ],
    start: '2009-08-17',
    statuses: [['NORMAL', '2009-08-17']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['125000.00', '2009-08-17']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive bageri og konditori.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_10_19', series: 'all' },
  },
  {
    key: 'landbrug',
    cvr: AGRICULTURE_CVR,
    names: [['Østergaard Landbrug I/S', '1998-04-01']],
    forms: [['IS', '1998-04-01']],
    branches: [[['011100', 'Dyrkning af korn (undtagen ris), bælgfrugter og olieholdige frø'], '1998-04-01']],
    addresses: [
      [
        {
          vej: 'Østergaardvej',
          nr: 12,
          postnr: 9310,
          distrikt: 'Vodskov',
          kommune: KOMMUNER.aalborg,
          bynavn: 'Østrup',
        },
        '1998-04-01',
      ],
    ],
    start: '1998-04-01',
    statuses: [],
    sammensatStatus: 'Aktiv',
    employment: { band: 'ANTAL_2_4', series: 'annual' },
  },
  {
    key: 'havfiskeri',
    cvr: ESTATE_OWNED_CVR,
    names: [['Skagen Havfiskeri ApS', '2003-06-01']],
    forms: [['APS', '2003-06-01']],
    branches: [[['031100', 'Havfiskeri'], '2003-06-01']],
    addresses: [
      [{ vej: 'Auktionsvej', nr: 8, postnr: 9990, distrikt: 'Skagen', kommune: KOMMUNER.frederikshavn }, '2003-06-01'],
    ],
    start: '2003-06-01',
    statuses: [['NORMAL', '2003-06-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['200000.00', '2003-06-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive fiskeri og dermed beslægtet virksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_5_9', series: 'annual+quarterly' },
  },
  {
    key: 'kaffebar',
    cvr: THIRDS_CVR,
    names: [['Kaffebaren Trekanten ApS', '2015-09-01']],
    forms: [['APS', '2015-09-01']],
    branches: [[['563000', 'Caféer, værtshuse, diskoteker mv.'], '2015-09-01']],
    addresses: [
      [{ vej: 'Kongensgade', nr: 40, postnr: 5000, distrikt: 'Odense C', kommune: KOMMUNER.odense }, '2015-09-01'],
    ],
    start: '2015-09-01',
    statuses: [['NORMAL', '2015-09-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['40000.00', '2015-09-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive café.',
    signing: 'Selskabet tegnes af bestyrelsens formand alene eller af en direktør.',
    employment: { band: 'ANTAL_5_9', series: 'all' },
  },
  {
    key: 'toemrer',
    cvr: cvrFrom(3605551),
    names: [['Fjordens Tømrer & Snedker ApS', '2011-01-10']],
    forms: [['APS', '2011-01-10']],
    branches: [[['433200', 'Tømrer- og bygningssnedkervirksomhed'], '2011-01-10']],
    addresses: [
      [{ vej: 'Vestre Engvej', nr: 12, postnr: 7100, distrikt: 'Vejle', kommune: KOMMUNER.vejle }, '2011-01-10'],
    ],
    start: '2011-01-10',
    statuses: [['NORMAL', '2011-01-10']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['80000.00', '2011-01-10']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive tømrer- og snedkervirksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_10_19', series: 'all' },
  },
  {
    key: 'revision',
    cvr: AUDITOR_CVR,
    names: [['Nørgaard & Holm Revision A/S', '1996-05-01']],
    forms: [['AS', '1996-05-01']],
    branches: [[['692000', 'Bogføring og revision; skatterådgivning'], '1996-05-01']],
    addresses: [[{ vej: 'Amaliegade', nr: 22, postnr: 1256, distrikt: 'København K', kommune: cph }, '1996-05-01']],
    start: '1996-05-01',
    statuses: [['NORMAL', '1996-05-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['500000.00', '1996-05-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive revisionsvirksomhed.',
    signing: 'Selskabet tegnes af to bestyrelsesmedlemmer i forening eller af en direktør.',
    employment: { band: 'ANTAL_100_199', series: 'all', counts: [112, 104.5] },
  },
  {
    key: 'logistik',
    cvr: LOGISTICS_CVR,
    names: [
      ['Nordisk Transport A/S', '2005-03-15', '2010-12-31'],
      ['Nordisk Logistik A/S', '2011-01-01'],
    ],
    forms: [['AS', '2005-03-15']],
    branches: [[['494100', 'Vejgodstransport'], '2005-03-15']],
    addresses: [
      [{ vej: 'Priorparken', nr: 700, postnr: 2605, distrikt: 'Brøndby', kommune: KOMMUNER.broendby }, '2005-03-15'],
    ],
    start: '2005-03-15',
    statuses: [['NORMAL', '2005-03-15']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['400000.00', '2005-03-15']], currency: 'EUR' },
    purpose: 'Selskabets formål er at drive transport- og logistikvirksomhed.',
    signing: 'Selskabet tegnes af bestyrelsens formand i forening med en direktør.',
    employment: { band: 'ANTAL_100_199', series: 'all' },
  },
  {
    key: 'vvs',
    cvr: cvrFrom(4123105),
    names: [['Hansen & Søn VVS ApS', '1999-11-01']],
    forms: [['APS', '1999-11-01']],
    branches: [[['432200', 'VVS- og blikkenslagerforretninger'], '1999-11-01']],
    addresses: [
      [{ vej: 'Kongensgade', nr: 88, postnr: 6700, distrikt: 'Esbjerg', kommune: KOMMUNER.esbjerg }, '1999-11-01'],
    ],
    start: '1999-11-01',
    statuses: [['NORMAL', '1999-11-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['125000.00', '1999-11-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive VVS-virksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_5_9', series: 'annual+quarterly' },
  },
  {
    key: 'boghandel',
    cvr: cvrFrom(3872983),
    reklamebeskyttet: true,
    names: [['Lille Ø Boghandel v/Sofie Lykke Øberg', '2016-08-01']],
    forms: [['ENK', '2016-08-01']],
    branches: [[['476110', 'Boghandel'], '2016-08-01']],
    addresses: [
      [{ vej: 'Storegade', nr: 21, postnr: 6200, distrikt: 'Aabenraa', kommune: KOMMUNER.aabenraa }, '2016-08-01'],
    ],
    start: '2016-08-01',
    statuses: [],
    sammensatStatus: 'Aktiv',
    employment: { band: 'ANTAL_1_1', series: 'annual' },
  },
  {
    key: 'cykler',
    cvr: CEASED_ENK_CVR,
    names: [['Møllers Cykler', '2001-03-01', '2019-12-31']],
    forms: [['ENK', '2001-03-01', '2019-12-31']],
    branches: [[['476420', 'Cykelforhandlere'], '2001-03-01', '2019-12-31']],
    addresses: [
      [
        { vej: 'Nørregade', nr: 14, postnr: 8800, distrikt: 'Viborg', kommune: KOMMUNER.viborg },
        '2001-03-01',
        '2019-12-31',
      ],
    ],
    start: '2001-03-01',
    end: '2019-12-31',
    statuses: [],
    sammensatStatus: 'Ophørt',
    employment: { band: 'ANTAL_1_1', series: 'annual', lastYear: 2018 },
  },
  {
    key: 'energi',
    cvr: cvrFrom(4358898),
    names: [['Grøn Energi Rådgivning ApS', '2020-02-20']],
    forms: [['APS', '2020-02-20']],
    branches: [[['711290', 'Anden teknisk rådgivning'], '2020-02-20']],
    addresses: [
      [
        { vej: 'Vesterbro', nr: 54, etage: '1', postnr: 9000, distrikt: 'Aalborg', kommune: KOMMUNER.aalborg },
        '2020-02-20',
      ],
    ],
    start: '2020-02-20',
    statuses: [['NORMAL', '2020-02-20']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['40000.00', '2020-02-20']], currency: 'DKK' },
    purpose: 'Selskabets formål er at yde rådgivning om energi.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_2_4', series: 'all' },
  },
  {
    key: 'maskinfabrik',
    cvr: BANKRUPT_CVR,
    names: [['Aalborg Maskinfabrik A/S', '1987-06-01']],
    forms: [['AS', '1987-06-01']],
    branches: [[['282900', 'Fremstilling af andre maskiner til generelle formål i.a.n.'], '1987-06-01']],
    addresses: [
      [{ vej: 'Hjulmagervej', nr: 20, postnr: 9000, distrikt: 'Aalborg', kommune: KOMMUNER.aalborg }, '1987-06-01'],
    ],
    start: '1987-06-01',
    statuses: [
      ['NORMAL', '1987-06-01', '2024-02-14'],
      ['UNDER KONKURS', '2024-02-15'],
    ],
    sammensatStatus: 'UNDERKONKURS',
    capital: { values: [['1000000.00', '1987-06-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive maskinfabrik.',
    signing: 'Selskabet tegnes af bestyrelsens formand i forening med en direktør.',
    employment: { band: 'ANTAL_20_49', annualBand: 'ANTAL_50_99', series: 'annual+quarterly' },
  },
  {
    key: 'rengoering',
    cvr: cvrFrom(2449489),
    names: [['Vestkystens Rengøring ApS', '2018-10-01']],
    forms: [['APS', '2018-10-01']],
    branches: [[['812100', 'Almindelig rengøring i bygninger'], '2018-10-01']],
    addresses: [
      [{ vej: 'Gl. Vardevej', nr: 50, postnr: 6715, distrikt: 'Esbjerg N', kommune: KOMMUNER.esbjerg }, '2018-10-01'],
    ],
    start: '2018-10-01',
    statuses: [['NORMAL', '2018-10-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['40000.00', '2018-10-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive rengøringsvirksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_10_19', series: 'annual+quarterly' },
  },
  {
    key: 'roegeri',
    cvr: cvrFrom(2828427),
    names: [['Bornholmsk Røgeri ApS', '2010-05-01']],
    forms: [['APS', '2010-05-01']],
    branches: [[['102000', 'Forarbejdning og konservering af fisk, krebsdyr og bløddyr'], '2010-05-01']],
    addresses: [
      [{ vej: 'Nordre Kystvej', nr: 8, postnr: 3700, distrikt: 'Rønne', kommune: KOMMUNER.bornholm }, '2010-05-01'],
    ],
    start: '2010-05-01',
    statuses: [['NORMAL', '2010-05-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['125000.00', '2010-05-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive røgeri.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_5_9', series: 'annual' },
  },
  {
    key: 'gartneri',
    cvr: cvrFrom(3000000),
    names: [['Sønderjysk Gartneri I/S', '2006-03-01']],
    forms: [['IS', '2006-03-01']],
    branches: [[['011300', 'Dyrkning af grøntsager, meloner, rod- og knoldfrugter'], '2006-03-01']],
    addresses: [
      [{ vej: 'Ahlefeldtvej', nr: 3, postnr: 6300, distrikt: 'Gråsten', kommune: KOMMUNER.soenderborg }, '2006-03-01'],
    ],
    start: '2006-03-01',
    statuses: [],
    sammensatStatus: 'Aktiv',
    employment: { band: 'ANTAL_2_4', series: 'annual' },
  },
  {
    key: 'kaffebraenderi',
    cvr: cvrFrom(3162277),
    reklamebeskyttet: true,
    names: [['København Kaffebrænderi ApS', '2019-11-01']],
    forms: [['APS', '2019-11-01']],
    branches: [[['108300', 'Forarbejdning af te og kaffe'], '2019-11-01']],
    addresses: [
      [
        { vej: 'Refshalevej', nr: 163, bogstav: 'A', postnr: 1432, distrikt: 'København K', kommune: cph },
        '2019-11-01',
      ],
    ],
    start: '2019-11-01',
    statuses: [['NORMAL', '2019-11-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['40000.00', '2019-11-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at riste og sælge kaffe.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_5_9', series: 'all' },
  },
  {
    key: 'advokat',
    cvr: cvrFrom(3316625),
    names: [['Lykke & Skov Advokater I/S', '2013-01-01']],
    forms: [['IS', '2013-01-01']],
    branches: [[['691000', 'Juridisk bistand'], '2013-01-01']],
    addresses: [
      [
        { vej: 'Mejlgade', nr: 15, etage: '1', postnr: 8000, distrikt: 'Aarhus C', kommune: KOMMUNER.aarhus },
        '2013-01-01',
      ],
    ],
    start: '2013-01-01',
    statuses: [],
    sammensatStatus: 'Aktiv',
    employment: { band: 'ANTAL_2_4', series: 'annual' },
  },
  {
    key: 'software',
    cvr: cvrFrom(3464101),
    names: [['Nordlys Software ApS', '2021-06-15']],
    forms: [['APS', '2021-06-15']],
    branches: [[['582900', 'Anden udgivelse af software'], '2021-06-15']],
    addresses: [
      [
        { vej: 'Inge Lehmanns Gade', nr: 10, etage: '6', postnr: 8000, distrikt: 'Aarhus C', kommune: KOMMUNER.aarhus },
        '2021-06-15',
      ],
    ],
    start: '2021-06-15',
    statuses: [['NORMAL', '2021-06-15']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['40000.00', '2021-06-15']], currency: 'DKK' },
    purpose: 'Selskabets formål er at udvikle og sælge software.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_2_4', series: 'all' },
  },
  {
    key: 'el',
    cvr: cvrFrom(3605552),
    names: [['Fyns Elektriker Service ApS', '2008-09-01']],
    forms: [['APS', '2008-09-01']],
    branches: [[['432100', 'El-installation'], '2008-09-01']],
    addresses: [
      [{ vej: 'Rugårdsvej', nr: 55, postnr: 5000, distrikt: 'Odense C', kommune: KOMMUNER.odense }, '2008-09-01'],
    ],
    start: '2008-09-01',
    statuses: [['NORMAL', '2008-09-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['80000.00', '2008-09-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive el-installationsvirksomhed.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_10_19', series: 'annual+quarterly' },
  },
  {
    key: 'fiskehus',
    cvr: cvrFrom(3741657),
    names: [['Havnens Fiskehus ApS', '2012-05-01']],
    forms: [['APS', '2012-05-01']],
    branches: [[['472300', 'Detailhandel med fisk, krebsdyr og bløddyr'], '2012-05-01']],
    addresses: [
      [
        { vej: 'Fiskehuskajen', nr: 2, postnr: 9990, distrikt: 'Skagen', kommune: KOMMUNER.frederikshavn },
        '2012-05-01',
      ],
    ],
    start: '2012-05-01',
    statuses: [['NORMAL', '2012-05-01']],
    sammensatStatus: 'NORMAL',
    capital: { values: [['50000.00', '2012-05-01']], currency: 'DKK' },
    purpose: 'Selskabets formål er at drive fiskeforretning.',
    signing: 'Selskabet tegnes af en direktør.',
    employment: { band: 'ANTAL_2_4', series: 'annual' },
  },
];

// ---------------------------------------------------------------------------------------------
// Production units
// ---------------------------------------------------------------------------------------------

interface UnitSpec {
  pNummer?: number;
  names: ReadonlyArray<Span<string>>;
  /** Parent companies over time (by company key); the last one is `nyesteCvrNummerRelation`. */
  parents: ReadonlyArray<Span<string>>;
  addresses: ReadonlyArray<Span<AddressSpec>>;
  branche?: readonly [string, string];
  start: string;
  end?: string;
  reklamebeskyttet?: boolean;
  employment: EmploymentSpec | null;
}

function hqUnit(companyKey: string, extra: Partial<UnitSpec> = {}): UnitSpec {
  const c = companySpec(companyKey);
  return {
    names: c.names,
    parents: [[companyKey, c.start, c.end ?? null]],
    addresses: c.addresses,
    start: c.start,
    ...(c.end === undefined ? {} : { end: c.end }),
    employment: c.employment,
    ...extra,
  };
}

function companySpec(key: string): CompanySpec {
  const spec = COMPANY_SPECS.find((c) => c.key === key);
  if (spec === undefined) throw new Error(`register sandbox data: unknown company ${key}`);
  return spec;
}

const UNIT_SPECS: readonly UnitSpec[] = [
  // Demo Data A/S: head office (moved address, renamed with the company), Aarhus, a ceased Odense unit
  hqUnit('demoData', { pNummer: DEMO_HQ_PNUMMER }),
  {
    names: [['Demo Data A/S, Aarhus', '2019-09-01']],
    parents: [['demoData', '2019-09-01']],
    addresses: [
      [
        { vej: 'Åboulevarden', nr: 80, etage: '2', postnr: 8000, distrikt: 'Aarhus C', kommune: KOMMUNER.aarhus },
        '2019-09-01',
      ],
    ],
    start: '2019-09-01',
    employment: { band: 'ANTAL_5_9', series: 'annual+quarterly' },
  },
  {
    pNummer: DEMO_CEASED_PNUMMER,
    names: [
      ['Demo Software ApS, Odense', '2014-01-01', '2016-06-30'],
      ['Demo Data A/S, Odense', '2016-07-01', '2020-06-30'],
    ],
    parents: [['demoData', '2014-01-01', '2020-06-30']],
    addresses: [
      [
        { vej: 'Vestergade', nr: 45, etage: '1', postnr: 5000, distrikt: 'Odense C', kommune: KOMMUNER.odense },
        '2014-01-01',
        '2020-06-30',
      ],
    ],
    start: '2014-01-01',
    end: '2020-06-30',
    employment: { band: 'ANTAL_2_4', series: 'annual', lastYear: 2019 },
  },
  // moved from Demo Data A/S to Demo Data Services ApS
  {
    pNummer: MOVED_PNUMMER,
    names: [
      ['Demo Data A/S, Kundeservice', '2018-05-01', '2022-12-31'],
      ['Demo Data Services ApS, Kundeservice', '2023-01-01'],
    ],
    parents: [
      ['demoData', '2018-05-01', '2022-12-31'],
      ['demoServices', '2023-01-01'],
    ],
    addresses: [
      [{ vej: 'Jernbanegade', nr: 3, postnr: 4000, distrikt: 'Roskilde', kommune: KOMMUNER.roskilde }, '2018-05-01'],
    ],
    branche: ['822000', 'Callcentre'],
    start: '2018-05-01',
    employment: { band: 'ANTAL_5_9', series: 'all' },
  },
  hqUnit('demoServices', { employment: { band: 'ANTAL_2_4', series: 'all' } }),
  hqUnit('demoHolding'),
  hqUnit('demoByg'),
  {
    names: [['Demo Byg ApS, Materialegård', '2020-03-01']],
    parents: [['demoByg', '2020-03-01']],
    addresses: [
      [{ vej: 'Industrivej', nr: 4, postnr: 8260, distrikt: 'Viby J', kommune: KOMMUNER.aarhus }, '2020-03-01'],
    ],
    branche: ['467300', 'Engroshandel med træ, byggematerialer og sanitetsartikler'],
    start: '2020-03-01',
    employment: { band: 'ANTAL_1_1', series: 'annual' },
  },
  hqUnit('demoConsult'),
  hqUnit('bageri', { names: [['Bageriet Ærtebjerg', '2009-08-17']] }),
  {
    names: [['Bageriet Ærtebjerg, Trekroner', '2017-02-01']],
    parents: [['bageri', '2017-02-01']],
    addresses: [
      [
        { vej: 'Trekroner Centervej', nr: 2, postnr: 4000, distrikt: 'Roskilde', kommune: KOMMUNER.roskilde },
        '2017-02-01',
      ],
    ],
    start: '2017-02-01',
    employment: { band: 'ANTAL_5_9', series: 'annual+quarterly' },
  },
  hqUnit('landbrug'),
  hqUnit('havfiskeri'),
  hqUnit('kaffebar', { names: [['Kaffebaren Trekanten', '2015-09-01']] }),
  hqUnit('toemrer'),
  {
    names: [['Fjordens Tømrer & Snedker ApS, Værksted', '2015-04-01']],
    parents: [['toemrer', '2015-04-01']],
    addresses: [[{ vej: 'Fabriksvej', nr: 3, postnr: 7100, distrikt: 'Vejle', kommune: KOMMUNER.vejle }, '2015-04-01']],
    start: '2015-04-01',
    employment: { band: 'ANTAL_5_9', series: 'annual' },
  },
  hqUnit('revision', { employment: { band: 'ANTAL_50_99', series: 'all', counts: [61, 57.2] } }),
  {
    names: [['Nørgaard & Holm Revision A/S, Aarhus', '2004-01-01']],
    parents: [['revision', '2004-01-01']],
    addresses: [
      [
        { vej: 'Frederiksgade', nr: 72, etage: '3', postnr: 8000, distrikt: 'Aarhus C', kommune: KOMMUNER.aarhus },
        '2004-01-01',
      ],
    ],
    start: '2004-01-01',
    employment: { band: 'ANTAL_20_49', series: 'annual+quarterly', counts: [33, 30.1] },
  },
  {
    names: [['Nørgaard & Holm Revision A/S, Aalborg', '2011-08-01']],
    parents: [['revision', '2011-08-01']],
    addresses: [
      [{ vej: 'Boulevarden', nr: 13, postnr: 9000, distrikt: 'Aalborg', kommune: KOMMUNER.aalborg }, '2011-08-01'],
    ],
    start: '2011-08-01',
    employment: { band: 'ANTAL_10_19', series: 'annual+quarterly', counts: [18, 17.2] },
  },
  hqUnit('logistik', { employment: { band: 'ANTAL_50_99', series: 'all' } }),
  {
    names: [['Nordisk Logistik A/S, Kolding', '2012-01-01']],
    parents: [['logistik', '2012-01-01']],
    addresses: [
      [{ vej: 'Vejlevej', nr: 140, postnr: 6000, distrikt: 'Kolding', kommune: KOMMUNER.kolding }, '2012-01-01'],
    ],
    branche: ['522900', 'Andre serviceydelser i forbindelse med transport'],
    start: '2012-01-01',
    employment: { band: 'ANTAL_20_49', annualBand: 'ANTAL_20_29', series: 'annual+quarterly' },
  },
  {
    names: [['Nordisk Logistik A/S, Padborg', '2014-06-01']],
    parents: [['logistik', '2014-06-01']],
    addresses: [
      [{ vej: 'Transitvej', nr: 10, postnr: 6330, distrikt: 'Padborg', kommune: KOMMUNER.aabenraa }, '2014-06-01'],
    ],
    start: '2014-06-01',
    employment: { band: 'ANTAL_10_19', series: 'annual+quarterly' },
  },
  {
    names: [
      ['Nordisk Transport A/S, Aalborg', '2008-02-01', '2010-12-31'],
      ['Nordisk Logistik A/S, Aalborg', '2011-01-01', '2019-09-30'],
    ],
    parents: [['logistik', '2008-02-01', '2019-09-30']],
    addresses: [
      [
        { vej: 'Sindalsvej', nr: 34, postnr: 9200, distrikt: 'Aalborg SV', kommune: KOMMUNER.aalborg },
        '2008-02-01',
        '2019-09-30',
      ],
    ],
    start: '2008-02-01',
    end: '2019-09-30',
    employment: { band: 'ANTAL_5_9', series: 'annual', lastYear: 2018 },
  },
  {
    names: [['Nordisk Logistik A/S, Taulov', '2021-04-01']],
    parents: [['logistik', '2021-04-01']],
    addresses: [
      [
        { vej: 'Taulov Kirkevej', nr: 30, postnr: 7000, distrikt: 'Fredericia', kommune: KOMMUNER.fredericia },
        '2021-04-01',
      ],
    ],
    start: '2021-04-01',
    employment: { band: 'ANTAL_20_49', annualBand: 'ANTAL_20_29', series: 'all' },
  },
  hqUnit('vvs'),
  hqUnit('boghandel', { names: [['Lille Ø Boghandel', '2016-08-01']] }),
  hqUnit('cykler'),
  hqUnit('energi'),
  hqUnit('maskinfabrik'),
  {
    names: [['Aalborg Maskinfabrik A/S, Lager', '2001-05-01']],
    parents: [['maskinfabrik', '2001-05-01']],
    addresses: [
      [{ vej: 'Hjulmagervej', nr: 26, postnr: 9000, distrikt: 'Aalborg', kommune: KOMMUNER.aalborg }, '2001-05-01'],
    ],
    branche: ['521000', 'Oplagring'],
    start: '2001-05-01',
    employment: { band: 'ANTAL_2_4', series: 'annual' },
  },
  hqUnit('rengoering'),
  {
    names: [['Vestkystens Rengøring ApS, Varde', '2021-01-01']],
    parents: [['rengoering', '2021-01-01']],
    addresses: [[{ vej: 'Storegade', nr: 5, postnr: 6800, distrikt: 'Varde', kommune: KOMMUNER.varde }, '2021-01-01']],
    start: '2021-01-01',
    employment: { band: 'ANTAL_5_9', series: 'annual' },
  },
  hqUnit('roegeri'),
  hqUnit('gartneri'),
  hqUnit('kaffebraenderi'),
  {
    names: [['København Kaffebrænderi, Butik Nørrebro', '2022-03-01']],
    parents: [['kaffebraenderi', '2022-03-01']],
    addresses: [[{ vej: 'Jægersborggade', nr: 10, postnr: 2200, distrikt: 'København N', kommune: cph }, '2022-03-01']],
    branche: ['472900', 'Anden detailhandel med fødevarer, drikkevarer og tobak i specialforretninger'],
    start: '2022-03-01',
    employment: { band: 'ANTAL_2_4', series: 'annual' },
  },
  hqUnit('advokat'),
  hqUnit('software'),
  hqUnit('el'),
  hqUnit('fiskehus'),
];

// ---------------------------------------------------------------------------------------------
// Participants (persons and other participants) and their relations
// ---------------------------------------------------------------------------------------------

interface ParticipantSpec {
  key: string;
  enhedsNummer: number;
  type: 'PERSON' | 'ANDEN_DELTAGER';
  names: ReadonlyArray<Span<string>>;
  /** ANDEN_DELTAGER sub-type (attribute `ANDRE_DELT_TYPE`); the real value list is unpublished. */
  andreDeltType?: string;
}

let nextPerson = 4000800001;
function person(key: string, ...names: Array<Span<string>>): ParticipantSpec {
  return {
    key,
    enhedsNummer: nextPerson++,
    type: 'PERSON',
    names: names.length === 1 ? [[names[0]![0], null]] : names,
  };
}

const PARTICIPANT_SPECS: readonly ParticipantSpec[] = [
  person('lars', ['Lars Bøgh Jensen', null]), // 4000800001
  person('mette', ['Mette Ærø Nielsen', null, '2015-06-19'], ['Mette Ærø Sørensen', '2015-06-20']),
  person('henrik', ['Henrik Poulsen', null]),
  person('niels', ['Niels Kjærgaard', null]),
  person('peter', ['Peter Nørgaard', null]),
  person('annemarie', ['Anne-Marie Holm', null]),
  person('jphAarhus', [NAMESAKE_NAME, null]), // 4000800007
  person('jphVejle', [NAMESAKE_NAME, null]), // 4000800008
  person('jens', ['Jens Hansen', null]),
  person('mikkel', ['Mikkel Hansen', null]),
  person('maria', ['Maria Dahl', null]),
  person('kirsten', ['Kirsten Ærtebjerg', null]),
  person('per', ['Per Ærtebjerg', null]),
  person('ole', ['Ole Østergaard', null]),
  person('birgitte', ['Birgitte Østergaard', null]),
  person('anders', ['Anders Mikkelsen', null]),
  person('karen', ['Karen Mikkelsen', null]),
  person('sara', ['Sara Lund', null]),
  person('ahmad', ['Ahmad Rahimi', null]),
  person('camilla', ['Camilla Friis', null]),
  person('thomas', ['Thomas Vinther', null]),
  person('sofie', ['Sofie Lykke Øberg', null]),
  person('kurt', ['Kurt Møller', null]),
  person('rasmus', ['Rasmus Grøn', null]),
  person('bent', ['Bent Aalund', null]),
  person('line', ['Line Krogh', null]),
  person('joergen', ['Jørgen Kofoed', null]),
  person('helle', ['Helle Dam', null]),
  person('frederik', ['Frederik Dam', null]),
  person('emil', ['Emil Bach', null]),
  person('ida', ['Ida Lykke', null]),
  person('martin', ['Martin Skov', null]),
  person('soeren', ['Søren Ørum', null]),
  {
    key: 'boet',
    enhedsNummer: ANDEN_DELTAGER_ENHEDSNUMMER,
    type: 'ANDEN_DELTAGER',
    names: [['Boet efter Karen Mikkelsen', '2023-03-14']],
    andreDeltType: 'DØDSBO',
  },
  {
    key: 'nordsjoe',
    enhedsNummer: 4000809002,
    type: 'ANDEN_DELTAGER',
    names: [['Nordsjø Invest AS', '2005-03-15']],
    andreDeltType: 'UDENLANDSK_VIRKSOMHED',
  },
];

type Organ = 'Bestyrelse' | 'Direktion' | 'EJERREGISTER' | 'Reelle ejere' | 'Revision' | 'Stiftere' | 'Interessenter';

const ORGANS: Record<Organ, { hovedtype: string; index: number }> = {
  Bestyrelse: { hovedtype: 'LEDELSESORGAN', index: 1 },
  Direktion: { hovedtype: 'LEDELSESORGAN', index: 2 },
  EJERREGISTER: { hovedtype: 'REGISTER', index: 3 },
  'Reelle ejere': { hovedtype: 'REGISTER', index: 4 },
  Revision: { hovedtype: 'REVISION', index: 5 },
  Stiftere: { hovedtype: 'STIFTERE', index: 6 },
  Interessenter: { hovedtype: 'FULDT_ANSVARLIG_DELTAGERE', index: 7 },
};

interface RoleSpec {
  organ: Organ;
  /** `FUNKTION` values (board, management); other organs get their fixed function text. */
  funktion?: ReadonlyArray<Span<string>>;
  /** `EJERANDEL_PROCENT` values (fractions in strings). */
  andel?: ReadonlyArray<Span<string>>;
  /** `EJERANDEL_STEMMERET_PROCENT` values; defaults to `andel`. */
  stemmeret?: ReadonlyArray<Span<string>>;
  /** Membership period for organs without values of their own (auditor, founders, partners). */
  from?: string | null;
  to?: string | null;
}

interface RelationSpec {
  company: string;
  /** A participant key, or a company key for a company participant. */
  who: string;
  roles: readonly RoleSpec[];
}

const RELATION_SPECS: readonly RelationSpec[] = [
  // ---- Demo Data A/S: every kind of participant --------------------------------------------
  {
    company: 'demoData',
    who: 'demoHolding',
    roles: [
      {
        organ: 'EJERREGISTER',
        andel: [
          ['0.5', '2016-07-01', '2019-12-31'],
          ['0.6667', '2020-01-01'],
        ],
      },
    ],
  },
  {
    company: 'demoData',
    who: 'lars',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2012-03-01', '2016-06-30']] },
      {
        organ: 'Reelle ejere',
        andel: [
          ['0.52', '2017-05-23', '2019-12-31'],
          ['0.688', '2020-01-01'],
        ],
        stemmeret: [
          ['0.55', '2017-05-23', '2019-12-31'],
          ['0.72', '2020-01-01'],
        ],
      },
      {
        organ: 'Bestyrelse',
        funktion: [
          ['BESTYRELSESMEDLEM', '2016-07-01', '2019-04-30'],
          ['FORMAND', '2019-05-01'],
        ],
      },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2012-03-01', '2016-06-30']] },
      { organ: 'Stiftere', from: '2012-03-01' },
    ],
  },
  {
    company: 'demoData',
    who: 'mette',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.25', '2016-07-01']] },
      { organ: 'Reelle ejere', andel: [['0.262', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['adm. dir.', '2016-07-01']] },
      { organ: 'Bestyrelse', funktion: [['bestyrelsesmedlem', '2019-05-01']] },
    ],
  },
  {
    company: 'demoData',
    who: 'nordsjoe',
    roles: [{ organ: 'EJERREGISTER', andel: [['0.05', '2021-09-01']] }],
  },
  {
    company: 'demoData',
    who: 'niels',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.1', '2012-03-01', '2019-12-31']] },
      { organ: 'Stiftere', from: '2012-03-01' },
    ],
  },
  {
    company: 'demoData',
    who: 'henrik',
    roles: [
      {
        organ: 'Bestyrelse',
        funktion: [
          ['FORMAND', '2016-07-01', '2019-04-30'],
          ['NÆSTFORMAND', '2019-05-01', '2021-05-31'],
        ],
      },
    ],
  },
  { company: 'demoData', who: 'revision', roles: [{ organ: 'Revision', from: '2016-07-01' }] },

  // ---- Demo Data Services ApS: 100 % subsidiary ---------------------------------------------
  {
    company: 'demoServices',
    who: 'demoData',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2022-09-01']] },
      { organ: 'Stiftere', from: '2022-09-01' },
    ],
  },
  {
    company: 'demoServices',
    who: 'lars',
    roles: [{ organ: 'Reelle ejere', andel: [['0.688', '2022-09-01']], stemmeret: [['0.72', '2022-09-01']] }],
  },
  {
    company: 'demoServices',
    who: 'mette',
    roles: [
      { organ: 'Reelle ejere', andel: [['0.262', '2022-09-01']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2022-09-01']] },
    ],
  },
  { company: 'demoServices', who: 'revision', roles: [{ organ: 'Revision', from: '2022-09-01' }] },

  // ---- Demo Holding ApS ----------------------------------------------------------------------
  {
    company: 'demoHolding',
    who: 'lars',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2015-01-05']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2015-01-05']] },
      { organ: 'Stiftere', from: '2015-01-05' },
    ],
  },

  // ---- Demo Byg ApS ------------------------------------------------------------------------
  {
    company: 'demoByg',
    who: 'jphAarhus',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2017-04-03']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['adm. dir', '2017-04-03']] },
      { organ: 'Stiftere', from: '2017-04-03' },
    ],
  },
  {
    company: 'demoByg',
    who: 'maria',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2017-04-03']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
    ],
  },

  // ---- Demo Consult ApS (dissolved): every membership closed ---------------------------------
  {
    company: 'demoConsult',
    who: 'niels',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2014-02-01', '2021-06-30']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2017-05-23', '2021-06-30']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2014-02-01', '2021-06-30']] },
      { organ: 'Stiftere', from: '2014-02-01', to: '2021-06-30' },
    ],
  },

  // ---- Bageriet Ærtebjerg ApS --------------------------------------------------------------
  {
    company: 'bageri',
    who: 'kirsten',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.9', '2009-08-17']] },
      { organ: 'Reelle ejere', andel: [['0.95', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2009-08-17']] },
    ],
  },
  { company: 'bageri', who: 'per', roles: [{ organ: 'EJERREGISTER', andel: [['0.05', '2009-08-17']] }] },

  // ---- Østergaard Landbrug I/S -------------------------------------------------------------
  {
    company: 'landbrug',
    who: 'ole',
    roles: [
      { organ: 'Interessenter', from: '1998-04-01' },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
    ],
  },
  {
    company: 'landbrug',
    who: 'birgitte',
    roles: [
      { organ: 'Interessenter', from: '1998-04-01' },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
    ],
  },

  // ---- Skagen Havfiskeri ApS: an estate owns half -------------------------------------------
  {
    company: 'havfiskeri',
    who: 'anders',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2003-06-01']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['direktør', '2003-06-01']] },
    ],
  },
  {
    company: 'havfiskeri',
    who: 'karen',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2003-06-01', '2023-03-13']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23', '2023-03-13']] },
    ],
  },
  { company: 'havfiskeri', who: 'boet', roles: [{ organ: 'EJERREGISTER', andel: [['0.5', '2023-03-14']] }] },

  // ---- Kaffebaren Trekanten ApS: three thirds, one former owner ------------------------------
  {
    company: 'kaffebar',
    who: 'sara',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.3333', '2015-09-01']] },
      { organ: 'Reelle ejere', andel: [['0.3333', '2017-05-23']] },
      { organ: 'Bestyrelse', funktion: [['formand', '2015-09-01']] },
      { organ: 'Stiftere', from: '2015-09-01' },
    ],
  },
  {
    company: 'kaffebar',
    who: 'ahmad',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.3333', '2015-09-01']] },
      { organ: 'Reelle ejere', andel: [['0.3333', '2017-05-23']] },
      { organ: 'Bestyrelse', funktion: [['bestyrelsesmedlem', '2015-09-01']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2015-09-01']] },
      { organ: 'Stiftere', from: '2015-09-01' },
    ],
  },
  {
    company: 'kaffebar',
    who: 'thomas',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.3333', '2015-09-01', '2020-03-31']] },
      { organ: 'Reelle ejere', andel: [['0.3333', '2017-05-23', '2020-03-31']] },
      { organ: 'Bestyrelse', funktion: [['bestyrelsesmedlem', '2015-09-01', '2020-03-31']] },
      { organ: 'Stiftere', from: '2015-09-01' },
    ],
  },
  {
    company: 'kaffebar',
    who: 'camilla',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.3333', '2020-04-01']] },
      { organ: 'Reelle ejere', andel: [['0.3333', '2020-04-01']] },
      { organ: 'Bestyrelse', funktion: [['bestyrelsesmedlem', '2020-04-01']] },
    ],
  },

  // ---- Fjordens Tømrer & Snedker ApS -------------------------------------------------------
  {
    company: 'toemrer',
    who: 'jphVejle',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2011-01-10']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2011-01-10']] },
    ],
  },
  { company: 'toemrer', who: 'revision', roles: [{ organ: 'Revision', from: '2011-01-10' }] },

  // ---- Nørgaard & Holm Revision A/S ----------------------------------------------------------
  {
    company: 'revision',
    who: 'peter',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '1996-05-01']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
      { organ: 'Bestyrelse', funktion: [['FORMAND', '1996-05-01']] },
    ],
  },
  {
    company: 'revision',
    who: 'annemarie',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '1996-05-01']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2017-05-23']] },
      { organ: 'Bestyrelse', funktion: [['BESTYRELSESMEDLEM', '1996-05-01']] },
      { organ: 'Direktion', funktion: [['adm. direktør', '1996-05-01']] },
    ],
  },
  {
    company: 'revision',
    who: 'martin',
    roles: [{ organ: 'Bestyrelse', funktion: [['BESTYRELSESMEDLEM', '2018-04-25']] }],
  },

  // ---- Nordisk Logistik A/S ------------------------------------------------------------------
  {
    company: 'logistik',
    who: 'nordsjoe',
    roles: [{ organ: 'EJERREGISTER', andel: [['0.3333', '2005-03-15']], stemmeret: [['0.5', '2005-03-15']] }],
  },
  {
    company: 'logistik',
    who: 'bent',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.3333', '2005-03-15']] },
      { organ: 'Reelle ejere', andel: [['0.36', '2017-05-23']], stemmeret: [['0.3', '2017-05-23']] },
      { organ: 'Bestyrelse', funktion: [['FORMAND', '2005-03-15']] },
    ],
  },
  {
    company: 'logistik',
    who: 'henrik',
    roles: [
      {
        organ: 'EJERREGISTER',
        andel: [
          ['0.2', '2010-01-01', '2015-12-31'],
          ['0.25', '2016-01-01'],
        ],
      },
      { organ: 'Reelle ejere', andel: [['0.27', '2017-05-23']], stemmeret: [['0.2', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['adm. dir.', '2010-01-01']] },
    ],
  },
  { company: 'logistik', who: 'line', roles: [{ organ: 'Bestyrelse', funktion: [['NÆSTFORMAND', '2018-04-21']] }] },
  {
    company: 'logistik',
    who: 'niels',
    roles: [{ organ: 'Bestyrelse', funktion: [['BESTYRELSESMEDLEM', '2005-03-15', '2018-04-20']] }],
  },
  { company: 'logistik', who: 'revision', roles: [{ organ: 'Revision', from: '2005-03-15' }] },

  // ---- Hansen & Søn VVS ApS -------------------------------------------------------------------
  {
    company: 'vvs',
    who: 'jens',
    roles: [
      {
        organ: 'EJERREGISTER',
        andel: [
          ['1.0', '1999-11-01', '2020-12-31'],
          ['0.6667', '2021-01-01'],
        ],
      },
      {
        organ: 'Reelle ejere',
        andel: [
          ['1.0', '2017-05-23', '2020-12-31'],
          ['0.7', '2021-01-01'],
        ],
      },
      { organ: 'Direktion', funktion: [['DIREKTØR', '1999-11-01']] },
    ],
  },
  {
    company: 'vvs',
    who: 'mikkel',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.25', '2021-01-01']] },
      { organ: 'Reelle ejere', andel: [['0.3', '2021-01-01']] },
      { organ: 'Direktion', funktion: [['direktør', '2021-01-01']] },
    ],
  },

  // ---- Sole proprietorships and partnerships -------------------------------------------------
  { company: 'boghandel', who: 'sofie', roles: [{ organ: 'Interessenter', from: '2016-08-01' }] },
  { company: 'cykler', who: 'kurt', roles: [{ organ: 'Interessenter', from: '2001-03-01', to: '2019-12-31' }] },
  { company: 'gartneri', who: 'helle', roles: [{ organ: 'Interessenter', from: '2006-03-01' }] },
  { company: 'gartneri', who: 'frederik', roles: [{ organ: 'Interessenter', from: '2006-03-01' }] },
  { company: 'advokat', who: 'ida', roles: [{ organ: 'Interessenter', from: '2013-01-01' }] },
  { company: 'advokat', who: 'martin', roles: [{ organ: 'Interessenter', from: '2013-01-01' }] },

  // ---- Remaining companies: owner-managers -----------------------------------------------------
  {
    company: 'energi',
    who: 'rasmus',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2020-02-20']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2020-02-20']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2020-02-20']] },
      { organ: 'Stiftere', from: '2020-02-20' },
    ],
  },
  {
    company: 'maskinfabrik',
    who: 'bent',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.6667', '1995-01-01']] },
      { organ: 'Reelle ejere', andel: [['0.7', '2017-05-23']] },
      { organ: 'Bestyrelse', funktion: [['FORMAND', '1995-01-01']] },
    ],
  },
  {
    company: 'maskinfabrik',
    who: 'line',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.1', '2012-01-01']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2012-01-01']] },
      { organ: 'Bestyrelse', funktion: [['BESTYRELSESMEDLEM', '2012-01-01']] },
    ],
  },
  { company: 'maskinfabrik', who: 'revision', roles: [{ organ: 'Revision', from: '2002-06-01', to: '2024-03-01' }] },
  {
    company: 'rengoering',
    who: 'line',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2018-10-01']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2018-10-01']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2018-10-01']] },
    ],
  },
  {
    company: 'roegeri',
    who: 'joergen',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2010-05-01']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2010-05-01']] },
      { organ: 'Stiftere', from: '2010-05-01' },
    ],
  },
  {
    company: 'kaffebraenderi',
    who: 'emil',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2019-11-01']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2019-11-01']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2019-11-01']] },
    ],
  },
  {
    company: 'software',
    who: 'emil',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2021-06-15']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2021-06-15']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2021-06-15']] },
    ],
  },
  {
    company: 'software',
    who: 'ida',
    roles: [
      { organ: 'EJERREGISTER', andel: [['0.5', '2021-06-15']] },
      { organ: 'Reelle ejere', andel: [['0.5', '2021-06-15']] },
    ],
  },
  {
    company: 'el',
    who: 'soeren',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2008-09-01']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2008-09-01']] },
    ],
  },
  {
    company: 'fiskehus',
    who: 'anders',
    roles: [
      { organ: 'EJERREGISTER', andel: [['1.0', '2012-05-01']] },
      { organ: 'Reelle ejere', andel: [['1.0', '2017-05-23']] },
      { organ: 'Direktion', funktion: [['DIREKTØR', '2012-05-01']] },
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Assembly
// ---------------------------------------------------------------------------------------------

interface CompanyBase {
  spec: CompanySpec;
  index: number;
  enhedsNummer: number;
  navne: NavnEntry[];
  beliggenhedsadresse: AdresseEntry[];
  hovedbranche: BrancheEntry[];
  virksomhedsform: VirksomhedsformEntry[];
  virksomhedsstatus: VirksomhedsstatusEntry[];
  livsforloeb: Historik[];
  sidstOpdateret: string | null;
}

function buildCompanyBase(spec: CompanySpec, index: number): CompanyBase {
  return {
    spec,
    index,
    enhedsNummer: 4000200001 + index * 17,
    navne: spec.names.map((s) => hist({ navn: s[0] }, s)),
    beliggenhedsadresse: spec.addresses.map((s) => address(s[0], s)),
    hovedbranche: spec.branches.map((s) => hist({ branchekode: s[0][0], branchetekst: s[0][1] }, s)),
    virksomhedsform: spec.forms.map((s) => hist({ ...FORMS[s[0]] }, s)),
    virksomhedsstatus: spec.statuses.map((s) => hist({ status: s[0] }, s)),
    livsforloeb: [hist({}, [null, spec.start, spec.end ?? null])],
    sidstOpdateret: stamp(
      newestDate([...spec.names, ...spec.statuses, ...spec.addresses, [null, spec.start, spec.end ?? null]]),
    ),
  };
}

const companyBases = COMPANY_SPECS.map(buildCompanyBase);

function companyBase(key: string): CompanyBase {
  const base = companyBases.find((c) => c.spec.key === key);
  if (base === undefined) throw new Error(`register sandbox data: unknown company ${key}`);
  return base;
}

const usedPNumre = new Set<number>([DEMO_HQ_PNUMMER, DEMO_CEASED_PNUMMER, MOVED_PNUMMER]);
function nextPNummer(): number {
  for (;;) {
    const p = 1000000000 + randomInt(4_000_000, 34_999_999);
    if (!usedPNumre.has(p)) {
      usedPNumre.add(p);
      return p;
    }
  }
}

function buildUnit(spec: UnitSpec, index: number): VrproduktionsEnhed {
  const lastParent = companyBase(last(spec.parents)[0]);
  const navne = spec.names.map((s) => hist({ navn: s[0] }, s));
  const beliggenhedsadresse = spec.addresses.map((s) => address(s[0], s));
  const brancheSpan: Span<unknown> = [null, spec.start, spec.end ?? null];
  const branche = spec.branche ?? [
    last(lastParent.hovedbranche).branchekode,
    last(lastParent.hovedbranche).branchetekst,
  ];
  const hovedbranche = [hist({ branchekode: branche[0], branchetekst: branche[1] }, brancheSpan)];
  const virksomhedsrelation = spec.parents.map((s) => hist({ cvrNummer: companyBase(s[0]).spec.cvr }, s));
  const emp = employment(spec.employment);
  return {
    pNummer: spec.pNummer ?? nextPNummer(),
    enhedsNummer: 4000500001 + index * 13,
    enhedstype: 'PRODUKTIONSENHED',
    reklamebeskyttet: spec.reklamebeskyttet ?? lastParent.spec.reklamebeskyttet ?? false,
    navne,
    beliggenhedsadresse,
    postadresse: [],
    hovedbranche,
    bibranche1: [],
    bibranche2: [],
    bibranche3: [],
    virksomhedsrelation,
    livsforloeb: [hist({}, brancheSpan)],
    telefonNummer: [],
    elektroniskPost: [],
    aarsbeskaeftigelse: emp.aarsbeskaeftigelse,
    kvartalsbeskaeftigelse: emp.kvartalsbeskaeftigelse,
    attributter: [],
    deltagerRelation: [],
    produktionsEnhedMetadata: {
      nyesteCvrNummerRelation: last(virksomhedsrelation).cvrNummer,
      sammensatStatus: spec.end === undefined ? 'Aktiv' : 'Ophørt',
      nyesteKontaktoplysninger: [],
      nyesteBibranche1: null,
      nyesteBibranche2: null,
      nyesteBibranche3: null,
      nyesteNavn: structuredClone(last(navne)),
      nyesteAarsbeskaeftigelse: structuredClone(newestOrNull(emp.aarsbeskaeftigelse)),
      nyesteHovedbranche: structuredClone(last(hovedbranche)),
      nyesteBeliggenhedsadresse: structuredClone(last(beliggenhedsadresse)),
      nyesteKvartalsbeskaeftigelse: structuredClone(newestOrNull(emp.kvartalsbeskaeftigelse)),
    },
    samtId: randomInt(1, 60),
    fejlRegistreret: false,
    dataAdgang: 0,
    sidstIndlaest: SIDST_INDLAEST,
    sidstOpdateret: stamp(newestDate([...spec.names, ...spec.parents, brancheSpan])),
    fejlVedIndlaesning: false,
    fejlBeskrivelse: null,
  };
}

const units = UNIT_SPECS.map(buildUnit);

const participantSpecs = new Map(PARTICIPANT_SPECS.map((p) => [p.key, p]));
const participantNavne = new Map(PARTICIPANT_SPECS.map((p) => [p.key, p.names.map((s) => hist({ navn: s[0] }, s))]));

function organisation(company: CompanyBase, role: RoleSpec): Organisation {
  const organ = ORGANS[role.organ];
  const orgSpan: Span<string> = [role.organ, company.spec.start, company.spec.end ?? null];
  const medlem: Attribut[] = [];
  const union = (values: ReadonlyArray<Span<string>>): Span<string> => {
    const tos = values.map(spanTo);
    // biome-ignore lint/complexity/useMathMinMax: ISO date strings, not numbers (the latest end date).
    return ['', spanFrom(values[0]!), tos.includes(null) ? null : tos.reduce((a, b) => (b! > a! ? b : a))];
  };
  switch (role.organ) {
    case 'EJERREGISTER': {
      const andel = role.andel ?? [];
      medlem.push(
        attribute(
          'EJERANDEL_MEDDELELSE_DATO',
          'date',
          andel.map((s) => [s[1] ?? company.spec.start, s[1], spanTo(s)] as const),
        ),
      );
      medlem.push(attribute('EJERANDEL_PROCENT', 'decimal', andel));
      medlem.push(attribute('EJERANDEL_STEMMERET_PROCENT', 'decimal', role.stemmeret ?? andel));
      break;
    }
    case 'Reelle ejere': {
      const andel = role.andel ?? [];
      medlem.push(attribute('EJERANDEL_PROCENT', 'decimal', andel));
      medlem.push(attribute('EJERANDEL_STEMMERET_PROCENT', 'decimal', role.stemmeret ?? andel));
      const period = union(andel);
      medlem.push(attribute('FUNKTION', 'string', [['Reel ejer', period[1], spanTo(period)]]));
      break;
    }
    case 'Bestyrelse':
    case 'Direktion': {
      const funktion = role.funktion ?? [];
      medlem.push(attribute('FUNKTION', 'string', funktion));
      if (role.organ === 'Bestyrelse') {
        const period = union(funktion);
        medlem.push(attribute('VALGFORM', 'string', [['generalforsamling', period[1], spanTo(period)]]));
      }
      break;
    }
    case 'Revision':
    case 'Stiftere':
    case 'Interessenter': {
      const text = role.organ === 'Revision' ? 'REVISION' : role.organ === 'Stiftere' ? 'STIFTERE' : 'INTERESSENTER';
      medlem.push(attribute('FUNKTION', 'string', [[text, role.from ?? company.spec.start, role.to ?? null]]));
      break;
    }
  }
  return {
    enhedsNummerOrganisation: 4004000000 + company.index * 10 + organ.index,
    hovedtype: organ.hovedtype,
    organisationsNavn: [hist({ navn: role.organ }, orgSpan)],
    attributter: [attribute('FUNKTION', 'string', [orgSpan])],
    medlemsData: [{ attributter: medlem }],
  };
}

function deltagerFor(who: string): Deltager {
  const p = participantSpecs.get(who);
  if (p !== undefined) {
    const navne = participantNavne.get(who)!;
    return {
      enhedsNummer: p.enhedsNummer,
      enhedstype: p.type,
      forretningsnoegle: null,
      organisationstype: null,
      sidstIndlaest: SIDST_INDLAEST,
      sidstOpdateret: stamp(newestDate(p.names) ?? '2015-02-10'),
      navne: structuredClone(navne),
      beliggenhedsadresse: [],
    };
  }
  const c = companyBase(who);
  return {
    enhedsNummer: c.enhedsNummer,
    enhedstype: 'VIRKSOMHED',
    forretningsnoegle: c.spec.cvr,
    organisationstype: null,
    sidstIndlaest: SIDST_INDLAEST,
    sidstOpdateret: c.sidstOpdateret,
    navne: structuredClone(c.navne),
    beliggenhedsadresse: structuredClone(c.beliggenhedsadresse),
  };
}

const relationOrganisations = RELATION_SPECS.map((r) => {
  const company = companyBase(r.company);
  return { spec: r, organisationer: r.roles.map((role) => organisation(company, role)) };
});

function companyAttributes(spec: CompanySpec): Attribut[] {
  const out: Attribut[] = [];
  const whole: Span<string> = ['', spec.start, spec.end ?? null];
  if (spec.capital !== undefined) {
    out.push(attribute('KAPITAL', 'decimal', spec.capital.values));
    out.push(
      attribute(
        'KAPITALVALUTA',
        'string',
        spec.capital.values.map((s) => [spec.capital!.currency, s[1], spanTo(s)] as const),
      ),
    );
    out.push(attribute('FØRSTE_REGNSKABSPERIODE_START', 'date', [[spec.start, spec.start, spec.end ?? null]]));
    out.push(attribute('REGNSKABSÅR_START', 'gMonthDay', [['--01-01', spec.start, spec.end ?? null]]));
    out.push(attribute('REGNSKABSÅR_SLUT', 'gMonthDay', [['--12-31', spec.start, spec.end ?? null]]));
  }
  if (spec.purpose !== undefined) out.push(attribute('FORMÅL', 'string', [[spec.purpose, whole[1], spanTo(whole)]]));
  if (spec.signing !== undefined)
    out.push(attribute('TEGNINGSREGEL', 'string', [[spec.signing, whole[1], spanTo(whole)]]));
  if (spec.auditOptOut !== undefined)
    out.push(attribute('REVISION_FRAVALGT', 'boolean', [['true', spec.auditOptOut, spec.end ?? null]]));
  return out;
}

function buildCompany(base: CompanyBase): Vrvirksomhed {
  const { spec } = base;
  const emp = employment(spec.employment);
  const penheder: PenhedEntry[] = [];
  units.forEach((u, i) => {
    for (const parent of UNIT_SPECS[i]!.parents) {
      if (parent[0] === spec.key) penheder.push(hist({ pNummer: u.pNummer }, parent));
    }
  });
  penheder.sort((a, b) => (a.periode.gyldigFra ?? '').localeCompare(b.periode.gyldigFra ?? ''));
  const deltagerRelation: DeltagerRelation[] = relationOrganisations
    .filter((r) => r.spec.company === spec.key)
    .map((r) => ({
      deltager: deltagerFor(r.spec.who),
      kontorsteder: [],
      organisationer: structuredClone(r.organisationer),
    }));
  return {
    cvrNummer: spec.cvr,
    regNummer: [],
    brancheAnsvarskode: null,
    reklamebeskyttet: spec.reklamebeskyttet ?? false,
    navne: base.navne,
    binavne: [],
    postadresse: [],
    beliggenhedsadresse: base.beliggenhedsadresse,
    telefonNummer: [],
    telefaxNummer: [],
    elektroniskPost: [],
    hjemmeside: [],
    obligatoriskEmail: [],
    livsforloeb: base.livsforloeb,
    hovedbranche: base.hovedbranche,
    bibranche1: [],
    bibranche2: [],
    bibranche3: [],
    status: [],
    virksomhedsstatus: base.virksomhedsstatus,
    virksomhedsform: base.virksomhedsform,
    aarsbeskaeftigelse: emp.aarsbeskaeftigelse,
    kvartalsbeskaeftigelse: emp.kvartalsbeskaeftigelse,
    maanedsbeskaeftigelse: emp.maanedsbeskaeftigelse,
    erstMaanedsbeskaeftigelse: emp.erstMaanedsbeskaeftigelse,
    attributter: companyAttributes(spec),
    penheder,
    deltagerRelation,
    fusioner: [],
    spaltninger: [],
    virksomhedMetadata: {
      nyesteNavn: structuredClone(last(base.navne)),
      nyesteBinavne: [],
      nyesteVirksomhedsform: structuredClone(last(base.virksomhedsform)),
      nyesteBeliggenhedsadresse: structuredClone(last(base.beliggenhedsadresse)),
      nyesteHovedbranche: structuredClone(last(base.hovedbranche)),
      nyesteBibranche1: null,
      nyesteBibranche2: null,
      nyesteBibranche3: null,
      nyesteStatus: null,
      nyesteKontaktoplysninger: [],
      antalPenheder: penheder.filter((p) => p.periode.gyldigTil === null).length,
      nyesteAarsbeskaeftigelse: structuredClone(newestOrNull(emp.aarsbeskaeftigelse)),
      nyesteKvartalsbeskaeftigelse: structuredClone(newestOrNull(emp.kvartalsbeskaeftigelse)),
      nyesteMaanedsbeskaeftigelse: structuredClone(newestOrNull(emp.maanedsbeskaeftigelse)),
      nyesteErstMaanedsbeskaeftigelse: structuredClone(newestOrNull(emp.erstMaanedsbeskaeftigelse)),
      sammensatStatus: spec.sammensatStatus,
      stiftelsesDato: spec.start,
      virkningsDato: spec.start,
    },
    samtId: randomInt(1, 80),
    fejlRegistreret: false,
    dataAdgang: 0,
    enhedsNummer: base.enhedsNummer,
    enhedstype: 'VIRKSOMHED',
    sidstIndlaest: SIDST_INDLAEST,
    sidstOpdateret: base.sidstOpdateret,
    fejlVedIndlaesning: false,
    naermesteFremtidigeDato: null,
    fejlBeskrivelse: null,
    virkningsAktoer: 'R',
  };
}

function buildParticipant(spec: ParticipantSpec): Vrdeltagerperson {
  const relations = relationOrganisations
    .filter((r) => r.spec.who === spec.key)
    .map((r) => {
      const c = companyBase(r.spec.company);
      const virksomhed: VirksomhedSummarisk = {
        enhedsNummer: c.enhedsNummer,
        enhedstype: 'VIRKSOMHED',
        fejlRegistreret: false,
        sidstIndlaest: SIDST_INDLAEST,
        sidstOpdateret: c.sidstOpdateret,
        cvrNummer: c.spec.cvr,
        regNummer: [],
        navne: structuredClone(c.navne),
        livsforloeb: structuredClone(c.livsforloeb),
        status: [],
        virksomhedsstatus: structuredClone(c.virksomhedsstatus),
        virksomhedsform: structuredClone(c.virksomhedsform),
      };
      return { virksomhed, organisationer: structuredClone(r.organisationer) };
    });
  const attributter: Attribut[] =
    spec.andreDeltType === undefined
      ? []
      : [attribute('ANDRE_DELT_TYPE', 'string', [[spec.andreDeltType, spanFrom(spec.names[0]!)]])];
  return {
    enhedsNummer: spec.enhedsNummer,
    enhedstype: spec.type,
    forretningsnoegle: null,
    navne: structuredClone(participantNavne.get(spec.key)!),
    postadresse: [],
    beliggenhedsadresse: [],
    forretningsadresse: [],
    telefonNummer: [],
    telefaxNummer: [],
    elektroniskPost: [],
    stilling: null,
    statusKode: null,
    attributter,
    virksomhedSummariskRelation: relations,
    deltagerpersonMetadata: { nyesteBeliggenhedsadresse: null, nyesteKontaktoplysninger: [] },
    samtId: randomInt(1, 40),
    fejlRegistreret: false,
    dataAdgang: 0,
    sidstIndlaest: SIDST_INDLAEST,
    sidstOpdateret: stamp(newestDate(spec.names) ?? '2015-02-10'),
    fejlVedIndlaesning: false,
    naermesteFremtidigeDato: null,
    fejlBeskrivelse: null,
  };
}

/** `_source` documents of the `virksomhed` alias (25 companies). */
export const companySources: readonly CompanySource[] = companyBases.map((b) => ({ Vrvirksomhed: buildCompany(b) }));

/** `_source` documents of the `produktionsenhed` alias (40 production units). */
export const unitSources: readonly UnitSource[] = units.map((u) => ({ VrproduktionsEnhed: u }));

/** `_source` documents of the `deltager` alias (persons and other participants). */
export const participantSources: readonly ParticipantSource[] = PARTICIPANT_SPECS.map((p) => ({
  Vrdeltagerperson: buildParticipant(p),
}));

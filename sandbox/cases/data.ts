// Seeded demo data for the case-management sandbox (sandbox/cases/server.ts), the fake of the
// Ordrestyring.dk GraphQL API described in ../shared/upstreams/cases.md.
//
// Two companies, each reached with its own bearer token. Company 1 ("demo") holds 1,260 cases
// whose `updatedAt` is spread over the two years before DATA_ANCHOR_UNIX (so a 1,000-case
// `find_cases` scan truncates), a few parent/sub-case pairs, one case with 2,100 hour rows, one
// with 600, one with 620 invoices and one with hours and invoices placed exactly on Copenhagen
// local midnights and on the DST change days. Company 2 holds a handful of cases (isolation).
//
// Everything is deterministic: a fixed-seed PRNG fills in the details, the anchor time is fixed,
// and the whole dataset is built once, lazily, on first use. Names, addresses and amounts are
// invented. Economy figures are derived from the rows (hours, materials, invoices) so that a
// client summing the rows gets the same totals as `economy.*`.
import { mulberry32 } from '../seeded-random.ts';

// ---------------------------------------------------------------------------------------------
// Tokens, companies and notable records (for tests and demo users)
// ---------------------------------------------------------------------------------------------

/** Bearer token of company 1, the demo company with the big dataset. */
export const CASES_DEMO_TOKEN = 'os-sandbox-demo-7f3c9a21d4e84b6f';
/** Bearer token of company 2, a small company used to prove isolation. */
export const CASES_OTHER_TOKEN = 'os-sandbox-other-2b81e6c05a9d4f17';

export const DEMO_COMPANY_ID = 1;
export const OTHER_COMPANY_ID = 2;
export const DEMO_COMPANY_NAME = 'Demo VVS & El ApS';
export const OTHER_COMPANY_NAME = 'Nordvest Tømrer ApS';

/** Fixed "now" of the dataset: 2026-11-13 16:00 Copenhagen time. Nothing is dated later. */
export const DATA_ANCHOR_UNIX = Date.UTC(2026, 10, 13, 15, 0, 0) / 1000;

/** Number of cases of company 1. */
export const DEMO_CASE_COUNT = 1_260;
export const FIRST_DEMO_CASE_ID = 1_001;

/** A plain, recently updated case with a few hours, invoices and materials. */
export const DEMO_CASE_ID = 1_003;
export const DEMO_CASE_NUMBER = '24003';
/** Case number used by both companies (each token sees only its own case). */
export const SHARED_CASE_NUMBER = '24001';

/** Case with 2,100 hour rows (more than the 2,000-row summary cap). */
export const BIG_HOURS_CASE_ID = 1_005;
export const BIG_HOURS_COUNT = 2_100;
/** Case with 600 hour rows (more than the default `maxRows` of 500). */
export const SIX_HUNDRED_HOURS_CASE_ID = 1_008;
export const SIX_HUNDRED_HOURS_COUNT = 600;
/** Case with 620 invoices (more than the default `maxRows` of 500). */
export const MANY_INVOICES_CASE_ID = 1_016;
export const MANY_INVOICES_COUNT = 620;

/** Case with hours and invoices exactly at local midnight and around the DST changes. */
export const DST_CASE_ID = 1_012;
/** Last Sundays of March and October 2025 and 2026 (Europe/Copenhagen DST changes). */
export const DST_DAYS = ['2025-03-30', '2025-10-26', '2026-03-29', '2026-10-25'] as const;
/** Every day on which DST_CASE_ID has boundary rows: the DST days plus two ordinary days. */
export const DST_CASE_DAYS = ['2025-01-15', ...DST_DAYS, '2026-06-15'] as const;

/** Parent case with three sub-cases (recently updated: on the first page of `updatedAt DESC`). */
export const PARENT_CASE_ID = 1_021;
export const SUB_CASE_IDS = [1_022, 1_023, 1_024] as const;
/** Every parent/sub-case pair in company 1. */
export const PARENT_SUB_PAIRS: ReadonlyArray<readonly [parent: number, sub: number]> = [
  [1_021, 1_022],
  [1_021, 1_023],
  [1_021, 1_024],
  [1_301, 1_302],
  [1_641, 1_642],
  [1_641, 1_643],
  [1_991, 1_992],
  [2_201, 2_202],
  [2_201, 2_203],
];

/** Word found (case-insensitively) in the descriptions of SEARCH_WORD_CASES only. */
export const SEARCH_WORD = 'solcelleanlæg';
/**
 * Cases whose description contains SEARCH_WORD, with their position in `updatedAt DESC` order
 * (0 = most recently updated). Ranks 6, 150 and 450 are inside a 600-case scan, 750 only inside
 * a 1,000-case scan, 1150 beyond any `find_cases` scan.
 */
export const SEARCH_WORD_CASES: ReadonlyArray<{ id: number; rank: number }> = [
  { id: 1_034, rank: 6 },
  { id: 1_251, rank: 150 },
  { id: 1_513, rank: 450 },
  { id: 1_778, rank: 750 },
  { id: 2_112, rank: 1_150 },
];

/** Case ids of company 2 (not visible with the demo token). */
export const OTHER_COMPANY_CASE_IDS = [900_001, 900_002, 900_003, 900_004, 900_005, 900_006] as const;
/** An id that belongs to no company. */
export const UNKNOWN_CASE_ID = 7_654_321;

// ---------------------------------------------------------------------------------------------
// Record types (internal shapes; the resolvers read them directly)
// ---------------------------------------------------------------------------------------------

export interface StatusRecord {
  id: number;
  text: string;
}

export interface CaseTypeRecord {
  id: number;
  text: string;
}

export interface UserRecord {
  id: number;
  fullName: string;
  initials: string;
  email: string;
  costRate: number;
  salesRate: number;
}

export interface AddressRecord {
  name: string;
  address: string;
  postalCode: string;
  city: string;
  fullAddress: string;
}

export interface CustomerRecord {
  id: number;
  name: string;
  address: string;
  postalCode: string;
  city: string;
  fullAddress: string;
  email: string | null;
  phone: string | null;
}

export interface HourTypeRecord {
  id: number;
  name: string;
}

export interface EconomyRecord {
  hoursCostprice: number;
  hoursSalesprice: number;
  offer: number | null;
  revisedOffer: number | null;
  billableHoursCount: number;
  materialsCostprice: number;
  materialsSalesprice: number;
  expectedCoverageRatio: number;
  revenue: number;
}

export interface CaseRecord {
  id: number;
  companyId: number;
  caseNumber: string;
  projectName: string;
  description: string;
  status: StatusRecord;
  caseType: CaseTypeRecord;
  responsibleUser: UserRecord;
  foreman: UserRecord | null;
  customer: CustomerRecord;
  workAddress: AddressRecord;
  deliveryAddress: AddressRecord | null;
  economy: EconomyRecord;
  offerTotal: number | null;
  parentCaseId: number | null;
  subCaseIds: number[];
  createdAt: number;
  updatedAt: number;
}

export interface HourRecord {
  id: number;
  companyId: number;
  caseId: number;
  description: string;
  startTime: number;
  stopTime: number;
  billableHours: number;
  costPrice: number;
  salesPrice: number;
  hourType: HourTypeRecord;
  user: UserRecord;
  createdAt: number;
  updatedAt: number;
}

export interface InvoiceRecord {
  id: number;
  companyId: number;
  caseId: number;
  invoiceNumber: number;
  /** Invoice date: always a Copenhagen local midnight (Unix seconds). */
  date: number;
  amount: number;
  createdAt: number;
}

export type AddedBy = 'MATERIAL' | 'OFFER';

export interface MaterialRecord {
  id: number;
  companyId: number;
  caseId: number;
  addedBy: AddedBy;
  productNumber: string;
  name: string;
  unit: string;
  quantity: number;
  costPrice: number;
  salesPrice: number;
  totalCostPrice: number;
  totalSalesPrice: number;
  createdAt: number;
}

export interface ProductRecord {
  id: number;
  productNumber: string;
  name: string;
  unit: string;
  /** Integer øre. */
  costPrice: number;
  /** Integer øre. */
  listPrice: number;
  createdAt: number;
  updatedAt: number;
}

export interface GpsEntryRecord {
  id: number;
  latitude: number;
  longitude: number;
  timestamp: number;
  user: UserRecord;
}

export interface CompanyData {
  id: number;
  name: string;
  statuses: StatusRecord[];
  caseTypes: CaseTypeRecord[];
  users: UserRecord[];
  hourTypes: HourTypeRecord[];
  customers: CustomerRecord[];
  products: ProductRecord[];
  cases: CaseRecord[];
  casesById: Map<number, CaseRecord>;
  hours: HourRecord[];
  hoursByCase: Map<number, HourRecord[]>;
  invoices: InvoiceRecord[];
  invoicesByCase: Map<number, InvoiceRecord[]>;
  materials: MaterialRecord[];
  materialsByCase: Map<number, MaterialRecord[]>;
  gpsEntries: GpsEntryRecord[];
}

export interface CasesDataset {
  companies: Map<number, CompanyData>;
  /** Bearer token → company id. */
  tokens: Map<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Copenhagen time (EU rule: CEST from the last Sunday of March 01:00 UTC to the last Sunday of
// October 01:00 UTC). Implemented by hand so the data never depends on the host's ICU data.
// ---------------------------------------------------------------------------------------------

function lastSunday(year: number, month: number): number {
  const last = new Date(Date.UTC(year, month, 0));
  return last.getUTCDate() - last.getUTCDay();
}

/** UTC offset of Copenhagen in hours (1 or 2) at a Unix time. */
export function copenhagenOffsetHours(unix: number): 1 | 2 {
  const year = new Date(unix * 1000).getUTCFullYear();
  const start = Date.UTC(year, 2, lastSunday(year, 3), 1) / 1000;
  const end = Date.UTC(year, 9, lastSunday(year, 10), 1) / 1000;
  return unix >= start && unix < end ? 2 : 1;
}

/**
 * Unix seconds of a Copenhagen wall-clock time (month 1-12; day may overflow). In the autumn
 * overlap the first (summer-time) instant wins; a time in the spring gap is read as winter time.
 */
export function copenhagenToUnix(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const naive = Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
  for (const offset of [2, 1] as const) {
    const candidate = naive - offset * 3600;
    if (copenhagenOffsetHours(candidate) === offset) return candidate;
  }
  return naive - 3600;
}

/** Unix seconds of local midnight starting a `YYYY-MM-DD` day in Copenhagen. */
export function copenhagenMidnight(isoDate: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (match === null) throw new TypeError(`not a YYYY-MM-DD date: ${isoDate}`);
  return copenhagenToUnix(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** The Copenhagen calendar date (`YYYY-MM-DD`) of a Unix time. */
export function copenhagenDate(unix: number): string {
  return new Date((unix + copenhagenOffsetHours(unix) * 3600) * 1000).toISOString().slice(0, 10);
}

function localParts(unix: number): { year: number; month: number; day: number; weekday: number } {
  const d = new Date((unix + copenhagenOffsetHours(unix) * 3600) * 1000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay() };
}

// ---------------------------------------------------------------------------------------------
// PRNG and helpers
// ---------------------------------------------------------------------------------------------

interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

function rng(seed: number): Rng {
  const next = mulberry32(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return round2(total);
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

// ---------------------------------------------------------------------------------------------
// Vocabulary
// ---------------------------------------------------------------------------------------------

const STATUSES: StatusRecord[] = [
  { id: 1, text: 'Åben' },
  { id: 2, text: 'I gang' },
  { id: 3, text: 'Afventer kunde' },
  { id: 4, text: 'Afsluttet' },
  { id: 5, text: 'Lukket' },
  { id: 6, text: 'Faktureret' },
];

const CASE_TYPES: CaseTypeRecord[] = [
  { id: 1, text: 'Serviceopgave' },
  { id: 2, text: 'Tilbudsopgave' },
  { id: 3, text: 'Regningsarbejde' },
  { id: 4, text: 'Fast pris' },
  { id: 5, text: 'Garanti' },
];

const FIRST_NAMES = [
  'Mette',
  'Lars',
  'Anne',
  'Søren',
  'Jens',
  'Camilla',
  'Mads',
  'Louise',
  'Henrik',
  'Birgitte',
  'Anders',
  'Rasmus',
  'Ida',
  'Peter',
  'Kirsten',
  'Jørgen',
  'Sofie',
  'Niels',
];
const LAST_NAMES = [
  'Jensen',
  'Nielsen',
  'Hansen',
  'Pedersen',
  'Andersen',
  'Christensen',
  'Larsen',
  'Sørensen',
  'Rasmussen',
  'Jørgensen',
  'Madsen',
  'Kristensen',
  'Olsen',
  'Thomsen',
  'Poulsen',
  'Møller',
];
const STREETS = [
  'Vestergade',
  'Østergade',
  'Nørregade',
  'Søndergade',
  'Algade',
  'Strandvejen',
  'Skovvej',
  'Kirkevej',
  'Møllevej',
  'Engvej',
  'Bakkevej',
  'Rosenvænget',
  'Havnegade',
  'Åboulevarden',
  'Frederiksgade',
];
const CITIES: ReadonlyArray<readonly [string, string]> = [
  ['8000', 'Aarhus C'],
  ['8200', 'Aarhus N'],
  ['8260', 'Viby J'],
  ['8600', 'Silkeborg'],
  ['8700', 'Horsens'],
  ['7100', 'Vejle'],
  ['5000', 'Odense C'],
  ['2100', 'København Ø'],
  ['2800', 'Kongens Lyngby'],
  ['9000', 'Aalborg'],
];
const COMPANY_SUFFIXES = ['ApS', 'A/S', 'I/S'];
const ORG_PREFIXES = ['Boligforeningen', 'Andelsboligforeningen', 'Ejerforeningen', 'Grundejerforeningen'];
const ORG_NAMES = [
  'Solgården',
  'Engparken',
  'Skovbrynet',
  'Havnefronten',
  'Lindely',
  'Bøgebakken',
  'Kildevang',
  'Åhaven',
];
const TRADES = ['Ejendomme', 'Byg', 'Holding', 'Administration', 'Invest', 'Tandklinik', 'Bageri', 'Auto'];

const WORK_DESCRIPTIONS = [
  'Udskiftning af tagrender og nedløbsrør',
  'Service på varmepumpe',
  'Renovering af badeværelse',
  'Ny el-tavle med HPFI-relæ',
  'Opsætning af gipsvægge i kælder',
  'Maling af facade og vinduesrammer',
  'Fejlsøgning på gulvvarme',
  'Montering af nyt køkken',
  'Udskiftning af vinduer og døre',
  'Udbedring af vandskade',
  'Årligt eftersyn af fjernvarmeunit',
  'Installation af ladestander til elbil',
  'Nyt tag med tegl og undertag',
  'Etablering af udendørs belysning',
  'Omlægning af kloak',
  'Udskiftning af varmtvandsbeholder',
  'Efterisolering af loft',
  'Lægning af klinker i entré',
];
const DESCRIPTION_DETAILS = [
  'Kunden ønsker tilbud inden opstart.',
  'Nøgle hentes hos viceværten.',
  'Arbejdet udføres i uge med skoleferie.',
  'Husk afdækning af gulve.',
  'Materialer bestilles hjem til pladsen.',
  'Adgang via gården, ring på først.',
  'Ekstraarbejde aftales skriftligt.',
  '',
];
const PROJECT_KINDS = ['Villa', 'Rækkehus', 'Lejlighed', 'Kontor', 'Butik', 'Institution', 'Sommerhus', 'Lager'];
const HOUR_DESCRIPTIONS = [
  'Montage',
  'Fejlsøgning',
  'Opmåling',
  'Nedtagning',
  'Oprydning',
  'Kørsel til pladsen',
  'Afhentning af materialer',
  'Tilslutning',
  'Test og idriftsættelse',
  'Møde med kunden',
];
const PRODUCT_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['Kobberrør 15 mm', 'm'],
  ['PEX-rør 16 mm', 'm'],
  ['Installationskabel 3G1,5', 'm'],
  ['Stikkontakt 1-fag', 'stk'],
  ['Afbryder 1-pol', 'stk'],
  ['HPFI-relæ 40A', 'stk'],
  ['Gipsplade 12,5 mm', 'stk'],
  ['Skruer 4x40 (200 stk)', 'pk'],
  ['Fuge sanitet hvid', 'stk'],
  ['Tagrende zink 125 mm', 'm'],
  ['Nedløbsrør zink 87 mm', 'm'],
  ['Radiatorventil', 'stk'],
  ['Termostathoved', 'stk'],
  ['Blandingsbatteri køkken', 'stk'],
  ['Toiletkumme væghængt', 'stk'],
  ['Klinker 30x60', 'm2'],
  ['Flisemørtel 20 kg', 'sæk'],
  ['Mineraluld 95 mm', 'm2'],
  ['Dampspærre 0,20 mm', 'm2'],
  ['Maling facade 10 l', 'spand'],
  ['LED-spot 5W', 'stk'],
  ['Ladestander 11 kW', 'stk'],
  ['Kloakrør PVC 110 mm', 'm'],
  ['Varmtvandsbeholder 110 l', 'stk'],
];

function makeAddress(r: Rng, name: string): AddressRecord {
  const street = `${r.pick(STREETS)} ${r.int(1, 140)}${r.chance(0.15) ? `, ${r.int(1, 4)}. tv.` : ''}`;
  const [postalCode, city] = r.pick(CITIES);
  return { name, address: street, postalCode, city, fullAddress: `${street}, ${postalCode} ${city}` };
}

function makeUsers(r: Rng, firstId: number, count: number, domain: string): UserRecord[] {
  const users: UserRecord[] = [];
  for (let i = 0; i < count; i++) {
    const first = FIRST_NAMES[(i * 7 + firstId) % FIRST_NAMES.length]!;
    const last = LAST_NAMES[(i * 5 + firstId) % LAST_NAMES.length]!;
    const costRate = round2(240 + r.int(0, 120) + r.int(0, 99) / 100);
    users.push({
      id: firstId + i,
      fullName: `${first} ${last}`,
      initials: `${first[0]}${last[0]}${i}`.toUpperCase(),
      email: `${first.toLowerCase().replace(/ø/g, 'oe').replace(/æ/g, 'ae').replace(/å/g, 'aa')}@${domain}`,
      costRate,
      salesRate: round2(costRate * 1.75),
    });
  }
  return users;
}

function makeCustomers(r: Rng, firstId: number, count: number): CustomerRecord[] {
  const customers: CustomerRecord[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    let name: string;
    if (kind === 0 || kind === 1) name = `${r.pick(FIRST_NAMES)} ${r.pick(LAST_NAMES)}`;
    else if (kind === 2) name = `${r.pick(LAST_NAMES)} ${r.pick(TRADES)} ${r.pick(COMPANY_SUFFIXES)}`;
    else name = `${r.pick(ORG_PREFIXES)} ${r.pick(ORG_NAMES)}`;
    const address = makeAddress(r, name);
    customers.push({
      id: firstId + i,
      name,
      address: address.address,
      postalCode: address.postalCode,
      city: address.city,
      fullAddress: address.fullAddress,
      email: r.chance(0.7) ? `kunde${firstId + i}@example.dk` : null,
      phone: r.chance(0.8) ? `${r.int(20, 99)} ${r.int(10, 99)} ${r.int(10, 99)} ${r.int(10, 99)}` : null,
    });
  }
  return customers;
}

function makeProducts(r: Rng, firstId: number, createdAt: number): ProductRecord[] {
  return PRODUCT_NAMES.map(([name, unit], i) => {
    const costPrice = r.int(800, 250_000); // øre
    return {
      id: firstId + i,
      productNumber: `P-${String(10_000 + i * 37).padStart(6, '0')}`,
      name,
      unit,
      costPrice,
      listPrice: Math.round(costPrice * (1.3 + r.int(0, 40) / 100)),
      createdAt: createdAt + i * 3_600,
      updatedAt: createdAt + i * 3_600 + r.int(0, 200) * 86_400,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Builder
// ---------------------------------------------------------------------------------------------

interface Counters {
  hour: number;
  invoice: number;
  invoiceNumber: number;
  material: number;
}

interface Builder {
  company: CompanyData;
  r: Rng;
  ids: Counters;
}

function addHour(
  b: Builder,
  caseId: number,
  startTime: number,
  stopTime: number,
  options: { user?: UserRecord; hourType?: HourTypeRecord; billable?: boolean; description?: string } = {},
): HourRecord {
  const { company, r } = b;
  const user = options.user ?? r.pick(company.users);
  const hourType = options.hourType ?? (r.chance(0.8) ? company.hourTypes[0]! : r.pick(company.hourTypes));
  const worked = round2((stopTime - startTime) / 3600);
  const billableHours = options.billable === false ? 0 : worked;
  const factor = hourType.name.startsWith('Overtid 100') ? 2 : hourType.name.startsWith('Overtid') ? 1.5 : 1;
  const createdAt = stopTime + r.int(60, 36 * 3600);
  const hour: HourRecord = {
    id: b.ids.hour++,
    companyId: company.id,
    caseId,
    description: options.description ?? r.pick(HOUR_DESCRIPTIONS),
    startTime,
    stopTime,
    billableHours,
    costPrice: round2(worked * user.costRate * factor),
    salesPrice: round2(billableHours * user.salesRate * factor),
    hourType,
    user,
    createdAt,
    updatedAt: createdAt + (r.chance(0.1) ? r.int(60, 10 * 86_400) : 0),
  };
  company.hours.push(hour);
  pushTo(company.hoursByCase, caseId, hour);
  return hour;
}

/** A working-day registration on the local day `dayStart` (a local-midnight Unix time). */
function addWorkdayHour(
  b: Builder,
  caseId: number,
  dayStart: number,
  options: { user?: UserRecord; slot?: number } = {},
): HourRecord {
  const { year, month, day } = localParts(dayStart);
  const startHour = 7 + (options.slot ?? 0) * 2;
  const start = copenhagenToUnix(year, month, day, startHour, b.r.pick([0, 0, 15, 30, 45]));
  const length = b.r.pick([1800, 3600, 5400, 7200, 9000, 10800, 14400]);
  return addHour(b, caseId, start, start + length, options.user === undefined ? {} : { user: options.user });
}

function addInvoice(b: Builder, caseId: number, date: number, amount: number): InvoiceRecord {
  const invoice: InvoiceRecord = {
    id: b.ids.invoice++,
    companyId: b.company.id,
    caseId,
    invoiceNumber: b.ids.invoiceNumber++,
    date,
    amount: round2(amount),
    createdAt: date + b.r.int(7, 17) * 3600 + b.r.int(0, 3599),
  };
  b.company.invoices.push(invoice);
  pushTo(b.company.invoicesByCase, caseId, invoice);
  return invoice;
}

function addMaterial(b: Builder, caseId: number, addedBy: AddedBy, createdAt: number): MaterialRecord {
  const { r, company } = b;
  const product = r.pick(company.products);
  const quantity =
    product.unit === 'stk' || product.unit === 'spand' || product.unit === 'sæk' || product.unit === 'pk'
      ? r.int(1, 12)
      : round2(r.int(5, 400) / 10);
  const costPrice = product.costPrice / 100;
  const salesPrice = round2(product.listPrice / 100);
  const material: MaterialRecord = {
    id: b.ids.material++,
    companyId: company.id,
    caseId,
    addedBy,
    productNumber: product.productNumber,
    name: product.name,
    unit: product.unit,
    quantity,
    costPrice,
    salesPrice,
    totalCostPrice: round2(quantity * costPrice),
    totalSalesPrice: round2(quantity * salesPrice),
    createdAt,
  };
  company.materials.push(material);
  pushTo(company.materialsByCase, caseId, material);
  return material;
}

/** Working days (Mon-Fri local midnights) from `fromUnix` onwards, at most `count`, never after `untilUnix`. */
function workingDays(fromUnix: number, untilUnix: number, count: number): number[] {
  const days: number[] = [];
  const { year, month, day } = localParts(fromUnix);
  for (let offset = 0; days.length < count; offset++) {
    const midnight = copenhagenToUnix(year, month, day + offset);
    if (midnight > untilUnix) break;
    const weekday = localParts(midnight).weekday;
    if (weekday !== 0 && weekday !== 6) days.push(midnight);
  }
  return days;
}

function emptyCompany(id: number, name: string): CompanyData {
  return {
    id,
    name,
    statuses: STATUSES,
    caseTypes: CASE_TYPES,
    users: [],
    hourTypes: [],
    customers: [],
    products: [],
    cases: [],
    casesById: new Map(),
    hours: [],
    hoursByCase: new Map(),
    invoices: [],
    invoicesByCase: new Map(),
    materials: [],
    materialsByCase: new Map(),
    gpsEntries: [],
  };
}

function statusForRank(r: Rng, rank: number, total: number): StatusRecord {
  const age = rank / total;
  if (age < 0.1) return r.pick([STATUSES[0]!, STATUSES[1]!, STATUSES[1]!, STATUSES[2]!]);
  if (age < 0.4) return r.pick([STATUSES[1]!, STATUSES[2]!, STATUSES[3]!, STATUSES[5]!]);
  return r.pick([STATUSES[3]!, STATUSES[4]!, STATUSES[4]!, STATUSES[5]!]);
}

interface CaseDraft {
  index: number;
  id: number;
  rank: number;
  parentIndex: number | null;
}

/** Re-issues row ids (within the company's id range) in chronological order, like a real database. */
function renumberChronologically(company: CompanyData): void {
  const reissue = <T extends { id: number; createdAt: number }>(rows: T[], tie: (row: T) => number): void => {
    const ids = rows.map((row) => row.id).sort((a, b) => a - b);
    rows.sort((a, b) => a.createdAt - b.createdAt || tie(a) - tie(b) || a.id - b.id);
    rows.forEach((row, i) => {
      row.id = ids[i]!;
    });
  };
  reissue(company.hours, (h) => h.startTime);
  reissue(company.invoices, (i) => i.date);
  const numbers = company.invoices.map((i) => i.invoiceNumber).sort((a, b) => a - b);
  company.invoices.forEach((invoice, i) => {
    invoice.invoiceNumber = numbers[i]!;
  });
  reissue(company.materials, (m) => m.caseId);
}

/** Fills in economy figures from the rows, after every row of the company exists. */
function finishEconomy(company: CompanyData, r: Rng): void {
  for (const c of company.cases) {
    const hours = company.hoursByCase.get(c.id) ?? [];
    const materials = (company.materialsByCase.get(c.id) ?? []).filter((m) => m.addedBy === 'MATERIAL');
    const invoices = company.invoicesByCase.get(c.id) ?? [];
    const hoursCostprice = sum(hours.map((h) => h.costPrice));
    const hoursSalesprice = sum(hours.map((h) => h.salesPrice));
    const materialsCostprice = sum(materials.map((m) => m.totalCostPrice));
    const materialsSalesprice = sum(materials.map((m) => m.totalSalesPrice));
    const billableHoursCount = sum(hours.map((h) => h.billableHours));
    const hasOffer = c.caseType.id === 2 || c.caseType.id === 4;
    const base = hoursSalesprice + materialsSalesprice;
    const offer = hasOffer ? round2(Math.max(2_500, base * (0.9 + r.int(0, 30) / 100)) + r.int(0, 99) / 100) : null;
    const revisedOffer = offer !== null && r.chance(0.3) ? round2(offer * 1.12) : null;
    const cost = hoursCostprice + materialsCostprice;
    const income = offer ?? base;
    c.economy = {
      hoursCostprice,
      hoursSalesprice,
      offer,
      revisedOffer,
      billableHoursCount,
      materialsCostprice,
      materialsSalesprice,
      expectedCoverageRatio: income > 0 ? Math.round(((income - cost) / income) * 10_000) / 100 : 0,
      revenue: sum(invoices.map((i) => i.amount)),
    };
    c.offerTotal = revisedOffer ?? offer;
  }
}

function emptyEconomy(): EconomyRecord {
  return {
    hoursCostprice: 0,
    hoursSalesprice: 0,
    offer: null,
    revisedOffer: null,
    billableHoursCount: 0,
    materialsCostprice: 0,
    materialsSalesprice: 0,
    expectedCoverageRatio: 0,
    revenue: 0,
  };
}

function buildDemoCompany(ids: Counters): CompanyData {
  const company = emptyCompany(DEMO_COMPANY_ID, DEMO_COMPANY_NAME);
  const r = rng(0x0c45e5);
  const b: Builder = { company, r, ids };
  company.users = makeUsers(r, 501, 10, 'demo-vvs-el.dk');
  company.hourTypes = [
    { id: 11, name: 'Normal tid' },
    { id: 12, name: 'Overtid 50 %' },
    { id: 13, name: 'Overtid 100 %' },
    { id: 14, name: 'Kørsel' },
    { id: 15, name: 'Lærlingetimer' },
  ];
  company.customers = makeCustomers(r, 3_001, 90);
  company.products = makeProducts(r, 60_001, DATA_ANCHOR_UNIX - 900 * 86_400);

  // Ranks: position in updatedAt DESC order. A seeded permutation, then pinned ranks swapped in.
  const n = DEMO_CASE_COUNT;
  const rankOf: number[] = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = r.int(0, i);
    [rankOf[i], rankOf[j]] = [rankOf[j]!, rankOf[i]!];
  }
  const indexOfId = (id: number): number => id - FIRST_DEMO_CASE_ID;
  const pins: Array<[number, number]> = [
    [DEMO_CASE_ID, 0],
    [BIG_HOURS_CASE_ID, 1],
    [PARENT_CASE_ID, 2],
    [SUB_CASE_IDS[0], 3],
    [SUB_CASE_IDS[1], 4],
    [SUB_CASE_IDS[2], 5],
    [SIX_HUNDRED_HOURS_CASE_ID, 8],
    [DST_CASE_ID, 9],
    [MANY_INVOICES_CASE_ID, 10],
    ...SEARCH_WORD_CASES.map(({ id, rank }): [number, number] => [id, rank]),
  ];
  for (const [id, rank] of pins) {
    const index = indexOfId(id);
    const holder = rankOf.indexOf(rank);
    [rankOf[index], rankOf[holder]] = [rank, rankOf[index]!];
  }

  // updatedAt per rank: strictly decreasing over two years, with a tie every 50 ranks (ids break it).
  const gap = Math.floor((730 * 86_400) / n);
  const updatedAtByRank: number[] = [];
  for (let rank = 0; rank < n; rank++) {
    if (rank % 50 === 25) updatedAtByRank.push(updatedAtByRank[rank - 1]!);
    else updatedAtByRank.push(DATA_ANCHOR_UNIX - 3_600 - rank * gap - r.int(0, Math.floor(gap / 2)));
  }

  const parentOf = new Map<number, number>(PARENT_SUB_PAIRS.map(([parent, sub]) => [sub, parent]));
  const searchIds = new Set(SEARCH_WORD_CASES.map((c) => c.id));
  const drafts: CaseDraft[] = Array.from({ length: n }, (_, index) => {
    const id = FIRST_DEMO_CASE_ID + index;
    const parent = parentOf.get(id);
    return { index, id, rank: rankOf[index]!, parentIndex: parent === undefined ? null : indexOfId(parent) };
  });

  let caseNumberSeq = 24_001;
  const subCounter = new Map<number, number>();
  for (const draft of drafts) {
    const { id, rank } = draft;
    const updatedAt = updatedAtByRank[rank]!;
    const createdAt = updatedAt - r.int(2, 240) * 86_400 - r.int(0, 86_399);
    const customer = r.pick(company.customers);
    let caseNumber: string;
    let parentCaseId: number | null = null;
    if (draft.parentIndex !== null) {
      const parent = company.cases[draft.parentIndex]!;
      const k = (subCounter.get(parent.id) ?? 0) + 1;
      subCounter.set(parent.id, k);
      caseNumber = `${parent.caseNumber}-${k}`;
      parentCaseId = parent.id;
      parent.subCaseIds.push(id);
    } else {
      caseNumber = String(caseNumberSeq++);
    }
    const work = r.pick(WORK_DESCRIPTIONS);
    const detail = r.pick(DESCRIPTION_DETAILS);
    let description = detail === '' ? work : `${work}. ${detail}`;
    if (searchIds.has(id))
      description = `Montering af ${SEARCH_WORD} på ${r.pick(['carport', 'tag', 'garage', 'udhus'])}. ${detail}`.trim();
    if (parentCaseId !== null) description = `Delopgave: ${description}`;
    const responsibleUser = r.pick(company.users);
    const workAddress = r.chance(0.7)
      ? makeAddress(r, customer.name)
      : {
          name: customer.name,
          address: customer.address,
          postalCode: customer.postalCode,
          city: customer.city,
          fullAddress: customer.fullAddress,
        };
    const record: CaseRecord = {
      id,
      companyId: company.id,
      caseNumber,
      projectName: `${r.pick(PROJECT_KINDS)} ${workAddress.address.split(',')[0]}`,
      description,
      status: statusForRank(r, rank, n),
      caseType: id === DST_CASE_ID || id === BIG_HOURS_CASE_ID ? CASE_TYPES[2]! : r.pick(CASE_TYPES),
      responsibleUser,
      foreman: r.chance(0.8) ? r.pick(company.users) : null,
      customer,
      workAddress,
      deliveryAddress: r.chance(0.25) ? makeAddress(r, customer.name) : null,
      economy: emptyEconomy(),
      offerTotal: null,
      parentCaseId,
      subCaseIds: [],
      createdAt,
      updatedAt,
    };
    company.cases.push(record);
    company.casesById.set(id, record);
  }

  // Rows: special cases first, then every ordinary case.
  const special = new Set<number>([BIG_HOURS_CASE_ID, SIX_HUNDRED_HOURS_CASE_ID, DST_CASE_ID, MANY_INVOICES_CASE_ID]);

  const big = company.casesById.get(BIG_HOURS_CASE_ID)!;
  {
    const from = copenhagenMidnight('2024-11-25');
    const days = workingDays(from, big.updatedAt, 600);
    let made = 0;
    for (const day of days) {
      const perDay = r.int(4, 5);
      for (let slot = 0; slot < perDay && made < BIG_HOURS_COUNT; slot++, made++)
        addWorkdayHour(b, big.id, day, { user: company.users[(slot + made) % 6]!, slot });
      if (made >= BIG_HOURS_COUNT) break;
    }
    if (made !== BIG_HOURS_COUNT) throw new Error(`big hours case got ${made} rows`);
    big.createdAt = from - 10 * 86_400;
    for (let i = 0; i < 24; i++)
      addInvoice(
        b,
        big.id,
        days[Math.min(days.length - 1, 20 + i * 20)]!,
        18_000 + r.int(0, 40_000) + r.int(0, 99) / 100,
      );
    for (let i = 0; i < 40; i++) addMaterial(b, big.id, i % 5 === 0 ? 'OFFER' : 'MATERIAL', days[i * 10]! + 10 * 3600);
  }

  const six = company.casesById.get(SIX_HUNDRED_HOURS_CASE_ID)!;
  {
    const from = copenhagenMidnight('2026-02-02');
    const days = workingDays(from, six.updatedAt, 400);
    let made = 0;
    for (const day of days) {
      for (let slot = 0; slot < 4 && made < SIX_HUNDRED_HOURS_COUNT; slot++, made++)
        addWorkdayHour(b, six.id, day, { user: company.users[slot + 2]!, slot });
      if (made >= SIX_HUNDRED_HOURS_COUNT) break;
    }
    if (made !== SIX_HUNDRED_HOURS_COUNT) throw new Error(`six-hundred case got ${made} rows`);
    six.createdAt = from - 5 * 86_400;
    for (let i = 0; i < 6; i++) addInvoice(b, six.id, days[i * 25]!, 25_000 + r.int(0, 20_000) + r.int(0, 99) / 100);
    for (let i = 0; i < 12; i++) addMaterial(b, six.id, 'MATERIAL', days[i * 10]! + 9 * 3600);
  }

  const many = company.casesById.get(MANY_INVOICES_CASE_ID)!;
  {
    const from = copenhagenMidnight('2024-03-04');
    const days = workingDays(from, many.updatedAt, MANY_INVOICES_COUNT);
    if (days.length !== MANY_INVOICES_COUNT) throw new Error(`many-invoices case got ${days.length} days`);
    for (const day of days) addInvoice(b, many.id, day, 450 + r.int(0, 3_000) + r.int(0, 99) / 100);
    for (let i = 0; i < 30; i++) addWorkdayHour(b, many.id, days[i * 20]!);
    many.createdAt = from - 3 * 86_400;
  }

  const dst = company.casesById.get(DST_CASE_ID)!;
  {
    const electrician = company.users[0]!;
    for (const iso of DST_CASE_DAYS) {
      const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
      const midnight = copenhagenToUnix(y, m, d);
      const nextMidnight = copenhagenToUnix(y, m, d + 1);
      const opts = { user: electrician, hourType: company.hourTypes[2]! };
      // Evening of the previous day running past midnight: starts on the day before.
      addHour(b, dst.id, copenhagenToUnix(y, m, d - 1, 23, 0), midnight + 1_800, {
        ...opts,
        description: 'Vagt før midnat',
      });
      // Exactly at local midnight.
      addHour(b, dst.id, midnight, copenhagenToUnix(y, m, d, 4, 0), { ...opts, description: 'Nattevagt fra midnat' });
      // Over the DST change (01:30 to 03:30 wall clock: 1 h in spring, 3 h in autumn).
      addHour(b, dst.id, copenhagenToUnix(y, m, d, 1, 30), copenhagenToUnix(y, m, d, 3, 30), {
        ...opts,
        description: 'Akut udkald over tidsskift',
      });
      addHour(b, dst.id, copenhagenToUnix(y, m, d, 7, 0), copenhagenToUnix(y, m, d, 15, 0), {
        user: electrician,
        description: 'Montage',
      });
      // The last second of the day.
      addHour(b, dst.id, nextMidnight - 1, nextMidnight + 1_799, { ...opts, description: 'Start sidste sekund' });
      // Exactly the next local midnight: outside the day when the upper bound is exclusive.
      addHour(b, dst.id, nextMidnight, nextMidnight + 3_600, { ...opts, description: 'Start næste midnat' });
      addInvoice(b, dst.id, midnight, 4_321.5 + d);
      addInvoice(b, dst.id, nextMidnight, 1_234.25 + d);
    }
    for (let i = 0; i < 8; i++)
      addMaterial(b, dst.id, i < 6 ? 'MATERIAL' : 'OFFER', copenhagenMidnight('2025-01-15') + i * 86_400 + 36_000);
    dst.createdAt = copenhagenMidnight('2025-01-02') + 40_000;
  }

  for (const c of company.cases) {
    if (special.has(c.id)) continue;
    const span = Math.max(1, c.updatedAt - c.createdAt);
    const hourCount = c.id === DEMO_CASE_ID ? 7 : r.int(0, 10);
    const firstDay = localParts(c.createdAt);
    for (let i = 0; i < hourCount; i++) {
      const dayStart = copenhagenToUnix(
        firstDay.year,
        firstDay.month,
        firstDay.day + 1 + Math.floor((r.next() * span) / 86_400),
      );
      if (dayStart > c.updatedAt) continue;
      addWorkdayHour(b, c.id, dayStart, { slot: r.int(0, 2) });
    }
    const invoiceCount = c.id === DEMO_CASE_ID ? 3 : r.chance(0.6) ? r.int(1, 3) : 0;
    for (let i = 0; i < invoiceCount; i++) {
      const when = c.createdAt + Math.floor(((i + 1) / (invoiceCount + 1)) * span);
      addInvoice(b, c.id, copenhagenMidnight(copenhagenDate(when)), 800 + r.int(0, 60_000) + r.int(0, 99) / 100);
    }
    const materialCount = c.id === DEMO_CASE_ID ? 5 : r.int(0, 6);
    for (let i = 0; i < materialCount; i++)
      addMaterial(b, c.id, r.chance(0.8) ? 'MATERIAL' : 'OFFER', c.createdAt + Math.floor(r.next() * span));
  }

  for (let i = 0; i < 40; i++) {
    company.gpsEntries.push({
      id: 70_001 + i,
      latitude: Math.round((56.15 + r.next() * 0.2) * 1e6) / 1e6,
      longitude: Math.round((10.1 + r.next() * 0.3) * 1e6) / 1e6,
      timestamp: DATA_ANCHOR_UNIX - (40 - i) * 5_400,
      user: company.users[i % company.users.length]!,
    });
  }

  renumberChronologically(company);
  finishEconomy(company, r);
  return company;
}

function buildOtherCompany(ids: Counters): CompanyData {
  const company = emptyCompany(OTHER_COMPANY_ID, OTHER_COMPANY_NAME);
  const r = rng(0x07e2);
  const b: Builder = { company, r, ids };
  company.users = makeUsers(r, 601, 3, 'nordvest-toemrer.dk');
  company.hourTypes = [
    { id: 21, name: 'Normal tid' },
    { id: 22, name: 'Overtid 50 %' },
  ];
  company.customers = makeCustomers(r, 9_001, 5);
  company.products = makeProducts(r, 69_001, DATA_ANCHOR_UNIX - 500 * 86_400).slice(0, 6);
  OTHER_COMPANY_CASE_IDS.forEach((id, i) => {
    const customer = company.customers[i % company.customers.length]!;
    const updatedAt = DATA_ANCHOR_UNIX - 7_200 - i * 9 * 86_400;
    const record: CaseRecord = {
      id,
      companyId: company.id,
      caseNumber: String(24_001 + i),
      projectName: `Tømrerarbejde ${customer.address}`,
      description: `${r.pick(['Nyt tag', 'Ny terrasse', 'Udskiftning af vinduer', 'Tilbygning'])} hos ${customer.name}`,
      status: STATUSES[i % STATUSES.length]!,
      caseType: CASE_TYPES[i % CASE_TYPES.length]!,
      responsibleUser: company.users[0]!,
      foreman: company.users[1]!,
      customer,
      workAddress: makeAddress(r, customer.name),
      deliveryAddress: null,
      economy: emptyEconomy(),
      offerTotal: null,
      parentCaseId: null,
      subCaseIds: [],
      createdAt: updatedAt - 60 * 86_400,
      updatedAt,
    };
    company.cases.push(record);
    company.casesById.set(id, record);
    const days = workingDays(record.createdAt + 86_400, updatedAt, 12);
    for (const day of days) addWorkdayHour(b, id, day);
    addInvoice(b, id, days[days.length - 1] ?? copenhagenMidnight(copenhagenDate(updatedAt)), 9_999.95 + i);
    addMaterial(b, id, 'MATERIAL', record.createdAt + 86_400);
  });
  renumberChronologically(company);
  finishEconomy(company, r);
  return company;
}

let dataset: CasesDataset | undefined;

/** The whole dataset, built on first use and shared by every sandbox in the process. */
export function casesDataset(): CasesDataset {
  if (dataset === undefined) {
    const ids: Counters = { hour: 700_001, invoice: 40_001, invoiceNumber: 20_240_001, material: 800_001 };
    const demo = buildDemoCompany(ids);
    const other = buildOtherCompany(ids);
    dataset = {
      companies: new Map([
        [demo.id, demo],
        [other.id, other],
      ]),
      tokens: new Map([
        [CASES_DEMO_TOKEN, demo.id],
        [CASES_OTHER_TOKEN, other.id],
      ]),
    };
  }
  return dataset;
}

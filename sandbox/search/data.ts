// Demo data of the Search Console sandbox (../shared/upstreams/search.md §4), generated on demand:
// nothing per row is kept. A query's traffic on a day is a function of (query, day, search type)
// through sandbox/seeded-random.ts's hash01, so any cell can be computed when a request needs it,
// the same on every run, and a day's numbers never change as time passes. Resident after the first
// request: a few small per-query tables (36,000 entries) and the 400 page URLs.
//
// The model. 36,000 visible queries with Zipf-like daily impressions (about 44,000 a day in all
// for web search; the tail appears every few days, so a month has 30,000+ query rows and
// rowLimit 25,000 and startRow paging matter); each lands on one of 400 pages on two hosts
// (www.example.dk, shop.example.dk); a fifth of all impressions are on anonymised queries, per
// page and day, counted in property totals but never as query rows. Every impression is split
// over the devices (desktop, mobile, tablet) and then over five countries; clicks follow the
// position (a click-through curve) and never exceed impressions. About one query in six shows a
// search appearance. A day's traffic varies by weekday, season and a slow upward trend.
//
// An aggregate is always the sum of these cells, so every grouping adds up to the same totals
// (position is impression-weighted throughout).
import { hash01 } from '../seeded-random.ts';

export const SEARCH_DOMAIN = 'example.dk';
export const SEARCH_HOSTS = ['https://www.example.dk/', 'https://shop.example.dk/'] as const;

/** A property the demo account sees in `sites.list`, and which pages it covers (null: none). */
export interface SearchSite {
  readonly siteUrl: string;
  readonly permissionLevel: 'siteOwner' | 'siteFullUser' | 'siteRestrictedUser' | 'siteUnverifiedUser';
  /** URL prefix of the pages in the property; '' for the domain property (every host). */
  readonly prefix: string;
}

/** Both property kinds: a domain property, URL-prefix properties (one unverified, one without any data). */
export const SEARCH_SITES: readonly SearchSite[] = [
  { siteUrl: `sc-domain:${SEARCH_DOMAIN}`, permissionLevel: 'siteOwner', prefix: '' },
  { siteUrl: 'https://www.example.dk/', permissionLevel: 'siteFullUser', prefix: 'https://www.example.dk/' },
  { siteUrl: 'https://shop.example.dk/', permissionLevel: 'siteUnverifiedUser', prefix: 'https://shop.example.dk/' },
  // The old http property: verified, but every page is on https, so every report is empty (`rows` absent).
  { siteUrl: 'http://www.example.dk/', permissionLevel: 'siteRestrictedUser', prefix: 'http://www.example.dk/' },
];

export const SEARCH_DIMENSIONS = ['date', 'hour', 'query', 'page', 'country', 'device', 'searchAppearance'] as const;
export type SearchDimension = (typeof SEARCH_DIMENSIONS)[number];
export const SEARCH_COUNTRIES = ['dnk', 'swe', 'nor', 'deu', 'usa'] as const;
const COUNTRY_SHARES = [0.64, 0.1, 0.09, 0.1, 0.07];
export const SEARCH_DEVICES = ['DESKTOP', 'MOBILE', 'TABLET'] as const;
const DEVICE_SHARES = [0.38, 0.57, 0.05];
/** Position offset per device (mobile results rank a little lower). */
const DEVICE_POSITION = [-0.15, 0.25, 0.1];
export const SEARCH_APPEARANCES = [
  'PRODUCT_SNIPPETS',
  'REVIEW_SNIPPET',
  'VIDEO',
  'MERCHANT_LISTINGS',
  'FAQ_RICH_RESULT',
] as const;

export const SEARCH_TYPES = ['web', 'image', 'video', 'news', 'discover', 'googleNews'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
/** Traffic of each search type relative to web search, and its hash salt. */
const TYPE_SCALE: Readonly<Record<SearchType, number>> = {
  web: 1,
  image: 0.12,
  video: 0.03,
  news: 0.02,
  discover: 0.05,
  googleNews: 0.01,
};
const TYPE_SALT: Readonly<Record<SearchType, number>> = {
  web: 11,
  image: 23,
  video: 37,
  news: 41,
  discover: 53,
  googleNews: 67,
};

export const SEARCH_QUERY_COUNT = 36_000;
export const SEARCH_PAGE_COUNT = 400;
/** Days of history before "today" (about 16 months). */
export const SEARCH_HISTORY_DAYS = 486;
/** Final data lags this many days: the newest days are fresh (only with dataState all). */
export const SEARCH_FRESH_DAYS = 2;
/** Days of hourly data (the `hour` dimension with `dataState: hourly_all`): the newest ones only. */
export const SEARCH_HOURLY_DAYS = 10;
/** Share of a day's traffic in each Pacific hour (low at night, a peak in the evening), summing to 1. */
const HOUR_WEIGHTS = Array.from(
  { length: 24 },
  (_, h) => 1.15 + Math.sin(((h - 9) * Math.PI) / 12) + 0.35 * Math.exp(-((h - 20) ** 2) / 4),
);
const HOUR_SHARES = HOUR_WEIGHTS.map((w) => w / HOUR_WEIGHTS.reduce((a, b) => a + b, 0));
/** Anonymised impressions per page, relative to the page's visible ones (a fifth of the total). */
const ANONYMISED_SHARE = 0.25;

// ---- Queries ---------------------------------------------------------------------------------

const HEAD = [
  'example',
  'example.dk',
  'example shop',
  'example sofa',
  'example kundeservice',
  'example åbningstider',
  'example rabatkode',
  'example outlet',
];
const MODIFIERS = [
  '',
  'billig',
  'bedste',
  'køb',
  'stor',
  'lille',
  'hvid',
  'sort',
  'grå',
  'blå',
  'grøn',
  'rund',
  'moderne',
  'retro',
  'nordisk',
  'brugt',
  'ny',
  'tilbud',
  'udsalg',
  'eksklusiv',
  'robust',
  'let',
  'foldbar',
  'praktisk',
  'smuk',
  'enkel',
  'luksus',
  'budget',
  'dansk',
  'italiensk',
  'japansk',
  'vintage',
  'industriel',
  'rustik',
  'minimalistisk',
  'kompakt',
  'holdbar',
  'bæredygtig',
  'økologisk',
  'klassisk',
];
const NOUNS = [
  'sofa',
  'lænestol',
  'spisebord',
  'sofabord',
  'kontorstol',
  'reol',
  'kommode',
  'seng',
  'madras',
  'dyne',
  'pude',
  'tæppe',
  'lampe',
  'loftlampe',
  'gulvlampe',
  'spejl',
  'garderobeskab',
  'skænk',
  'havemøbler',
  'parasol',
  'skrivebord',
  'barstol',
  'sovesofa',
  'puf',
  'gardiner',
  'hylde',
  'vitrineskab',
  'tv-bord',
  'sengegavl',
  'natbord',
  'køkkenbord',
  'spisestol',
  'hængekøje',
  'kurvestol',
  'loungestol',
  'plaid',
  'sengetøj',
  'håndklæder',
  'vase',
  'potteplante',
];
const SUFFIXES = [
  '',
  'pris',
  'tilbud',
  'til salg',
  'anmeldelse',
  'test',
  'mål',
  'i eg',
  'i læder',
  'i velour',
  'i stof',
  'i metal',
  'online',
  'københavn',
  'aarhus',
  'odense',
  'aalborg',
  'levering',
  'på lager',
  'guide',
  'ideer',
  'sammenligning',
  'størrelser',
];
const COMBINATIONS = MODIFIERS.length * NOUNS.length * SUFFIXES.length;
/** A multiplier coprime with the combination count: spreads popular ranks over the word lists. */
const SPREAD = 7919;

/** The query text of a popularity rank (0 = the most searched); every rank has its own text. */
export function searchQueryText(rank: number): string {
  if (rank < HEAD.length) return HEAD[rank]!;
  const n = ((rank - HEAD.length) * SPREAD) % COMBINATIONS;
  const noun = NOUNS[n % NOUNS.length]!;
  const modifier = MODIFIERS[Math.floor(n / NOUNS.length) % MODIFIERS.length]!;
  const suffix = SUFFIXES[Math.floor(n / (NOUNS.length * MODIFIERS.length))]!;
  return [modifier, noun, suffix].filter((w) => w !== '').join(' ');
}

// ---- Pages -----------------------------------------------------------------------------------

const SECTIONS = ['produkter', 'inspiration', 'guides', 'kampagner'];

function pageUrl(index: number): string {
  if (index === 0) return SEARCH_HOSTS[0];
  if (index === 1) return SEARCH_HOSTS[1];
  const noun = NOUNS[index % NOUNS.length]!;
  // Every fourth page is on the shop host; the www pages are spread over the sections.
  if (index % 4 === 3)
    return `${SEARCH_HOSTS[1]}produkter/${noun}/${MODIFIERS[1 + (index % (MODIFIERS.length - 1))]}-${noun}-${index}/`;
  return `${SEARCH_HOSTS[0]}${SECTIONS[index % SECTIONS.length]}/${noun}${index >= NOUNS.length ? `-${Math.floor(index / NOUNS.length)}` : ''}/`;
}

// ---- Per-query tables (built on first use) ---------------------------------------------------

interface Tables {
  /** Mean daily web impressions of each query rank. */
  readonly lambda: Float32Array;
  /** Base position of each query rank. */
  readonly position: Float32Array;
  /** Landing page of each query rank. */
  readonly page: Uint16Array;
  /** Search appearance of each query rank: 0 none, else SEARCH_APPEARANCES index + 1. */
  readonly appearance: Uint8Array;
  /** Mean daily anonymised web impressions of each page, and their base position. */
  readonly anonymised: Float32Array;
  readonly anonymisedPosition: Float32Array;
  readonly pages: readonly string[];
}

let tables: Tables | undefined;

function buildTables(): Tables {
  const lambda = new Float32Array(SEARCH_QUERY_COUNT);
  const position = new Float32Array(SEARCH_QUERY_COUNT);
  const page = new Uint16Array(SEARCH_QUERY_COUNT);
  const appearance = new Uint8Array(SEARCH_QUERY_COUNT);
  const anonymised = new Float32Array(SEARCH_PAGE_COUNT);
  const anonymisedPosition = new Float32Array(SEARCH_PAGE_COUNT);
  for (let r = 0; r < SEARCH_QUERY_COUNT; r++) {
    lambda[r] = 1500 / (1 + r / 5) ** 1.1;
    const u = hash01(r, 1, 7);
    // Brand queries rank first; the further down the tail, the worse (and more varied) the position.
    position[r] = r < HEAD.length ? 1 + 0.2 * u : 1 + (0.5 + 38 * u * u) * Math.min(1, Math.log10(r + 2) / 4.6);
    const v = hash01(r, 2, 7);
    page[r] = r < HEAD.length ? (r === 2 ? 1 : 0) : Math.floor(SEARCH_PAGE_COUNT * v * v);
    const w = hash01(r, 3, 7);
    appearance[r] = w < 0.17 ? 1 + Math.floor((w / 0.17) * SEARCH_APPEARANCES.length) : 0;
    const landing = page[r]!;
    anonymised[landing] = anonymised[landing]! + lambda[r]! * ANONYMISED_SHARE;
  }
  for (let p = 0; p < SEARCH_PAGE_COUNT; p++) anonymisedPosition[p] = 4 + 20 * hash01(p, 4, 7);
  return {
    lambda,
    position,
    page,
    appearance,
    anonymised,
    anonymisedPosition,
    pages: Array.from({ length: SEARCH_PAGE_COUNT }, (_, i) => pageUrl(i)),
  };
}

function data(): Tables {
  tables ??= buildTables();
  return tables;
}

export function searchPageUrl(index: number): string {
  return data().pages[index]!;
}

// ---- Days ------------------------------------------------------------------------------------

const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01) of a YYYY-MM-DD calendar date, or undefined when it is none. */
export function dayNumber(date: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (m === null) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms / DAY_MS;
}

export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const PACIFIC_CLOCK = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  hour: '2-digit',
  day: '2-digit',
});

/**
 * An hour key as Search Console writes it (upstreams/search.md §2): the start of a Pacific hour with
 * its UTC offset, `2025-04-07T00:00:00-07:00` in summer time, `-08:00` in winter.
 */
export function hourKey(day: number, hour: number): string {
  const date = dateOfDay(day);
  const hh = String(hour).padStart(2, '0');
  // Standard time (UTC−8) if that instant reads as the same Pacific day and hour, else summer time.
  const parts = PACIFIC_CLOCK.formatToParts(new Date(day * DAY_MS + (hour + 8) * 3_600_000));
  const standard =
    parts.find((p) => p.type === 'hour')?.value === hh &&
    Number(parts.find((p) => p.type === 'day')?.value) === Number(date.slice(8));
  return `${date}T${hh}:00:00${standard ? '-08:00' : '-07:00'}`;
}

/** Traffic of a day relative to an average day: weekday, season, a slow trend and a little noise. */
function dayFactor(day: number): number {
  const weekday = (day + 4) % 7; // 0 = Sunday
  const week = weekday === 0 ? 0.86 : weekday === 6 ? 0.8 : 1.02 + 0.02 * (weekday % 3);
  const season = 1 + 0.12 * Math.sin((2 * Math.PI * (day % 365.25)) / 365.25 + 1.2);
  const trend = 1 + 0.0005 * (day - 19_700);
  return week * season * Math.max(0.5, trend) * (0.94 + 0.12 * hash01(day, 5, 7));
}

/** Click-through rate at a position (0.32 / position^1.3), tabulated by hundredths of a position from 1 to 100. */
const CTR_TABLE = Float32Array.from({ length: 9901 }, (_, i) => Math.min(0.6, 0.32 / (1 + i / 100) ** 1.3));
function ctrAt(position: number): number {
  return CTR_TABLE[Math.min(9900, Math.round((position - 1) * 100))]!;
}

// ---- Aggregation -----------------------------------------------------------------------------

/** A compiled dimension filter: which values of its dimension pass. */
export interface CellFilter {
  readonly query?: (rank: number) => boolean;
  readonly page?: (index: number) => boolean;
  readonly country?: (index: number) => boolean;
  readonly device?: (index: number) => boolean;
  /** Tested with the SEARCH_APPEARANCES index, or -1 for a query without one. */
  readonly searchAppearance?: (index: number) => boolean;
}

export interface AggregateRequest {
  /** Page prefix of the property ('' = every page). */
  readonly prefix: string;
  readonly type: SearchType;
  readonly firstDay: number;
  readonly lastDay: number;
  readonly dimensions: readonly SearchDimension[];
  /** Every filter must pass (the groups are ANDed). */
  readonly filters: readonly CellFilter[];
  /** More groups than this throws GroupLimitError (the sandbox's load quota). */
  readonly maxGroups: number;
}

export interface AggregateRow {
  readonly keys: string[];
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr: number;
  readonly position: number;
}

/** The groups of one request, sorted; a row's keys are decoded only when it is read. */
export interface Aggregation {
  readonly length: number;
  row(index: number): AggregateRow;
}

export class GroupLimitError extends Error {}

/** Radix of each dimension's component in a numeric group key (43 bits in all). */
const RADIX: Readonly<Record<Exclude<SearchDimension, 'hour'>, number>> = {
  query: 65_536,
  date: 1024,
  page: 512,
  country: 8,
  device: 4,
  searchAppearance: 8,
};
/** The hour component counts hours from the request's first day: the range must stay short (SEARCH_HOURLY_DAYS). */
const radixOf = (d: SearchDimension, days: number) => (d === 'hour' ? days * 24 : RADIX[d]);

/**
 * Sums the cells of a request into groups of its dimensions, sorted by clicks, then impressions,
 * descending (equal rows in the order first seen). Without dimensions, one row
 * without keys when there was any impression. Anonymised cells are left out when grouping or
 * filtering by query; cells without a search appearance when grouping by it.
 */
export function aggregate(request: AggregateRequest): Aggregation {
  const t = data();
  const dims = request.dimensions;
  const has = (d: SearchDimension) => dims.includes(d);
  const byQuery = has('query') || request.filters.some((f) => f.query !== undefined);
  const byAppearance = has('searchAppearance');
  const needCountry = has('country') || request.filters.some((f) => f.country !== undefined);
  const pagePass = (p: number) =>
    t.pages[p]!.startsWith(request.prefix) && request.filters.every((f) => f.page === undefined || f.page(p));
  const pageOk = Uint8Array.from({ length: SEARCH_PAGE_COUNT }, (_, p) => (pagePass(p) ? 1 : 0));
  const queryFilters = request.filters.filter((f) => f.query !== undefined).map((f) => f.query!);
  const deviceFilters = request.filters.filter((f) => f.device !== undefined).map((f) => f.device!);
  const countryFilters = request.filters.filter((f) => f.country !== undefined).map((f) => f.country!);
  const appearanceFilters = request.filters
    .filter((f) => f.searchAppearance !== undefined)
    .map((f) => f.searchAppearance!);
  const deviceOk = SEARCH_DEVICES.map((_, i) => deviceFilters.every((f) => f(i)));
  const countryOk = SEARCH_COUNTRIES.map((_, i) => countryFilters.every((f) => f(i)));
  /** By stored appearance (0 none, else SEARCH_APPEARANCES index + 1): whether its cells count. */
  const appearanceOk = Uint8Array.from({ length: SEARCH_APPEARANCES.length + 1 }, (_, app) =>
    (app > 0 || !byAppearance) && appearanceFilters.every((f) => f(app - 1)) ? 1 : 0,
  );
  let queryOk: Uint8Array | undefined;
  if (queryFilters.length > 0)
    queryOk = Uint8Array.from({ length: SEARCH_QUERY_COUNT }, (_, r) => (queryFilters.every((f) => f(r)) ? 1 : 0));

  const scale = TYPE_SCALE[request.type];
  const salt = TYPE_SALT[request.type];
  // Groups: numeric key → slot; sums in parallel columns.
  const slots = new Map<number, number>();
  const keys: number[] = [];
  const clicks: number[] = [];
  const impressions: number[] = [];
  const weighted: number[] = [];
  // Consecutive cells often share a group (always without dimensions): remember the last one.
  let lastKey = -1;
  let lastSlot = 0;
  const add = (key: number, c: number, i: number, p: number) => {
    let slot = key === lastKey ? lastSlot : slots.get(key);
    if (slot === undefined) {
      slot = keys.length;
      if (slot >= request.maxGroups) throw new GroupLimitError('too many rows for one request');
      slots.set(key, slot);
      keys.push(key);
      clicks.push(0);
      impressions.push(0);
      weighted.push(0);
    }
    lastKey = key;
    lastSlot = slot;
    clicks[slot] = clicks[slot]! + c;
    impressions[slot] = impressions[slot]! + i;
    weighted[slot] = weighted[slot]! + p * i;
  };
  const days = request.lastDay - request.firstDay + 1;
  const byHour = has('hour');
  const keyOf = (rank: number, day: number, page: number, country: number, device: number, app: number, hour = 0) => {
    let key = 0;
    for (const d of dims) {
      const part =
        d === 'query'
          ? rank + 1
          : d === 'date'
            ? day - request.firstDay
            : d === 'hour'
              ? (day - request.firstDay) * 24 + hour
              : d === 'page'
                ? page
                : d === 'country'
                  ? country
                  : d === 'device'
                    ? device
                    : app;
      key = key * radixOf(d, days) + part;
    }
    return key;
  };
  /**
   * Adds one (device, country) cell, or with the `hour` dimension its 24 Pacific hours: impressions
   * split by HOUR_SHARES with the same conserving stochastic rounding, clicks following them.
   */
  const put = (
    id: number,
    day: number,
    rank: number,
    page: number,
    country: number,
    device: number,
    app: number,
    c: number,
    n: number,
    pos: number,
    salt2: number,
  ) => {
    if (!byHour) return add(keyOf(rank, day, page, country, device, app), c, n, pos);
    let restI = n;
    let restC = c;
    let share = 1;
    for (let h = 0; h < 24; h++) {
      let ni: number;
      let nc: number;
      if (h === 23) {
        ni = restI;
        nc = restC;
      } else {
        ni = Math.min(restI, Math.floor((restI * HOUR_SHARES[h]!) / share + hash01(id * 32 + h, day, salt2)));
        const after = restI - ni;
        nc =
          restI === 0
            ? 0
            : Math.min(
                ni,
                restC,
                Math.max(restC - after, Math.floor((restC * ni) / restI + hash01(id * 32 + h, day, salt2 + 1))),
              );
      }
      restI -= ni;
      restC -= nc;
      share -= HOUR_SHARES[h]!;
      if (ni > 0) add(keyOf(rank, day, page, country, device, app, h), nc, ni, pos);
    }
  };

  const deviceImpressions = [0, 0, 0];
  const deviceClicks = [0, 0, 0];
  const devicePosition = [0, 0, 0];
  /** Splits one (query or anonymised page, day) cell over devices and countries and adds what passes. */
  const emit = (
    id: number,
    day: number,
    total: number,
    basePosition: number,
    rank: number,
    page: number,
    app: number,
  ) => {
    // Devices: sequential stochastic rounding of the shares, the last takes the rest.
    let rest = total;
    let restShare = 1;
    for (let dv = 0; dv < 3; dv++) {
      const n =
        dv === 2
          ? rest
          : Math.min(rest, Math.floor((rest * DEVICE_SHARES[dv]!) / restShare + hash01(id, day, salt + 100 + dv)));
      rest -= n;
      restShare -= DEVICE_SHARES[dv]!;
      const pos = Math.max(1, basePosition + DEVICE_POSITION[dv]!);
      deviceImpressions[dv] = n;
      devicePosition[dv] = pos;
      deviceClicks[dv] = n === 0 ? 0 : Math.min(n, Math.floor(n * ctrAt(pos) + hash01(id, day, salt + 200 + dv)));
    }
    for (let dv = 0; dv < 3; dv++) {
      const n = deviceImpressions[dv]!;
      if (n === 0 || !deviceOk[dv]) continue;
      const c = deviceClicks[dv]!;
      const pos = devicePosition[dv]!;
      if (!needCountry) {
        put(id, day, rank, page, 0, dv, app, c, n, pos, salt + 500 + dv * 8);
        continue;
      }
      // Countries: the same for impressions; clicks follow them without ever exceeding them.
      let restI = n;
      let restC = c;
      let share = 1;
      for (let ct = 0; ct < 5; ct++) {
        let ni: number;
        let nc: number;
        if (ct === 4) {
          ni = restI;
          nc = restC;
        } else {
          ni = Math.min(
            restI,
            Math.floor((restI * COUNTRY_SHARES[ct]!) / share + hash01(id, day, salt + 300 + dv * 8 + ct)),
          );
          const after = restI - ni;
          nc = Math.min(
            ni,
            restC,
            Math.max(restC - after, Math.floor((restC * ni) / restI + hash01(id, day, salt + 400 + dv * 8 + ct))),
          );
        }
        restI -= ni;
        restC -= nc;
        share -= COUNTRY_SHARES[ct]!;
        if (ni > 0 && countryOk[ct]) put(id, day, rank, page, ct, dv, app, nc, ni, pos, salt + 500 + dv * 8 + ct);
      }
    }
  };

  for (let day = request.firstDay; day <= request.lastDay; day++) {
    const factor = dayFactor(day) * scale;
    for (let r = 0; r < SEARCH_QUERY_COUNT; r++) {
      const page = t.page[r]!;
      if (pageOk[page] === 0 || (queryOk !== undefined && queryOk[r] === 0)) continue;
      // Day-to-day noise only where it shows (a tail query's rounding is noise enough).
      let x = t.lambda[r]! * factor;
      if (x > 4) x *= 0.85 + 0.3 * hash01(r, day, salt);
      const total = Math.floor(x + hash01(r, day, salt + 1));
      if (total === 0) continue;
      const app = t.appearance[r]!;
      if (appearanceOk[app] === 0) continue;
      const base = t.position[r]! * (0.92 + 0.16 * hash01(r, day, salt + 2));
      emit(r, day, total, base, r, page, app === 0 ? 0 : app - 1);
    }
    if (byQuery || appearanceOk[0] === 0) continue;
    for (let p = 0; p < SEARCH_PAGE_COUNT; p++) {
      if (pageOk[p] === 0) continue;
      const x = t.anonymised[p]! * factor * (0.85 + 0.3 * hash01(p, day, salt + 3));
      const total = Math.floor(x + hash01(p, day, salt + 4));
      if (total > 0)
        emit(
          SEARCH_QUERY_COUNT + p,
          day,
          total,
          t.anonymisedPosition[p]! * (0.92 + 0.16 * hash01(p, day, salt + 5)),
          -1,
          p,
          0,
        );
    }
  }

  // The closures below share this scope's context: drop the key index so it is not kept with the rows.
  slots.clear();
  const order = Uint32Array.from(keys.keys()).sort(
    (a, b) => clicks[b]! - clicks[a]! || impressions[b]! - impressions[a]! || a - b,
  );
  const firstDay = request.firstDay;
  return {
    length: order.length,
    row(index) {
      const slot = order[index]!;
      const i = impressions[slot]!;
      const c = clicks[slot]!;
      return {
        keys: decodeKey(keys[slot]!, dims, firstDay, days),
        clicks: c,
        impressions: i,
        ctr: c / i,
        position: weighted[slot]! / i,
      };
    },
  };
}

function decodeKey(key: number, dims: readonly SearchDimension[], firstDay: number, days: number): string[] {
  const out: string[] = new Array(dims.length);
  let rest = key;
  for (let k = dims.length - 1; k >= 0; k--) {
    const d = dims[k]!;
    const radix = radixOf(d, days);
    const part = rest % radix;
    rest = Math.floor(rest / radix);
    out[k] =
      d === 'hour'
        ? hourKey(firstDay + Math.floor(part / 24), part % 24)
        : d === 'query'
          ? searchQueryText(part - 1)
          : d === 'date'
            ? dateOfDay(firstDay + part)
            : d === 'page'
              ? searchPageUrl(part)
              : d === 'country'
                ? SEARCH_COUNTRIES[part]!
                : d === 'device'
                  ? SEARCH_DEVICES[part]!
                  : SEARCH_APPEARANCES[part]!;
  }
  return out;
}

// The Search Console sandbox's switches, their checks and defaults, its public types and the state
// one running sandbox keeps (server.ts holds the routes and the server).
import { type PendingDelays, switchError } from '../http-kit.ts';
import type { AggregationCache } from './analytics.ts';
import { dayNumber, type SearchSite } from './data.ts';

export const SEARCH_SCOPES = [
  'https://www.googleapis.com/auth/webmasters.readonly',
  'https://www.googleapis.com/auth/webmasters',
];
/** The account that sees the demo properties (the identity provider's Google demo user). */
export const SEARCH_DEMO_SUBJECT = 'demo.sandbox@gmail.com';
export const SEARCH_REQUEST_LOG_MAX = 1_000;
/** Default delay of the `slow` fault: over the connector's 15 s timeout. */
export const SEARCH_DEFAULT_SLOW_DELAY_MS = 20_000;

export interface SearchTokenCheck {
  readonly valid: boolean;
  readonly subject: string | null;
  readonly scope: readonly string[];
}

export const SEARCH_FAULTS = ['none', 'serverError', 'unavailable', 'badGateway', 'notJson', 'slow'] as const;
export type SearchFault = (typeof SEARCH_FAULTS)[number];

export interface SearchSwitches {
  /** "Today" in Pacific time (YYYY-MM-DD); null = the real date. The newest final day is three days before it. */
  today: string | null;
  /** Search-analytics queries allowed per minute per user and per property; 0 = no quota (default). */
  quotaPerMinute: number;
  /** How an exceeded quota answers: 429 RESOURCE_EXHAUSTED (default) or the legacy 403 quotaExceeded. */
  quotaForm: 'status429' | 'legacy403';
  /**
   * `serverError` 500 and `unavailable` 503 (Google's JSON bodies), `badGateway` a 502 HTML page as
   * Google's front end serves it, `notJson` a 200 whose body is an HTML page, `slow` a normal
   * answer after `slowDelayMs`.
   */
  fault: SearchFault;
  /** 0: every request; N: the next N requests, then `fault` returns to `none`. */
  faultCount: number;
  slowDelayMs: number;
  /**
   * `strict` (default): `{siteUrl}` must be exactly `encodeURIComponent` of the property (hex in
   * either case), as upstreams/search.md §2 documents; a segment left partly unencoded
   * (`sc-domain:example.dk`) answers 400 and is counted in `stats.notFullyEncoded`. `lenient`
   * decodes whatever arrives.
   */
  siteEncoding: 'strict' | 'lenient';
}

export interface SearchSandboxOptions {
  port?: number;
  host?: string;
  /** Decides every bearer token (absent: every token is refused). */
  verifyToken?: (token: string) => SearchTokenCheck;
  /** The properties of an account (default: the demo subject has data.ts's sites, others none). */
  sitesOf?: (subject: string) => readonly SearchSite[];
  switches?: Partial<SearchSwitches>;
}

export interface SearchRecordedRequest {
  readonly method: string;
  /** As received (percent-encoded). */
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
}

export interface SearchSandboxStats {
  /** Upstream requests received (control requests excluded). */
  requests: number;
  /** searchanalytics.query requests that were answered 200. */
  analyticsAnswered: number;
  byStatus: Record<string, number>;
  /** Requests whose `{siteUrl}` segment was not fully percent-encoded (a client defect). */
  notFullyEncoded: number;
  /** searchanalytics.query POSTs whose content-type was not JSON (a client defect). */
  notJsonContentType: number;
}

export interface SearchSandbox {
  readonly url: string;
  readonly port: number;
  readonly switches: Readonly<SearchSwitches>;
  readonly stats: SearchSandboxStats;
  /** Oldest first, at most SEARCH_REQUEST_LOG_MAX. */
  readonly requests: readonly SearchRecordedRequest[];
  setSwitches(partial: Partial<SearchSwitches>): void;
  resetStats(): void;
  close(): Promise<void>;
}

export const DEFAULT_SWITCHES: SearchSwitches = {
  today: null,
  quotaPerMinute: 0,
  quotaForm: 'status429',
  fault: 'none',
  faultCount: 0,
  slowDelayMs: SEARCH_DEFAULT_SLOW_DELAY_MS,
  siteEncoding: 'strict',
};
const isCount = (v: unknown, max: number) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;
export const SWITCH_CHECKS: { readonly [K in keyof SearchSwitches]: (v: unknown) => boolean } = {
  today: (v) => v === null || (typeof v === 'string' && dayNumber(v) !== undefined),
  quotaPerMinute: (v) => isCount(v, 1_000_000),
  quotaForm: (v) => v === 'status429' || v === 'legacy403',
  fault: (v) => (SEARCH_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  slowDelayMs: (v) => isCount(v, 600_000),
  siteEncoding: (v) => v === 'strict' || v === 'lenient',
};

/** What one running Search Console sandbox keeps; the handlers in server.ts read and change it. */
export interface SearchState {
  readonly options: SearchSandboxOptions;
  readonly initial: SearchSwitches;
  switches: SearchSwitches;
  readonly sitesOf: (subject: string) => readonly SearchSite[];
  readonly stats: SearchSandboxStats;
  readonly requestLog: SearchRecordedRequest[];
  /** Per-minute query counts by user and by property. */
  readonly minute: { at: number; readonly counts: Map<string, number> };
  readonly cache: AggregationCache;
  readonly pending: PendingDelays;
}

export function setSwitches(state: SearchState, partial: Partial<SearchSwitches>): void {
  const error = switchError(partial, SWITCH_CHECKS);
  if (error !== undefined) throw new TypeError(`search sandbox: ${error}`);
  state.switches = { ...state.switches, ...partial };
}

export function resetStats(state: SearchState): void {
  const { stats } = state;
  stats.requests = 0;
  stats.analyticsAnswered = 0;
  stats.byStatus = {};
  stats.notFullyEncoded = 0;
  stats.notJsonContentType = 0;
  state.requestLog.length = 0;
  state.minute.counts.clear();
  state.cache.clear();
}

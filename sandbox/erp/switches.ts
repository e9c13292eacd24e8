// The Business Central sandbox's switches, their checks and defaults, faults, tokens and documented constants (erp.md
// §2–§4).

/** The static bearer token accepted by default (tests and the demo, until the identity provider lands). */
export const ERP_SANDBOX_TOKEN = 'erp-sandbox-token-Vb7q2Lx9';
/** A static bearer token of a user without a Business Central licence: every API request answers 403. */
export const ERP_SANDBOX_UNLICENSED_TOKEN = 'erp-sandbox-unlicensed-Hk4w8Rt1';
/** Server maximum of rows per page (also the page size without `Prefer: odata.maxpagesize`). */
export const ERP_MAX_PAGE_SIZE = 20_000;
/** Default delay of the `slow` fault: over the connector's 30 s timeout. */
export const ERP_DEFAULT_SLOW_DELAY_MS = 35_000;
/** Retry-After of the `overCap` form: over the connector's 5 s cap. */
export const ERP_RETRY_AFTER_OVER_CAP_SECONDS = 30;
/** The request log keeps the newest this many requests. */
export const ERP_REQUEST_LOG_MAX = 5_000;

export interface ErpTokenVerdict {
  readonly valid: boolean;
  readonly expired?: boolean;
  /** False for a user without a Business Central licence (403). Default true. */
  readonly licensed?: boolean;
}

export type ErpTokenVerifier = (token: string) => ErpTokenVerdict | Promise<ErpTokenVerdict>;

export const ERP_FAULTS = [
  'none',
  'throttled',
  'unavailable',
  'requestTimeout',
  'gatewayTimeout',
  'badGatewayHtml',
  'nonJson',
  'slow',
] as const;
/**
 * `throttled` 429 (Retry-After per `retryAfter429`); `unavailable` 503 with Retry-After;
 * `requestTimeout` 408; `gatewayTimeout` 504; `badGatewayHtml` 502 with an HTML page; `nonJson`
 * 200 with an HTML body; `slow` answers normally after `slowDelayMs`.
 */
export type ErpFault = (typeof ERP_FAULTS)[number];
export const ERP_RETRY_AFTER_FORMS = ['absent', 'seconds', 'httpDate', 'overCap'] as const;
/**
 * Retry-After of a 429: none (the documented normal case), delta-seconds, an HTTP-date, or seconds over the 5 s cap.
 */
export type ErpRetryAfterForm = (typeof ERP_RETRY_AFTER_FORMS)[number];

export interface ErpSwitches {
  /** Real set name (case-insensitive) that answers 400 when `Data-Access-Intent: ReadOnly` is sent. Default null. */
  readOnlyIntentRejectedSet: string | null;
  /** Per-token sliding window: requests allowed per window, 0 = off (default). Over it → 429. */
  rateLimitRequests: number;
  /** Length of the sliding window (default 300000, the documented 5 minutes). */
  rateLimitWindowMs: number;
  /** Retry-After form of every 429 (window or fault). Default `absent`. */
  retryAfter429: ErpRetryAfterForm;
  /** Seconds of the `seconds`/`httpDate` forms and of the 503's Retry-After. Default 1. */
  retryAfterSeconds: number;
  /** Injected fault (default `none`). */
  fault: ErpFault;
  /** 0: the fault answers every matching request; N: the next N matching requests, then `fault` returns to `none`. */
  faultCount: number;
  /** Case-insensitive substring of the request path the fault is limited to (null: every upstream request). */
  faultPath: string | null;
  /** Delay of the `slow` fault (default 35000). */
  slowDelayMs: number;
  /** The static token counts as expired (401). Default false. */
  tokenExpired: boolean;
  /**
   * Status for a well-formed but unknown company GUID (code Internal_CompanyNotFound): 404 (default) or 400 (§3 allows
   * both).
   */
  unknownCompanyStatus: 404 | 400;
  /**
   * Raw query text appended to every `@odata.nextLink` (e.g. `$expand=*&$top=100000&callback=x`): a proxy or upstream
   * that tampers with next links. Default null.
   */
  nextLinkExtraQuery: string | null;
}

const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

export const SWITCH_CHECKS: { readonly [K in keyof ErpSwitches]: (value: unknown) => boolean } = {
  readOnlyIntentRejectedSet: (v) => v === null || (typeof v === 'string' && v.length > 0),
  rateLimitRequests: (v) => isCount(v, 1_000_000),
  rateLimitWindowMs: (v) => isCount(v, 3_600_000) && (v as number) > 0,
  retryAfter429: (v) => (ERP_RETRY_AFTER_FORMS as readonly unknown[]).includes(v),
  retryAfterSeconds: (v) => isCount(v, 86_400),
  fault: (v) => (ERP_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  faultPath: (v) => v === null || (typeof v === 'string' && v.length > 0),
  slowDelayMs: (v) => isCount(v, 600_000),
  tokenExpired: (v) => typeof v === 'boolean',
  unknownCompanyStatus: (v) => v === 404 || v === 400,
  nextLinkExtraQuery: (v) => v === null || (typeof v === 'string' && v.length > 0),
};

export const DEFAULT_SWITCHES: ErpSwitches = {
  readOnlyIntentRejectedSet: null,
  rateLimitRequests: 0,
  rateLimitWindowMs: 300_000,
  retryAfter429: 'absent',
  retryAfterSeconds: 1,
  fault: 'none',
  faultCount: 0,
  faultPath: null,
  slowDelayMs: ERP_DEFAULT_SLOW_DELAY_MS,
  tokenExpired: false,
  unknownCompanyStatus: 404,
  nextLinkExtraQuery: null,
};

// The Dinero sandbox's switches, their checks and defaults, and its documented constants (books.md §2).
import { switchError } from '../http-kit.ts';
import { BOOKS_THROTTLED_ORG_ID, BOOKS_TODAY } from './data.ts';

/** A static bearer token reaching the three demo organisations (tests, before the identity provider). */
export const BOOKS_SANDBOX_TOKEN = 'dinero-sandbox-token-Qm8v3Tz6';
/**
 * A static bearer token of another user who reaches only the free organisation (the Pro one answers 403: no access).
 */
export const BOOKS_SANDBOX_OTHER_USER_TOKEN = 'dinero-sandbox-other-Lp2x9Wc4';
/** The documented per-organisation quota: requests per minute (per client id). */
export const BOOKS_RATE_LIMIT_PER_MINUTE = 100;
export const BOOKS_MAX_PAGE_SIZE = 1000;
export const BOOKS_DEFAULT_PAGE_SIZE = 100;
export const BOOKS_FILES_DEFAULT_PAGE_SIZE = 1000;
export const BOOKS_REQUEST_LOG_MAX = 5_000;

export interface BooksTokenVerdict {
  readonly valid: boolean;
  readonly expired?: boolean;
  /** The organisations the token's user reaches (absent: the three demo organisations). */
  readonly organizations?: readonly number[];
  /** The token's client id: the quota is per organisation and client id. */
  readonly clientId?: string;
}
export type BooksTokenVerifier = (token: string) => BooksTokenVerdict;

export const BOOKS_FAULTS = ['none', 'serverError', 'throttled', 'slow', 'nonJson', 'badGateway'] as const;
/**
 * `serverError` 500 JSON `{code,message}`; `throttled` 429; `slow` answers after `slowDelayMs`; `nonJson` 200 HTML;
 * `badGateway` 502 HTML.
 */
export type BooksFault = (typeof BOOKS_FAULTS)[number];

export interface BooksSwitches {
  /** Requests per minute per organisation and client id; 0 = off. Default 100. */
  rateLimitPerMinute: number;
  /** Organisations whose quota is always spent (429). Default the throttled demo organisation. */
  throttledOrganizations: number[];
  /** Seconds of a Retry-After on every 429; null (the documented normal) sends none. */
  retryAfterSeconds: number | null;
  /** Path substring (case-insensitive) of an endpoint in brownout: answers 480. Default null. */
  brownoutPath: string | null;
  /**
   * Injected fault for `faultCount` requests (0 = until cleared), optionally only where the path contains `faultPath`.
   */
  fault: BooksFault;
  faultCount: number;
  faultPath: string | null;
  /** Delay of the `slow` fault (default 20000, over the connector's 15 s). */
  slowDelayMs: number;
  /** Added to every answer (latency injection). Default 0. */
  latencyMs: number;
  /** The body code of a no-Pro 403: 90 (current docs) or 48 (older docs). */
  proPlanCode: 90 | 48;
  /**
   * What `ResultWithoutFilter` counts: rows matching the filters before paging (the OpenAPI reading, default) or all
   * rows ignoring filters.
   */
  resultWithoutFilter: 'beforePaging' | 'ignoringFilters';
  /** `pageSize` over 1000: 400 (default) or clamped. */
  pageSizeOverMax: 'reject' | 'clamp';
  /** PDF answers carry `Content-Disposition` with a file name. Default true. */
  pdfContentDisposition: boolean;
  /** File downloads are streamed without Content-Length (the cap must trip while streaming). Default false. */
  streamFilesWithoutLength: boolean;
  /** An unknown guid answers 404 code 40 (default) or 400 code 40. */
  notFoundStatus: 404 | 400;
  /** Every token counts as expired (401). */
  tokenExpired: boolean;
  /** "Today" for the changes window and overdue lists. */
  today: string;
  /**
   * A `fields` name the endpoint does not document (sandbox/books/documented-fields.ts): 400 code 42
   * (default, so drift shows in tests) or left out of the answer. Recorded in stats either way.
   */
  unknownFields: 'reject' | 'ignore';
}

export const DEFAULT_SWITCHES: BooksSwitches = {
  rateLimitPerMinute: BOOKS_RATE_LIMIT_PER_MINUTE,
  throttledOrganizations: [BOOKS_THROTTLED_ORG_ID],
  retryAfterSeconds: null,
  brownoutPath: null,
  fault: 'none',
  faultCount: 0,
  faultPath: null,
  slowDelayMs: 20_000,
  latencyMs: 0,
  proPlanCode: 90,
  resultWithoutFilter: 'beforePaging',
  pageSizeOverMax: 'reject',
  pdfContentDisposition: true,
  streamFilesWithoutLength: false,
  notFoundStatus: 404,
  tokenExpired: false,
  today: BOOKS_TODAY,
  unknownFields: 'reject',
};

const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
export const SWITCH_CHECKS: { readonly [K in keyof BooksSwitches]: (value: unknown) => boolean } = {
  rateLimitPerMinute: (v) => isCount(v, 1_000_000),
  throttledOrganizations: (v) => Array.isArray(v) && v.every((x) => Number.isInteger(x)),
  retryAfterSeconds: (v) => v === null || isCount(v, 86_400),
  brownoutPath: (v) => v === null || (typeof v === 'string' && v.length > 0),
  fault: (v) => (BOOKS_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  faultPath: (v) => v === null || (typeof v === 'string' && v.length > 0),
  slowDelayMs: (v) => isCount(v, 600_000),
  latencyMs: (v) => isCount(v, 600_000),
  proPlanCode: (v) => v === 90 || v === 48,
  resultWithoutFilter: (v) => v === 'beforePaging' || v === 'ignoringFilters',
  pageSizeOverMax: (v) => v === 'reject' || v === 'clamp',
  pdfContentDisposition: (v) => typeof v === 'boolean',
  streamFilesWithoutLength: (v) => typeof v === 'boolean',
  notFoundStatus: (v) => v === 404 || v === 400,
  tokenExpired: (v) => typeof v === 'boolean',
  today: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
  unknownFields: (v) => v === 'reject' || v === 'ignore',
};

export const switchProblem = (partial: unknown): string | undefined => switchError(partial, SWITCH_CHECKS);

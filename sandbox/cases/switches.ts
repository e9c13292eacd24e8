// The case-management sandbox's switches, their checks and defaults, and its documented constants.
import type { IncomingHttpHeaders } from 'node:http';
import { CASES_SCHEMA_MODES, type CasesSchemaMode, type CasesSchemaShapes, DEFAULT_SCHEMA_SHAPES } from './schema.ts';

/** Suggested `delayMs` for a timeout test: longer than the gateway's 20 s upstream timeout. */
export const CASES_SLOW_DELAY_MS = 25_000;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
export const THROTTLE_BODY = {
  errors: [{ message: 'Too Many Attempts.', type: 'ThrottleRequestsException' }],
} as const;
export const UNAUTHENTICATED_MESSAGE = 'Unauthenticated.';

export interface CasesSwitches {
  /** Schema served: "extended" (default), "public" or "upper-enum". */
  schemaMode: CasesSchemaMode;
  /** `status` and `caseType`: objects `{ text }` (default, "object") or plain strings ("scalar"). */
  caseTexts: CasesSchemaShapes['caseTexts'];
  /** `orderBy` arguments: `[OrderByInput]` (default, "list") or one `OrderByInput` ("object"). */
  orderByShape: CasesSchemaShapes['orderBy'];
  /** `HoursFilterInput.case`: `Int` (default, "int") or `HourCaseFilterInput { id, includeSubcases }` ("object"). */
  hoursCaseFilter: CasesSchemaShapes['hoursCaseFilter'];
  /** false adds NoSchemaIntrospectionCustomRule to validation. Default true. */
  introspection: boolean;
  /** Reply to a missing/unknown/revoked token: HTTP 401 (default), HTTP 403, or HTTP 200 with an error. */
  unauthenticated: 'http401' | 'http403' | 'http200';
  /** Known tokens treated as unknown (a revoked key). */
  revokedTokens: string[];
  /** Largest accepted `pagination.limit` (default 200). */
  limitCap: number;
  /** Over the cap: "error" (default) or "clamp". */
  overCap: 'error' | 'clamp';
  /** `between.to`: "inclusive" (default) or "exclusive". */
  betweenTo: 'inclusive' | 'exclusive';
  /** Validation errors under `extensions.validation` (default) or the legacy top-level `validation` + `type`. */
  validationLayout: 'extensions' | 'legacy';
  /** Requests per token per sliding minute (default 60, or the start option). */
  rateLimitPerMinute: number;
  /** Throttle the next N /graphql requests regardless of the window (counts down). */
  throttleNext: number;
  /** A throttled request gets HTTP 429 (default) or HTTP 200 with the ThrottleRequestsException body. */
  throttleMode: 'http429' | 'http200';
  /**
   * Retry-After on throttled replies: "auto" (seconds until the window frees; 1 for forced), "none", or fixed seconds.
   */
  retryAfter: 'auto' | 'none' | number;
  /** `Type.field` failing with an SQLSTATE[42000] error beside partial data, e.g. "Query.salesInvoices"; null = off. */
  sqlErrorField: string | null;
  /** Delay before every /graphql reply, in ms (0 = none). */
  delayMs: number;
  /** Answer /graphql with an HTML 500 page. */
  html500: boolean;
  /**
   * Fail the next `count` /graphql requests with HTTP `status` (an HTML error page), then serve
   * normally again (counts down): a transient backend fault. Default `{ count: 0, status: 500 }`.
   */
  failNext: { count: number; status: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, otherwise the raw text (undefined when empty). */
  body: unknown;
}

export interface CasesSandboxStats {
  /** /graphql requests received (control requests excluded). */
  requests: number;
  /** Requests answered as throttled. */
  throttled: number;
  /** Requests answered as unauthenticated. */
  unauthenticated: number;
  lastRequest: RecordedRequest | null;
  /** Bodies of the last 200 /graphql requests, oldest first. */
  requestBodies: unknown[];
}

export interface CasesSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  schemaMode?: CasesSchemaMode;
  /** Schema shapes served (default DEFAULT_SCHEMA_SHAPES); switches `caseTexts`, `orderByShape`, `hoursCaseFilter`. */
  shapes?: Partial<CasesSchemaShapes>;
  /** Size of the per-token window (requests per minute); default 60. */
  rateLimitPerMinute?: number;
}

export function defaultSwitches(options: CasesSandboxOptions): CasesSwitches {
  return {
    schemaMode: options.schemaMode ?? 'extended',
    caseTexts: options.shapes?.caseTexts ?? DEFAULT_SCHEMA_SHAPES.caseTexts,
    orderByShape: options.shapes?.orderBy ?? DEFAULT_SCHEMA_SHAPES.orderBy,
    hoursCaseFilter: options.shapes?.hoursCaseFilter ?? DEFAULT_SCHEMA_SHAPES.hoursCaseFilter,
    introspection: true,
    unauthenticated: 'http401',
    revokedTokens: [],
    limitCap: 200,
    overCap: 'error',
    betweenTo: 'inclusive',
    validationLayout: 'extensions',
    rateLimitPerMinute: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    throttleNext: 0,
    throttleMode: 'http429',
    retryAfter: 'auto',
    sqlErrorField: null,
    delayMs: 0,
    html500: false,
    failNext: { count: 0, status: 500 },
  };
}

const oneOf =
  <T extends string>(...values: readonly T[]) =>
  (v: unknown): boolean =>
    typeof v === 'string' && (values as readonly string[]).includes(v);
const isInt =
  (min: number, max: number) =>
  (v: unknown): boolean =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

export const SWITCH_CHECKS: { [K in keyof CasesSwitches]: (value: unknown) => boolean } = {
  schemaMode: oneOf(...CASES_SCHEMA_MODES),
  caseTexts: oneOf('object', 'scalar'),
  orderByShape: oneOf('list', 'object'),
  hoursCaseFilter: oneOf('int', 'object'),
  introspection: (v) => typeof v === 'boolean',
  unauthenticated: oneOf('http401', 'http403', 'http200'),
  revokedTokens: (v) => Array.isArray(v) && v.every((t) => typeof t === 'string'),
  limitCap: isInt(1, 100_000),
  overCap: oneOf('error', 'clamp'),
  betweenTo: oneOf('inclusive', 'exclusive'),
  validationLayout: oneOf('extensions', 'legacy'),
  rateLimitPerMinute: isInt(1, 100_000_000),
  throttleNext: isInt(0, 1_000_000),
  throttleMode: oneOf('http429', 'http200'),
  retryAfter: (v) => v === 'auto' || v === 'none' || isInt(0, 86_400)(v),
  sqlErrorField: (v) => v === null || (typeof v === 'string' && /^[A-Za-z_]\w*\.[A-Za-z_]\w*$/.test(v)),
  delayMs: isInt(0, 600_000),
  html500: (v) => typeof v === 'boolean',
  failNext: (v) =>
    isPlainObject(v) &&
    Object.keys(v).every((k) => k === 'count' || k === 'status') &&
    isInt(0, 1_000_000)(v.count) &&
    isInt(400, 599)(v.status),
};

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

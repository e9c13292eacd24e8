// The ledger sandbox's switches, their checks and defaults (ledger.md §2–§4).

export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
export const REFRESH_TOKEN_LIFETIME_SECONDS = 7 * 24 * 3600;

export type LedgerFaultScope = 'all' | 'login' | 'query';

export interface LedgerSwitches {
  /** HTTP status of a failed login; the body is always a bare JSON string. Default 200. */
  loginFailureStatus: 200 | 400 | 401;
  /** Lifetime of newly minted JWTs; 0 mints tokens that are already expired. Default 3600. */
  tokenLifetimeSeconds: number;
  /** `CompanyClient`: every company of the logged-in user (`all`, default) or only the token's company. */
  companyClientMode: 'all' | 'loggedIn';
  /** Also accept ISO `yyyy-MM-dd` date literals in FilterValue (default false: only `dd-MM-yyyy`). */
  acceptIsoDates: boolean;
  /** `DebtorInvoiceClient` rows carry `Paid` (default true; the real flag is unconfirmed). */
  invoicePaidFlag: boolean;
  /** Enforce the per-user daily call limit (default false; calls are counted either way). */
  quotaEnabled: boolean;
  /** Calls per user per UTC day (default 5000). */
  quotaPerDay: number;
  /** Status once the quota is used up (default 429, text body). */
  quotaStatus: number;
  /** Whether logins count against the quota (default true; unconfirmed upstream). */
  quotaCountsLogin: boolean;
  /** Delay before answering requests in `faultScope` (default 0; up to 600000). */
  latencyMs: number;
  /** The next N requests in `faultScope` fail with `failStatus` and a text body (default 0). */
  failNextRequests: number;
  /** Status of the injected failures (default 500). */
  failStatus: number;
  /** Which requests latency and injected failures apply to (default `all`). */
  faultScope: LedgerFaultScope;
  /**
   * `/login` answers an HTML maintenance page (`text/html`) with this status instead of logging in,
   * as a load balancer or maintenance proxy in front of the WebAPI does during an outage. Default 0: off.
   */
  loginMaintenancePage: 0 | 200 | 503;
  /**
   * Rows whose sort keys are equal come in a different order on every request (as a database plan
   * may return them), so Skip/Take pages over a sort that is not unique repeat and skip rows. Sort
   * entries that make the order unique (a documented key such as `GLTransClient` `Voucher` +
   * `VoucherLine`) make it stable again. Default false: ties keep the natural row order.
   */
  unstableTieOrder: boolean;
  /**
   * A filter or sort entry naming a property the entity does not have: silently ignored
   * (`ignore`, ledger.md §4 and §3 #13), or answered 400 with a text body naming it (`reject`, as
   * ledger.md §2 believes the real WebAPI does for an unknown property). Default: the sandbox
   * option `unknownProperties`, else `ignore`.
   */
  unknownProperties: LedgerUnknownProperties;
}

/** How `Query/Get` treats a PropertyName the entity does not have. */
export type LedgerUnknownProperties = 'ignore' | 'reject';

/** The two behaviours, for suites that run against both (`describe.each`). */
export const LEDGER_UNKNOWN_PROPERTY_MODES: readonly LedgerUnknownProperties[] = ['ignore', 'reject'];

const isStatus = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599;
const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

export const SWITCH_CHECKS: { readonly [K in keyof LedgerSwitches]: (value: unknown) => boolean } = {
  loginFailureStatus: (v) => v === 200 || v === 400 || v === 401,
  tokenLifetimeSeconds: (v) => isCount(v, 10 * 365 * 24 * 3600),
  companyClientMode: (v) => v === 'all' || v === 'loggedIn',
  acceptIsoDates: (v) => typeof v === 'boolean',
  invoicePaidFlag: (v) => typeof v === 'boolean',
  quotaEnabled: (v) => typeof v === 'boolean',
  quotaPerDay: (v) => isCount(v, 10_000_000),
  quotaStatus: isStatus,
  quotaCountsLogin: (v) => typeof v === 'boolean',
  latencyMs: (v) => isCount(v, 600_000),
  failNextRequests: (v) => isCount(v, 1_000_000),
  failStatus: isStatus,
  faultScope: (v) => v === 'all' || v === 'login' || v === 'query',
  loginMaintenancePage: (v) => v === 0 || v === 200 || v === 503,
  unstableTieOrder: (v) => typeof v === 'boolean',
  unknownProperties: (v) => v === 'ignore' || v === 'reject',
};

export function defaultSwitches(
  tokenLifetimeSeconds: number,
  unknownProperties: LedgerUnknownProperties,
): LedgerSwitches {
  return {
    loginFailureStatus: 200,
    tokenLifetimeSeconds,
    companyClientMode: 'all',
    acceptIsoDates: false,
    invoicePaidFlag: true,
    quotaEnabled: false,
    quotaPerDay: 5000,
    quotaStatus: 429,
    quotaCountsLogin: true,
    latencyMs: 0,
    failNextRequests: 0,
    failStatus: 500,
    faultScope: 'all',
    loginMaintenancePage: 0,
    unstableTieOrder: false,
    unknownProperties,
  };
}

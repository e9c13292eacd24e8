// The call log of an account and the daily usage beside it, as the store keeps them
// (docs/decisions/portal.md, 'The call log keeps no arguments or results'). Never an argument or a
// result: what was called, by whom, when, how it ended and how long it took.

/** How a call ended: answered, answered with an error, or refused before the upstream stage. */
export type CallOutcome = 'ok' | 'error' | 'refused';

export const CALL_OUTCOMES: readonly CallOutcome[] = ['ok', 'error', 'refused'];

/** One tools/call, as the call log writer hands it to the store. */
export interface CallLogRow {
  readonly accountId: string;
  readonly at: Date;
  readonly instanceId: string;
  readonly tool: string;
  readonly outcome: CallOutcome;
  /** The outcome's code: `ok`, the error or refusal code (never a text that could carry data). */
  readonly detail: string;
  readonly userId: string;
  /** The API token's id (`oauth:<grant>` for an assistant connected with OAuth); never the token. */
  readonly tokenId: string;
  /** Null for a refusal (answered before the upstream stage). */
  readonly durationMs: number | null;
}

/** A stored call, with the token's label (or the OAuth client's name) when it is still known. */
export interface CallLogEntry extends CallLogRow {
  readonly id: number;
  readonly tokenLabel: string;
}

/** Metered calls of one day (`YYYY-MM-DD` in the billing time zone), endpoint instance and user. */
export interface DailyUsageRow {
  readonly accountId: string;
  readonly day: string;
  readonly instanceId: string;
  readonly userId: string;
  readonly calls: number;
}

/** Filters of the call log; absent ones match everything. */
export interface CallLogFilter {
  readonly instanceId?: string;
  readonly tool?: string;
  readonly outcome?: CallOutcome;
  readonly userId?: string;
}

export interface CallLogRepository {
  /** Appends calls and adds the daily usage, in one statement; rows of deleted accounts are dropped. */
  addCalls(calls: readonly CallLogRow[], daily: readonly DailyUsageRow[]): Promise<void>;
  /** Deletes calls older than `before` (every account); returns how many. */
  pruneCalls(before: Date): Promise<number>;
  /** Newest first, `limit` rows after skipping `offset`. */
  listCalls(accountId: string, filter: CallLogFilter, limit: number, offset: number): Promise<CallLogEntry[]>;
  /**
   * The endpoint instances and tools the account has metered calls of (from the daily and monthly usage, not a scan
   * of the call log), for the filter choices.
   */
  callChoices(accountId: string): Promise<{ instances: string[]; tools: string[] }>;
  /** The daily usage of one month (`YYYY-MM`), by day, instance and user. */
  dailyUsage(accountId: string, month: string): Promise<DailyUsageRow[]>;
  /** The months (`YYYY-MM`, newest first) with any usage of the account, monthly or daily. */
  usageMonths(accountId: string): Promise<string[]>;
}

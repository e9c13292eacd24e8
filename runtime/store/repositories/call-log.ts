// The call log of each account and the daily usage beside it (docs/decisions/portal.md, 'The call log
// keeps no arguments or results').
import type {
  CallLogEntry,
  CallLogFilter,
  CallLogRepository,
  CallLogRow,
  CallOutcome,
  DailyUsageRow,
} from '../call-log.ts';
import type { SqlClient } from '../sql-client.ts';
import { date, num } from './rows.ts';

interface CallDbRow {
  id: number | string;
  account_id: string;
  at: Date | string;
  instance_id: string;
  tool: string;
  outcome: CallOutcome;
  detail: string;
  user_id: string;
  token_id: string;
  duration_ms: number | null;
  token_label: string | null;
}

export class SqlCallLog implements CallLogRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async addCalls(calls: readonly CallLogRow[], daily: readonly DailyUsageRow[]): Promise<void> {
    if (calls.length === 0 && daily.length === 0) return;
    // Daily rows sorted, so concurrent flushes of two replicas lock them in the same order.
    const days = [...daily].sort((a, b) =>
      a.accountId !== b.accountId
        ? a.accountId < b.accountId
          ? -1
          : 1
        : `${a.day}|${a.instanceId}|${a.userId}` < `${b.day}|${b.instanceId}|${b.userId}`
          ? -1
          : 1,
    );
    const accounts = [...new Set([...calls.map((c) => c.accountId), ...days.map((d) => d.accountId)])];
    // One statement for the whole batch (the embedded engine runs on the event loop's thread). Rows
    // of an account deleted meanwhile are dropped instead of failing the batch.
    await this.#db.query(
      `WITH known AS (SELECT id FROM accounts WHERE id = ANY($1::text[])),
       calls AS (
         INSERT INTO call_log (account_id, at, instance_id, tool, outcome, detail, user_id, token_id, duration_ms)
         SELECT c.account_id, c.at, c.instance_id, c.tool, c.outcome, c.detail, c.user_id, c.token_id, c.duration_ms
           FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::text[], $10::integer[])
                AS c(account_id, at, instance_id, tool, outcome, detail, user_id, token_id, duration_ms)
          WHERE c.account_id IN (SELECT id FROM known)
         RETURNING 1)
       INSERT INTO usage_daily (account_id, day, instance_id, user_id, calls)
       SELECT d.account_id, d.day, d.instance_id, d.user_id, d.calls
         FROM unnest($11::text[], $12::date[], $13::text[], $14::text[], $15::bigint[])
              AS d(account_id, day, instance_id, user_id, calls)
        WHERE d.account_id IN (SELECT id FROM known)
        ORDER BY d.account_id, d.day, d.instance_id, d.user_id
       ON CONFLICT (account_id, day, instance_id, user_id) DO UPDATE SET calls = usage_daily.calls + excluded.calls`,
      [
        accounts,
        calls.map((c) => c.accountId),
        calls.map((c) => c.at.toISOString()),
        calls.map((c) => c.instanceId),
        calls.map((c) => c.tool),
        calls.map((c) => c.outcome),
        calls.map((c) => c.detail),
        calls.map((c) => c.userId),
        calls.map((c) => c.tokenId),
        calls.map((c) => c.durationMs),
        days.map((d) => d.accountId),
        days.map((d) => d.day),
        days.map((d) => d.instanceId),
        days.map((d) => d.userId),
        days.map((d) => d.calls),
      ],
    );
  }

  async pruneCalls(before: Date): Promise<number> {
    const { rows } = await this.#db.query<{ n: number | string }>(
      'WITH gone AS (DELETE FROM call_log WHERE at < $1 RETURNING 1) SELECT count(*) AS n FROM gone',
      [before.toISOString()],
    );
    return num(rows[0]?.n ?? 0);
  }

  async listCalls(accountId: string, filter: CallLogFilter, limit: number, offset: number): Promise<CallLogEntry[]> {
    const { rows } = await this.#db.query<CallDbRow>(
      `SELECT c.id, c.account_id, c.at, c.instance_id, c.tool, c.outcome, c.detail, c.user_id, c.token_id,
              c.duration_ms, coalesce(t.label, g.client_name) AS token_label
         FROM call_log c
         LEFT JOIN tokens t ON t.id = c.token_id
         LEFT JOIN mcp_grants g ON c.token_id = 'oauth:' || g.id
        WHERE c.account_id = $1
          AND ($2::text IS NULL OR c.instance_id = $2) AND ($3::text IS NULL OR c.tool = $3)
          AND ($4::text IS NULL OR c.outcome = $4) AND ($5::text IS NULL OR c.user_id = $5)
        ORDER BY c.at DESC, c.id DESC
        LIMIT $6 OFFSET $7`,
      [
        accountId,
        filter.instanceId ?? null,
        filter.tool ?? null,
        filter.outcome ?? null,
        filter.userId ?? null,
        limit,
        offset,
      ],
    );
    return rows.map((r) => ({
      id: num(r.id),
      accountId: r.account_id,
      at: date(r.at),
      instanceId: r.instance_id,
      tool: r.tool,
      outcome: r.outcome,
      detail: r.detail,
      userId: r.user_id,
      tokenId: r.token_id,
      durationMs: r.duration_ms === null ? null : num(r.duration_ms),
      tokenLabel: r.token_label ?? '',
    }));
  }

  async callChoices(accountId: string): Promise<{ instances: string[]; tools: string[] }> {
    const { rows } = await this.#db.query<{ kind: string; value: string }>(
      // From the aggregated tables (a row per day, instance and user; per month, connector and tool),
      // not a scan of every call the log keeps.
      `SELECT DISTINCT 'instance' AS kind, instance_id AS value FROM usage_daily WHERE account_id = $1
       UNION SELECT DISTINCT 'tool', tool FROM usage WHERE account_id = $1 ORDER BY 1, 2`,
      [accountId],
    );
    return {
      instances: rows.filter((r) => r.kind === 'instance').map((r) => r.value),
      tools: rows.filter((r) => r.kind === 'tool').map((r) => r.value),
    };
  }

  async dailyUsage(accountId: string, month: string): Promise<DailyUsageRow[]> {
    const { rows } = await this.#db.query<{
      account_id: string;
      day: string;
      instance_id: string;
      user_id: string;
      calls: number | string;
    }>(
      `SELECT account_id, to_char(day, 'YYYY-MM-DD') AS day, instance_id, user_id, calls FROM usage_daily
        WHERE account_id = $1 AND day >= $2::date AND day < ($2::date + interval '1 month')
        ORDER BY day, instance_id, user_id`,
      [accountId, `${month}-01`],
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      day: r.day,
      instanceId: r.instance_id,
      userId: r.user_id,
      calls: num(r.calls),
    }));
  }

  async usageMonths(accountId: string): Promise<string[]> {
    const { rows } = await this.#db.query<{ month: string }>(
      `SELECT month FROM usage WHERE account_id = $1
       UNION SELECT to_char(day, 'YYYY-MM') FROM usage_daily WHERE account_id = $1 ORDER BY 1 DESC`,
      [accountId],
    );
    return rows.map((r) => r.month);
  }
}

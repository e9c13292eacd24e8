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

/** One stored call: [at (epoch ms), instance, tool, outcome, detail, user, token id, duration ms or null]. */
type Entry = [number, string, string, CallOutcome, string, string, string, number | null];

interface BatchDbRow {
  id: number | string;
  last_at: Date | string;
  entries: string;
}

/** Batches read per statement while listing (each holds at most BATCH_CALLS calls). */
const BATCHES_PER_READ = 20;
/**
 * Calls of one batch at most: more of one account start another batch (IDS_PER_BATCH must stay above
 * it). The writer's statements carry up to two full batches.
 */
const BATCH_CALLS = 500;
/** An entry's id is its batch's id times this plus its place in the batch. */
const IDS_PER_BATCH = 1000;

/** Between the batches' entries in one text: JSON never leaves it unescaped inside a string. */
const RECORD_SEPARATOR = '\u001e';

/** A PostgreSQL array literal of text values (every element quoted, `"` and `\` escaped). */
function textArray(values: Iterable<string>): string {
  const quoted: string[] = [];
  for (const v of values) quoted.push(`"${v.replace(/["\\]/g, '\\$&')}"`);
  return `{${quoted.join(',')}}`;
}

/** A batch of one account's calls as the columns of `call_batches` take it. */
interface BatchParams {
  firstAt: number;
  lastAt: number;
  entries: Entry[];
  instances: Set<string>;
  tools: Set<string>;
  outcomes: Set<string>;
  users: Set<string>;
}

/**
 * The calls grouped into batches per account, at most BATCH_CALLS each, in the order given
 * (docs/decisions/portal.md, 'The call log is written in batches').
 */
function batchesOf(calls: readonly CallLogRow[]): [string, BatchParams][] {
  const open = new Map<string, BatchParams>();
  const batches: [string, BatchParams][] = [];
  for (const c of calls) {
    const at = c.at.getTime();
    let b = open.get(c.accountId);
    if (!b || b.entries.length >= BATCH_CALLS) {
      b = {
        firstAt: at,
        lastAt: at,
        entries: [],
        instances: new Set(),
        tools: new Set(),
        outcomes: new Set(),
        users: new Set(),
      };
      open.set(c.accountId, b);
      batches.push([c.accountId, b]);
    }
    if (at < b.firstAt) b.firstAt = at;
    if (at > b.lastAt) b.lastAt = at;
    b.entries.push([at, c.instanceId, c.tool, c.outcome, c.detail, c.userId, c.tokenId, c.durationMs]);
    b.instances.add(c.instanceId);
    b.tools.add(c.tool);
    b.outcomes.add(c.outcome);
    b.users.add(c.userId);
  }
  return batches;
}

function matches(e: Entry, filter: CallLogFilter): boolean {
  return (
    (filter.instanceId === undefined || e[1] === filter.instanceId) &&
    (filter.tool === undefined || e[2] === filter.tool) &&
    (filter.outcome === undefined || e[3] === filter.outcome) &&
    (filter.userId === undefined || e[5] === filter.userId)
  );
}

interface Found {
  readonly id: number;
  readonly entry: Entry;
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
    const batches = batchesOf(calls);
    const accounts = [...new Set([...batches.map(([accountId]) => accountId), ...days.map((d) => d.accountId)])];
    // One statement for the whole flush, a row per account (per 500 of its calls). Batches of an
    // account deleted meanwhile are dropped instead of failing the flush. The batches' entries travel
    // as one text, split by the engine (`string_to_array` on the record separator, which JSON escapes
    // inside strings), not as the elements of an array literal, which the embedded engine parsed
    // character by character: twice the CPU per call (docs/decisions/portal.md, 'The call log is
    // written in batches').
    await this.#db.query(
      `WITH known AS (SELECT id FROM accounts WHERE id = ANY($1::text[])),
       batches AS (
         INSERT INTO call_batches (account_id, first_at, last_at, calls, instances, tools, outcomes, users, entries)
         SELECT b.account_id, b.first_at, b.last_at, b.calls, b.instances::text[], b.tools::text[], b.outcomes::text[],
                b.users::text[], b.entries
           FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::integer[], $6::text[], $7::text[],
                       $8::text[], $9::text[], string_to_array($10::text, chr(30)))
                AS b(account_id, first_at, last_at, calls, instances, tools, outcomes, users, entries)
          WHERE b.account_id IN (SELECT id FROM known)
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
        batches.map(([accountId]) => accountId),
        batches.map(([, b]) => new Date(b.firstAt).toISOString()),
        batches.map(([, b]) => new Date(b.lastAt).toISOString()),
        batches.map(([, b]) => b.entries.length),
        batches.map(([, b]) => textArray(b.instances)),
        batches.map(([, b]) => textArray(b.tools)),
        batches.map(([, b]) => textArray(b.outcomes)),
        batches.map(([, b]) => textArray(b.users)),
        batches.map(([, b]) => JSON.stringify(b.entries)).join(RECORD_SEPARATOR),
        days.map((d) => d.accountId),
        days.map((d) => d.day),
        days.map((d) => d.instanceId),
        days.map((d) => d.userId),
        days.map((d) => d.calls),
      ],
    );
  }

  async pruneCalls(before: Date): Promise<number> {
    // Whole batches older than the cut-off go; a batch that spans it keeps its newer calls.
    const { rows } = await this.#db.query<{ n: number | string }>(
      `WITH gone AS (DELETE FROM call_batches WHERE first_at < $1 AND last_at < $1 RETURNING calls),
       kept AS (
         SELECT b.id, b.calls AS before, json_agg(x.e ORDER BY x.ord)::text AS entries, count(*)::integer AS calls,
                min((x.e->>0)::bigint) AS first_ms
           FROM call_batches b CROSS JOIN LATERAL json_array_elements(b.entries::json) WITH ORDINALITY AS x(e, ord)
          WHERE b.first_at < $1 AND b.last_at >= $1 AND (x.e->>0)::bigint >= $2::bigint
          GROUP BY b.id, b.calls),
       trimmed AS (
         UPDATE call_batches b SET entries = k.entries, calls = k.calls, first_at = to_timestamp(k.first_ms / 1000.0)
           FROM kept k WHERE b.id = k.id
         RETURNING k.before - k.calls AS removed)
       SELECT (SELECT coalesce(sum(calls), 0) FROM gone) + (SELECT coalesce(sum(removed), 0) FROM trimmed) AS n`,
      [before.toISOString(), String(before.getTime())],
    );
    return num(rows[0]?.n ?? 0);
  }

  /**
   * Newest first. Batches are read newest first (by their newest call) until the calls found that
   * are newer than every batch not read yet cover `offset + limit`: batches of two replicas can
   * overlap in time, so a call is placed only once no unread batch can hold a newer one.
   */
  async listCalls(accountId: string, filter: CallLogFilter, limit: number, offset: number): Promise<CallLogEntry[]> {
    const need = offset + limit;
    if (limit <= 0) return [];
    const found: Found[] = [];
    let cursor: { lastAt: string; id: string } | undefined;
    for (;;) {
      const { rows } = await this.#db.query<BatchDbRow>(
        `SELECT id, last_at, entries FROM call_batches
          WHERE account_id = $1
            AND ($2::text IS NULL OR $2 = ANY(instances)) AND ($3::text IS NULL OR $3 = ANY(tools))
            AND ($4::text IS NULL OR $4 = ANY(outcomes)) AND ($5::text IS NULL OR $5 = ANY(users))
            AND ($6::timestamptz IS NULL OR (last_at, id) < ($6::timestamptz, $7::bigint))
          ORDER BY last_at DESC, id DESC
          LIMIT $8`,
        [
          accountId,
          filter.instanceId ?? null,
          filter.tool ?? null,
          filter.outcome ?? null,
          filter.userId ?? null,
          cursor?.lastAt ?? null,
          cursor?.id ?? null,
          BATCHES_PER_READ,
        ],
      );
      for (const row of rows) {
        const entries = JSON.parse(row.entries) as Entry[];
        const base = num(row.id) * IDS_PER_BATCH;
        for (let i = 0; i < entries.length; i++)
          if (matches(entries[i]!, filter)) found.push({ id: base + i, entry: entries[i]! });
      }
      const last = rows.at(-1);
      if (rows.length < BATCHES_PER_READ || last === undefined) break;
      const horizon = date(last.last_at).getTime();
      let placed = 0;
      for (const f of found) if (f.entry[0] > horizon) placed++;
      if (placed >= need) break;
      cursor = { lastAt: date(last.last_at).toISOString(), id: String(last.id) };
    }
    found.sort((a, b) => b.entry[0] - a.entry[0] || b.id - a.id);
    const page = found.slice(offset, need);
    const labels = await this.#labels(page.map((f) => f.entry[6]));
    return page.map(({ id, entry: [at, instanceId, tool, outcome, detail, userId, tokenId, durationMs] }) => ({
      id,
      accountId,
      at: new Date(at),
      instanceId,
      tool,
      outcome,
      detail,
      userId,
      tokenId,
      durationMs,
      tokenLabel: labels.get(tokenId) ?? '',
    }));
  }

  /** The label of each API token, or the client name of each OAuth grant (`oauth:<grant>`), still known. */
  async #labels(tokenIds: readonly string[]): Promise<Map<string, string>> {
    const ids = [...new Set(tokenIds)].filter((id) => id !== '');
    if (ids.length === 0) return new Map();
    const { rows } = await this.#db.query<{ token_id: string; label: string | null }>(
      `SELECT id AS token_id, label FROM tokens WHERE id = ANY($1::text[])
       UNION ALL
       SELECT 'oauth:' || id, client_name FROM mcp_grants WHERE 'oauth:' || id = ANY($1::text[])`,
      [ids],
    );
    const labels = new Map<string, string>();
    for (const r of rows) if (r.label !== null && !labels.has(r.token_id)) labels.set(r.token_id, r.label);
    return labels;
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

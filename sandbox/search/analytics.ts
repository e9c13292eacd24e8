// searchAnalytics.query over the generated traffic of data.ts: the available days against
// "today" in Pacific time, the aggregation (kept while further pages are likely asked for), the
// page of rows and the fresh-data metadata (search.md §2).
import {
  aggregate,
  type Aggregation,
  dateOfDay,
  dayNumber,
  hourKey,
  SEARCH_FRESH_DAYS,
  SEARCH_HISTORY_DAYS,
  SEARCH_HOURLY_DAYS,
  type SearchSite,
} from './data.ts';
import { parseQuery } from './query-body.ts';

/** A grouping above this many rows answers 429 RESOURCE_EXHAUSTED, like Google's load quota. */
export const SEARCH_MAX_GROUPS = 500_000;

/** Today in Pacific time (Search Console's calendar), as a day number of data.ts. */
export function pacificToday(): number {
  return dayNumber(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/Los_Angeles',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date()),
  )!;
}

/** The two newest aggregations with further pages, so paging with startRow does not sum everything again (60 s). */
interface CacheEntry {
  readonly key: string;
  readonly result: Aggregation;
  readonly timer: NodeJS.Timeout;
}

export class AggregationCache {
  readonly #entries: CacheEntry[] = [];

  find(key: string): Aggregation | undefined {
    return this.#entries.find((c) => c.key === key)?.result;
  }

  remember(key: string, result: Aggregation): void {
    const entry: CacheEntry = { key, result, timer: setTimeout(() => this.#forget(entry), 60_000).unref() };
    this.#entries.unshift(entry);
    for (const old of this.#entries.slice(2)) this.#forget(old);
  }

  clear(): void {
    for (const entry of [...this.#entries]) this.#forget(entry);
  }

  #forget(entry: CacheEntry): void {
    clearTimeout(entry.timer);
    const at = this.#entries.indexOf(entry);
    if (at >= 0) this.#entries.splice(at, 1);
  }
}

/**
 * The answer to a valid query of `found` against "today" (`today`: YYYY-MM-DD, null the real date);
 * `cache` keeps an aggregation that has further pages.
 */
export function analytics(
  found: SearchSite,
  body: unknown,
  todaySwitch: string | null,
  cache: AggregationCache,
): Record<string, unknown> {
  const q = parseQuery(body);
  const today = todaySwitch === null ? pacificToday() : dayNumber(todaySwitch)!;
  const byHour = q.dimensions.includes('hour');
  // Hourly data exists for the newest SEARCH_HOURLY_DAYS only.
  const firstAvailable = byHour ? today - SEARCH_HOURLY_DAYS : today - SEARCH_HISTORY_DAYS;
  const lastAvailable = q.dataState === 'final' ? today - 1 - SEARCH_FRESH_DAYS : today - 1;
  const firstDay = Math.max(q.firstDay, firstAvailable);
  const lastDay = Math.min(q.lastDay, lastAvailable);
  const aggregationType = q.aggregation === 'auto' ? (q.byPage ? 'byPage' : 'byProperty') : q.aggregation;
  const answer: Record<string, unknown> = {};
  if (firstDay <= lastDay) {
    const key = JSON.stringify([found.prefix, q.type, firstDay, lastDay, q.dimensions, q.filterKey]);
    let result = cache.find(key);
    if (result === undefined) {
      result = aggregate({
        prefix: found.prefix,
        type: q.type,
        firstDay,
        lastDay,
        dimensions: q.dimensions,
        filters: q.filters,
        maxGroups: SEARCH_MAX_GROUPS,
      });
      // Kept only while a next page is likely asked for, and never longer than a minute (idle memory).
      if (result.length > q.startRow + q.rowLimit) cache.remember(key, result);
    }
    const rows = [];
    for (let i = q.startRow; i < Math.min(result.length, q.startRow + q.rowLimit); i++) {
      const { keys, ...metrics } = result.row(i);
      rows.push(q.dimensions.length === 0 ? metrics : { keys, ...metrics });
    }
    if (rows.length > 0) answer.rows = rows;
  }
  answer.responseAggregationType = aggregationType;
  const fresh = q.dataState !== 'final' && q.lastDay >= today - SEARCH_FRESH_DAYS;
  if (fresh && byHour) answer.metadata = { first_incomplete_hour: hourKey(today - SEARCH_FRESH_DAYS, 0) };
  else if (fresh && q.dimensions.includes('date'))
    answer.metadata = { first_incomplete_date: dateOfDay(today - SEARCH_FRESH_DAYS) };
  return answer;
}

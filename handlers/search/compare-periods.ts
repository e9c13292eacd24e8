import type { SearchHandler } from '#generated/search/contract.ts';
import {
  type AnalyticsRow,
  checkPeriod,
  type Metrics,
  MetricSums,
  queryAnalytics,
  type SearchSiteContext,
} from './client.ts';

/** What tells one page of rows from the next: a page equal to the one before is an upstream that ignored `startRow`. */
function pageSignature(rows: readonly AnalyticsRow[]): string {
  return JSON.stringify([rows.length, rows[0], rows[rows.length - 1]]);
}

/**
 * The totals of one period, summed over rows (doc 000 "Rules"). Without a dimension: the keyless
 * row of the whole property. With one: every row of that dimension, `rowLimit` 25,000 and paged
 * the way upstreams/search.md §2 documents it, `startRow += rowLimit` until a page has no rows
 * (a short page is not taken as the end: the doc does not promise full pages before the last),
 * inside the call's one 15 s deadline. A page identical to the one before (an upstream that
 * ignores `startRow`) ends the paging without being counted twice. Only the sums are kept.
 */
async function periodTotals(
  ctx: SearchSiteContext & { readonly limits: { readonly upstreamRowLimit: number } },
  siteUrl: string,
  startDate: string,
  endDate: string,
  dimension: string | undefined,
): Promise<Metrics> {
  const sums = new MetricSums();
  if (dimension === undefined) {
    for (const row of (await queryAnalytics(ctx, siteUrl, { startDate, endDate })).rows) sums.add(row);
    return sums.totals();
  }
  const rowLimit = ctx.limits.upstreamRowLimit;
  let previous: string | undefined;
  for (let startRow = 0; ; startRow += rowLimit) {
    const { rows } = await queryAnalytics(ctx, siteUrl, {
      startDate,
      endDate,
      dimensions: [dimension],
      rowLimit,
      startRow,
    });
    if (rows.length === 0) return sums.totals();
    ctx.progress(startRow + rows.length, undefined, `${startRow + rows.length} rows of ${startDate}–${endDate} read`);
    const signature = pageSignature(rows);
    if (signature === previous) return sums.totals();
    previous = signature;
    for (const row of rows) sums.add(row);
  }
}

/** B − A, and the change in percent of A (null when A is 0). */
function change(a: number, b: number): { absolute: number; percent: number | null } {
  return { absolute: b - a, percent: a === 0 ? null : ((b - a) / a) * 100 };
}

/** Period A is the baseline: every delta is periodB minus periodA. */
export const comparePeriods: SearchHandler<'compare_periods'> = async (args, ctx) => {
  const { siteUrl, periodAStart, periodAEnd, periodBStart, periodBEnd } = args;
  checkPeriod(ctx, periodAStart, periodAEnd);
  checkPeriod(ctx, periodBStart, periodBEnd);
  const [a, b] = await Promise.all([
    periodTotals(ctx, siteUrl, periodAStart, periodAEnd, args.dimension),
    periodTotals(ctx, siteUrl, periodBStart, periodBEnd, args.dimension),
  ]);
  return {
    siteUrl,
    dimension: args.dimension ?? null,
    periodA: { startDate: periodAStart, endDate: periodAEnd, totals: a },
    periodB: { startDate: periodBStart, endDate: periodBEnd, totals: b },
    delta: {
      clicks: change(a.clicks, b.clicks),
      impressions: change(a.impressions, b.impressions),
      ctr: { absolute: b.ctr - a.ctr },
      position: { absolute: b.position - a.position },
    },
  };
};

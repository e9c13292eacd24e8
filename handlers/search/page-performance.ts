import type { SearchHandler } from '#generated/search/contract.ts';
import { exactMetrics } from './client.ts';

/** One exact page URL on a property; zeros when it had no data in the period. */
export const pagePerformance: SearchHandler<'page_performance'> = async (args, ctx) => {
  const { siteUrl, page, startDate, endDate } = args;
  return { siteUrl, page, startDate, endDate, metrics: await exactMetrics(ctx, args, 'page', page) };
};

import type { SearchHandler } from '#generated/search/contract.ts';
import { exactMetrics } from './client.ts';

/** One exact query string on a property; zeros when it had no data in the period. */
export const queryPerformance: SearchHandler<'query_performance'> = async (args, ctx) => {
  const { siteUrl, query, startDate, endDate } = args;
  return { siteUrl, query, startDate, endDate, metrics: await exactMetrics(ctx, args, 'query', query) };
};

import type { SearchHandler } from '#generated/search/contract.ts';
import { topRows } from './client.ts';

/** The queries with the most clicks, grouped by `query` (anonymised queries are never rows). */
export const topQueries: SearchHandler<'top_queries'> = async (args, ctx) => ({
  siteUrl: args.siteUrl,
  startDate: args.startDate,
  endDate: args.endDate,
  queries: await topRows(ctx, args, 'query'),
});

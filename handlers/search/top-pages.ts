import type { SearchHandler } from '#generated/search/contract.ts';
import { topRows } from './client.ts';

/** The pages (full URLs) with the most clicks, grouped by `page`. */
export const topPages: SearchHandler<'top_pages'> = async (args, ctx) => ({
  siteUrl: args.siteUrl,
  startDate: args.startDate,
  endDate: args.endDate,
  pages: await topRows(ctx, args, 'page'),
});

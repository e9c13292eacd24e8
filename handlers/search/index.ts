import type { SearchHandlers } from '#generated/search/contract.ts';
import { listSites } from './list-sites.ts';
import { topQueries } from './top-queries.ts';
import { topPages } from './top-pages.ts';
import { queryPerformance } from './query-performance.ts';
import { pagePerformance } from './page-performance.ts';
import { comparePeriods } from './compare-periods.ts';
import { searchAnalyticsQuery } from './search-analytics-query.ts';

/** Every Search analytics tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const searchHandlers = {
  list_sites: listSites,
  top_queries: topQueries,
  top_pages: topPages,
  query_performance: queryPerformance,
  page_performance: pagePerformance,
  compare_periods: comparePeriods,
  search_analytics_query: searchAnalyticsQuery
} satisfies SearchHandlers;

import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__search_analytics_query`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const searchAnalyticsQuery: SearchHandler<'search_analytics_query'> = stub('search', 'search_analytics_query');

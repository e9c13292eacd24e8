import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__top_queries`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const topQueries: SearchHandler<'top_queries'> = stub('search', 'top_queries');

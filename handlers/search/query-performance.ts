import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__query_performance`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const queryPerformance: SearchHandler<'query_performance'> = stub('search', 'query_performance');

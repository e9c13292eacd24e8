import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__page_performance`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const pagePerformance: SearchHandler<'page_performance'> = stub('search', 'page_performance');

import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__compare_periods`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const comparePeriods: SearchHandler<'compare_periods'> = stub('search', 'compare_periods');

import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__top_pages`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const topPages: SearchHandler<'top_pages'> = stub('search', 'top_pages');

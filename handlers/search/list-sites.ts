import type { SearchHandler } from '../../generated/search/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `search__list_sites`: replace it with the upstream logic (see the spec in specs/search.yaml). */
export const listSites: SearchHandler<'list_sites'> = stub('search', 'list_sites');

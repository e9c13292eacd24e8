import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_recently_added_items`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listRecentlyAddedItems: LedgerHandler<'list_recently_added_items'> = stub('ledger', 'list_recently_added_items');

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_product_groups`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listProductGroups: LedgerHandler<'list_product_groups'> = stub('ledger', 'list_product_groups');

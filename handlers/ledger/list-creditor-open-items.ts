import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_creditor_open_items`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listCreditorOpenItems: LedgerHandler<'list_creditor_open_items'> = stub('ledger', 'list_creditor_open_items');

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_inventory_transactions`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listInventoryTransactions: LedgerHandler<'list_inventory_transactions'> = stub('ledger', 'list_inventory_transactions');

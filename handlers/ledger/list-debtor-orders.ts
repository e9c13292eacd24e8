import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_debtor_orders`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listDebtorOrders: LedgerHandler<'list_debtor_orders'> = stub('ledger', 'list_debtor_orders');

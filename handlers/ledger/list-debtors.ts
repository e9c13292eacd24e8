import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_debtors`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listDebtors: LedgerHandler<'list_debtors'> = stub('ledger', 'list_debtors');

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_creditor_transactions`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listCreditorTransactions: LedgerHandler<'list_creditor_transactions'> = stub('ledger', 'list_creditor_transactions');

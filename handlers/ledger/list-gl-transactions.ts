import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_gl_transactions`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listGlTransactions: LedgerHandler<'list_gl_transactions'> = stub('ledger', 'list_gl_transactions');

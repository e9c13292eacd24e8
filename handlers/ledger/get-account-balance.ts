import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__get_account_balance`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const getAccountBalance: LedgerHandler<'get_account_balance'> = stub('ledger', 'get_account_balance');

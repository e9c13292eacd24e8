import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__query`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const query: LedgerHandler<'query'> = stub('ledger', 'query');

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__aggregate`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const aggregate: LedgerHandler<'aggregate'> = stub('ledger', 'aggregate');

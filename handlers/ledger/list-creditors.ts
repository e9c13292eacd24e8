import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_creditors`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listCreditors: LedgerHandler<'list_creditors'> = stub('ledger', 'list_creditors');

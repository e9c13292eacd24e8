import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_companies`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listCompanies: LedgerHandler<'list_companies'> = stub('ledger', 'list_companies');

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_gl_accounts`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listGlAccounts: LedgerHandler<'list_gl_accounts'> = stub('ledger', 'list_gl_accounts');

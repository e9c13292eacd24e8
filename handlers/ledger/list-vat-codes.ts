import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_vat_codes`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listVatCodes: LedgerHandler<'list_vat_codes'> = stub('ledger', 'list_vat_codes');

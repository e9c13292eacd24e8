import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `ledger__list_debtor_invoices`: replace it with the upstream logic (see the spec in specs/ledger.yaml). */
export const listDebtorInvoices: LedgerHandler<'list_debtor_invoices'> = stub('ledger', 'list_debtor_invoices');

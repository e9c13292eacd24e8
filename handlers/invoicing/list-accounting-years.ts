import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_accounting_years`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listAccountingYears: InvoicingHandler<'list_accounting_years'> = stub('invoicing', 'list_accounting_years');

import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_accounting_periods`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listAccountingPeriods: InvoicingHandler<'list_accounting_periods'> = stub('invoicing', 'list_accounting_periods');

import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_year_account_totals`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listYearAccountTotals: InvoicingHandler<'list_year_account_totals'> = stub('invoicing', 'list_year_account_totals');

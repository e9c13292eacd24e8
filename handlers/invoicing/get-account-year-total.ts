import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__get_account_year_total`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const getAccountYearTotal: InvoicingHandler<'get_account_year_total'> = stub('invoicing', 'get_account_year_total');

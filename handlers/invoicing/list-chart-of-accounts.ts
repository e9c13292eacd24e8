import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_chart_of_accounts`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listChartOfAccounts: InvoicingHandler<'list_chart_of_accounts'> = stub('invoicing', 'list_chart_of_accounts');

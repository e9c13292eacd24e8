import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__get_invoice_totals`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const getInvoiceTotals: InvoicingHandler<'get_invoice_totals'> = stub('invoicing', 'get_invoice_totals');

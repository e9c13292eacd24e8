import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__get_booked_invoice`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const getBookedInvoice: InvoicingHandler<'get_booked_invoice'> = stub('invoicing', 'get_booked_invoice');

import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_booked_invoices`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listBookedInvoices: InvoicingHandler<'list_booked_invoices'> = stub('invoicing', 'list_booked_invoices');

import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { withInteger } from './list.ts';
import { encodeIdentifier } from './paths.ts';
import { economicRead, isRow } from './wire.ts';

const isBookedInvoice = withInteger('bookedInvoiceNumber');

/** `invoicing__get_booked_invoice`: GET /invoices/booked/{n}, with its lines (upstreams/invoicing.md §2). */
export const getBookedInvoice: InvoicingHandler<'get_booked_invoice'> = async (args, ctx) => {
  const body = await economicRead(ctx, `/invoices/booked/${encodeIdentifier(args.bookedInvoiceNumber)}`);
  if (!isRow(body) || !isBookedInvoice(body))
    throw new Error('e-conomic answered a booked-invoice read without a bookedInvoiceNumber');
  return body;
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v2/{o}/invoices/{guid}/payments`: the payments object (remaining amount negative when overpaid). */
export const listInvoicePayments: BooksHandler<'list_invoice_payments'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}/payments`, 'v2') },
    'a invoice payments',
  );
};

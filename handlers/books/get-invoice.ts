import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/invoices/{guid}` (`Accept: application/json`): lines, totals, VAT, FIK code, mail-out status. */
export const getInvoice: BooksHandler<'get_invoice'> = async (args, ctx) => {
  return objectRead(ctx, { path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}`) }, 'a invoice');
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readPdf, segment } from './client.ts';

/**
 * `GET /v1/{o}/invoices/{guid}` with `Accept: application/octet-stream`: booked invoices only (a draft is the
 * upstream's 400).
 */
export const downloadInvoicePdf: BooksHandler<'download_invoice_pdf'> = async (args, ctx) => ({
  invoiceGuid: args.invoiceGuid,
  ...(await readPdf(
    ctx,
    { path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}`) },
    `invoice-${args.invoiceGuid}.pdf`,
  )),
});

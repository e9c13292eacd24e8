import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/invoices/{guid}/reminders/next`: a preview; nothing is created. */
export const getNextInvoiceReminder: BooksHandler<'get_next_invoice_reminder'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}/reminders/next`) },
    'a next invoice reminder',
  );
};

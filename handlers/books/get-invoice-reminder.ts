import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/invoices/{guid}/reminders/{id}` (JSON). */
export const getInvoiceReminder: BooksHandler<'get_invoice_reminder'> = async (args, ctx) => {
  return objectRead(
    ctx,
    {
      path: orgPath(
        args.organizationId,
        `/invoices/${segment(args.invoiceGuid)}/reminders/${segment(args.reminderId)}`,
      ),
    },
    'a invoice reminder',
  );
};

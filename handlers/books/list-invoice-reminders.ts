import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath, segment, since } from './client.ts';

/** `GET /v1/{o}/invoices/{guid}/reminders` (at most 3) with `changesSince`. */
export const listInvoiceReminders: BooksHandler<'list_invoice_reminders'> = async (args, ctx) => {
  const { count, rows } = await countedList(
    ctx,
    {
      path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}/reminders`),
      query: { changesSince: since(args.changesSince) },
    },
    'the reminders',
  );
  return { count, reminders: rows };
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readPdf, segment } from './client.ts';

/** `GET /v1/{o}/invoices/{guid}/reminders/{id}` with `Accept: application/octet-stream`: the reminder's PDF. */
export const downloadInvoiceReminderPdf: BooksHandler<'download_invoice_reminder_pdf'> = (args, ctx) =>
  readPdf(
    ctx,
    {
      path: orgPath(
        args.organizationId,
        `/invoices/${segment(args.invoiceGuid)}/reminders/${segment(args.reminderId)}`,
      ),
    },
    `reminder-${args.reminderId}-invoice-${args.invoiceGuid}.pdf`,
  );

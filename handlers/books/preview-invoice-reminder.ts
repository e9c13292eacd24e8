import type { BooksHandler } from '#generated/books/contract.ts';
import { camelRow, dineroJson, objectBody, orgPath, segment } from './client.ts';

/** `POST /v1/{o}/invoices/{guid}/reminders/fetch`: a reminder calculated for a date; nothing is created or sent. */
export const previewInvoiceReminder: BooksHandler<'preview_invoice_reminder'> = async (args, ctx) => {
  const json = {
    Date: args.date,
    WithFee: args.withFee,
    WithInterestFee: args.withInterestFee,
    WithCompensationFee: args.withCompensationFee,
    WithDebtCollectionWarning: args.withDebtCollectionWarning,
  };
  const body = await dineroJson(ctx, {
    method: 'POST',
    path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}/reminders/fetch`),
    json,
  });
  return camelRow(objectBody(body, 'the reminder preview'));
};

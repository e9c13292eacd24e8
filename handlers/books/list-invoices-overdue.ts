import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readEnvelope } from './client.ts';
import { INVOICE_FIELDS, withAmountsNote } from './sales-list.ts';

/** `GET /v1/{o}/invoices?statusFilter=Overdue` (`Overdue,Booked` with `includeNotYetDue`, books.md §3 #11). */
export const listInvoicesOverdue: BooksHandler<'list_invoices_overdue'> = async (args, ctx) => {
  const envelope = await readEnvelope(
    ctx,
    orgPath(args.organizationId, '/invoices'),
    args,
    { fields: INVOICE_FIELDS, statusFilter: args.includeNotYetDue ? 'Overdue,Booked' : 'Overdue', deletedOnly: false },
    'the overdue invoices',
  );
  // Totals are full invoice totals in each row's currency; the note says where what remains unpaid is.
  return withAmountsNote(ctx, envelope, 'invoiceAmountsNote');
};

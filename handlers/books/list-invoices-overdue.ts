import type { BooksHandler } from '#generated/books/contract.ts';
import { dineroJson, envelopeOf, orgPath, pagingQuery } from './client.ts';
import { SALES_FIELDS } from './sales-list.ts';

/** `GET /v1/{o}/invoices?statusFilter=Overdue` (`Overdue,Booked` with `includeNotYetDue`, books.md §3 #11). */
export const listInvoicesOverdue: BooksHandler<'list_invoices_overdue'> = async (args, ctx) => {
  const paging = pagingQuery(args);
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, '/invoices'),
    query: { fields: SALES_FIELDS, statusFilter: args.includeNotYetDue ? 'Overdue,Booked' : 'Overdue', deletedOnly: false, ...paging },
  });
  return envelopeOf(body, paging, 'the overdue invoices');
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath } from './client.ts';
import { INVOICE_FIELDS, salesList } from './sales-list.ts';

/** `GET /v1/{o}/invoices`: the envelope with the sales filters (drafts ignore the date range). */
export const listInvoices: BooksHandler<'list_invoices'> = (args, ctx) =>
  salesList(ctx, orgPath(args.organizationId, '/invoices'), INVOICE_FIELDS, args, 'invoiceAmountsNote');

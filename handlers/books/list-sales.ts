import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath } from './client.ts';
import { SALES_FIELDS, salesList } from './sales-list.ts';

/** `GET /v1/{o}/sales`: the envelope with the sales filters (drafts ignore the date range). */
export const listSales: BooksHandler<'list_sales'> = (args, ctx) =>
  salesList(ctx, orgPath(args.organizationId, '/sales'), SALES_FIELDS, args, 'salesAmountsNote');

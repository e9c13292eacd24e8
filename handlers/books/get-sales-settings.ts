import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath } from './client.ts';

/** `GET /v1/{o}/sales/settings` (model `SalesVoucherSetttingsModel`), camel-cased. */
export const getSalesSettings: BooksHandler<'get_sales_settings'> = async (args, ctx) => {
  return objectRead(ctx, { path: orgPath(args.organizationId, '/sales/settings') }, 'the sales settings');
};

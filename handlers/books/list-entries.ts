import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, orgPath, prop, slicePage } from './client.ts';

/**
 * `GET /v1/{o}/entries` (one accounting year, checked upstream); `accountNumber`, `voucherType` and the page applied
 * here.
 */
export const listEntries: BooksHandler<'list_entries'> = async (args, ctx) => {
  // `includePrimo` is sent explicitly: the result must not depend on the upstream default (§3 #15).
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, '/entries'),
    query: { fromDate: args.fromDate, toDate: args.toDate, includePrimo: args.includePrimo },
  });
  const voucherType = args.voucherType?.toLowerCase();
  const rows = arrayBody(body, 'the entries').filter(
    (row) =>
      (args.accountNumber === undefined || prop(row, 'AccountNumber') === args.accountNumber) &&
      (voucherType === undefined || String(prop(row, 'VoucherType') ?? '').toLowerCase() === voucherType),
  );
  return slicePage(rows.map(camelRow), args.page, args.pageSize);
};

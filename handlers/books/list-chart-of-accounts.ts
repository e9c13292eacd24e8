import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, orgPath, prop, slicePage } from './client.ts';

/** `GET /v1/{o}/accounts/entry` with `categoryFilter`; hidden accounts, the range and the page are applied here. */
export const listChartOfAccounts: BooksHandler<'list_chart_of_accounts'> = async (args, ctx) => {
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, '/accounts/entry'),
    query: { fields: 'AccountNumber,Name,VatCode,Category,CategoryName,IsHidden', categoryFilter: args.category },
  });
  // Hidden accounts, the number range and paging are the connector's (books.md §3 #7).
  const rows = arrayBody(body, 'the chart of accounts').filter((row) => {
    const n = prop(row, 'AccountNumber');
    if (typeof n !== 'number') return false;
    if (!args.includeHidden && prop(row, 'IsHidden') === true) return false;
    if (args.accountNumberFrom !== undefined && n < args.accountNumberFrom) return false;
    return args.accountNumberTo === undefined || n <= args.accountNumberTo;
  });
  return slicePage(rows.map(camelRow), args.page, args.pageSize);
};

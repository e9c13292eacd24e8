import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, queryFilter, readEnvelope, since } from './client.ts';

/** `GET /v1/{o}/tradeoffers`: filters as `queryFilter` clauses, `status` applied to the returned page. */
export const listTradeOffers: BooksHandler<'list_trade_offers'> = async (args, ctx) => {
  const filter = queryFilter(ctx, [
    ['contactNameContains', 'ContactName', 'contains', args.contactNameContains],
    ['descriptionContains', 'Description', 'contains', args.descriptionContains],
    ['externalReference', 'ExternalReference', 'eq', args.externalReference],
    ['currency', 'Currency', 'eq', args.currency],
    ['number', 'Number', 'eq', args.number],
    ['date', 'Date', 'eq', args.date],
  ]);
  const page = await readEnvelope(
    ctx,
    orgPath(args.organizationId, '/tradeoffers'),
    args,
    {
      fields:
        'Number,Guid,ExternalReference,Date,Description,Status,ContactName,ContactGuid,' +
        'Currency,TotalExclVat,TotalInclVat,CreatedAt,UpdatedAt,DeletedAt',
      queryFilter: filter,
      freeTextSearch: args.freeTextSearch,
      changesSince: since(args.changesSince),
      deletedOnly: args.deletedOnly,
      sort: args.sort,
      sortOrder: args.sortOrder,
    },
    'the trade offers',
  );
  // No server-side status filter: the returned page is filtered here; `pagination` (and `hasMore`)
  // still describe the upstream page (books.md §3 #10).
  const status = args.status?.toLowerCase();
  return status === undefined
    ? page
    : { ...page, items: page.items.filter((item) => String(item['status'] ?? '').toLowerCase() === status) };
};

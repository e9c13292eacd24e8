import type { BooksHandler } from '#generated/books/contract.ts';
import { dineroJson, envelopeOf, orgPath, pagingQuery, queryFilter, utcTimestamp } from './client.ts';

/** `GET /v1/{o}/products`: `search` is the free text (name, number), exact filters as `queryFilter` clauses. */
export const listProducts: BooksHandler<'list_products'> = async (args, ctx) => {
  const filter = queryFilter(ctx, [
    ['productNumber', 'ProductNumber', 'eq', args.productNumber],
    ['externalReference', 'ExternalReference', 'eq', args.externalReference],
  ]);
  const paging = pagingQuery(args);
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, '/products'),
    query: {
      fields: 'ProductGuid,Name,ProductNumber,Quantity,Unit,AccountNumber,BaseAmountValue,BaseAmountValueInclVat,TotalAmount,TotalAmountInclVat,ExternalReference,CreatedAt,UpdatedAt,DeletedAt',
      freeTextSearch: args.search,
      queryFilter: filter,
      changesSince: args.changesSince === undefined ? undefined : utcTimestamp(args.changesSince),
      deletedOnly: args.deletedOnly,
      ...paging,
    },
  });
  return envelopeOf(body, paging, 'the products');
};

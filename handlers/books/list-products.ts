import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, queryFilter, readEnvelope, since } from './client.ts';

/** `GET /v1/{o}/products`: `search` is the free text (name, number), exact filters as `queryFilter` clauses. */
export const listProducts: BooksHandler<'list_products'> = async (args, ctx) => {
  const filter = queryFilter(ctx, [
    ['productNumber', 'ProductNumber', 'eq', args.productNumber],
    ['externalReference', 'ExternalReference', 'eq', args.externalReference],
  ]);
  return readEnvelope(
    ctx,
    orgPath(args.organizationId, '/products'),
    args,
    {
      fields: 'ProductGuid,Name,ProductNumber,Quantity,Unit,AccountNumber,BaseAmountValue,BaseAmountValueInclVat,TotalAmount,TotalAmountInclVat,ExternalReference,CreatedAt,UpdatedAt,DeletedAt',
      freeTextSearch: args.search,
      queryFilter: filter,
      changesSince: since(args.changesSince),
      deletedOnly: args.deletedOnly,
    },
    'the products',
  );
};

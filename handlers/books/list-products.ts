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
      // The product columns (books.md names no product model; the OpenAPI `fields` list does, and
      // ProductGuid is in its default). Quantity and TotalAmount* are an invoice line's defaults, not asked for.
      fields:
        'ProductGuid,Name,ProductNumber,Unit,AccountNumber,BaseAmountValue,' +
        'BaseAmountValueInclVat,ExternalReference,CreatedAt,UpdatedAt,DeletedAt',
      freeTextSearch: args.search,
      queryFilter: filter,
      changesSince: since(args.changesSince),
      deletedOnly: args.deletedOnly,
    },
    'the products',
  );
};

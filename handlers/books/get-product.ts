import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/products/{guid}` (with the comment the list omits). */
export const getProduct: BooksHandler<'get_product'> = async (args, ctx) => {
  return objectRead(ctx, { path: orgPath(args.organizationId, `/products/${segment(args.productGuid)}`) }, 'a product');
};

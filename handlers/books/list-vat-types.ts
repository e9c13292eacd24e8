import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath } from './client.ts';

/** `GET /v1/{o}/vatTypes`: `{VatCode, Name, VatRate}` with the rate as a fraction. */
export const listVatTypes: BooksHandler<'list_vat_types'> = async (args, ctx) => {
  const { count, rows } = await countedList(ctx, { path: orgPath(args.organizationId, '/vatTypes') }, 'the VAT types');
  // `vatRate` stays the upstream's fraction (0.25), never relabelled as a percentage (books.md §3 #17).
  return { count, vatTypes: rows };
};

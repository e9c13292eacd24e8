import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/vouchers/purchase/creditnotes/{guid}`. */
export const getPurchaseCreditNote: BooksHandler<'get_purchase_credit_note'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/vouchers/purchase/creditnotes/${segment(args.creditNoteGuid)}`) },
    'a purchase credit note',
  );
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/sales/creditnotes/{guid}` (with `creditNoteFor`). */
export const getCreditNote: BooksHandler<'get_credit_note'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/sales/creditnotes/${segment(args.creditNoteGuid)}`) },
    'a credit note',
  );
};

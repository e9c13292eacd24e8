import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/sales/creditnotes/{guid}/payments`: the payments object. */
export const listCreditNotePayments: BooksHandler<'list_credit_note_payments'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/sales/creditnotes/${segment(args.creditNoteGuid)}/payments`) },
    'a credit note payments',
  );
};

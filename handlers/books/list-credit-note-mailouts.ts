import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath, segment, since } from './client.ts';

/** `GET /v1/{o}/sales/creditnotes/{guid}/mailouts`: `changesSince` only (this endpoint has no `includeSms`). */
export const listCreditNoteMailouts: BooksHandler<'list_credit_note_mailouts'> = async (args, ctx) => {
  const { count, rows } = await countedList(
    ctx,
    {
      path: orgPath(args.organizationId, `/sales/creditnotes/${segment(args.creditNoteGuid)}/mailouts`),
      query: { changesSince: since(args.changesSince) },
    },
    'the mail-outs',
  );
  return { count, mailouts: rows };
};

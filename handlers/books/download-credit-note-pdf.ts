import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readPdf, segment } from './client.ts';

/** `GET /v1/{o}/sales/creditnotes/{guid}/pdf`: the PDF as base64. */
export const downloadCreditNotePdf: BooksHandler<'download_credit_note_pdf'> = async (args, ctx) => ({
  creditNoteGuid: args.creditNoteGuid,
  ...(await readPdf(
    ctx,
    { path: orgPath(args.organizationId, `/sales/creditnotes/${segment(args.creditNoteGuid)}/pdf`) },
    `credit-note-${args.creditNoteGuid}.pdf`,
  )),
});

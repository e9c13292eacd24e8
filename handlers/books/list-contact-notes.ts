import type { BooksHandler } from '#generated/books/contract.ts';
import { dineroJson, envelopeOf, orgPath, pagingQuery, segment } from './client.ts';

/** `GET /v1/{o}/contacts/{contactGuid}/notes`: the envelope. */
export const listContactNotes: BooksHandler<'list_contact_notes'> = async (args, ctx) => {
  const paging = pagingQuery(args);
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, `/contacts/${segment(args.contactGuid)}/notes`),
    query: { fields: 'Id,NoteDate,Text,AuthorName,AuthorEmail,CreatedAt,UpdatedAt,DeletedAt', deletedOnly: args.deletedOnly, ...paging },
  });
  return envelopeOf(body, paging, 'the contact notes');
};

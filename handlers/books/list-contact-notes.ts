import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readEnvelope, segment } from './client.ts';

/** `GET /v1/{o}/contacts/{contactGuid}/notes`: the envelope. */
export const listContactNotes: BooksHandler<'list_contact_notes'> = async (args, ctx) => {
  return readEnvelope(
    ctx,
    orgPath(args.organizationId, `/contacts/${segment(args.contactGuid)}/notes`),
    args,
    { fields: 'Id,NoteDate,Text,AuthorName,AuthorEmail,CreatedAt,UpdatedAt,DeletedAt', deletedOnly: args.deletedOnly },
    'the contact notes',
  );
};

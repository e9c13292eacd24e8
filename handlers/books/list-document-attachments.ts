import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath, segment } from './client.ts';

/**
 * `GET /v1/{o}/attachments/{documentGuid}`: `[{OrganizationId, DocumentId, FileGuid, FileName}]` of a sales document.
 */
export const listDocumentAttachments: BooksHandler<'list_document_attachments'> = async (args, ctx) => {
  const { count, rows } = await countedList(
    ctx,
    { path: orgPath(args.organizationId, `/attachments/${segment(args.documentGuid)}`) },
    'the attachments',
  );
  return { documentGuid: args.documentGuid, count, attachments: rows };
};

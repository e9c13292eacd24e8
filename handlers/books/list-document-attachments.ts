import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_document_attachments`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listDocumentAttachments: BooksHandler<'list_document_attachments'> = stub('books', 'list_document_attachments');

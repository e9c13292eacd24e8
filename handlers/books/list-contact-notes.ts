import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_contact_notes`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listContactNotes: BooksHandler<'list_contact_notes'> = stub('books', 'list_contact_notes');

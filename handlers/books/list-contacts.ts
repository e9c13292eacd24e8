import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_contacts`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listContacts: BooksHandler<'list_contacts'> = stub('books', 'list_contacts');

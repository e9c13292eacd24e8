import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_contact`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getContact: BooksHandler<'get_contact'> = stub('books', 'get_contact');

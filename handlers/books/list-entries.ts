import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_entries`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listEntries: BooksHandler<'list_entries'> = stub('books', 'list_entries');

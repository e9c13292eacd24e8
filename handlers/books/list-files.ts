import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_files`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listFiles: BooksHandler<'list_files'> = stub('books', 'list_files');

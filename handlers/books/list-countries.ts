import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_countries`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listCountries: BooksHandler<'list_countries'> = stub('books', 'list_countries');

import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__validate_connection`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const validateConnection: BooksHandler<'validate_connection'> = stub('books', 'validate_connection');

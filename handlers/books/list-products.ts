import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_products`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listProducts: BooksHandler<'list_products'> = stub('books', 'list_products');

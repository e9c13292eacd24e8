import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_product`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getProduct: BooksHandler<'get_product'> = stub('books', 'get_product');

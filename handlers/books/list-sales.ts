import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_sales`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listSales: BooksHandler<'list_sales'> = stub('books', 'list_sales');

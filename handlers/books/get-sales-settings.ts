import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_sales_settings`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getSalesSettings: BooksHandler<'get_sales_settings'> = stub('books', 'get_sales_settings');

import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_invoice`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getInvoice: BooksHandler<'get_invoice'> = stub('books', 'get_invoice');

import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_invoice_mailouts`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listInvoiceMailouts: BooksHandler<'list_invoice_mailouts'> = stub('books', 'list_invoice_mailouts');

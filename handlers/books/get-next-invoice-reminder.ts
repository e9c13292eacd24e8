import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_next_invoice_reminder`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getNextInvoiceReminder: BooksHandler<'get_next_invoice_reminder'> = stub('books', 'get_next_invoice_reminder');

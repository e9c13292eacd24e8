import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_invoice_payments`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listInvoicePayments: BooksHandler<'list_invoice_payments'> = stub('books', 'list_invoice_payments');

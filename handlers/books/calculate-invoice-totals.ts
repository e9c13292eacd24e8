import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__calculate_invoice_totals`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const calculateInvoiceTotals: BooksHandler<'calculate_invoice_totals'> = stub('books', 'calculate_invoice_totals');

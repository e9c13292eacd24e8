import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_invoices_overdue`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listInvoicesOverdue: BooksHandler<'list_invoices_overdue'> = stub('books', 'list_invoices_overdue');

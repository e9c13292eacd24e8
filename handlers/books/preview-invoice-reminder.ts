import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__preview_invoice_reminder`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const previewInvoiceReminder: BooksHandler<'preview_invoice_reminder'> = stub('books', 'preview_invoice_reminder');

import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__download_invoice_pdf`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const downloadInvoicePdf: BooksHandler<'download_invoice_pdf'> = stub('books', 'download_invoice_pdf');

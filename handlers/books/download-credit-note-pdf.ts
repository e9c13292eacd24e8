import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__download_credit_note_pdf`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const downloadCreditNotePdf: BooksHandler<'download_credit_note_pdf'> = stub('books', 'download_credit_note_pdf');

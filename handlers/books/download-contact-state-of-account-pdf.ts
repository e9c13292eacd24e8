import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__download_contact_state_of_account_pdf`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const downloadContactStateOfAccountPdf: BooksHandler<'download_contact_state_of_account_pdf'> = stub('books', 'download_contact_state_of_account_pdf');

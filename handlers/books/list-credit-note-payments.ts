import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_credit_note_payments`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listCreditNotePayments: BooksHandler<'list_credit_note_payments'> = stub('books', 'list_credit_note_payments');

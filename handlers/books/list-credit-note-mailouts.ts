import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_credit_note_mailouts`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listCreditNoteMailouts: BooksHandler<'list_credit_note_mailouts'> = stub('books', 'list_credit_note_mailouts');

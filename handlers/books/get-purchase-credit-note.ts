import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_purchase_credit_note`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getPurchaseCreditNote: BooksHandler<'get_purchase_credit_note'> = stub('books', 'get_purchase_credit_note');

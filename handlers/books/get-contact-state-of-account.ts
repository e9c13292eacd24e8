import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_contact_state_of_account`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getContactStateOfAccount: BooksHandler<'get_contact_state_of_account'> = stub('books', 'get_contact_state_of_account');

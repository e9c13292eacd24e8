import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_account_balance`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getAccountBalance: BooksHandler<'get_account_balance'> = stub('books', 'get_account_balance');

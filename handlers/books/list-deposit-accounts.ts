import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_deposit_accounts`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listDepositAccounts: BooksHandler<'list_deposit_accounts'> = stub('books', 'list_deposit_accounts');

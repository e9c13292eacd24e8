import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_chart_of_accounts`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listChartOfAccounts: BooksHandler<'list_chart_of_accounts'> = stub('books', 'list_chart_of_accounts');

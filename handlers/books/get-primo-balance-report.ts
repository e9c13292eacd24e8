import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_primo_balance_report`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getPrimoBalanceReport: BooksHandler<'get_primo_balance_report'> = stub('books', 'get_primo_balance_report');

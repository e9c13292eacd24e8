import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_saldo_balance_report`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getSaldoBalanceReport: BooksHandler<'get_saldo_balance_report'> = stub('books', 'get_saldo_balance_report');

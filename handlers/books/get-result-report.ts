import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_result_report`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getResultReport: BooksHandler<'get_result_report'> = stub('books', 'get_result_report');

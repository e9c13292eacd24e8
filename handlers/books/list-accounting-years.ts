import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_accounting_years`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listAccountingYears: BooksHandler<'list_accounting_years'> = stub('books', 'list_accounting_years');

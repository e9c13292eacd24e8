import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_vat_types`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listVatTypes: BooksHandler<'list_vat_types'> = stub('books', 'list_vat_types');

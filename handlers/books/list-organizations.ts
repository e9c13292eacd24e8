import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_organizations`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listOrganizations: BooksHandler<'list_organizations'> = stub('books', 'list_organizations');

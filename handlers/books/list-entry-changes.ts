import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_entry_changes`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listEntryChanges: BooksHandler<'list_entry_changes'> = stub('books', 'list_entry_changes');

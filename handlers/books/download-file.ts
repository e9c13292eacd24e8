import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__download_file`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const downloadFile: BooksHandler<'download_file'> = stub('books', 'download_file');

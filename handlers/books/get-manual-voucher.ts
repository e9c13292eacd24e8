import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_manual_voucher`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getManualVoucher: BooksHandler<'get_manual_voucher'> = stub('books', 'get_manual_voucher');

import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_purchase_voucher`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getPurchaseVoucher: BooksHandler<'get_purchase_voucher'> = stub('books', 'get_purchase_voucher');

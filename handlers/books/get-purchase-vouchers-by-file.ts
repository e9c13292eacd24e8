import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_purchase_vouchers_by_file`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getPurchaseVouchersByFile: BooksHandler<'get_purchase_vouchers_by_file'> = stub('books', 'get_purchase_vouchers_by_file');

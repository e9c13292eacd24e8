import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_purchase_voucher_payments`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getPurchaseVoucherPayments: BooksHandler<'get_purchase_voucher_payments'> = stub('books', 'get_purchase_voucher_payments');

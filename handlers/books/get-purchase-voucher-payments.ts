import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/purchase-vouchers/{voucherGuid}/payments`: a bare array. */
export const getPurchaseVoucherPayments: BooksHandler<'get_purchase_voucher_payments'> = async (args, ctx) => {
  const { count, rows } = await countedList(
    ctx,
    { path: orgPath(args.organizationId, `/purchase-vouchers/${segment(args.voucherGuid)}/payments`) },
    'the purchase voucher payments',
  );
  return { count, payments: rows };
};

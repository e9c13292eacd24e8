import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/vouchers/purchase/{guid}` (`PurchaseVoucherReadModelV2`). */
export const getPurchaseVoucher: BooksHandler<'get_purchase_voucher'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/vouchers/purchase/${segment(args.voucherGuid)}`) },
    'a purchase voucher',
  );
};

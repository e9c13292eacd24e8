import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/vouchers/manuel/{guid}` (the path says **manuel**). */
export const getManualVoucher: BooksHandler<'get_manual_voucher'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/vouchers/manuel/${segment(args.voucherGuid)}`) },
    'a manual voucher',
  );
};

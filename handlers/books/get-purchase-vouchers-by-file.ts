import type { BooksHandler } from '#generated/books/contract.ts';
import { dineroJson, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/vouchers/purchase/fileguid/{fileGuid}`: an array of voucher guids. */
export const getPurchaseVouchersByFile: BooksHandler<'get_purchase_vouchers_by_file'> = async (args, ctx) => {
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, `/vouchers/purchase/fileguid/${segment(args.fileGuid)}`),
  });
  if (!Array.isArray(body))
    throw new Error('Dinero answered the vouchers of a file with something other than an array');
  return { fileGuid: args.fileGuid, voucherGuids: body.filter((v): v is string => typeof v === 'string') };
};

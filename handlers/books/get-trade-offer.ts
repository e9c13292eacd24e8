import type { BooksHandler } from '#generated/books/contract.ts';
import { objectRead, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/tradeoffers/{guid}` (JSON): lines, totals, status, history, generated vouchers. */
export const getTradeOffer: BooksHandler<'get_trade_offer'> = async (args, ctx) => {
  return objectRead(
    ctx,
    { path: orgPath(args.organizationId, `/tradeoffers/${segment(args.tradeOfferGuid)}`) },
    'a trade offer',
  );
};

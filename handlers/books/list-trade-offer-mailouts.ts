import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath, segment, since } from './client.ts';

/** `GET /v1/{o}/tradeoffers/{guid}/mailouts` with `changesSince` and `includeSms`. */
export const listTradeOfferMailouts: BooksHandler<'list_trade_offer_mailouts'> = async (args, ctx) => {
  const { count, rows } = await countedList(
    ctx,
    {
      path: orgPath(args.organizationId, `/tradeoffers/${segment(args.tradeOfferGuid)}/mailouts`),
      query: { changesSince: since(args.changesSince), includeSms: args.includeSms },
    },
    'the mail-outs',
  );
  return { count, mailouts: rows };
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath, readPdf, segment } from './client.ts';

/** `GET /v1/{o}/tradeoffers/{guid}` with `Accept: application/octet-stream`: the PDF as base64. */
export const downloadTradeOfferPdf: BooksHandler<'download_trade_offer_pdf'> = async (args, ctx) => ({
  tradeOfferGuid: args.tradeOfferGuid,
  ...(await readPdf(
    ctx,
    { path: orgPath(args.organizationId, `/tradeoffers/${segment(args.tradeOfferGuid)}`) },
    `trade-offer-${args.tradeOfferGuid}.pdf`,
  )),
});

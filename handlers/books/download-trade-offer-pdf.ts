import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__download_trade_offer_pdf`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const downloadTradeOfferPdf: BooksHandler<'download_trade_offer_pdf'> = stub('books', 'download_trade_offer_pdf');

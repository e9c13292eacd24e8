import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__get_trade_offer`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const getTradeOffer: BooksHandler<'get_trade_offer'> = stub('books', 'get_trade_offer');

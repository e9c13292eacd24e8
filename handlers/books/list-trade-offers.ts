import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_trade_offers`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listTradeOffers: BooksHandler<'list_trade_offers'> = stub('books', 'list_trade_offers');

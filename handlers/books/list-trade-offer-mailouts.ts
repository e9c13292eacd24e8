import type { BooksHandler } from '../../generated/books/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `books__list_trade_offer_mailouts`: replace it with the upstream logic (see the spec in specs/books.yaml). */
export const listTradeOfferMailouts: BooksHandler<'list_trade_offer_mailouts'> = stub('books', 'list_trade_offer_mailouts');

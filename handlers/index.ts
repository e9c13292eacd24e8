import { booksHandlers } from './books/index.ts';
import { casesHandlers } from './cases/index.ts';
import { erpHandlers } from './erp/index.ts';
import { invoicingHandlers } from './invoicing/index.ts';
import { ledgerHandlers } from './ledger/index.ts';
import { registerHandlers } from './register/index.ts';
import { searchHandlers } from './search/index.ts';

/** Handler maps of every connector, keyed like generated/connectors.ts. */
export const connectorHandlers = {
  books: booksHandlers,
  cases: casesHandlers,
  erp: erpHandlers,
  invoicing: invoicingHandlers,
  ledger: ledgerHandlers,
  register: registerHandlers,
  search: searchHandlers
};

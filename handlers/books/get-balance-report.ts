import type { BooksHandler } from '#generated/books/contract.ts';
import { readReport } from './reports.ts';

/** `GET /v1/{o}/{accountingYear}/reports/balance`: the balance-sheet report, range applied here. */
export const getBalanceReport: BooksHandler<'get_balance_report'> = (args, ctx) => readReport(ctx, 'balance', args);

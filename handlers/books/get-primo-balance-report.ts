import type { BooksHandler } from '#generated/books/contract.ts';
import { readReport } from './reports.ts';

/** `GET /v1/{o}/{accountingYear}/reports/primo`: the opening-balance (primo) report, range applied here. */
export const getPrimoBalanceReport: BooksHandler<'get_primo_balance_report'> = (args, ctx) =>
  readReport(ctx, 'primo', args);

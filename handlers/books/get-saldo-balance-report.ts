import type { BooksHandler } from '#generated/books/contract.ts';
import { readReport } from './reports.ts';

/** `GET /v1/{o}/{accountingYear}/reports/saldo`: the saldo (trial balance) report, range applied here. */
export const getSaldoBalanceReport: BooksHandler<'get_saldo_balance_report'> = (args, ctx) =>
  readReport(ctx, 'saldo', args);

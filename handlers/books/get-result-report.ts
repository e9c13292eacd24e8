import type { BooksHandler } from '#generated/books/contract.ts';
import { readReport } from './reports.ts';

/** `GET /v1/{o}/{accountingYear}/reports/result`: the result (profit and loss) report, range applied here. */
export const getResultReport: BooksHandler<'get_result_report'> = (args, ctx) => readReport(ctx, 'result', args);

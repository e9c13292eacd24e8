import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, orgPath, prop } from './client.ts';

/** `GET /v1/{o}/accountingyears`: `[{Name, FromDate, ToDate}]`; the name is the reports' `accountingYear`. */
export const listAccountingYears: BooksHandler<'list_accounting_years'> = async (args, ctx) => {
  const rows = arrayBody(
    await dineroJson(ctx, { path: orgPath(args.organizationId, '/accountingyears') }),
    'the accounting years',
  );
  const years = rows.flatMap((row) => {
    const name = prop(row, 'Name');
    const fromDate = prop(row, 'FromDate');
    const toDate = prop(row, 'ToDate');
    if (typeof name !== 'string' || typeof fromDate !== 'string' || typeof toDate !== 'string') return [];
    return [{ ...camelRow(row), name, fromDate: fromDate.slice(0, 10), toDate: toDate.slice(0, 10) }];
  });
  return { count: years.length, years };
};

import type { BooksHandler } from '#generated/books/contract.ts';
import { readReport } from './reports.ts';

/**
 * No endpoint of its own (books.md §3 #18): the saldo report with zero and summary accounts
 * included (so an existing account with a zero balance is found), picked here.
 */
export const getAccountBalance: BooksHandler<'get_account_balance'> = async (args, ctx) => {
  const wanted = [...new Set(args.accountNumbers)].slice(0, ctx.limits.maxAccountNumbers);
  const report = await readReport(ctx, 'saldo', {
    organizationId: args.organizationId,
    accountingYear: args.accountingYear,
    includeZeroAccounts: true,
    includeSummaryAccounts: true,
  });
  const byNumber = new Map(report.rows.map((row) => [row.accountNumber, row]));
  return {
    accountingYear: args.accountingYear,
    accounts: wanted.flatMap((n) => byNumber.get(n) ?? []),
    notFound: wanted.filter((n) => !byNumber.has(n)),
  };
};

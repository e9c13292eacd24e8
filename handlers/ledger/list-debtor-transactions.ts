import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, dateRange, exact } from './filters.ts';
import { readWholeSet } from './list-result.ts';
import { postingOf } from './shared.ts';

/** `GLTransClient` postings of debtors: `account` on `DCAccount`, creditor postings dropped (§3 #6). */
export const listDebtorTransactions: LedgerHandler<'list_debtor_transactions'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'DCAccount', args.account), dateRange(ctx, 'Date', args.fromDate, args.toDate));
  return readWholeSet(await openSession(ctx), {
    entity: 'GLTransClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
    keep: postingOf('debtor'),
  });
};

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, dateRange, exact } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `GLTransClient` postings by exact G/L `Account` and posting `Date`. */
export const listGlTransactions: LedgerHandler<'list_gl_transactions'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account), dateRange(ctx, 'Date', args.fromDate, args.toDate));
  return readWholeSet(await openSession(ctx), {
    entity: 'GLTransClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/**
 * `DebtorTransOpenClient`; voucher, invoice, dates and amounts are inherited names (§3 #7), passed through as present.
 */
export const listDebtorOpenItems: LedgerHandler<'list_debtor_open_items'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account));
  return readWholeSet(await openSession(ctx), {
    entity: 'DebtorTransOpenClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

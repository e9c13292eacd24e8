import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `DebtorOrderClient`; the ledger has no order status, and none is derived (§3 #9). */
export const listDebtorOrders: LedgerHandler<'list_debtor_orders'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account));
  return readWholeSet(await openSession(ctx), {
    entity: 'DebtorOrderClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

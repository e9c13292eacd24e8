import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, dateRange, exact, list } from './filters.ts';
import { readList } from './list-result.ts';

/** `InvTransClient`: `item` as the list `a;b;c`, `account` on `DCAccount`, `Date` range; `offset` pages. */
export const listInventoryTransactions: LedgerHandler<'list_inventory_transactions'> = async (args, ctx) => {
  const filters = body(
    list(ctx, 'Item', args.item),
    exact(ctx, 'DCAccount', args.account),
    dateRange(ctx, 'Date', args.fromDate, args.toDate),
  );
  return readList(await openSession(ctx), {
    entity: 'InvTransClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
    ...(args.offset !== undefined ? { offset: args.offset } : {}),
  });
};

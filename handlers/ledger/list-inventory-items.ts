import type { LedgerHandler } from '#generated/ledger/contract.ts';
import type { ListInventoryItemsArgs } from '#generated/ledger/types.ts';
import { openSession } from './client.ts';
import { body, exact, search } from './filters.ts';
import { readList } from './list-result.ts';

/** `sortBy` names as entity properties (§3 #10). */
export const SORT_PROPERTIES: Readonly<Record<NonNullable<ListInventoryItemsArgs['sortBy']>, string>> = {
  item: 'Item',
  name: 'Name',
  sales_price: 'SalesPrice1',
  cost_price: 'CostPrice',
  quantity: 'QtyOnStock',
  last_movement: 'LastMovement',
};

/**
 * `InvItemClient`, or `InvItemClientUser` with the custom user fields (§3 #13). Without `sortBy`
 * and `offset` the whole filtered set is read; otherwise one page.
 */
export const listInventoryItems: LedgerHandler<'list_inventory_items'> = async (args, ctx) => {
  const filters = body(
    search(ctx, 'Name', args.search),
    exact(ctx, 'Item', args.item),
    exact(ctx, 'Group', args.group),
  );
  const entity = args.includeCustomFields ? 'InvItemClientUser' : 'InvItemClient';
  return readList(await openSession(ctx), {
    entity,
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
    ...(args.sortBy ? { sort: { property: SORT_PROPERTIES[args.sortBy], descending: args.sortDescending } } : {}),
    ...(args.offset !== undefined ? { offset: args.offset } : {}),
    ...(args.fields ? { fields: args.fields } : {}),
  });
};

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { readWholeSet } from './list-result.ts';

/** `InvGroupClient`, unfiltered. */
export const listProductGroups: LedgerHandler<'list_product_groups'> = async (args, ctx) =>
  readWholeSet(await openSession(ctx), {
    entity: 'InvGroupClient',
    filters: [],
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });

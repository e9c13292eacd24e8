import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `CreditorTransOpenClient`; inherited property names tolerated when absent (§3 #7). */
export const listCreditorOpenItems: LedgerHandler<'list_creditor_open_items'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account));
  return readWholeSet(await openSession(ctx), {
    entity: 'CreditorTransOpenClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

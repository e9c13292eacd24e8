import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact, search } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `CreditorClient`: `Name` search and exact `Account`. */
export const listCreditors: LedgerHandler<'list_creditors'> = async (args, ctx) => {
  const filters = body(search(ctx, 'Name', args.search), exact(ctx, 'Account', args.account));
  return readWholeSet(await openSession(ctx), {
    entity: 'CreditorClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact, search } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `GLAccountClient` (the chart of accounts): `Name` search and exact `Account`. */
export const listGlAccounts: LedgerHandler<'list_gl_accounts'> = async (args, ctx) => {
  const filters = body(search(ctx, 'Name', args.search), exact(ctx, 'Account', args.account));
  return readWholeSet(await openSession(ctx), {
    entity: 'GLAccountClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

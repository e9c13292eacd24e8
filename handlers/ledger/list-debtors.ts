import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact, search } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `DebtorClient`: `Name` search, exact `Account`, `cvr` exactly on `CompanyRegNo` (§3 #12). */
export const listDebtors: LedgerHandler<'list_debtors'> = async (args, ctx) => {
  const filters = body(
    search(ctx, 'Name', args.search),
    exact(ctx, 'Account', args.account),
    exact(ctx, 'CompanyRegNo', args.cvr),
  );
  return readWholeSet(await openSession(ctx), {
    entity: 'DebtorClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

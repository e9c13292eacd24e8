import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact } from './filters.ts';

/**
 * The `GLAccountClient` row whose `Account` equals `account` exactly, or null: the upstream matches
 * strings case-insensitively, so a row it returns that is spelled otherwise is no match.
 */
export const getAccountBalance: LedgerHandler<'get_account_balance'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account));
  const rows = await (await openSession(ctx)).query('GLAccountClient', filters);
  return rows.find((row) => row['Account'] === args.account) ?? null;
};

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, exact } from './filters.ts';

/** The `GLAccountClient` row whose `Account` is `account` (the exact spelling first), or null. */
export const getAccountBalance: LedgerHandler<'get_account_balance'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account));
  const rows = await (await openSession(ctx)).query('GLAccountClient', filters);
  return rows.find((row) => row['Account'] === args.account) ?? rows[0] ?? null;
};

import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { body, dateRange, exact } from './filters.ts';
import { readWholeSet } from './list-result.ts';

/** `DebtorInvoiceClient` by account and invoice `Date`; `Paid` only when the ledger sends it (§3 #8). */
export const listDebtorInvoices: LedgerHandler<'list_debtor_invoices'> = async (args, ctx) => {
  const filters = body(exact(ctx, 'Account', args.account), dateRange(ctx, 'Date', args.fromDate, args.toDate));
  return readWholeSet(await openSession(ctx), {
    entity: 'DebtorInvoiceClient',
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
};

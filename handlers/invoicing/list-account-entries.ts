import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter } from './filter.ts';
import { anyRow, readList } from './list.ts';
import { accountYearPath } from './paths.ts';

/**
 * `invoicing__list_account_entries`: GET /accounts/{accountNumber}/accounting-years/{year}/entries, the year encoded;
 * no sort (upstreams/invoicing.md §2), as the spec's list result.
 */
export const listAccountEntries: InvoicingHandler<'list_account_entries'> = async (args, ctx) =>
  readList(
    ctx,
    `${accountYearPath(args.accountNumber, args.year)}/entries`,
    { pagesize: args.pagesize, skippages: args.skippages, filter: checkedFilter(ctx, args.filter) },
    anyRow,
  );

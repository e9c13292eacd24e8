import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_chart_of_accounts`: GET /accounts (upstreams/invoicing.md §2), as the spec's list result. */
export const listChartOfAccounts: InvoicingHandler<'list_chart_of_accounts'> = async (args, ctx) =>
  readList(
    ctx,
    '/accounts',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('accountNumber'),
  );

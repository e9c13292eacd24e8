import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_customers`: GET /customers (upstreams/invoicing.md §2), as the spec's list result. */
export const listCustomers: InvoicingHandler<'list_customers'> = async (args, ctx) =>
  readList(
    ctx,
    '/customers',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('customerNumber'),
  );

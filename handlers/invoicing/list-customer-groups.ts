import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_customer_groups`: GET /customer-groups (upstreams/invoicing.md §2), as the spec's list result. */
export const listCustomerGroups: InvoicingHandler<'list_customer_groups'> = async (args, ctx) =>
  readList(
    ctx,
    '/customer-groups',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('customerGroupNumber'),
  );

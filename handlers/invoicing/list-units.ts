import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_units`: GET /units (upstreams/invoicing.md §2), as the spec's list result. */
export const listUnits: InvoicingHandler<'list_units'> = async (args, ctx) =>
  readList(
    ctx,
    '/units',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('unitNumber'),
  );

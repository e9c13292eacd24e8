import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_layouts`: GET /layouts (upstreams/invoicing.md §2), as the spec's list result. */
export const listLayouts: InvoicingHandler<'list_layouts'> = async (args, ctx) =>
  readList(
    ctx,
    '/layouts',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('layoutNumber'),
  );

import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_suppliers`: GET /suppliers (upstreams/invoicing.md §2), as the spec's list result. */
export const listSuppliers: InvoicingHandler<'list_suppliers'> = async (args, ctx) =>
  readList(
    ctx,
    '/suppliers',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('supplierNumber'),
  );

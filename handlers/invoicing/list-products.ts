import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withString, readList } from './list.ts';

/**
 * `invoicing__list_products`: GET /products (productNumber is a string) (upstreams/invoicing.md §2), as the spec's list
 * result.
 */
export const listProducts: InvoicingHandler<'list_products'> = async (args, ctx) =>
  readList(
    ctx,
    '/products',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withString('productNumber'),
  );

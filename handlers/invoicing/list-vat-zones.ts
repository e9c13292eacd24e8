import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_vat_zones`: GET /vat-zones (upstreams/invoicing.md §2), as the spec's list result. */
export const listVatZones: InvoicingHandler<'list_vat_zones'> = async (args, ctx) =>
  readList(
    ctx,
    '/vat-zones',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('vatZoneNumber'),
  );

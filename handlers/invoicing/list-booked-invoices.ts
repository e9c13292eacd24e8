import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/**
 * `invoicing__list_booked_invoices`: GET /invoices/booked (without lines) (upstreams/invoicing.md §2), as the spec's
 * list result.
 */
export const listBookedInvoices: InvoicingHandler<'list_booked_invoices'> = async (args, ctx) =>
  readList(
    ctx,
    '/invoices/booked',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('bookedInvoiceNumber'),
  );

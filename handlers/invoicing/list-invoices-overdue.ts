import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_invoices_overdue`: GET /invoices/overdue (upstreams/invoicing.md §2), as the spec's list result. */
export const listInvoicesOverdue: InvoicingHandler<'list_invoices_overdue'> = async (args, ctx) =>
  readList(
    ctx,
    '/invoices/overdue',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('bookedInvoiceNumber'),
  );

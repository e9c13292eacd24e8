import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_draft_invoices`: GET /invoices/drafts (upstreams/invoicing.md §2), as the spec's list result. */
export const listDraftInvoices: InvoicingHandler<'list_draft_invoices'> = async (args, ctx) =>
  readList(
    ctx,
    '/invoices/drafts',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('draftInvoiceNumber'),
  );

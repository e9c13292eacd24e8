import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { checkedFilter, checkedSort } from './filter.ts';
import { withInteger, readList } from './list.ts';

/** `invoicing__list_payment_terms`: GET /payment-terms (upstreams/invoicing.md §2), as the spec's list result. */
export const listPaymentTerms: InvoicingHandler<'list_payment_terms'> = async (args, ctx) =>
  readList(
    ctx,
    '/payment-terms',
    {
      pagesize: args.pagesize,
      skippages: args.skippages,
      filter: checkedFilter(ctx, args.filter),
      sort: checkedSort(ctx, args.sort),
    },
    withInteger('paymentTermsNumber'),
  );

import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { withString, readList } from './list.ts';

/** `invoicing__list_accounting_years`: GET /accounting-years (upstreams/invoicing.md §2), as the spec's list result. */
export const listAccountingYears: InvoicingHandler<'list_accounting_years'> = async (args, ctx) =>
  readList(ctx, '/accounting-years', { pagesize: args.pagesize, skippages: args.skippages }, withString('year'));

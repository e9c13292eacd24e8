import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { withInteger, readList } from './list.ts';
import { yearPath } from './paths.ts';

/**
 * `invoicing__list_accounting_periods`: GET /accounting-years/{year}/periods, the year encoded (2023/2024 →
 * 2023_6_2024) (upstreams/invoicing.md §2), as the spec's list result.
 */
export const listAccountingPeriods: InvoicingHandler<'list_accounting_periods'> = async (args, ctx) =>
  readList(
    ctx,
    `${yearPath(args.year)}/periods`,
    { pagesize: args.pagesize, skippages: args.skippages },
    withInteger('periodNumber'),
  );

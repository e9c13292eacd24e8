import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { anyRow, readList } from './list.ts';
import { yearPath } from './paths.ts';

/**
 * `invoicing__list_year_account_totals`: GET /accounting-years/{year}/totals, the year encoded (2023/2024 →
 * 2023_6_2024) (upstreams/invoicing.md §2), as the spec's list result.
 */
export const listYearAccountTotals: InvoicingHandler<'list_year_account_totals'> = async (args, ctx) =>
  readList(ctx, `${yearPath(args.year)}/totals`, { pagesize: args.pagesize, skippages: args.skippages }, anyRow);

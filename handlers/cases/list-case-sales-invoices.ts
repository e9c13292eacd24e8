import type { CasesHandler } from '#generated/cases/contract.ts';
import { readInvoices } from './rows.ts';
import { schemaMap } from './schema-map.ts';
import { capResult, periodOf, sum } from './shared.ts';

export const listCaseSalesInvoices: CasesHandler<'list_case_sales_invoices'> = async (args, ctx) => {
  const period = periodOf(ctx, args.from, args.to);
  const map = await schemaMap(ctx);
  const { rows, truncated } = await readInvoices(
    ctx,
    map,
    args.caseId,
    period,
    args.maxRows,
    ctx.limits.upstreamPageSize,
  );
  return capResult(ctx, {
    caseId: args.caseId,
    period,
    count: rows.length,
    amountTotal: sum(rows.map((r) => r.amount)),
    items: rows,
    truncated,
    amountsNote: ctx.text('amountsNote'),
  });
};

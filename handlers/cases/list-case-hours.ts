import type { CasesHandler } from '#generated/cases/contract.ts';
import { readHours } from './rows.ts';
import { schemaMap } from './schema-map.ts';
import { capResult, periodOf, sum } from './shared.ts';

export const listCaseHours: CasesHandler<'list_case_hours'> = async (args, ctx) => {
  const period = periodOf(ctx, args.from, args.to);
  const map = await schemaMap(ctx);
  const { rows, truncated } = await readHours(ctx, map, args.caseId, period, args.maxRows, ctx.limits.upstreamPageSize);
  const items = rows.map((r) => ({ costPrice: r.costPrice }));
  return capResult(ctx, {
    caseId: args.caseId,
    period,
    count: items.length,
    costPriceTotal: sum(items.map((i) => i.costPrice)),
    items,
    truncated,
    amountsNote: ctx.text('amountsNote'),
  });
};

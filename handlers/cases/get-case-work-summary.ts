import type { CasesHandler } from '#generated/cases/contract.ts';
import type { FailureSummary } from '#runtime/handler-api/tool-context.ts';
import { failureCode } from '#runtime/handler-api/tool-error.ts';
import { runQuery } from './graphql-client.ts';
import { readHours, readInvoices } from './rows.ts';
import { schemaMap } from './schema-map.ts';
import { capResult, periodOf, sum } from './shared.ts';

/** `'<ErrorName>: <message>'` for a failed section, the message cut at the spec's 200 characters. */
function unavailable({ name, message }: FailureSummary, maxChars: number): { unavailable: string } {
  return { unavailable: `${name}: ${message.slice(0, maxChars)}` };
}

/** Fatal for the whole call: a rejected key or a rate limit in any section. */
const fatal = (e: unknown) => failureCode(e) === 'key_rejected' || failureCode(e) === 'throttled';

export const getCaseWorkSummary: CasesHandler<'get_case_work_summary'> = async (args, ctx) => {
  const period = periodOf(ctx, args.from, args.to);
  const map = await schemaMap(ctx);
  const pageSize = ctx.limits.upstreamPageSize;
  const cut = ctx.limits.unavailableMessageMaxChars;
  const [hours, materials, invoices] = await Promise.allSettled([
    readHours(ctx, map, args.caseId, period, ctx.limits.hoursMaxRows, pageSize).then(({ rows, truncated }) => ({
      rows: rows.length,
      costPriceTotal: sum(rows.map((r) => r.costPrice)),
      truncated,
    })),
    (async () => {
      if (!map.economyFields.has('materialsCostprice')) ctx.fail('materials_total_unknown');
      const data = await runQuery<{ caseById: { economy: { materialsCostprice: unknown } | null } | null }>(
        ctx,
        'query CaseMaterials($id: Int!) { caseById(id: $id) { economy { materialsCostprice } } }',
        { id: args.caseId },
      );
      if (!data.caseById) return ctx.fail('case_not_found');
      const total = data.caseById.economy?.materialsCostprice;
      return { totalCostPrice: typeof total === 'number' ? total : 0, scope: ctx.text('materialsScope') };
    })(),
    readInvoices(ctx, map, args.caseId, period, ctx.limits.salesInvoicesMaxRows, pageSize).then(
      ({ rows, truncated }) => ({
        count: rows.length,
        amountTotal: sum(rows.map((r) => r.amount)),
        invoiceIds: rows.map((r) => r.id),
        truncated,
      }),
    ),
  ]);
  const sections = [hours, materials, invoices];
  for (const s of sections) if (s.status === 'rejected' && fatal(s.reason)) throw s.reason;
  if (sections.every((s) => s.status === 'rejected')) {
    const first = (sections[0] as PromiseRejectedResult).reason;
    if (failureCode(first) !== undefined) throw first;
    ctx.fail('generic');
  }
  const value = <T>(s: PromiseSettledResult<T>) =>
    s.status === 'fulfilled' ? s.value : unavailable(ctx.describeFailure(s.reason), cut);
  return capResult(ctx, {
    caseId: args.caseId,
    period,
    hours: value(hours),
    materials: value(materials),
    salesInvoices: value(invoices),
    amountsNote: ctx.text('amountsNote'),
  });
};

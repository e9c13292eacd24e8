import type { CasesHandler } from '#generated/cases/contract.ts';
import { runQuery } from './graphql-client.ts';
import { capResult } from './shared.ts';

/**
 * A free read-only query: checked (a document over the cost limit gets its own text), sent as is, and the upstream
 * `data` returned unchanged.
 */
export const graphqlQuery: CasesHandler<'graphql_query'> = async (args, ctx) => {
  const data = await runQuery<Record<string, unknown>>(
    ctx,
    args.query,
    args.variables as Record<string, unknown> | undefined,
    (cost) =>
      ctx.refuseArguments('document_too_costly', {
        list_selections: cost.listSelections,
        max_list_selections: ctx.limits.documentMaxListSelections,
        estimated_rows: cost.estimatedRows,
        max_estimated_rows: ctx.limits.documentMaxEstimatedRows,
        assumed_page_size: ctx.limits.documentAssumedPageSize,
      }),
  );
  return capResult(ctx, data);
};

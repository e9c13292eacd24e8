import type { CasesHandler } from '#generated/cases/contract.ts';
import { runQuery } from './graphql-client.ts';
import { toCase } from './case-object.ts';
import { caseSelection, schemaMap, withLearnedShapes } from './schema-map.ts';
import { capResult } from './shared.ts';

/** The case or null; an unknown id comes back from the upstream as a validation error naming `id`. */
export const getCase: CasesHandler<'get_case'> = async (args, ctx) => {
  const data = await withLearnedShapes(ctx, await schemaMap(ctx), (map) =>
    runQuery<{ caseById: Record<string, unknown> | null }>(
      ctx,
      `query GetCase($id: Int!) { caseById(id: $id) { ${caseSelection(map)} } }`,
      { id: args.id },
    ),
  );
  return capResult(ctx, data.caseById ? { ...toCase(data.caseById), amountsNote: ctx.text('amountsNote') } : null);
};

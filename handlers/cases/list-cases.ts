import type { CasesHandler } from '#generated/cases/contract.ts';
import { runQuery } from './graphql-client.ts';
import { toCase } from './case-object.ts';
import { caseSelection, casesOrderBy, schemaMap, withLearnedShapes } from './schema-map.ts';
import { capResult } from './shared.ts';

/** One page of cases with the upstream's cursor passed through; orderBy in the single-object form. */
export const listCases: CasesHandler<'list_cases'> = async (args, ctx) => {
  const data = await withLearnedShapes(ctx, await schemaMap(ctx), (map) =>
    runQuery<{ cases: { items: Array<Record<string, unknown>>; nextCursor: string | null } | null }>(
      ctx,
      `query ListCases($cursor: String, $limit: Int!) {
  cases(pagination: { cursor: $cursor, limit: $limit }${casesOrderBy(map, args.orderBy, args.direction)}) {
    items { ${caseSelection(map)} }
    nextCursor
  }
}`,
      { cursor: args.cursor ?? null, limit: args.limit },
    ),
  );
  const items = (data.cases?.items ?? []).map(toCase);
  const nextCursor = data.cases?.nextCursor ?? null;
  return capResult(ctx, {
    count: items.length,
    items,
    nextCursor,
    hasMore: nextCursor !== null,
    amountsNote: ctx.text('amountsNote'),
  });
};

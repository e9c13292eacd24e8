import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { entityName, openSession, type QueryFilter } from './client.ts';
import { readList } from './list-result.ts';

/**
 * Any entity with the caller's filters passed through as they are (they are the upstream syntax);
 * `orderBy` or `offset` reads one page. A 4xx from Query/Get is `query_rejected` with its status.
 */
export const query: LedgerHandler<'query'> = async (args, ctx) => {
  const entity = entityName(ctx, args.entity);
  const filters: QueryFilter[] = args.filters.map((f) => ({
    PropertyName: f.PropertyName,
    FilterValue: f.FilterValue,
  }));
  return readList(await openSession(ctx, { onRejectedQuery: (status) => ctx.fail('query_rejected', { status }) }), {
    entity,
    filters,
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
    ...(args.orderBy !== undefined ? { sort: { property: args.orderBy, descending: args.descending } } : {}),
    ...(args.offset !== undefined ? { offset: args.offset } : {}),
    ...(args.fields ? { fields: args.fields } : {}),
  });
};

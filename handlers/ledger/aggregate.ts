import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { entityName, openSession, type QueryFilter } from './client.ts';
import { body, dateRange, pageEntry, sortEntry } from './filters.ts';
import { GroupFold } from './fold.ts';

/**
 * Pages through every matching row (`Skip`/`Take` of `upstreamPageSize`, at most `maxPages`
 * pages) in a stable order and folds each page into groups as it arrives, so no more than one
 * page of rows is ever held; nothing is stored. More than `maxGroups` groups stops the reading at
 * once with `too_many_groups`. `truncated` when the last allowed page was full.
 */
export const aggregate: LedgerHandler<'aggregate'> = async (args, ctx) => {
  const entity = entityName(ctx, args.entity);
  const pageSize = ctx.limits.upstreamPageSize;
  const maxPages = ctx.limits.maxPages;
  const maxGroups = ctx.limits.maxGroups;
  const filters = body(...args.filters.map((f): QueryFilter => ({ PropertyName: f.PropertyName, FilterValue: f.FilterValue })), dateRange(ctx, args.dateField, args.fromDate, args.toDate));
  // Paging needs one order for every page: the caller's key, else the date field.
  const order = sortEntry(args.orderBy ?? args.dateField, false);
  const fold = new GroupFold({ groupBy: args.groupBy, sum: args.sum, maxGroups });
  const session = await openSession(ctx, { onRejectedQuery: (status) => ctx.fail('query_rejected', { status }) });
  let pages = 0;
  let rowsScanned = 0;
  let truncated = false;
  for (;;) {
    const rows = await session.query(entity, [...filters, order, pageEntry(pageSize, pages * pageSize)]);
    pages++;
    rowsScanned += rows.length;
    if (!fold.add(rows)) ctx.fail('too_many_groups', { limit: maxGroups });
    // A short page is the last; a longer one means the upstream ignored Take (and Skip): all read.
    if (rows.length !== pageSize) break;
    if (pages >= maxPages) {
      // Exactly maxPages full pages may be everything: look for one more row before saying so.
      const rest = await session.query(entity, [...filters, order, pageEntry(1, pages * pageSize)]);
      truncated = rest.length > 0;
      break;
    }
  }
  const { groups, nonNumeric } = fold.result();
  return { entity, groupCount: groups.length, rowsScanned, pages, truncated, groups, ...(nonNumeric ? { nonNumeric } : {}) };
};

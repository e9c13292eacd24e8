import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { entityName, openSession, type QueryFilter, type Row } from './client.ts';
import { body, dateRange, pageEntry } from './filters.ts';
import { GroupFold, resolveNames } from './fold.ts';
import { boundaryUnstable, pagingOrder } from './order.ts';

/**
 * Pages through every matching row (`Skip`/`Take` of `upstreamPageSize`, at most `maxPages`
 * pages) in a stable order and folds each page into groups as it arrives, so no more than one
 * page of rows is ever held; nothing is stored. More than `maxGroups` groups stops the reading at
 * once with `too_many_groups`. `truncated` when the last allowed page was full. The order is the
 * caller's `orderBy` and the entity's documented key (order.ts), never a property the docs do not
 * name; `unstableOrder` when a page boundary fell between rows with equal sort values.
 *
 * `groupBy` and `sum` names (and `dateField` when a date bound is given) are checked against the rows (the upstream
 * has no schema call and
 * ignores unknown filter names): the first page maps each name case-insensitively to the
 * upstream's spelling, which keys the result; a name no row of any page read has is refused with
 * `query_rejected` and status 400 (the status the upstream gives an unknown entity). With no row at
 * all nothing can be checked and the names are kept as given.
 */
export const aggregate: LedgerHandler<'aggregate'> = async (args, ctx) => {
  const entity = entityName(ctx, args.entity);
  const pageSize = ctx.limits.upstreamPageSize;
  const maxPages = ctx.limits.maxPages;
  const maxGroups = ctx.limits.maxGroups;
  const filters = body(
    ...args.filters.map((f): QueryFilter => ({ PropertyName: f.PropertyName, FilterValue: f.FilterValue })),
    dateRange(ctx, args.dateField, args.fromDate, args.toDate),
  );
  // Paging needs one order for every page: the caller's key, then the entity's documented key.
  // Without either, a bounded date field (already a property of the query) is the best there is.
  const bounded = args.fromDate !== undefined || args.toDate !== undefined;
  let order = pagingOrder(
    entity,
    args.orderBy === undefined ? undefined : { property: args.orderBy, descending: false },
  );
  if (order.properties.length === 0 && bounded)
    order = pagingOrder(entity, { property: args.dateField, descending: false });
  const session = await openSession(ctx, { onRejectedQuery: (status) => ctx.fail('query_rejected', { status }) });
  let pages = 0;
  let rowsScanned = 0;
  let truncated = false;
  // A page boundary inside a run of equal sort values (or with no sort at all): rows there may
  // have been read twice or not at all.
  let unstableOrder = false;
  let last: Row | undefined;
  let fold: GroupFold | undefined;
  // Names no row has had so far (checked on every later page while any is left).
  let missing = new Set<string>();
  for (;;) {
    const rows = await session.query(entity, [...filters, ...order.entries, pageEntry(pageSize, pages * pageSize)]);
    pages++;
    rowsScanned += rows.length;
    ctx.progress(pages, undefined, `${rowsScanned} rows read`);
    if (last !== undefined && rows.length > 0 && boundaryUnstable(order, last, rows[0]!)) unstableOrder = true;
    last = rows.at(-1);
    if (fold === undefined) {
      const groupBy = resolveNames(rows, args.groupBy);
      const sum = resolveNames(rows, args.sum);
      // With a date bound, the date field must be a property too: the upstream ignores a filter on
      // an unknown name, so the rows would be unbounded (every row it returned has the field).
      const dated = bounded ? resolveNames(rows, [args.dateField]).missing : [];
      if (rows.length > 0) missing = new Set([...groupBy.missing, ...sum.missing, ...dated]);
      fold = new GroupFold({ groupBy: groupBy.names, sum: sum.names, maxGroups });
    } else if (missing.size > 0) {
      for (const row of rows) for (const name of missing) if (Object.hasOwn(row, name)) missing.delete(name);
    }
    if (!fold.add(rows)) ctx.fail('too_many_groups', { limit: maxGroups });
    // A short page is the last; a longer one means the upstream ignored Take (and Skip): all read.
    if (rows.length !== pageSize) break;
    if (pages >= maxPages) {
      // Exactly maxPages full pages may be everything: look for one more row before saying so.
      const rest = await session.query(entity, [...filters, ...order.entries, pageEntry(1, pages * pageSize)]);
      truncated = rest.length > 0;
      break;
    }
  }
  if (missing.size > 0) ctx.fail('query_rejected', { status: 400 });
  const { groups, nonNumeric } = (fold ?? new GroupFold({ groupBy: args.groupBy, sum: args.sum, maxGroups })).result();
  return {
    entity,
    groupCount: groups.length,
    rowsScanned,
    pages,
    truncated,
    groups,
    ...(nonNumeric ? { nonNumeric } : {}),
    ...(unstableOrder ? { unstableOrder } : {}),
  };
};

import type { ErpContext, ErpHandler } from '#generated/erp/contract.ts';
import type { QueryEntityResult } from '#generated/erp/types.ts';
import { closestEntitySets, ENVIRONMENT_LEVEL_SET, resolveEntitySet } from './allow-list.ts';
import {
  acceptedNextLink,
  type CursorPayload,
  openCursorPayload,
  type SentQuery,
  sealCursor,
  setPath,
} from './cursor.ts';
import {
  apiPath,
  capResult,
  collection,
  erpGet,
  isRow,
  notFoundIn,
  objectBody,
  odataQuery,
  resolveEnvironment,
  stripOData,
  type Row,
} from './client.ts';

type Context = ErpContext<'query_entity'>;

/** Letters and digits only (doc 000, `entity`). */
const ENTITY_NAME = /^[A-Za-z0-9]+$/;

/** The options that are set (an absent argument sends no option). */
function sentOptions(options: Readonly<Record<string, string | undefined>>): SentQuery {
  return Object.fromEntries(
    Object.entries(options).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** The caller's cursor, opened and checked (DECISIONS §16), or `Invalid cursor` before any request. */
function openCursor(ctx: Context, cursor: string, companyId: string, entitySet: string): CursorPayload {
  const payload = openCursorPayload(ctx.tokens, cursor, companyId, entitySet);
  const link =
    payload === undefined ? undefined : acceptedNextLink(ctx.upstream.baseUrl, payload, companyId, entitySet);
  if (payload === undefined || link === undefined) return ctx.refuseArguments('invalid_cursor');
  return { ...payload, link };
}

/**
 * The cursor of the upstream's next link, checked before it is sealed: a link that points
 * elsewhere or carries options the gateway did not send ends the call with `Invalid cursor`
 * (metered: the page was read), so no cursor the gateway hands out leads anywhere else.
 */
function mintCursor(
  ctx: Context,
  nextLink: unknown,
  environment: string,
  query: SentQuery,
  companyId: string,
  entitySet: string,
): string | null {
  if (typeof nextLink !== 'string' || nextLink === '') return null;
  const payload: CursorPayload = { link: nextLink, environment, query };
  if (acceptedNextLink(ctx.upstream.baseUrl, payload, companyId, entitySet) === undefined) {
    ctx.log.warn(
      { entitySet },
      'ERP next link refused: not the configured API, this company and set, ' +
        'or options other than the ones sent plus one $skiptoken',
    );
    return ctx.fail('invalid_cursor');
  }
  return sealCursor(ctx.tokens, payload, companyId, entitySet);
}

/** A row as the caller sees it: OData annotations removed at every depth; a subscription's webhook secret dropped. */
function rowOf(row: Row, entitySet: string): Row {
  const out = stripOData(row) as Row;
  if (entitySet === ENVIRONMENT_LEVEL_SET) delete out['clientState'];
  return out;
}

/**
 * One page of an allow-listed set, or one record by `id` (upstreams/erp.md §2–3). The entity name
 * and the cursor are checked before any upstream request; a continuation sends the cursor's next
 * link verbatim with the new page size in `Prefer`.
 */
export const queryEntity: ErpHandler<'query_entity'> = async (args, ctx) => {
  if (!ENTITY_NAME.test(args.entity)) return ctx.refuseArguments('invalid_entity', { entity: args.entity });
  const entitySet = resolveEntitySet(args.entity);
  if (entitySet === undefined)
    return ctx.refuseArguments('unknown_entity', {
      entity: args.entity,
      matches: closestEntitySets(args.entity, ctx.limits.closestMatchCount).join(', '),
    });
  const companyId = args.companyId;

  let environment: string;
  let path: string;
  /** The options of the first page, which every next link must keep exactly. */
  let query: SentQuery = {};
  let single = false;
  if (args.cursor !== undefined) {
    const opened = openCursor(ctx, args.cursor, companyId, entitySet);
    environment = opened.environment;
    path = opened.link;
    query = opened.query;
  } else {
    environment = await resolveEnvironment(ctx, args.environment);
    const options = { $select: args.select?.join(','), $expand: args.expand };
    if (args.id !== undefined) {
      single = true;
      path = apiPath(environment, `${setPath(companyId, entitySet)}(${args.id})`) + odataQuery(options);
    } else {
      query = sentOptions({ $filter: args.filter, ...options, $orderby: args.orderby });
      path = apiPath(environment, setPath(companyId, entitySet)) + odataQuery(query);
    }
  }

  const context = { environment, companyId };
  const body = objectBody(
    await erpGet(ctx, { path, ...(single ? {} : { pageSize: args.pageSize }), notFound: notFoundIn(ctx, environment) }),
    `the ${entitySet} read`,
  );
  let result: QueryEntityResult;
  if (single) {
    // A bare record (`…/$entity`), or the same wrapped in `value` as some samples show.
    const value = body['value'];
    const record = Array.isArray(value) ? value.find(isRow) : body;
    if (record === undefined) return ctx.fail('not_found_404', { environment });
    result = { context, item: rowOf(record, entitySet) };
  } else {
    const items = collection(body, `the ${entitySet} read`).map((row) => rowOf(row, entitySet));
    const nextCursor = mintCursor(ctx, body['@odata.nextLink'], environment, query, companyId, entitySet);
    result = { context, count: items.length, items, nextCursor, hasMore: nextCursor !== null };
  }
  return capResult(ctx, result);
};

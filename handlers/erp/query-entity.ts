import type { ErpContext, ErpHandler } from '#generated/erp/contract.ts';
import type { QueryEntityResult } from '#generated/erp/types.ts';
import { closestEntitySets, ENVIRONMENT_LEVEL_SET, resolveEntitySet } from './allow-list.ts';
import { apiPath, capResult, collection, erpGet, isRow, notFoundIn, objectBody, odataQuery, resolveEnvironment, stripOData, type Row } from './client.ts';

type Context = ErpContext<'query_entity'>;

/** Letters and digits only (doc 000, `entity`). */
const ENTITY_NAME = /^[A-Za-z0-9]+$/;

/** What a cursor carries: the upstream's absolute next link and the environment it reads. */
interface CursorPayload {
  readonly link: string;
  readonly environment: string;
}

/** A cursor belongs to one company and one entity set (DECISIONS §16); account and instance are bound by `ctx.tokens`. */
function binding(companyId: string, entitySet: string): string {
  return `query_entity\u0000${companyId.toLowerCase()}\u0000${entitySet.toLowerCase()}`;
}

/** The path of a set (and record) relative to `{B}/api/v2.0`: company-scoped, except the environment-level subscriptions. */
function setPath(companyId: string, entitySet: string): string {
  return entitySet === ENVIRONMENT_LEVEL_SET ? `/${entitySet}` : `/companies(${companyId})/${entitySet}`;
}

/**
 * The next link of a cursor when it points back to the configured ERP API, at this company's
 * set in the cursor's environment: same origin and path prefix as the configured base, no
 * userinfo, no fragment, `/v2.0/[tenant/]<environment>/api/v2.0/companies(<companyId>)/<set>`.
 */
function checkedLink(ctx: Context, payload: CursorPayload, companyId: string, entitySet: string): string | undefined {
  let url: URL;
  let base: URL;
  try {
    url = new URL(payload.link);
    base = new URL(ctx.upstream.baseUrl);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '' || url.origin !== base.origin) return undefined;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${prefix}/`)) return undefined;
  const match = /^\/v2\.0\/(?:[^/]+\/)?([^/]+)\/api\/v2\.0(\/.+)$/.exec(url.pathname.slice(prefix.length));
  if (!match) return undefined;
  let environment: string;
  try {
    environment = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  if (environment.toLowerCase() !== payload.environment.toLowerCase()) return undefined;
  // Compared as sent (GUIDs and set names need no encoding): an encoded `/` never passes for one.
  if (match[2]!.toLowerCase() !== setPath(companyId, entitySet).toLowerCase()) return undefined;
  return url.href;
}

function openCursor(ctx: Context, cursor: string, companyId: string, entitySet: string): { link: string; environment: string } {
  const plain = ctx.tokens.open(cursor, binding(companyId, entitySet));
  let payload: unknown;
  try {
    payload = plain === undefined ? undefined : JSON.parse(plain);
  } catch {
    payload = undefined;
  }
  if (!isRow(payload) || typeof payload['link'] !== 'string' || typeof payload['environment'] !== 'string') return ctx.refuseArguments('invalid_cursor');
  const checked = { link: payload['link'], environment: payload['environment'] };
  const link = checkedLink(ctx, checked, companyId, entitySet);
  if (link === undefined) return ctx.refuseArguments('invalid_cursor');
  return { link, environment: checked.environment };
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
  if (entitySet === undefined) return ctx.refuseArguments('unknown_entity', { entity: args.entity, matches: closestEntitySets(args.entity, ctx.limits.closestMatchCount).join(', ') });
  const companyId = args.companyId;

  let environment: string;
  let path: string;
  let single = false;
  if (args.cursor !== undefined) {
    const opened = openCursor(ctx, args.cursor, companyId, entitySet);
    environment = opened.environment;
    path = opened.link;
  } else {
    environment = await resolveEnvironment(ctx, args.environment);
    const options = { $select: args.select?.join(','), $expand: args.expand };
    if (args.id !== undefined) {
      single = true;
      path = apiPath(environment, `${setPath(companyId, entitySet)}(${args.id})`) + odataQuery(options);
    } else {
      path = apiPath(environment, setPath(companyId, entitySet)) + odataQuery({ $filter: args.filter, ...options, $orderby: args.orderby });
    }
  }

  const context = { environment, companyId };
  const body = objectBody(await erpGet(ctx, { path, ...(single ? {} : { pageSize: args.pageSize }), notFound: notFoundIn(ctx, environment) }), `the ${entitySet} read`);
  let result: QueryEntityResult;
  if (single) {
    // A bare record (`…/$entity`), or the same wrapped in `value` as some samples show.
    const value = body['value'];
    const record = Array.isArray(value) ? value.find(isRow) : body;
    if (record === undefined) return ctx.fail('not_found_404', { environment });
    result = { context, item: rowOf(record, entitySet) };
  } else {
    const items = collection(body, `the ${entitySet} read`).map((row) => rowOf(row, entitySet));
    const nextLink = body['@odata.nextLink'];
    const nextCursor = typeof nextLink === 'string' && nextLink !== '' ? ctx.tokens.seal(JSON.stringify({ link: nextLink, environment } satisfies CursorPayload), binding(companyId, entitySet)) : null;
    result = { context, count: items.length, items, nextCursor, hasMore: nextCursor !== null };
  }
  return capResult(ctx, result);
};

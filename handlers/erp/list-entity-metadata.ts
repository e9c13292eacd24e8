import type { ErpHandler } from '#generated/erp/contract.ts';
import { isQueryable } from './allow-list.ts';
import { apiPath, capResult, collection, erpGet, notFoundIn, resolveEnvironment } from './client.ts';

/**
 * The API root's service document (`GET {B}/api/v2.0`): every entity set with `queryable` true when
 * an allow-list entry resolves to it (upstreams/erp.md §3). An entry without `kind` is an entity
 * set (OData JSON format), without `url` its name. Over 40,000 JSON characters is refused.
 */
export const listEntityMetadata: ErpHandler<'list_entity_metadata'> = async (args, ctx) => {
  const environment = await resolveEnvironment(ctx, args.environment);
  const rows = collection(
    await erpGet(ctx, { path: apiPath(environment), notFound: notFoundIn(ctx, environment) }),
    'the service document',
  );
  let items = rows.flatMap((row) => {
    const name = row['name'];
    if (typeof name !== 'string' || name === '') return [];
    const kind = typeof row['kind'] === 'string' ? row['kind'] : 'EntitySet';
    const url = typeof row['url'] === 'string' ? row['url'] : name;
    return [{ name, kind, url, queryable: kind === 'EntitySet' && isQueryable(name) }];
  });
  if (args.search !== undefined) {
    const wanted = args.search.toLowerCase();
    items = items.filter((item) => item.name.toLowerCase().includes(wanted));
  }
  return capResult(ctx, { context: { environment }, count: items.length, items });
};

import type { ErpHandler } from '#generated/erp/contract.ts';
import { apiPath, collection, erpGet, notFoundIn, resolveEnvironment } from './client.ts';

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * `GET {B}/api/v2.0/companies`; `search` on `name` and `displayName` after the read; `ambiguous` when it matched more
 * than one.
 */
export const listCompanies: ErpHandler<'list_companies'> = async (args, ctx) => {
  const environment = await resolveEnvironment(ctx, args.environment);
  const rows = collection(
    await erpGet(ctx, { path: apiPath(environment, '/companies'), notFound: notFoundIn(ctx, environment) }),
    'the companies list',
  );
  let items = rows.flatMap((row) => {
    const { id, name } = row;
    if (typeof id !== 'string' || typeof name !== 'string') return [];
    return [
      { id, name, displayName: stringOrNull(row['displayName']), systemVersion: stringOrNull(row['systemVersion']) },
    ];
  });
  if (args.search !== undefined) {
    const wanted = args.search.toLowerCase();
    items = items.filter(
      (c) => c.name.toLowerCase().includes(wanted) || (c.displayName ?? '').toLowerCase().includes(wanted),
    );
  }
  return {
    context: { environment },
    count: items.length,
    items,
    ambiguous: args.search !== undefined && items.length > 1,
  };
};

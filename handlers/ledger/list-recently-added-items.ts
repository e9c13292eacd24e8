import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession, type Row } from './client.ts';
import { sinceInstant } from './shared.ts';

const ENTITY = 'InvItemClient';

/**
 * Inventory items newest first by when the platform first saw them. Without the tenant's opt-in
 * the structured hint comes back and nothing is read or recorded. With it, every call reads the
 * current items (one whole-set read) and records them in the data layer: the first read after
 * opt-in is the baseline (first seen = the opt-in time), later reads add only unseen items.
 */
export const listRecentlyAddedItems: LedgerHandler<'list_recently_added_items'> = async (args, ctx) => {
  const layer = ctx.dataLayer;
  if (!layer) throw new Error('the data layer capability is missing (spec dataLayer: true)');
  const since = sinceInstant(ctx, args.since);
  if (!(await layer.status()).enabled)
    return { hint: 'data_layer_not_enabled', message: ctx.text('dataLayerNotEnabled') };
  const rows = await (await openSession(ctx)).query(ENTITY, []);
  const keyed: Array<{ key: string; row: Row }> = [];
  for (const row of rows) {
    const item = row['Item'];
    if (typeof item === 'string' ? item !== '' : typeof item === 'number') keyed.push({ key: String(item), row });
  }
  const seen = await layer.recordSeen(
    keyed.map((k) => k.key),
    ctx.now(),
  );
  const found = [];
  for (const { key, row } of keyed) {
    const record = seen.get(key);
    if (!record || (since && record.firstSeenAt < since)) continue;
    found.push({
      key,
      at: record.firstSeenAt.getTime(),
      item: { ...row, firstSeenAt: record.firstSeenAt.toISOString(), baseline: record.baseline },
    });
  }
  found.sort((a, b) => b.at - a.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const items = found.slice(0, args.limit).map((f) => f.item);
  return { entity: ENTITY, count: items.length, total: found.length, items };
};

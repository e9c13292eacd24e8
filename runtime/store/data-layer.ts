// The opt-in data layer as a handler capability: the store's first-seen records of one connection,
// bound to the call's account and endpoint instance. Tools whose spec sets `dataLayer: true` get
// it as `ctx.dataLayer`; the handler sees these two methods, never the store.
import type { DataLayer, SeenRecord } from '../handler-api/tool-context.ts';
import type { Repositories } from './store.ts';

/** The layer was disabled between the handler's status check and its sync (generic text). */
export class DataLayerDisabledError extends Error {
  constructor() {
    super('the data layer is not enabled for this connection');
    this.name = 'DataLayerDisabledError';
  }
}

export function bindDataLayer(
  store: Pick<Repositories, 'dataLayer'>,
  accountId: string,
  instanceId: string,
): DataLayer {
  return {
    async status() {
      const state = await store.dataLayer.getDataLayer(accountId, instanceId);
      return state ? { enabled: true, enabledAt: state.enabledAt } : { enabled: false, enabledAt: null };
    },
    async recordSeen(keys, at) {
      const rows = await store.dataLayer.recordSeenItems(accountId, instanceId, keys, at);
      if (rows === null) throw new DataLayerDisabledError();
      const seen = new Map<string, SeenRecord>();
      for (const r of rows) seen.set(r.key, { firstSeenAt: r.firstSeenAt, baseline: r.baseline });
      return seen;
    },
  };
}

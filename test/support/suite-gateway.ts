// A gateway over a fresh embedded store for one describe block: opened before its tests, closed
// after them, with a request rate limit the tests do not reach.
import { afterAll, beforeAll } from 'vitest';
import { openStore } from '../../runtime/store/open-store.ts';
import type { PlatformStore } from '../../runtime/store/store.ts';
import { startGateway, type StartedGateway } from './gateway.ts';

/** Registers the suite's beforeAll/afterAll; `opened` receives the store and the gateway once both are up. */
export function gatewayForSuite(opened: (started: { store: PlatformStore; gw: StartedGateway }) => void): void {
  let store: PlatformStore | undefined;
  let gw: StartedGateway | undefined;
  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, { env: { RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000' } });
    opened({ store, gw });
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });
}

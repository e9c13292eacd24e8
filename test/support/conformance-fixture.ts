// A gateway serving only the conformance fixture connector (test/fixtures/conformance-connector): its
// generated registry on the unchanged runtime, a deployment credential of its managed kind (its tools
// make no upstream request) and a tenant subscribed to it. Used by test/conformance/run.ts and
// test/conformance-fixture.test.ts.
import pino from 'pino';
import { loadConfig } from '../../runtime/config/config.ts';
import type { PlatformStore } from '../../runtime/store/store.ts';
import { registry as fixtureRegistry } from '../fixtures/conformance-connector/generated/registry.ts';
import { createTenant, startGateway, type StartedGateway, TEST_SECRET, type Tenant } from './gateway.ts';

export interface FixtureGateway {
  readonly gateway: StartedGateway;
  readonly tenant: Tenant;
  /** The endpoint instance (`conformance`): tools are `<instanceId>__test_…`. */
  readonly instanceId: string;
}

export async function startFixtureGateway(
  store: PlatformStore,
  env: Readonly<Record<string, string>> = {},
): Promise<FixtureGateway> {
  const config = loadConfig(fixtureRegistry, {
    DATA_DIR: '/tmp/cg-test-unused',
    LOG_LEVEL: 'silent',
    USAGE_FLUSH_MS: '60000',
    CONFORMANCE_USERNAME: 'fixture',
    CONFORMANCE_PASSWORD: 'fixture',
    ...env,
  });
  const gateway = await startGateway(store, {
    config: { ...config, secretKeys: TEST_SECRET },
    registry: fixtureRegistry,
    logger: pino({ level: 'silent' }),
  });
  const tenant = await createTenant(store, { subscribe: Object.keys(fixtureRegistry) });
  await gateway.app.context.state.refresh();
  return { gateway, tenant, instanceId: gateway.app.context.config.connectors[0]!.id };
}

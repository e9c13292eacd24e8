// Everything the request path needs, built once at start-up (runtime/app.ts).
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import type { PlatformDescriptor } from './handler-api/descriptor-types.ts';
import type { RateLimiter } from './platform/rate-limit.ts';
import type { Endpoint } from './mcp/endpoints.ts';
import type { Metrics } from './observability.ts';
import type { PlatformState } from './platform/state.ts';
import type { PlatformStore } from './platform/store.ts';
import type { Vault } from './platform/vault.ts';
import type { ConcurrencyGate, UpstreamClientOptions } from './upstream/client.ts';
import type { UsageMeter } from './platform/usage.ts';

export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly platform: PlatformDescriptor;
  readonly store: PlatformStore;
  readonly state: PlatformState;
  readonly vault: Vault;
  readonly meter: UsageMeter;
  readonly rateLimiter: RateLimiter;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Concurrency gates by connector key (connectors whose spec declares `maxConcurrent`). */
  readonly gates: ReadonlyMap<string, ConcurrencyGate>;
  readonly endpoints: ReadonlyMap<string, Endpoint>;
  readonly now: () => Date;
  /** Test hook: how the upstream layer waits before its throttle retry. */
  readonly upstreamSleep?: UpstreamClientOptions['sleep'];
}

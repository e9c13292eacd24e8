// Everything the request path needs, built once at start-up (runtime/app.ts), and the endpoint
// instances it serves: `<id>` and `<id>-<n>` (n = 2…maxInstances) for every enabled connector.
// Every layer of the path receives an Endpoint, so its model lives here, below all of them.
// Nothing here switches over tool names.
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { ConnectorConfig, GatewayConfig } from './config/settings.ts';
import type { PlatformSpec } from '#generated/platform/descriptor.ts';
import type {
  CompiledValidator,
  ConnectorDescriptor,
  ConnectorModule,
  ErasedHandler,
  ToolDescriptor,
} from './handler-api/descriptor-types.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Metrics } from './operations/observability.ts';
import type { OAuthClient, OAuthRefresher } from './upstream/oauth.ts';
import type { RateLimiter, UpstreamQuotas } from './metering/rate-limit.ts';
import type { Readiness } from './operations/readiness.ts';
import type { PlatformState } from './store/state.ts';
import type { PlatformStore } from './store/store.ts';
import type { UsageMeter } from './metering/usage.ts';
import type { CallLogWriter } from './metering/call-log.ts';
import type { Vault } from './secrets/vault.ts';
import type { BodyBudget } from './upstream/body-budget.ts';
import type { ConcurrencyGate, UpstreamClientOptions } from './upstream/client.ts';
import type { Telemetry } from './telemetry/call-telemetry.ts';

export interface GatewayContext {
  readonly config: GatewayConfig;
  /** The platform's texts, limits and system tools, typed from specs/platform.yaml. */
  readonly platform: PlatformSpec;
  readonly store: PlatformStore;
  readonly state: PlatformState;
  readonly vault: Vault;
  readonly meter: UsageMeter;
  /** The call log of the portal's Calls page, written in batches off the call path. */
  readonly callLog: CallLogWriter;
  readonly rateLimiter: RateLimiter;
  /** Per-key upstream budgets handlers take from (ToolContext.upstreamQuota). */
  readonly upstreamQuotas: UpstreamQuotas;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Mail to people: SMTP_URL, or the data directory's outbox (runtime/mail/mailer.ts). */
  readonly mail: Mailer;
  /** Concurrency gates by connector key (connectors whose spec declares `maxConcurrent`). */
  readonly gates: ReadonlyMap<string, ConcurrencyGate>;
  /** Each enabled connector's upstream Agent by connector key (CONNECTOR_<KEY>_MAX_CONNECTIONS per origin). */
  readonly dispatchers?: ReadonlyMap<string, Dispatcher>;
  /** The process's byte budget for upstream response bodies (UPSTREAM_BODY_BUDGET_BYTES). */
  readonly bodyBudget: BodyBudget;
  readonly endpoints: ReadonlyMap<string, Endpoint>;
  readonly now: () => Date;
  /** OAuth clients by connector key (`oauth2` connectors whose client id is configured) and the refresher. */
  readonly oauth: { readonly clients: ReadonlyMap<string, OAuthClient>; readonly refresher: OAuthRefresher };
  /** The `/readyz` checks. */
  readonly readiness?: Readiness;
  /** OpenTelemetry export, present only when the OTLP variables are set (runtime/telemetry/). */
  readonly telemetry?: Telemetry;
  /** Test hook: how the upstream layer waits before its throttle retry. */
  readonly upstreamSleep?: UpstreamClientOptions['sleep'];
}

/** One enabled connector as served: its deployment configuration and its generated module. */
export interface ConnectorRuntime {
  readonly config: ConnectorConfig;
  readonly descriptor: ConnectorDescriptor;
  readonly validators: Readonly<Record<string, CompiledValidator>>;
  readonly handlers: Readonly<Record<string, ErasedHandler>>;
  readonly tools: ReadonlyMap<string, ToolDescriptor>;
}

/** One endpoint instance, `POST /<instanceId>/mcp`. */
export interface Endpoint {
  readonly instanceId: string;
  readonly instance: number;
  readonly connector: ConnectorRuntime;
}

/** `{{tool:<name>}}` in a descriptor text: a sibling tool, named as this endpoint serves it (codegen/references.ts). */
const TOOL_REFERENCE = /\{\{tool:([A-Za-z0-9_-]+)\}\}/g;

/**
 * A descriptor text with its tool references rendered as the clients of the endpoint `instanceId`
 * call them (`cases-2__describe_type`). Done once per endpoint where a text is prepared (tools/list,
 * instructions, the connector's error and note texts), never per call.
 */
export function renderToolReferences(text: string, instanceId: string): string {
  return text.includes('{{') ? text.replace(TOOL_REFERENCE, (_, name: string) => `${instanceId}__${name}`) : text;
}

export function buildConnectorRuntime(
  config: ConnectorConfig,
  { descriptor, validators, handlers }: ConnectorModule,
): ConnectorRuntime {
  return {
    config,
    descriptor,
    validators,
    handlers,
    tools: new Map(descriptor.tools.map((t) => [t.name, t])),
  };
}

export function buildEndpoints(connectors: readonly ConnectorRuntime[]): Map<string, Endpoint> {
  const endpoints = new Map<string, Endpoint>();
  for (const connector of connectors) {
    if (!connector.config.enabled) continue;
    const { id, maxInstances } = connector.config;
    endpoints.set(id, { instanceId: id, instance: 1, connector });
    for (let n = 2; n <= maxInstances; n++)
      endpoints.set(`${id}-${n}`, { instanceId: `${id}-${n}`, instance: n, connector });
  }
  return endpoints;
}

// What each enabled connector's upstream calls go through, made once at start (runtime/app.ts):
// its concurrency gate (connectors whose spec or deployment sets `maxConcurrent`; cluster-wide with
// Redis) and its own undici Agent with the deployment's connections per origin
// (docs/decisions/performance.md, 'Connections per upstream origin').
import type { Agent } from 'undici';
import { type ConnectorConfig, DEFAULT_UPSTREAM_CONNECTIONS } from '../config/settings.ts';
import type { ConnectorDescriptor } from '../handler-api/descriptor-types.ts';
import type { SharedStore } from '../store/shared-store.ts';
import { type ConcurrencyGate, upstreamAgent } from './client.ts';
import { LocalGate, SharedGate } from './gate.ts';

export interface ConnectorUpstreams {
  readonly gates: ReadonlyMap<string, ConcurrencyGate>;
  readonly dispatchers: ReadonlyMap<string, Agent>;
  /** Closes every Agent (on stop). */
  close(): Promise<void>;
}

export function connectorUpstreams(
  runtimes: readonly { readonly config: ConnectorConfig; readonly descriptor: ConnectorDescriptor }[],
  shared: SharedStore | undefined,
  failOpen: (component: string) => void,
): ConnectorUpstreams {
  const gates = new Map<string, ConcurrencyGate>();
  const dispatchers = new Map<string, Agent>();
  for (const r of runtimes) {
    dispatchers.set(r.config.key, upstreamAgent(r.config.maxConnections ?? DEFAULT_UPSTREAM_CONNECTIONS));
    const limit = r.config.maxConcurrent;
    if (!limit) continue;
    const queueTimeoutMs = r.descriptor.limits.queueTimeoutMs ?? r.descriptor.upstream.timeoutMs;
    gates.set(
      r.config.key,
      shared
        ? new SharedGate(
            shared,
            `gate:${r.config.key}`,
            limit,
            queueTimeoutMs,
            r.descriptor.upstream.timeoutMs + 5000,
            () => failOpen('gate'),
          )
        : new LocalGate(limit, queueTimeoutMs),
    );
  }
  return {
    gates,
    dispatchers,
    close: async () => {
      await Promise.all([...dispatchers.values()].map((agent) => agent.close()));
    },
  };
}

// Endpoint instances: `<id>` and `<id>-<n>` (n = 2…maxInstances) for every enabled connector, with
// their precomputed tools/list results. Nothing here switches over tool names.
import type { ConnectorConfig } from '../config.ts';
import type { CompiledValidator, ConnectorDescriptor, ConnectorModule, ErasedHandler, PlatformDescriptor, ToolDescriptor } from '../handler-api/descriptor-types.ts';

export interface ConnectorRuntime {
  readonly config: ConnectorConfig;
  readonly descriptor: ConnectorDescriptor;
  readonly validators: Readonly<Record<string, CompiledValidator>>;
  readonly handlers: Readonly<Record<string, ErasedHandler>>;
  readonly tools: ReadonlyMap<string, ToolDescriptor>;
  /** tools/list results as JSON bytes, per instance and listing kind. */
  readonly listCache: Map<string, Buffer>;
}

export interface Endpoint {
  readonly instanceId: string;
  readonly instance: number;
  readonly connector: ConnectorRuntime;
}

export function buildConnectorRuntime(config: ConnectorConfig, { descriptor, validators, handlers }: ConnectorModule): ConnectorRuntime {
  return {
    config,
    descriptor,
    validators,
    handlers,
    tools: new Map(descriptor.tools.map((t) => [t.name, t])),
    listCache: new Map(),
  };
}

export function buildEndpoints(connectors: readonly ConnectorRuntime[]): Map<string, Endpoint> {
  const endpoints = new Map<string, Endpoint>();
  for (const connector of connectors) {
    if (!connector.config.enabled) continue;
    const { id, maxInstances } = connector.config;
    endpoints.set(id, { instanceId: id, instance: 1, connector });
    for (let n = 2; n <= maxInstances; n++) endpoints.set(`${id}-${n}`, { instanceId: `${id}-${n}`, instance: n, connector });
  }
  return endpoints;
}

function listedTool(tool: ToolDescriptor, name: string, publishOutput: boolean): Record<string, unknown> {
  return {
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(publishOutput && tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** The `result` of tools/list as JSON bytes (computed once); `full` false lists only connect_account. */
export function toolsListBytes(endpoint: Endpoint, platform: PlatformDescriptor, full: boolean): Buffer {
  const key = `${endpoint.instanceId}|${full ? 'full' : 'connect'}`;
  const cached = endpoint.connector.listCache.get(key);
  if (cached) return cached;
  const { descriptor } = endpoint.connector;
  const tools: Record<string, unknown>[] = [];
  if (full) for (const tool of descriptor.tools) tools.push(listedTool(tool, `${endpoint.instanceId}__${tool.name}`, descriptor.structuredContent));
  if (descriptor.connectAccount) {
    const connect = platform.systemTools.find((t) => t.name === 'connect_account');
    if (connect) tools.push(listedTool(connect, connect.name, false));
  }
  const bytes = Buffer.from(JSON.stringify({ tools }));
  endpoint.connector.listCache.set(key, bytes);
  return bytes;
}

// A real ToolContext for handler tests: the connector's generated policy, a real upstream client
// (nock or a sandbox answers it), and `fail` throwing the ToolError the runtime would format.
import pino from 'pino';
import type { ConnectorDescriptor } from '../../runtime/handler-api/descriptor-types.ts';
import type { Credential, ToolContext } from '../../runtime/handler-api/tool-context.ts';
import { ToolError, type ErrorParams } from '../../runtime/handler-api/tool-error.ts';
import { createUpstreamClient, type UpstreamClientOptions } from '../../runtime/upstream.ts';

export interface TestContextOptions {
  readonly descriptor: ConnectorDescriptor;
  readonly tool: string;
  readonly credential: Credential | null;
  readonly baseUrl?: string;
  readonly instanceId?: string;
  readonly now?: () => Date;
  readonly sleep?: UpstreamClientOptions['sleep'];
}

export function testContext(options: TestContextOptions): ToolContext {
  const tool = options.descriptor.tools.find((t) => t.name === options.tool);
  if (!tool) throw new Error(`no tool ${options.tool}`);
  const controller = new AbortController();
  return {
    connectorId: options.descriptor.defaultId,
    instanceId: options.instanceId ?? options.descriptor.defaultId,
    accountId: 'acc_test',
    credential: options.credential,
    upstream: createUpstreamClient({ policy: options.descriptor.upstream, baseUrl: options.baseUrl, signal: controller.signal, sleep: options.sleep ?? (async () => {}) }),
    limits: { ...options.descriptor.limits, ...tool.limits },
    log: pino({ level: 'silent' }),
    signal: controller.signal,
    now: options.now ?? (() => new Date()),
    timeZone: 'Europe/Copenhagen',
    fail: (code: string, params: ErrorParams = {}): never => {
      throw new ToolError(code, params);
    },
  };
}

// A deprecated tool and argument as clients see them (docs/decisions/mcp-surface.md, 'Deprecations
// in tools/list'): the official SDK Client lists the tool with the notice from specs/platform.yaml
// before its description and the deprecation in `_meta`; its calls are counted apart in the
// metrics and in the usage record (docs/decisions/operations.md, 'Calls of deprecated tools are
// counted apart'). The registry is the generated one with introspect_schema marked deprecated as
// codegen emits it (test/deprecation-codegen.test.ts checks the emitting).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { registry } from '../generated/registry.ts';
import type { Deprecation, ToolDescriptor } from '../runtime/handler-api/descriptor-types.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';
import { META_DEPRECATED, META_DEPRECATED_ARGUMENTS } from '../runtime/mcp/tools-list.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  startGateway,
  usageOf,
  type StartedGateway,
} from './support/gateway.ts';

const TOOL: Deprecation = {
  reason: 'The query tool answers this now.',
  replacement: 'graphql_query',
  sunset: '2027-01-31',
};
const ARG: Deprecation = { reason: 'Sections are always complete now.', sunset: '2027-03-31' };

function deprecate(tool: ToolDescriptor): ToolDescriptor {
  if (tool.name !== 'introspect_schema') return tool;
  const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
  return {
    ...tool,
    deprecated: TOOL,
    deprecatedArguments: { includeTypes: ARG },
    inputSchema: {
      ...tool.inputSchema,
      properties: { ...properties, includeTypes: { ...properties.includeTypes, deprecated: true } },
    },
  };
}

const cases = registry.cases;
const deprecatedRegistry = {
  ...registry,
  cases: { ...cases, descriptor: { ...cases.descriptor, tools: cases.descriptor.tools.map(deprecate) } },
} as typeof registry;

describe('a deprecated tool through the gateway', () => {
  let store: PlatformStore;
  let sandbox: CasesSandbox;
  let gw: StartedGateway;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startCasesSandbox({ rateLimitPerMinute: 100_000 });
    gw = await startGateway(store, {
      registry: deprecatedRegistry,
      env: { CONNECTOR_CASES_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' },
    });
    const t = await createTenant(store, { subscribe: ['cases'] });
    token = t.token;
    await connectTenant(gw, t, 'cases', { apiKey: sandbox.tokens.demo });
    client = await mcpClient(gw.url, 'cases', t.token);
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('lists it to the SDK Client with the notice first and the deprecation in _meta', async () => {
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'cases__introspect_schema')!;
    const notice = formatText(platformDescriptor.instructions.deprecated_tool_replaced, {
      reason: TOOL.reason,
      replacement: 'cases__graphql_query',
      sunset: TOOL.sunset,
    });
    expect(notice).toContain('Call cases__graphql_query instead');
    const own = cases.descriptor.tools.find((t) => t.name === 'introspect_schema')!.description;
    expect(listed.description).toBe(`${notice}\n\n${renderToolReferences(own, 'cases')}`);
    expect(listed._meta?.[META_DEPRECATED]).toEqual({ ...TOOL, replacement: 'cases__graphql_query' });
    expect(listed._meta?.[META_DEPRECATED_ARGUMENTS]).toEqual({ includeTypes: ARG });
    const includeTypes = (
      listed.inputSchema.properties as Record<string, { description: string; deprecated?: boolean }>
    ).includeTypes!;
    expect(includeTypes.deprecated).toBe(true);
    const argNotice = formatText(platformDescriptor.instructions.deprecated_argument, { ...ARG });
    expect(includeTypes.description).toBe(`${argNotice} Also return up to 100 matching type names.`);
    // Every other tool is listed as before (deprecated only where the spec says so).
    const others = tools.filter((t) => t.name !== 'cases__introspect_schema');
    expect(others.length).toBeGreaterThan(5);
    const specDeprecated = new Set(cases.descriptor.tools.filter((t) => t.deprecated).map((t) => `cases__${t.name}`));
    expect(others.filter((t) => (t._meta?.[META_DEPRECATED] !== undefined) !== specDeprecated.has(t.name))).toEqual([]);
  });

  it('counts its calls apart in the metrics and the usage record', async () => {
    const introspected = await client.callTool({ name: 'cases__introspect_schema', arguments: {} });
    expect(introspected.isError).not.toBe(true);
    const listed = await client.callTool({ name: 'cases__list_cases', arguments: {} });
    expect(listed.isError).not.toBe(true);
    const metrics = await gw.app.context.metrics.registry.getSingleMetricAsString(
      'gateway_deprecated_tool_calls_total',
    );
    expect(metrics).toContain(
      'gateway_deprecated_tool_calls_total{connector="cases",tool="introspect_schema",outcome="ok"} 1',
    );
    expect(metrics).not.toContain('list_cases');
    const usage = (await usageOf(gw.url, token)).usage;
    expect(usage.byConnector.cases).toMatchObject({
      calls: 2,
      deprecated: { calls: 1, byTool: { introspect_schema: 1 } },
    });
    expect(usage.deprecatedCalls).toBe(1);
  });
});

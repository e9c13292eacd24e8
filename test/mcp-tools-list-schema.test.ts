// Every connector's tools/list must pass the official MCP SDK's schema: a client built on
// @modelcontextprotocol/sdk rejects the whole list when one outputSchema root is not `type: "object"`.
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectorKeys, registry } from '../generated/registry.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import type { ConnectorConfig } from '../runtime/config/settings.ts';
import type { ToolDescriptor } from '../runtime/handler-api/descriptor-types.ts';
import { buildConnectorRuntime, renderToolReferences } from '../runtime/gateway-context.ts';
import { toolsListOpen } from '../runtime/mcp/tools-list.ts';

/** The tools/list entry, built as runtime/mcp/tools-list.ts `listedTool` builds it. */
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

function toolsList(key: (typeof connectorKeys)[number], instanceId: string): { tools: Record<string, unknown>[] } {
  const { descriptor } = registry[key];
  const tools = descriptor.tools.map((t) => listedTool(t, `${instanceId}__${t.name}`, descriptor.structuredContent));
  const connect = platformDescriptor.systemTools.find((t) => t.name === 'connect_account');
  if (descriptor.connectAccount && connect) tools.push(listedTool(connect, connect.name, false));
  // Sibling tools named in descriptions (`{{tool:<name>}}`) read as this instance serves them.
  return JSON.parse(renderToolReferences(JSON.stringify({ tools }), instanceId)) as {
    tools: Record<string, unknown>[];
  };
}

function sdkIssues(result: unknown): string[] {
  const parsed = ListToolsResultSchema.safeParse(result);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('published output schemas', () => {
  it('every published outputSchema has `type: object` at its root', () => {
    let published = 0;
    for (const key of connectorKeys) {
      for (const tool of registry[key].descriptor.tools) {
        if (tool.outputSchema === undefined) continue;
        published++;
        expect(tool.outputSchema.type, `${key}__${tool.name}`).toBe('object');
      }
    }
    expect(published).toBeGreaterThan(0); // the ERP connector publishes its output schemas
    expect(registry.erp.descriptor.tools.find((t) => t.name === 'query_entity')?.outputSchema?.type).toBe('object');
  });

  for (const key of connectorKeys) {
    it(`${key}: tools/list parses with the MCP SDK's ListToolsResultSchema`, () => {
      const list = toolsList(key, `${registry[key].descriptor.defaultId}-99`);
      expect(list.tools.length).toBeGreaterThan(0);
      expect(sdkIssues(list)).toEqual([]);
      expect(ListToolsResultSchema.parse(list).tools.map((t) => t.name)).toEqual(list.tools.map((t) => t.name));
    });

    it(`${key}: the runtime's tools/list text parses with the MCP SDK's ListToolsResultSchema`, () => {
      const { descriptor, validators } = registry[key];
      const config: ConnectorConfig = {
        key,
        id: descriptor.defaultId,
        enabled: true,
        baseUrl: descriptor.upstream.baseUrl,
        maxInstances: 1,
      };
      const connector = buildConnectorRuntime(config, { descriptor, validators, handlers: {} });
      const open = toolsListOpen(
        { instanceId: descriptor.defaultId, instance: 1, connector },
        platformDescriptor,
        true,
      );
      const result = JSON.parse(`${open}}`) as unknown;
      expect(result).toEqual(toolsList(key, descriptor.defaultId));
      expect(sdkIssues(result)).toEqual([]);
    });
  }
});

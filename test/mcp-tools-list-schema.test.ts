// Every connector's tools/list must pass the official MCP SDK's schema: a client built on
// @modelcontextprotocol/sdk rejects the whole list when one outputSchema root is not `type: "object"`.
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectorKeys, registry } from '../generated/registry.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import type { ConnectorConfig } from '../runtime/config/settings.ts';
import type { ConnectorDescriptor, Deprecation, ToolDescriptor } from '../runtime/handler-api/descriptor-types.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { buildConnectorRuntime, renderToolReferences } from '../runtime/gateway-context.ts';
import { META_DEPRECATED, META_DEPRECATED_ARGUMENTS, toolsListOpen } from '../runtime/mcp/tools-list.ts';

/** The notice before a deprecated tool's or argument's description (specs/platform.yaml). */
function notice(kind: 'tool' | 'argument', d: Deprecation, replacement?: string): string {
  const texts = platformDescriptor.instructions;
  const text = replacement ? texts[`deprecated_${kind}_replaced`] : texts[`deprecated_${kind}`];
  return formatText(text, { reason: d.reason, sunset: d.sunset, replacement: replacement ?? '' });
}

/** The tools/list entry, built as runtime/mcp/tools-list.ts `listedTool` builds it. */
function listedTool(tool: ToolDescriptor, name: string, publishOutput: boolean): Record<string, unknown> {
  const d = tool.deprecated;
  const args = tool.deprecatedArguments;
  const replacement = d?.replacement && name !== tool.name ? `{{tool:${d.replacement}}}` : d?.replacement;
  const properties = { ...(tool.inputSchema.properties as Record<string, Record<string, unknown>>) };
  for (const [arg, a] of Object.entries(args ?? {}))
    properties[arg] = {
      ...properties[arg],
      description: [notice('argument', a, a.replacement), properties[arg]?.description].filter(Boolean).join(' '),
    };
  return {
    name,
    title: tool.title,
    description: d ? `${notice('tool', d, replacement)}\n\n${tool.description}` : tool.description,
    inputSchema: args ? { ...tool.inputSchema, properties } : tool.inputSchema,
    ...(publishOutput && tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: { title: tool.title, ...tool.annotations },
    ...(d || args
      ? {
          _meta: {
            ...(d ? { [META_DEPRECATED]: { ...d, ...(replacement ? { replacement } : {}) } } : {}),
            ...(args ? { [META_DEPRECATED_ARGUMENTS]: args } : {}),
          },
        }
      : {}),
  };
}

function toolsList(
  key: (typeof connectorKeys)[number],
  instanceId: string,
  descriptor: ConnectorDescriptor = registry[key].descriptor,
): { tools: Record<string, unknown>[] } {
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

  it('a deprecated tool and argument: the runtime lists them as built here, and the SDK parses the list', () => {
    const { descriptor, validators } = registry.cases;
    const deprecated: ConnectorDescriptor = {
      ...descriptor,
      tools: descriptor.tools.map((t) =>
        t.name === 'introspect_schema'
          ? {
              ...t,
              deprecated: { reason: 'Gone soon.', replacement: 'graphql_query', sunset: '2027-01-31' },
              deprecatedArguments: { includeTypes: { reason: 'Unused.', sunset: '2027-01-31' } },
            }
          : t,
      ),
    };
    const config: ConnectorConfig = { key: 'cases', id: 'cases', enabled: true, baseUrl: '', maxInstances: 1 };
    const connector = buildConnectorRuntime(config, { descriptor: deprecated, validators, handlers: {} });
    const open = toolsListOpen({ instanceId: 'cases-2', instance: 2, connector }, platformDescriptor, true);
    const result = JSON.parse(`${open}}`) as { tools: { name: string; description: string }[] };
    expect(result).toEqual(toolsList('cases', 'cases-2', deprecated));
    expect(sdkIssues(result)).toEqual([]);
    const listed = ListToolsResultSchema.parse(result).tools.find((t) => t.name === 'cases-2__introspect_schema')!;
    expect(listed.description).toMatch(/^Deprecated: Gone soon\. Call cases-2__graphql_query instead/);
    expect(listed._meta?.[META_DEPRECATED]).toMatchObject({ replacement: 'cases-2__graphql_query' });
  });
});

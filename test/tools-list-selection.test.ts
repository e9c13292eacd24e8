// The precomputed tools/list per selection (runtime/mcp/tools-list.ts; docs/decisions/mcp-surface.md,
// 'Toolsets and read-only chosen by the client, by header or path'): a list made for one selection
// is never served for another, the no-selection list is the one made once per instance, and the
// listings kept per instance are bounded.
import { describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { registry } from '../generated/registry.ts';
import type { ConnectorConfig } from '../runtime/config/settings.ts';
import { buildConnectorRuntime, type Endpoint } from '../runtime/gateway-context.ts';
import { SELECTED_LISTS_PER_ENDPOINT, selectedListCount, toolsListOpen } from '../runtime/mcp/tools-list.ts';
import { EVERY_TOOL, type ToolSelection } from '../runtime/tool-selection.ts';

function endpointOf(key: 'books' | 'invoicing', instance = 1): Endpoint {
  const { descriptor, validators } = registry[key];
  const config: ConnectorConfig = {
    key,
    id: descriptor.defaultId,
    enabled: true,
    baseUrl: descriptor.upstream.baseUrl,
    maxInstances: 2,
  };
  const connector = buildConnectorRuntime(config, { descriptor, validators, handlers: {} });
  return {
    instanceId: instance === 1 ? descriptor.defaultId : `${descriptor.defaultId}-${instance}`,
    instance,
    connector,
  };
}

const names = (open: string) =>
  (JSON.parse(`${open}}`) as { tools: Array<{ name: string }> }).tools.map((t) => t.name).sort();

describe('tools/list per selection', () => {
  it('a list cached for one selection is never served for another, in any order', () => {
    const endpoint = endpointOf('books');
    const contacts: ToolSelection = { toolsets: new Set(['contacts']) };
    const invoices: ToolSelection = { toolsets: new Set(['invoices']) };
    const expected = (set: string) =>
      registry.books.descriptor.tools
        .filter((t) => t.toolset === set)
        .map((t) => `books__${t.name}`)
        .sort();
    const a = toolsListOpen(endpoint, platformDescriptor, true, contacts);
    const b = toolsListOpen(endpoint, platformDescriptor, true, invoices);
    expect(names(a)).toEqual(expected('contacts'));
    expect(names(b)).toEqual(expected('invoices'));
    // Again, and with equal selections made anew: the same answers (keyed by content, not identity).
    expect(toolsListOpen(endpoint, platformDescriptor, true, { toolsets: new Set(['contacts']) })).toBe(a);
    expect(toolsListOpen(endpoint, platformDescriptor, true, invoices)).toBe(b);
    // Every tool: the unchanged list made once, not one of the selected ones.
    const every = toolsListOpen(endpoint, platformDescriptor, true, EVERY_TOOL);
    expect(names(every)).toHaveLength(registry.books.descriptor.tools.length);
    expect(toolsListOpen(endpoint, platformDescriptor, true)).toBe(every);
    expect(selectedListCount(endpoint)).toBe(2);
  });

  it('read-only and a toolset with read-only are different lists; another instance has its own', () => {
    const endpoint = endpointOf('invoicing');
    const second = endpointOf('invoicing', 2);
    const readOnly = toolsListOpen(endpoint, platformDescriptor, true, { readOnly: true });
    expect(names(readOnly)).toHaveLength(23);
    const set = registry.invoicing.descriptor.toolsets[0]!.id;
    const both = toolsListOpen(endpoint, platformDescriptor, true, { toolsets: new Set([set]), readOnly: true });
    const setOnly = toolsListOpen(endpoint, platformDescriptor, true, { toolsets: new Set([set]) });
    expect(both).not.toBe(readOnly);
    expect(names(both).every((n) => names(readOnly).includes(n))).toBe(true);
    expect(names(both).every((n) => names(setOnly).includes(n))).toBe(true);
    const onSecond = toolsListOpen(second, platformDescriptor, true, { readOnly: true });
    expect(names(onSecond).every((n) => n.startsWith('invoicing-2__'))).toBe(true);
    expect(names(onSecond)).toHaveLength(23);
  });

  it('an account that lists only connect_account gets that list whatever the selection', () => {
    const endpoint = endpointOf('books');
    expect(toolsListOpen(endpoint, platformDescriptor, false, { toolsets: new Set(['contacts']) })).toBe(
      toolsListOpen(endpoint, platformDescriptor, false),
    );
  });

  it(`keeps at most ${SELECTED_LISTS_PER_ENDPOINT} selected lists per instance, dropping the least recent`, () => {
    const endpoint = endpointOf('books');
    const selections: ToolSelection[] = [];
    // Distinct selections: one disabled tool each (the administrator's kind of narrowing), with and without read-only.
    for (const tool of registry.books.descriptor.tools) selections.push({ disabledTools: new Set([tool.name]) });
    for (const tool of registry.books.descriptor.tools)
      selections.push({ disabledTools: new Set([tool.name]), readOnly: true });
    expect(selections.length).toBeGreaterThan(SELECTED_LISTS_PER_ENDPOINT);
    const first = toolsListOpen(endpoint, platformDescriptor, true, selections[0]!);
    for (const s of selections.slice(1, SELECTED_LISTS_PER_ENDPOINT))
      toolsListOpen(endpoint, platformDescriptor, true, s);
    expect(selectedListCount(endpoint)).toBe(SELECTED_LISTS_PER_ENDPOINT);
    // Using the first again makes it the most recent: the next new selection drops the second instead.
    expect(toolsListOpen(endpoint, platformDescriptor, true, selections[0]!)).toBe(first);
    for (const s of selections.slice(SELECTED_LISTS_PER_ENDPOINT)) {
      const open = toolsListOpen(endpoint, platformDescriptor, true, s);
      expect(names(open)).not.toContain(`books__${[...s.disabledTools!][0]}`);
      expect(selectedListCount(endpoint)).toBe(SELECTED_LISTS_PER_ENDPOINT);
    }
    expect(toolsListOpen(endpoint, platformDescriptor, true, selections[0]!)).toBe(first);
    expect(names(toolsListOpen(endpoint, platformDescriptor, true, selections[1]!))).not.toContain(
      `books__${registry.books.descriptor.tools[1]!.name}`,
    );
  });
});

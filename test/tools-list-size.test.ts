// What an assistant loads: the size of `tools/list` per endpoint, per toolset and in read-only
// mode (the tools annotated readOnlyHint), in bytes and approximate tokens (bytes / 4). Computed
// by the runtime's own renderer (runtime/mcp/tools-list.ts) over the generated descriptors, so it
// is the text a client receives as the `result` of tools/list. The README's table
// ("What an assistant loads") must match: `UPDATE_README=1 npx vitest run test/tools-list-size.test.ts`
// rewrites it after a spec change. Every description opens with when to use the tool
// (docs/decisions/codegen-and-catalog.md, 'Every tool description opens with when to use it').
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { connectorKeys, registry } from '../generated/registry.ts';
import type { ConnectorConfig } from '../runtime/config/settings.ts';
import type { ConnectorDescriptor, ToolDescriptor } from '../runtime/handler-api/descriptor-types.ts';
import { buildConnectorRuntime } from '../runtime/gateway-context.ts';
import { toolsListOpen } from '../runtime/mcp/tools-list.ts';

const README = new URL('../README.md', import.meta.url);
const START = '<!-- tools-list-size:start (test/tools-list-size.test.ts writes this table) -->';
const END = '<!-- tools-list-size:end -->';

interface Row {
  readonly label: string;
  readonly tools: number;
  readonly bytes: number;
}

/** Bytes of the tools/list `result` the endpoint `<defaultId>` serves for a descriptor listing only `tools`. */
function listBytes(key: (typeof connectorKeys)[number], tools: readonly ToolDescriptor[]): number {
  const { descriptor, validators } = registry[key];
  const narrowed: ConnectorDescriptor = { ...descriptor, tools };
  const config: ConnectorConfig = {
    key,
    id: descriptor.defaultId,
    enabled: true,
    baseUrl: descriptor.upstream.baseUrl,
    maxInstances: 1,
  };
  const connector = buildConnectorRuntime(config, { descriptor: narrowed, validators, handlers: {} });
  const open = toolsListOpen({ instanceId: descriptor.defaultId, instance: 1, connector }, platformDescriptor, true);
  return Buffer.byteLength(`${open}}`, 'utf8');
}

function rows(): Row[] {
  const out: Row[] = [];
  for (const key of connectorKeys) {
    const { descriptor } = registry[key];
    const system = descriptor.connectAccount ? 1 : 0;
    const row = (label: string, tools: readonly ToolDescriptor[]) =>
      out.push({ label, tools: tools.length + system, bytes: listBytes(key, tools) });
    row(`**\`${descriptor.defaultId}\`** (every tool)`, descriptor.tools);
    for (const set of descriptor.toolsets)
      row(
        `\`${descriptor.defaultId}\` · toolset \`${set.id}\``,
        descriptor.tools.filter((t) => t.toolset === set.id),
      );
    row(
      `\`${descriptor.defaultId}\` · read-only`,
      descriptor.tools.filter((t) => t.annotations.readOnlyHint),
    );
  }
  return out;
}

const number = new Intl.NumberFormat('en-US');

function table(list: readonly Row[]): string {
  const lines = ['| Endpoint and selection | Tools | Bytes | ≈ Tokens |', '|---|--:|--:|--:|'];
  for (const r of list)
    lines.push(`| ${r.label} | ${r.tools} | ${number.format(r.bytes)} | ${number.format(Math.round(r.bytes / 4))} |`);
  return lines.join('\n');
}

describe('what an assistant loads (tools/list size)', () => {
  const list = rows();

  it('every toolset lists fewer bytes than its whole endpoint, and the toolsets add up to every tool', () => {
    for (const key of connectorKeys) {
      const { descriptor } = registry[key];
      const whole = listBytes(key, descriptor.tools);
      let tools = 0;
      for (const set of descriptor.toolsets) {
        const members = descriptor.tools.filter((t) => t.toolset === set.id);
        expect(members.length, `${key}/${set.id}`).toBeGreaterThan(0);
        expect(listBytes(key, members), `${key}/${set.id}`).toBeLessThan(whole);
        tools += members.length;
      }
      expect(tools, key).toBe(descriptor.tools.length);
    }
  });

  it('every tool description opens with one sentence that says when to use it', () => {
    const without: string[] = [];
    for (const key of connectorKeys) {
      for (const tool of registry[key].descriptor.tools) {
        const first = tool.description.split(/(?<=\.)\s/)[0] ?? '';
        if (!/^Use (first|when|only|before|to|for|it)\b/.test(first) || first.length > 120)
          without.push(`${key}/${tool.name}: ${first}`);
      }
    }
    expect(without).toEqual([]);
  });

  it('prints the table, and the README shows it ("What an assistant loads")', () => {
    const rendered = table(list);
    console.log(`tools/list result size per endpoint, toolset and read-only mode:\n${rendered}`);
    const readme = readFileSync(README, 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start, 'README markers').toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const next = `${readme.slice(0, start + START.length)}\n${rendered}\n${readme.slice(end)}`;
    if (process.env.UPDATE_README === '1') writeFileSync(README, next);
    else
      expect(readme, 'README table is stale: UPDATE_README=1 npx vitest run test/tools-list-size.test.ts').toBe(next);
  });
});

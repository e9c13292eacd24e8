import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { allows, EVERY_TOOL, narrow, selectionKey, type ToolSelection } from '../runtime/tool-selection.ts';

const invoicing = registry.invoicing.descriptor;
const names = (s: ToolSelection) => invoicing.tools.filter((t) => allows(s, t)).map((t) => t.name);

describe('tool selection', () => {
  it('without narrowing allows every tool', () => {
    expect(names(EVERY_TOOL)).toHaveLength(invoicing.tools.length);
    expect(selectionKey(EVERY_TOOL)).toBe('');
  });

  it('read-only keeps exactly the tools annotated readOnlyHint', () => {
    const readOnly = names({ readOnly: true });
    expect(readOnly).toEqual(invoicing.tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
    expect(readOnly.length).toBeLessThan(invoicing.tools.length);
  });

  it('narrow intersects toolsets, joins disabled tools and keeps read-only from either side', () => {
    const [first, second] = invoicing.toolsets;
    const a: ToolSelection = { toolsets: new Set([first!.id, second!.id]) };
    const b: ToolSelection = { toolsets: new Set([second!.id]), readOnly: true };
    const both = narrow(a, b);
    expect([...(both.toolsets ?? [])]).toEqual([second!.id]);
    expect(both.readOnly).toBe(true);
    const off = invoicing.tools.find((t) => t.toolset === second!.id)!.name;
    const narrower = narrow(both, { disabledTools: new Set([off]) });
    expect(names(narrower)).not.toContain(off);
    expect(names(narrower).every((n) => invoicing.tools.find((t) => t.name === n)!.toolset === second!.id)).toBe(true);
    expect(narrow(EVERY_TOOL, b)).toBe(b);
    expect(selectionKey(narrow(a, b))).toBe(selectionKey(narrow(b, a)));
  });
});

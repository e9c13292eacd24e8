// catalog:diff over toolsets: a tool moved between toolsets is dangerous (a client that selected
// the old one loses it), a toolset removed is breaking, one added is information; a catalog from
// before toolsets gains them without a move reported. The base is the golden fixture's catalog
// (toolsets `orders`: list_orders, update_note; `customers`: get_customer).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyAcknowledgements } from '../codegen/diff/acknowledge.ts';
import type { Catalog } from '../codegen/diff/catalog.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { runPipeline } from '../codegen/generate.ts';
import { GOLDEN } from './support/golden.ts';
import { catalogTool, goldenCatalog, type Mutable } from './support/golden-catalog.ts';

const base = (): Mutable => goldenCatalog();
const tool = catalogTool;
const summary = (a: Catalog, b: Catalog) => diffCatalogs(a, b).map((c) => [c.id, c.severity]);

describe('catalog diff: toolsets', () => {
  it('the golden catalog publishes its toolsets and each tool its toolset', () => {
    const c = base();
    expect(c.connectors[0].toolsets.map((s: { id: string; toolCount: number }) => [s.id, s.toolCount])).toEqual([
      ['orders', 2],
      ['customers', 1],
    ]);
    expect(tool(c, 'get_customer').toolset).toBe('customers');
  });

  it('dangerous: a tool moved to another toolset, and nothing else', () => {
    const head = base();
    tool(head, 'get_customer').toolset = 'orders';
    const changes = diffCatalogs(base(), head);
    expect(changes.map((c) => [c.id, c.severity])).toEqual([['tool-toolset-changed:demo/get_customer', 'dangerous']]);
    expect(changes[0]).toMatchObject({ before: 'customers', after: 'orders' });
    expect(changes[0]!.message).toContain('a client that selected `customers` loses it');
  });

  it('breaking: a toolset removed (its tool moved too, dangerous); the check fails until acknowledged', () => {
    const head = base();
    head.connectors[0].toolsets = head.connectors[0].toolsets.filter((s: { id: string }) => s.id !== 'customers');
    tool(head, 'get_customer').toolset = 'orders';
    const changes = diffCatalogs(base(), head);
    expect(changes.map((c) => [c.id, c.severity])).toEqual([
      ['toolset-removed:demo/toolsets.customers', 'breaking'],
      ['tool-toolset-changed:demo/get_customer', 'dangerous'],
    ]);
    expect(applyAcknowledgements(changes, []).ok).toBe(false);
    const acknowledged = applyAcknowledgements(changes, [
      { change: 'toolset-removed:demo/toolsets.customers', reason: 'Customers are read through orders now.' },
    ]);
    expect(acknowledged.ok).toBe(true);
  });

  it('information: a toolset added, and a toolset described differently (changes model behaviour)', () => {
    const head = base();
    head.connectors[0].toolsets.push({
      id: 'refunds',
      title: 'Refunds',
      description: 'Refunds of orders.',
      toolCount: 0,
    });
    head.connectors[0].toolsets[0].description = 'Orders and their notes, newest first.';
    const changes = diffCatalogs(base(), head);
    expect(changes.map((c) => [c.id, c.severity])).toEqual([
      ['toolset-changed:demo/toolsets.orders#description', 'info'],
      ['toolset-added:demo/toolsets.refunds', 'info'],
    ]);
    expect(changes[0]!.modelBehaviour).toBe(true);
  });

  it('a catalog from before toolsets: the toolsets are added (information), no tool has moved', () => {
    const before = base();
    delete before.connectors[0].toolsets;
    for (const t of before.connectors[0].tools) delete t.toolset;
    expect(summary(before, base())).toEqual([
      ['toolset-added:demo/toolsets.orders', 'info'],
      ['toolset-added:demo/toolsets.customers', 'info'],
    ]);
  });

  it('a spec edit moving a tool reaches the diff through the generator', async () => {
    const root = mkdtempSync(join(tmpdir(), 'catalog-diff-toolsets-'));
    try {
      cpSync(join(GOLDEN, 'specs'), join(root, 'specs'), { recursive: true });
      const generate = async () =>
        JSON.parse((await runPipeline(join(root, 'specs'), root)).files!.get('catalog.json')!) as Catalog;
      const before = await generate();
      const demo = join(root, 'specs/demo.yaml');
      const text = readFileSync(demo, 'utf8');
      expect(text).toContain('  - name: update_note\n    toolset: orders\n');
      writeFileSync(
        demo,
        text.replace('  - name: update_note\n    toolset: orders\n', '  - name: update_note\n    toolset: customers\n'),
      );
      expect(summary(before, await generate())).toEqual([['tool-toolset-changed:demo/update_note', 'dangerous']]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// catalog:diff --usage (docs/catalog-diff.md, 'Usage: calls per changed tool'): a usage export as
// /api/usage answers it and the admin CLI prints it gives each changed tool its calls, the changes
// are listed most called first, and the rule `uncalled` acknowledges a breaking change to a tool
// nobody called. Catalogs: the golden fixture's, changed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../bin/catalog-diff.ts';
import { AcknowledgementError, parseRules } from '../codegen/diff/acknowledge.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { catalogTool, goldenCatalog, type Mutable } from './support/golden-catalog.ts';
import { parseUsageExport, UsageExportError, withUsage } from '../codegen/diff/usage.ts';
import type { UsageRecord } from '../runtime/metering/usage-record.ts';

const fresh = (): Mutable => goldenCatalog();

/** get_customer and update_note removed, list_orders retitled, a platform instruction changed. */
function changed(): Mutable {
  const c = fresh();
  c.connectors[0].tools = c.connectors[0].tools.filter(
    (t: { name: string }) => t.name !== 'get_customer' && t.name !== 'update_note',
  );
  catalogTool(c, 'list_orders').title = 'List the orders';
  c.platform.instructions.not_subscribed = 'Subscribe first: {purchase_url}';
  return c;
}

function record(byTool: Record<string, number>, from = '2026-11-01', to = '2026-11-28'): UsageRecord {
  const calls = Object.values(byTool).reduce((a, b) => a + b, 0);
  return {
    usage: {
      from,
      to,
      totalCalls: calls,
      totalCostUnits: calls,
      byConnector: { demo: { calls, costUnits: calls, byTool } },
    },
    fairUse: { withinQuota: true, used: calls, limit: 1000, mode: 'soft', month: from.slice(0, 7) },
  };
}

const RULES = parseRules(
  'rules:\n  - rule: uncalled\n    reason: Nobody called it in the last month of every account.\n',
);

describe('catalog:diff with a usage export', () => {
  it('reads one record, the admin CLI --json answer, an array and one record per line, summing them', () => {
    const a = record({ list_orders: 5, update_note: 2 });
    const b = record({ list_orders: 1 }, '2026-10-01', '2026-10-31');
    for (const text of [
      JSON.stringify([a, b]),
      `${JSON.stringify(a)}\n${JSON.stringify({ ok: true, command: 'usage', result: b })}\n`,
    ]) {
      const usage = parseUsageExport(text, 'usage.json');
      expect(usage.calls.get('demo')).toEqual(
        new Map([
          ['list_orders', 6],
          ['update_note', 2],
        ]),
      );
      expect(usage).toMatchObject({ from: '2026-10-01', to: '2026-11-28', records: 2 });
    }
    expect(parseUsageExport(JSON.stringify(a), 'one').records).toBe(1);
    expect(() => parseUsageExport('{"usage": {}}', 'bad.json')).toThrow(UsageExportError);
    expect(() => parseUsageExport('not json', 'bad.json')).toThrow(UsageExportError);
  });

  it('shows each changed tool its calls, most called first, platform changes last', () => {
    const usage = parseUsageExport(JSON.stringify(record({ list_orders: 7, update_note: 3 })), 'u');
    const changes = withUsage(diffCatalogs(fresh(), changed()), usage, fresh(), changed(), []);
    expect(changes.map((c) => [c.id, c.calls])).toEqual([
      ['title-changed:demo/list_orders', 7],
      ['tool-removed:demo/update_note', 3],
      ['tool-removed:demo/get_customer', 0],
      ['instructions-changed:platform/instructions.not_subscribed', undefined],
    ]);
    // Without the rule nothing is acknowledged.
    expect(changes.filter((c) => c.acknowledged !== undefined)).toEqual([]);
  });

  it('acknowledges by the rule only breaking changes to tools nobody called', () => {
    const usage = parseUsageExport(JSON.stringify(record({ list_orders: 7, update_note: 3 })), 'u');
    const changes = withUsage(diffCatalogs(fresh(), changed()), usage, fresh(), changed(), RULES);
    const acknowledged = changes.filter((c) => c.acknowledged !== undefined);
    expect(acknowledged.map((c) => c.id)).toEqual(['tool-removed:demo/get_customer']);
    expect(acknowledged[0]!.acknowledged).toBe(
      'rule uncalled: Nobody called it in the last month of every account. (no calls 2026-11-01 to 2026-11-28)',
    );
  });

  it('refuses a malformed rule', () => {
    expect(() => parseRules('rules:\n  - rule: unused\n    reason: Something long enough.\n')).toThrow(
      AcknowledgementError,
    );
    expect(() => parseRules('rules:\n  - rule: uncalled\n')).toThrow(AcknowledgementError);
  });

  describe('the command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-diff-usage-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const cli = async (...argv: string[]) => {
      let text = '';
      const io = {
        colour: false,
        out: (t: string) => {
          text += t;
        },
        err: (t: string) => {
          text += t;
        },
      };
      return { code: await run(argv, io), text };
    };

    it('fails on the called tool only, and names the calls in the Markdown comment', async () => {
      const base = file('base.json', JSON.stringify(fresh()));
      const head = file('head.json', JSON.stringify(changed()));
      const usage = file('usage.json', JSON.stringify(record({ list_orders: 7, update_note: 3 })));
      const ack = file('ack.yaml', 'acknowledged: []\nrules:\n  - rule: uncalled\n    reason: Nobody called it.\n');
      const out = await cli(base, head, '--usage', usage, '--ack', ack, '--format', 'markdown');
      expect(out.code).toBe(1);
      expect(out.text).toContain('❌ **1 breaking change(s) not acknowledged.**');
      expect(out.text).toContain('(calls 2026-11-01 to 2026-11-28, 1 usage record(s))');
      expect(out.text).toContain('| `demo/update_note` | tool update_note removed | 3 calls in the usage period |');
      expect(out.text).toContain('0 calls in the usage period; acknowledged: rule uncalled: Nobody called it.');
      const withoutRule = file('plain.yaml', 'acknowledged: []\n');
      const plain = await cli(base, head, '--usage', usage, '--ack', withoutRule);
      expect(plain.text).toContain('2 breaking change(s) not acknowledged');
      expect((await cli(base, head, '--usage', join(dir, 'missing.json'))).code).toBe(2);
    });
  });
});

describe('docs/catalog-diff.md', () => {
  it("shows the tool's own pull-request comment for commit 3590f33, as it prints it today", async () => {
    const doc = readFileSync(new URL('../docs/catalog-diff.md', import.meta.url), 'utf8');
    const shown = /## A pull-request comment, for a real change[\s\S]*?```markdown\n([\s\S]*?)```/.exec(doc)?.[1];
    let text = '';
    const code = await run(['3590f33~1', '3590f33', '--format', 'markdown'], {
      colour: false,
      out: (t) => {
        text += t;
      },
      err: (t) => {
        text += t;
      },
    });
    expect(code).toBe(0);
    // When this fails, paste the command's output into the guide again (the command is named there).
    expect(shown).toBe(text);
  });
});

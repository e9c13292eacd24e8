// catalog:diff: a fixture pair (base catalog, changed catalog) for every change class the issue
// names, stability, acknowledgements, the three outputs and the CLI against files and git refs.
// The base is the golden fixture's catalog (test/fixtures/golden/generated/catalog.json).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../bin/catalog-diff.ts';
import { runPipeline } from '../codegen/generate.ts';
import { AcknowledgementError, applyAcknowledgements, parseAcknowledgements } from '../codegen/diff/acknowledge.ts';
import { CHANGE_CLASSES, type ChangeCode, type Severity } from '../codegen/diff/changes.ts';
import type { Catalog } from '../codegen/diff/catalog.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { renderJson, renderMarkdown, renderText, useColour } from '../codegen/diff/render.ts';
import { GOLDEN } from './support/golden.ts';
import { catalogTool, goldenCatalog, type Mutable } from './support/golden-catalog.ts';

const base = goldenCatalog;
const tool = catalogTool;
const orders = (c: Mutable) => tool(c, 'list_orders');

interface Pair {
  readonly name: string;
  readonly change: (c: Mutable) => void;
  readonly expect: ReadonlyArray<{ code: ChangeCode; where?: string }>;
}

const severityPairs: Record<Severity, Pair[]> = {
  breaking: [
    {
      name: 'tool removed',
      change: (c) => c.connectors[0].tools.splice(c.connectors[0].tools.indexOf(tool(c, 'get_customer')), 1),
      expect: [{ code: 'tool-removed', where: 'demo/get_customer' }],
    },
    {
      name: 'tool renamed',
      change: (c) => (tool(c, 'get_customer').name = 'find_customer'),
      expect: [{ code: 'tool-renamed', where: 'demo/get_customer' }],
    },
    {
      name: 'argument removed',
      change: (c) => delete orders(c).input.properties.status,
      expect: [{ code: 'argument-removed', where: 'demo/list_orders/input.status' }],
    },
    {
      name: 'new required argument',
      change: (c) => {
        orders(c).input.properties.shop = { type: 'string' };
        orders(c).input.required = ['shop'];
      },
      expect: [{ code: 'argument-required', where: 'demo/list_orders/input.shop' }],
    },
    {
      name: 'optional argument made required',
      change: (c) => (orders(c).input.required = ['status']),
      expect: [{ code: 'argument-required', where: 'demo/list_orders/input.status' }],
    },
    {
      name: 'narrowed type',
      change: (c) => (tool(c, 'get_customer').input.properties.regNo.type = 'integer'),
      expect: [{ code: 'type-narrowed', where: 'demo/get_customer/input.regNo' }],
    },
    {
      name: 'removed enum value',
      change: (c) => (orders(c).input.properties.status.enum = ['open']),
      expect: [{ code: 'enum-value-removed', where: 'demo/list_orders/input.status' }],
    },
    {
      name: 'tightened minimum',
      change: (c) => (orders(c).input.properties.limit.minimum = 5),
      expect: [{ code: 'constraint-tightened', where: 'demo/list_orders/input.limit' }],
    },
    {
      name: 'tightened maximum',
      change: (c) => (orders(c).input.properties.limit.maximum = 100),
      expect: [{ code: 'constraint-tightened', where: 'demo/list_orders/input.limit' }],
    },
    {
      name: 'tightened length',
      change: (c) => (tool(c, 'update_note').input.properties.note.maxLength = 200),
      expect: [{ code: 'constraint-tightened', where: 'demo/update_note/input.note' }],
    },
    {
      name: 'lower result cap',
      change: (c) => (orders(c).limits.resultMaxChars = 20000),
      expect: [{ code: 'limit-lowered', where: 'demo/list_orders/limits.resultMaxChars' }],
    },
    {
      name: 'lower upstream response cap',
      change: (c) => (c.connectors[0].upstream.maxResponseBytes = 1024),
      expect: [{ code: 'limit-lowered', where: 'demo/upstream.maxResponseBytes' }],
    },
    {
      name: 'output field removed',
      change: (c) => delete orders(c).result.properties.count,
      expect: [{ code: 'output-field-removed', where: 'demo/list_orders/result.count' }],
    },
    {
      name: 'output widened (a value clients were not promised)',
      change: (c) => orders(c).result.properties.items.items.properties.status.enum.push('void'),
      expect: [{ code: 'output-widened', where: 'demo/list_orders/result.items[].status' }],
    },
    {
      name: 'output field no longer always present',
      change: (c) => (orders(c).result.required = ['items']),
      expect: [{ code: 'output-widened', where: 'demo/list_orders/result.count' }],
    },
    {
      name: 'changed error text',
      change: (c) => (c.connectors[0].errors.rejected.text = 'Refused.'),
      expect: [{ code: 'error-text-changed', where: 'demo/errors.rejected' }],
    },
    {
      name: 'removed error text',
      change: (c) => delete c.connectors[0].errors.rejected,
      expect: [{ code: 'error-removed', where: 'demo/errors.rejected' }],
    },
    {
      name: 'changed platform error text',
      change: (c) => (c.platform.errors.generic.text = 'Failed.'),
      expect: [{ code: 'error-text-changed', where: 'platform/errors.generic' }],
    },
    {
      name: 'connector id changed (endpoint moves)',
      change: (c) => (c.connectors[0].defaultId = 'shop'),
      expect: [{ code: 'connector-id-changed', where: 'demo' }],
    },
    {
      name: 'connector removed',
      change: (c) => c.connectors.pop(),
      expect: [{ code: 'connector-removed', where: 'demo' }],
    },
  ],
  dangerous: [
    {
      name: 'changed default',
      change: (c) => (orders(c).input.properties.limit.default = 50),
      expect: [{ code: 'default-changed', where: 'demo/list_orders/input.limit' }],
    },
    {
      name: 'flipped readOnlyHint',
      change: (c) => (orders(c).annotations.readOnlyHint = false),
      expect: [{ code: 'annotation-changed', where: 'demo/list_orders/annotations' }],
    },
    {
      name: 'flipped destructiveHint',
      change: (c) =>
        (tool(c, 'update_note').annotations.destructiveHint = !tool(c, 'update_note').annotations.destructiveHint),
      expect: [{ code: 'annotation-changed', where: 'demo/update_note/annotations' }],
    },
    {
      name: 'flipped idempotentHint',
      change: (c) => (tool(c, 'update_note').annotations.idempotentHint = true),
      expect: [{ code: 'annotation-changed', where: 'demo/update_note/annotations' }],
    },
    {
      name: 'flipped openWorldHint',
      change: (c) => (orders(c).annotations.openWorldHint = true),
      expect: [{ code: 'annotation-changed', where: 'demo/list_orders/annotations' }],
    },
    {
      name: 'changed check order',
      change: (c) => c.platform.checkOrder.splice(4, 2, 'arguments', 'fair_use'),
      expect: [{ code: 'check-order-changed', where: 'platform/checkOrder' }],
    },
    {
      name: 'write tool added',
      change: (c) =>
        c.connectors[0].tools.push({
          ...structuredClone(tool(c, 'update_note')),
          name: 'delete_note',
          title: 'Delete note',
          description: 'Deletes a note.',
        }),
      expect: [{ code: 'write-tool-added', where: 'demo/delete_note' }],
    },
    {
      name: 'limit raised that costs upstream budget',
      change: (c) => (c.connectors[0].limits.upstreamPageSize = 500),
      expect: [{ code: 'limit-raised-upstream', where: 'demo/limits.upstreamPageSize' }],
    },
    {
      name: 'setting changed',
      change: (c) => (c.platform.limits.connectLinkValidSeconds = 60),
      expect: [{ code: 'setting-changed', where: 'platform/limits.connectLinkValidSeconds' }],
    },
    {
      name: 'a text now names another tool',
      change: (c) =>
        (c.connectors[0].description = c.connectors[0].description.replace('demo__list_orders', 'demo__get_customer')),
      expect: [{ code: 'tool-reference-changed', where: 'demo' }],
    },
  ],
  info: [
    {
      name: 'added tool',
      change: (c) =>
        c.connectors[0].tools.push({
          ...structuredClone(orders(c)),
          name: 'list_refunds',
          title: 'List refunds',
          description: 'Lists refunds.',
        }),
      expect: [{ code: 'tool-added', where: 'demo/list_refunds' }],
    },
    {
      name: 'optional argument',
      change: (c) => (orders(c).input.properties.to = { type: 'string', format: 'date' }),
      expect: [{ code: 'argument-added', where: 'demo/list_orders/input.to' }],
    },
    {
      name: 'widened limit',
      change: (c) => (orders(c).limits.resultMaxChars = 80000),
      expect: [{ code: 'limit-raised', where: 'demo/list_orders/limits.resultMaxChars' }],
    },
    {
      name: 'widened argument bound',
      change: (c) => (orders(c).input.properties.limit.maximum = 500),
      expect: [{ code: 'constraint-loosened', where: 'demo/list_orders/input.limit' }],
    },
    {
      name: 'output narrowed (fewer values than promised)',
      change: (c) => (orders(c).result.properties.items.items.properties.total.type = 'number'),
      expect: [{ code: 'output-narrowed', where: 'demo/list_orders/result.items[].total' }],
    },
    {
      name: 'added enum value',
      change: (c) => orders(c).input.properties.status.enum.push('void'),
      expect: [{ code: 'enum-value-added', where: 'demo/list_orders/input.status' }],
    },
    {
      name: 'tool description',
      change: (c) => (orders(c).description += ' Newest first.'),
      expect: [{ code: 'description-changed', where: 'demo/list_orders' }],
    },
    {
      name: 'tool title',
      change: (c) => (orders(c).title = 'Orders'),
      expect: [{ code: 'title-changed', where: 'demo/list_orders' }],
    },
    {
      name: 'argument description',
      change: (c) => (orders(c).input.properties.limit.description = 'Orders per page.'),
      expect: [{ code: 'description-changed', where: 'demo/list_orders/input.limit' }],
    },
    {
      name: 'connector description (instructions)',
      change: (c) => (c.connectors[0].description = 'Reads orders.'),
      expect: [{ code: 'description-changed', where: 'demo' }],
    },
    {
      name: 'a text names the same tool another way (bare, as before references)',
      change: (c) =>
        (c.connectors[0].description = c.connectors[0].description.replace('demo__list_orders', 'list_orders')),
      expect: [{ code: 'tool-reference-renamed', where: 'demo' }],
    },
  ],
};

describe('catalog diff: a fixture pair per change class', () => {
  it('a catalog diffed with itself is empty', () => {
    expect(diffCatalogs(base(), base())).toEqual([]);
    const real = JSON.parse(readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8'));
    expect(diffCatalogs(real, structuredClone(real))).toEqual([]);
  });

  for (const [severity, pairs] of Object.entries(severityPairs) as Array<[Severity, Pair[]]>) {
    for (const pair of pairs) {
      it(`${severity}: ${pair.name}`, () => {
        const head = base();
        pair.change(head);
        const changes = diffCatalogs(base(), head);
        for (const want of pair.expect) {
          const found = changes.filter(
            (c) => c.code === want.code && (want.where === undefined || c.where === want.where),
          );
          expect(found, `${want.code} at ${want.where} in ${JSON.stringify(changes.map((c) => c.id))}`).not.toEqual([]);
          expect(found.every((c) => c.severity === severity)).toBe(true);
        }
        expect(changes.every((c) => c.code in CHANGE_CLASSES)).toBe(true);
      });
    }
  }

  it('breaking: tightened items (and information: loosened items)', () => {
    const a = base();
    orders(a).input.properties.ids = { type: 'array', items: { type: 'integer' }, maxItems: 10 };
    const b = structuredClone(a);
    orders(b).input.properties.ids.maxItems = 5;
    orders(b).input.properties.ids.minItems = 1;
    expect(diffCatalogs(a, b).map((c) => [c.code, c.severity, c.id])).toEqual([
      ['constraint-tightened', 'breaking', 'constraint-tightened:demo/list_orders/input.ids#minItems'],
      ['constraint-tightened', 'breaking', 'constraint-tightened:demo/list_orders/input.ids#maxItems'],
    ]);
    expect(diffCatalogs(b, a).map((c) => [c.code, c.severity])).toEqual([
      ['constraint-loosened', 'info'],
      ['constraint-loosened', 'info'],
    ]);
  });

  it('flags title and description changes as changing model behaviour, and an enum value removal per value', () => {
    const head = base();
    orders(head).title = 'Orders';
    orders(head).input.properties.status.enum = [];
    const changes = diffCatalogs(base(), head);
    expect(changes.find((c) => c.code === 'title-changed')?.modelBehaviour).toBe(true);
    expect(changes.filter((c) => c.code === 'enum-value-removed').map((c) => c.id)).toEqual([
      'enum-value-removed:demo/list_orders/input.status="open"',
      'enum-value-removed:demo/list_orders/input.status="closed"',
    ]);
  });

  it('a renamed tool: texts naming it follow as information, an error text too; changed words: changed text', () => {
    const before = base();
    before.connectors[0].errors.rejected.text = 'Refused: call demo__list_orders again.';
    const after = structuredClone(before);
    orders(after).name = 'find_orders';
    after.connectors[0].description = after.connectors[0].description.replace('demo__list_orders', 'demo__find_orders');
    after.connectors[0].errors.rejected.text = 'Refused: call demo__find_orders again.';
    expect(diffCatalogs(before, after).map((c) => [c.id, c.severity])).toEqual([
      ['tool-reference-renamed:demo', 'info'],
      ['tool-reference-renamed:demo/errors.rejected#text', 'info'],
      ['tool-renamed:demo/list_orders', 'breaking'],
    ]);
    // The same text edit without the rename sends the assistant to a tool that does not exist.
    const unrenamed = structuredClone(before);
    unrenamed.connectors[0].errors.rejected.text = 'Refused: call demo__get_customer again.';
    expect(diffCatalogs(before, unrenamed).map((c) => [c.id, c.severity])).toEqual([
      ['tool-reference-changed:demo/errors.rejected#text', 'dangerous'],
    ]);
    after.connectors[0].errors.rejected.text = 'Refused for good: call demo__find_orders again.';
    expect(diffCatalogs(before, after).find((c) => c.where === 'demo/errors.rejected')?.code).toBe(
      'error-text-changed',
    );
  });

  it('a rename is one breaking change, not a removal and an addition', () => {
    const head = base();
    tool(head, 'get_customer').name = 'find_customer';
    expect(diffCatalogs(base(), head).map((c) => c.id)).toEqual(['tool-renamed:demo/get_customer']);
  });
});

describe('catalog diff: documentation', () => {
  it('docs/catalog-diff.md lists every change class with its severity, and only those', () => {
    const doc = readFileSync(new URL('../docs/catalog-diff.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| (breaking|dangerous|info) \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(Object.entries(CHANGE_CLASSES).map(([code, info]) => [code, info.severity]));
  });
});

describe('catalog diff: stability', () => {
  it('early access turns breaking into dangerous; experimental turns breaking and dangerous into information', () => {
    for (const [stability, breaking, dangerous] of [
      ['early-access', 'dangerous', 'dangerous'],
      ['experimental', 'info', 'info'],
      ['stable', 'breaking', 'dangerous'],
    ] as const) {
      const head = base(stability);
      delete orders(head).input.properties.status;
      orders(head).annotations.openWorldHint = true;
      const changes = diffCatalogs(base(stability), head);
      const removed = changes.find((c) => c.code === 'argument-removed')!;
      expect([removed.severity, removed.classSeverity]).toEqual([breaking, 'breaking']);
      expect(removed.stability).toBe(stability === 'stable' ? undefined : stability);
      expect(changes.find((c) => c.code === 'annotation-changed')!.severity).toBe(dangerous);
    }
  });

  it("judges by the base's stability, and reports a lowered stability as dangerous", () => {
    const head = base('stable');
    head.connectors[0].stability = 'experimental';
    delete orders(head).input.properties.status;
    const changes = diffCatalogs(base('stable'), head);
    expect(changes.find((c) => c.code === 'argument-removed')!.severity).toBe('breaking');
    expect(changes.find((c) => c.code === 'stability-lowered')!.severity).toBe('dangerous');
  });

  it('the ERP connector is early access in the specs', () => {
    const real = JSON.parse(readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8'));
    expect(
      Object.fromEntries(real.connectors.map((c: { key: string; stability: string }) => [c.key, c.stability])),
    ).toMatchObject({ erp: 'early-access', cases: 'stable' });
  });
});

describe('catalog diff: acknowledgements', () => {
  const removal = () => {
    const head = base();
    delete orders(head).input.properties.status;
    return diffCatalogs(base(), head);
  };

  it('fails on an unacknowledged breaking change and passes once a reviewer accepts it with a reason', () => {
    expect(applyAcknowledgements(removal(), []).ok).toBe(false);
    const acks = parseAcknowledgements(
      'acknowledged:\n  - change: argument-removed:demo/list_orders/input.status\n   ' +
        ' reason: The shop dropped order states; no client sends it.\n',
    );
    const verdict = applyAcknowledgements(removal(), acks);
    expect(verdict.ok).toBe(true);
    expect(verdict.changes[0]!.acknowledged).toBe('The shop dropped order states; no client sends it.');
    expect(verdict.unused).toEqual([]);
  });

  it('an acknowledgement of another change does not help, and is listed as unused', () => {
    const acks = parseAcknowledgements(
      'acknowledged:\n  - change: tool-removed:demo/list_orders\n    ' +
        'reason: Replaced by search_orders in this release.\n',
    );
    const verdict = applyAcknowledgements(removal(), acks);
    expect(verdict.ok).toBe(false);
    expect(verdict.unused.map((a) => a.change)).toEqual(['tool-removed:demo/list_orders']);
  });

  it('refuses a malformed file instead of acknowledging nothing', () => {
    expect(() => parseAcknowledgements('acknowledged:\n  - change: tool-removed:demo/x\n')).toThrow(
      AcknowledgementError,
    );
    expect(() => parseAcknowledgements('acknowledged:\n  - change: x\n    reason: long enough reason\n')).toThrow(
      /id catalog:diff prints/,
    );
    expect(() => parseAcknowledgements('acknowledged: yes\n')).toThrow(/must be a list/);
    expect(() => parseAcknowledgements('acknowleged: []\n')).toThrow(/unknown key/);
    expect(parseAcknowledgements('# nothing yet\n')).toEqual([]);
    expect(
      parseAcknowledgements(readFileSync(new URL('../catalog-acknowledgements.yaml', import.meta.url), 'utf8')),
    ).toBeInstanceOf(Array);
  });
});

describe('catalog diff: outputs', () => {
  const verdict = () => {
    const head = base();
    delete orders(head).input.properties.status;
    orders(head).title = 'Orders';
    orders(head).limits.resultMaxChars = 80000;
    return applyAcknowledgements(diffCatalogs(base(), head), []);
  };
  const labels = { base: 'main', head: 'working tree' };

  it('text: grouped by severity, with ids and a summary; colour only when asked', () => {
    const plain = renderText(verdict(), labels, false);
    expect(plain).not.toContain('\x1b[');
    expect(plain).toContain('BREAKING (1)\n  demo/list_orders/input.status: argument input.status removed');
    expect(plain).toContain('argument-removed:demo/list_orders/input.status');
    expect(plain).toContain('tool title changed (before: “List orders” → after: “Orders”; changes model behaviour)');
    expect(plain).toContain('1 breaking (0 acknowledged), 0 dangerous, 2 info');
    expect(plain).toContain('not acknowledged');
    expect(renderText(verdict(), labels, true)).toContain('\x1b[31m');
  });

  it('colour on a TTY unless NO_COLOR is set', () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
  });

  it('Markdown for a pull-request comment: a verdict, counts and a table per severity', () => {
    const md = renderMarkdown(verdict(), labels);
    expect(md).toContain('### Catalog diff: main → working tree');
    expect(md).toContain('❌ **1 breaking change(s) not acknowledged.**');
    expect(md).toContain('| 1 | 0 | 0 | 2 |');
    expect(md).toContain('#### BREAKING (1)');
    expect(md).toContain('<details><summary>INFO (2)</summary>');
    expect(md).toContain('`argument-removed:demo/list_orders/input.status`');
    expect(renderMarkdown(applyAcknowledgements([], []), labels)).toContain('No changes to the tool surface.');
  });

  it('JSON: every change with its class, severity and id', () => {
    const parsed = JSON.parse(renderJson(verdict(), labels));
    expect(parsed.ok).toBe(false);
    expect(parsed.summary).toEqual({ breaking: 1, acknowledged: 0, dangerous: 0, info: 2 });
    expect(parsed.changes.map((c: { code: string }) => c.code).sort()).toEqual([
      'argument-removed',
      'limit-raised',
      'title-changed',
    ]);
  });
});

describe('catalog diff: from spec to verdict', () => {
  it('a spec edit (enum value removed, limit kind from the spec) reaches the diff through the generator', async () => {
    const root = mkdtempSync(join(tmpdir(), 'catalog-diff-spec-'));
    try {
      cpSync(join(GOLDEN, 'specs'), join(root, 'specs'), { recursive: true });
      const generate = async () =>
        JSON.parse((await runPipeline(join(root, 'specs'), root)).files!.get('catalog.json')!) as Catalog;
      const before = await generate();
      const demo = join(root, 'specs/demo.yaml');
      const text = readFileSync(demo, 'utf8');
      expect(text).toContain('upstreamPageSize: 100');
      // The same enum is an argument and an output field: removing a value narrows both.
      writeFileSync(
        demo,
        text
          .replaceAll('enum: [open, closed]', 'enum: [open]')
          .replace('upstreamPageSize: 100', 'upstreamPageSize: 400'),
      );
      const changes = diffCatalogs(before, await generate());
      expect(changes.map((c) => [c.code, c.severity])).toEqual(
        expect.arrayContaining([
          ['enum-value-removed', 'dangerous'],
          ['output-narrowed', 'info'],
          ['limit-raised-upstream', 'dangerous'],
        ]),
      );
      // The golden connector is early access: the removed enum value is breaking for a stable one.
      expect(changes.find((c) => c.code === 'enum-value-removed')).toMatchObject({
        classSeverity: 'breaking',
        stability: 'early-access',
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('compares a catalog from before format 2 by its argument summaries', () => {
    const legacy = base();
    delete legacy.format;
    for (const t of legacy.connectors[0].tools) delete t.input;
    const head = base();
    delete orders(head).input.properties.status;
    orders(head).arguments = orders(head).arguments.filter((a: { name: string }) => a.name !== 'status');
    const changes = diffCatalogs(legacy, head);
    expect(changes.map((c) => c.id)).toEqual(['argument-removed:demo/list_orders/input.status']);
  });
});

describe('npm run catalog:diff', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const capture = () => {
    const io = {
      text: '',
      errors: '',
      out: (t: string) => (io.text += t),
      err: (t: string) => (io.errors += t),
      colour: false,
    };
    return io;
  };
  const files = (head: Mutable) => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-diff-cli-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'base.json'), JSON.stringify(base()));
    writeFileSync(join(dir, 'head.json'), JSON.stringify(head));
    return dir;
  };

  it('compares two catalog files: exit 1 on an unacknowledged breaking change, 0 once acknowledged', async () => {
    const head = base();
    delete orders(head).input.properties.status;
    const dir = files(head);
    const io = capture();
    expect(await run([join(dir, 'base.json'), join(dir, 'head.json'), '--ack', join(dir, 'none.yaml')], io)).toBe(2);
    expect(io.errors).toContain('does not exist');
    writeFileSync(
      join(dir, 'acks.yaml'),
      'acknowledged:\n  - change: ' +
        'argument-removed:demo/list_orders/input.status\n    reason: Order states are gone upstream.\n',
    );
    const failing = capture();
    expect(await run([join(dir, 'base.json'), join(dir, 'head.json'), '--root', dir], failing)).toBe(1);
    expect(failing.text).toContain('BREAKING (1)');
    const passing = capture();
    expect(
      await run(
        [join(dir, 'base.json'), join(dir, 'head.json'), '--ack', join(dir, 'acks.yaml'), '--format', 'json'],
        passing,
      ),
    ).toBe(0);
    expect(JSON.parse(passing.text).changes[0].acknowledged).toBe('Order states are gone upstream.');
  });

  it('refuses bad arguments with exit 2', async () => {
    const io = capture();
    expect(await run(['--format', 'html'], io)).toBe(2);
    expect(await run(['a', 'b', 'c'], io)).toBe(2);
    expect(await run(['no-such-ref-or-file', 'x'], io)).toBe(2);
    expect(io.errors).toContain('neither a catalog file nor a git ref');
  });

  it('against git refs: the merge base with main by default, a no-op in --ci on main or without main', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-diff-git-'));
    dirs.push(dir);
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dir,
        stdio: 'pipe',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
    const write = (c: Mutable) => {
      mkdirSync(join(dir, 'generated'), { recursive: true });
      writeFileSync(join(dir, 'generated/catalog.json'), JSON.stringify(c));
    };
    git('init', '-q', '-b', 'work');
    write(base());
    git('add', '.');
    git('commit', '-qm', 'base');
    let io = capture();
    expect(await run(['--ci', '--root', dir], io)).toBe(0);
    expect(io.text).toContain('no merge base with main');
    expect(await run(['--root', dir], capture())).toBe(2);
    git('branch', 'main');
    io = capture();
    expect(await run(['--ci', '--root', dir], io)).toBe(0);
    expect(io.text).toContain('HEAD is the merge base');
    const head = base();
    tool(head, 'get_customer').name = 'find_customer';
    write(head);
    git('commit', '-qam', 'rename');
    io = capture();
    expect(await run(['--ci', '--root', dir, 'main', 'HEAD', '--format', 'markdown'], io)).toBe(1);
    expect(io.text).toContain('`tool-renamed:demo/get_customer`');
    io = capture();
    expect(await run(['main', 'HEAD', '--root', dir, '--format', 'json'], io)).toBe(1);
    expect(JSON.parse(io.text).base).toMatch(/^main \([0-9a-f]{10}\)$/);
  });
});

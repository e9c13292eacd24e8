// The stub emitter only adds: hand-written handlers and helper code stay byte for byte.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planStubs } from '../codegen/emit/stubs.ts';
import { goldenIR, GOLDEN } from './support/golden.ts';

describe('handler stub emitter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stubs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the index and one stub per tool for a new connector (golden)', () => {
    const changes = planStubs(goldenIR(), join(dir, 'fresh'));
    const byPath = Object.fromEntries(changes.map((c) => [c.path, c.content]));
    expect(Object.keys(byPath).sort()).toEqual([
      'handlers/demo/get-customer.ts', 'handlers/demo/index.ts', 'handlers/demo/list-orders.ts', 'handlers/demo/update-note.ts', 'handlers/index.ts',
    ]);
    for (const [path, content] of Object.entries(byPath)) {
      expect(content, path).toBe(readFileSync(join(GOLDEN, 'expected-handlers', path.replace(/^handlers\//, '')), 'utf8'));
    }
  });

  it('adds only the missing tool to a hand-written index', () => {
    const handlers = join(dir, 'existing');
    mkdirSync(join(handlers, 'demo'), { recursive: true });
    const index = [
      "import type { DemoHandlers } from '#generated/demo/contract.ts';",
      "import { listOrders, getCustomer } from './orders.ts';",
      '',
      '// Hand-written: keep this comment and the odd formatting.',
      'export const demoHandlers = {',
      '  list_orders: listOrders,   get_customer: getCustomer,',
      '} satisfies DemoHandlers;',
      '',
    ].join('\n');
    writeFileSync(join(handlers, 'demo', 'index.ts'), index);
    writeFileSync(join(handlers, 'index.ts'), "import { demoHandlers } from './demo/index.ts';\n\nexport const connectorHandlers = { demo: demoHandlers };\n");
    const changes = planStubs(goldenIR(), handlers);
    expect(changes.map((c) => c.path).sort()).toEqual(['handlers/demo/index.ts', 'handlers/demo/update-note.ts']);
    const updated = changes.find((c) => c.path === 'handlers/demo/index.ts')!.content;
    expect(updated).toContain("import { updateNote } from './update-note.ts';");
    expect(updated).toContain('update_note: updateNote');
    // Everything that was there is still there, unchanged.
    for (const line of index.split('\n').filter((l) => l && !l.startsWith('}'))) expect(updated).toContain(line.replace(/,$/, ''));
  });
});

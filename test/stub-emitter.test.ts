// The stub emitter only adds files: a tool without a handler file gets a stub, and hand-written
// handlers and helpers are never read or rewritten (the handler map itself is generated).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planStubs } from '../codegen/emit/stubs.ts';
import { goldenIR, GOLDEN } from './support/golden.ts';

describe('handler stub emitter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stubs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one stub per tool for a new connector (golden)', () => {
    const changes = planStubs(goldenIR(), join(dir, 'fresh'));
    const byPath = Object.fromEntries(changes.map((c) => [c.path, c.content]));
    expect(Object.keys(byPath).sort()).toEqual([
      'handlers/demo/get-customer.ts',
      'handlers/demo/list-orders.ts',
      'handlers/demo/update-note.ts',
    ]);
    for (const [path, content] of Object.entries(byPath)) {
      expect(content, path).toBe(readFileSync(join(GOLDEN, path), 'utf8'));
    }
  });

  it('writes only the missing handler file and leaves hand-written ones alone', () => {
    const handlers = join(dir, 'existing');
    mkdirSync(join(handlers, 'demo'), { recursive: true });
    writeFileSync(join(handlers, 'demo', 'list-orders.ts'), '// hand-written\n');
    writeFileSync(join(handlers, 'demo', 'get-customer.ts'), '// hand-written\n');
    const changes = planStubs(goldenIR(), handlers);
    expect(changes.map((c) => c.path)).toEqual(['handlers/demo/update-note.ts']);
    expect(readFileSync(join(handlers, 'demo', 'list-orders.ts'), 'utf8')).toBe('// hand-written\n');
  });
});

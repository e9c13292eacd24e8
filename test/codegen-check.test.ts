// Regeneration is deterministic, the check mode passes on main, and it fails usefully when a spec
// is edited without regenerating.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSpecs, emitAll } from '../codegen/generate.ts';
import { run } from '../codegen/main.ts';
import { ROOT } from './support/golden.ts';

describe('codegen check mode', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'codegen-check-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('emits identical bytes on every run', async () => {
    const { ir } = checkSpecs(`${ROOT}/specs`, ROOT);
    const first = (await emitAll(ir!)).files;
    const second = (await emitAll(ir!)).files;
    expect([...second]).toEqual([...first]);
    const today = new Date().toISOString().slice(0, 10);
    for (const [path, content] of first) expect(content, path).not.toContain(today);
  });

  it('passes on the committed tree', async () => {
    const out: string[] = [];
    const code = await run(
      ['--check'],
      (l) => out.push(l),
      (l) => out.push(l),
    );
    expect(out.join('\n')).toMatch(/codegen check OK/);
    expect(code).toBe(0);
  });

  it('fails, naming the stale files and the fix, when a spec changes without regenerating', async () => {
    for (const dir of ['specs', 'generated', 'handlers']) cpSync(join(ROOT, dir), join(tmp, dir), { recursive: true });
    const spec = join(tmp, 'specs', 'cases.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('title: List cases', 'title: List all cases'));
    const errors: string[] = [];
    const code = await run(
      ['--check', '--root', tmp],
      () => {},
      (l) => errors.push(l),
    );
    expect(code).toBe(1);
    const text = errors.join('\n');
    expect(text).toContain('differs: generated/cases/descriptor.ts');
    expect(text).toContain('differs: generated/CATALOG.md');
    expect(text).toContain('Run `npm run codegen`');
  });

  it('fails when a tool is added and its handler stub is missing, and regenerating adds it', async () => {
    const spec = join(tmp, 'specs', 'register.yaml');
    writeFileSync(
      spec,
      `${readFileSync(spec, 'utf8')}
  - name: hent_branche
    toolset: companies
    title: Get industry
    description: Use to name an industry code. Looks up an industry code.
    input:
      type: object
      required: [kode]
      properties:
        kode: { type: string, pattern: "^[0-9]{6}$" }
    errors: [generic]
`,
    );
    const errors: string[] = [];
    expect(
      await run(
        ['--check', '--root', tmp],
        () => {},
        (l) => errors.push(l),
      ),
    ).toBe(1);
    expect(errors.join('\n')).toContain('handler stub needed: handlers/register/hent-branche.ts');
    expect(
      await run(
        ['--root', tmp],
        () => {},
        () => {},
      ),
    ).toBe(0);
    expect(readFileSync(join(tmp, 'handlers/register/hent-branche.ts'), 'utf8')).toContain(
      "stub('register', 'hent_branche')",
    );
    const map = readFileSync(join(tmp, 'generated/register/handlers.ts'), 'utf8');
    expect(map).toContain("import { hentBranche } from '../../handlers/register/hent-branche.ts';");
    expect(map).toContain('hent_branche: hentBranche');
    expect(
      await run(
        ['--check', '--root', tmp],
        () => {},
        () => {},
      ),
    ).toBe(0);
  });
});

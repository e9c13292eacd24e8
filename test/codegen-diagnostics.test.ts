// Every diagnostic code has a failing fixture and documentation, in both directions, and a spec
// full of problems gets all of them reported in one run with file:line:col.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTICS, formatDiagnostic, diagnostic } from '../codegen/diagnostics.ts';
import { checkFixture, DIAGNOSTIC_FIXTURES, fixtureNames } from './support/diagnostics-fixture.ts';

const codes = Object.keys(DIAGNOSTICS).sort();
const MULTI = 'many-at-once';

describe('spec diagnostics', () => {
  it('every code has a fixture folder and every code-named fixture is a known code', () => {
    const named = fixtureNames().filter((n) => n !== MULTI);
    expect(named).toEqual(codes);
  });

  it('every code has a title and a hint', () => {
    for (const code of codes) {
      const info = DIAGNOSTICS[code as keyof typeof DIAGNOSTICS];
      expect(info.title.length, code).toBeGreaterThan(5);
      expect(info.hint.length, code).toBeGreaterThan(20);
    }
  });

  for (const name of fixtureNames()) {
    it(`${name}: reports exactly the expected diagnostics`, async () => {
      const expected = readFileSync(`${DIAGNOSTIC_FIXTURES}${name}/expected.txt`, 'utf8').trim().split('\n');
      const { lines, codes: found } = await checkFixture(name);
      expect(lines).toEqual(expected);
      if (name !== MULTI) expect(found).toContain(name);
    });
  }

  it('reports every problem of one file in one run', async () => {
    const { codes: found } = await checkFixture(MULTI);
    expect(new Set(found)).toEqual(
      new Set(['SPEC002', 'SPEC003', 'SPEC010', 'SPEC021', 'SPEC022', 'SPEC023', 'SPEC025']),
    );
  });

  it('suggests the key an author probably meant', async () => {
    const { lines, hints } = await checkFixture('SPEC003');
    expect(lines[0]).toContain('unknown key `titel`');
    expect(hints[0]).toContain('did you mean `title`?');
    expect((await checkFixture('SPEC025')).hints[0]).toContain('did you mean `generic`?');
    const d = diagnostic(
      'SPEC003',
      'specs/x.yaml',
      { line: 3, col: 5 },
      'unknown key `titel`',
      'did you mean `title`?',
    );
    expect(formatDiagnostic(d)).toBe(
      'specs/x.yaml:3:5 error SPEC003 unknown key `titel`\n    hint: did you mean `title`?',
    );
  });
});

describe('diagnostics documentation', () => {
  it('docs/spec-format.md documents every code, and only known codes', () => {
    const doc = readFileSync(new URL('../docs/spec-format.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `(SPEC\d{3})` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(codes);
  });
});

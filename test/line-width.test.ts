// Issue 32, item 6: a line width a reader can diff. No line of a hand-written .ts/.mjs file is longer
// than 120 characters: Biome wraps code at `formatter.lineWidth`, and what it cannot wrap (string
// literals, template literals, comments, regular expressions) is split by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/golden.ts';

const MAX_LINE = 120;

/** Folders not read: emitted code, fixtures (golden and example output), installed and local data. */
const SKIPPED = new Set(['node_modules', 'generated', 'test/fixtures', 'data', 'coverage', 'test-artifacts']);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name) || SKIPPED.has(path)) return [];
    if (entry.isDirectory()) return sources(path);
    // A sandbox's data.ts is a transcript of upstream records, kept as the upstream spells them.
    if (/^sandbox\/[^/]+\/data\.ts$/.test(path)) return [];
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const biome = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as { formatter: { lineWidth: number } };

describe('line width', () => {
  it('formats at the same width (biome.json formatter.lineWidth)', () => {
    expect(biome.formatter.lineWidth).toBe(MAX_LINE);
  });

  it(`has no line over ${MAX_LINE} characters`, () => {
    const long = sources('').flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => ([...line].length > MAX_LINE ? [`${file}:${i + 1}`] : [])),
    );
    expect(long).toEqual([]);
  });

  it('reads every hand-written folder', () => {
    const folders = new Set(sources('').map((file) => file.split('/')[0]));
    expect([...folders].sort()).toEqual(
      expect.arrayContaining(['bin', 'codegen', 'handlers', 'runtime', 'sandbox', 'test']),
    );
    expect(sources('').some((file) => file.startsWith('generated/') || file.startsWith('test/fixtures/'))).toBe(false);
  });
});

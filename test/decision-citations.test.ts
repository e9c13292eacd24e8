// Citations of the project's decisions stay true: a comment, spec, test or document that cites
// `docs/decisions/<file>.md, '<heading>'` names a file that exists and a heading it has, and the
// folder's README lists every file in it (docs/decisions/README.md, 'How this folder was split').
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/golden.ts';

const DECISIONS = 'docs/decisions';
const ROOTS = ['runtime', 'handlers', 'sandbox', 'bin', 'codegen', 'specs', 'test', 'docs', 'generated'];
const TOP_FILES = [
  'README.md',
  'AGENTS.md',
  'CONTRIBUTING.md',
  'REVIEW.md',
  'BENCHMARKS.md',
  'catalog-acknowledgements.yaml',
];
const TEXT = /\.(?:ts|mjs|md|yaml|json)$/;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    return statSync(join(ROOT, path)).isDirectory() ? files(path) : TEXT.test(name) ? [path] : [];
  });
}

/**
 * A file's text with comment markers at line starts removed and lines joined, so a citation wrapped over comment lines
 * reads as one.
 */
function flattened(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:\/\/|\*|#)?\s?/, ''))
    .join(' ')
    .replace(/\s+/g, ' ');
}

/** The `## ` headings of a decisions file. */
function headings(file: string): Set<string> {
  const text = readFileSync(join(ROOT, DECISIONS, file), 'utf8');
  return new Set([...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim()));
}

type Citation = { from: string; file: string; heading: string | undefined };

/** `docs/decisions/<file>.md` (also as a Markdown link), optionally followed by `, '<heading>'`. */
function citations(from: string): Citation[] {
  const text = flattened(readFileSync(join(ROOT, from), 'utf8'));
  const found: Citation[] = [];
  for (const m of text.matchAll(/docs\/decisions\/([\w-]+\.md)(?:\]\([^)]*\))?(?:,\s*'(.+?)'(?=[\s),.;:`]|$))?/g)) {
    found.push({ from, file: m[1]!, heading: m[2] });
  }
  // Inside the folder, a decision in another file is cited as `<file>.md, '<heading>'`.
  if (from.startsWith(`${DECISIONS}/`)) {
    for (const m of text.matchAll(/(?<![\w/.-])([a-z][a-z0-9-]*\.md),\s*'(.+?)'(?=[\s),.;:`]|$)/g))
      found.push({ from, file: m[1]!, heading: m[2] });
  }
  return found;
}

const all = [...ROOTS.flatMap(files), ...TOP_FILES.filter((file) => existsSync(join(ROOT, file)))].flatMap(citations);

describe('decision citations', () => {
  it('finds the citations it checks (the scan is not empty)', () => {
    expect(all.filter((c) => c.heading !== undefined).length).toBeGreaterThan(40);
  });

  it('every cited decisions file exists, and every cited heading is one of its headings', () => {
    const wrong: string[] = [];
    for (const c of all) {
      if (!existsSync(join(ROOT, DECISIONS, c.file))) {
        wrong.push(`${c.from}: no file ${DECISIONS}/${c.file}`);
        continue;
      }
      if (c.heading !== undefined && !headings(c.file).has(c.heading))
        wrong.push(`${c.from}: ${c.file} has no heading '${c.heading}'`);
    }
    expect(wrong).toEqual([]);
  });

  it('nothing cites the single decisions file that was split up', () => {
    const old = [...ROOTS.flatMap(files), ...TOP_FILES.filter((file) => existsSync(join(ROOT, file)))].filter(
      (file) =>
        file !== 'test/decision-citations.test.ts' &&
        file !== `${DECISIONS}/README.md` &&
        /docs\/decisions\.md/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(old).toEqual([]);
  });

  it('the README lists every file of the folder, and every file it links exists', () => {
    const readme = readFileSync(join(ROOT, DECISIONS, 'README.md'), 'utf8');
    const linked = new Set([...readme.matchAll(/\]\(([\w-]+\.md)\)/g)].map((m) => m[1]!));
    const present = readdirSync(join(ROOT, DECISIONS)).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(present.filter((name) => !linked.has(name))).toEqual([]);
    expect([...linked].filter((name) => !present.includes(name))).toEqual([]);
  });
});

// Issue 32, items 2 and 5: the platform store's repositories, the portal's pages and the admin CLI
// are small modules. No function in them over 120 lines and no file over 500 (a longer one needs
// its reason written next to it and here).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Node, Project } from 'ts-morph';
import { ROOT } from './support/golden.ts';

const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 500;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const FILES = ['runtime/store/store.ts', 'runtime/store/sql-store.ts', ...sources('runtime/store/repositories'), ...sources('runtime/portal'), 'bin/admin.ts', ...sources('bin/admin')];

describe('module size (platform store, portal pages, admin CLI)', () => {
  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = FILES.map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length })).filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const project = new Project({ useInMemoryFileSystem: true });
    const long: string[] = [];
    for (const file of FILES) {
      project.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8')).forEachDescendant((node) => {
        if (!Node.isFunctionDeclaration(node) && !Node.isArrowFunction(node) && !Node.isFunctionExpression(node) && !Node.isMethodDeclaration(node)) return;
        const lines = node.getEndLineNumber() - node.getStartLineNumber() + 1;
        if (lines > MAX_FUNCTION_LINES) long.push(`${file}:${node.getStartLineNumber()} (${lines} lines)`);
      });
    }
    expect(long).toEqual([]);
  });
});

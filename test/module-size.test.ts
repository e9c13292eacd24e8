// Every module is small enough to read: no source file over 500 lines and no function over 120
// outside tests, generated/ and the sandboxes' data tables (sandbox/*/data.ts). A function that is
// better whole says why in a comment right above it that contains "long because:".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ts } from 'ts-morph';
import { ROOT } from './support/golden.ts';

const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 500;
/** The hand-written source folders; tests, generated/ and the sandboxes' data tables are left out. */
const FOLDERS = ['bin', 'codegen', 'handlers', 'runtime', 'sandbox'];
const REASON = /long because:/i;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    return statSync(join(ROOT, path)).isDirectory()
      ? sources(path)
      : /\.(ts|mjs)$/.test(path) && !/^sandbox\/[^/]+\/data\.ts$/.test(path)
        ? [path]
        : [];
  });
}

const FILES = FOLDERS.flatMap(sources);

type FunctionLike = ts.FunctionDeclaration | ts.MethodDeclaration | ts.ArrowFunction | ts.FunctionExpression;
const isFunctionLike = (node: ts.Node): node is FunctionLike =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

/** The function's name: its own, or that of the variable, property or method it is assigned to. */
function nameOf(node: FunctionLike, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return '(anonymous)';
}

/** The comments right above the function, or above the statement or property that declares it. */
function leadingComments(node: FunctionLike, source: ts.SourceFile): string {
  let holder: ts.Node = node;
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    while (
      holder.parent &&
      !ts.isSourceFile(holder.parent) &&
      !ts.isStatement(holder) &&
      !ts.isPropertyDeclaration(holder) &&
      !ts.isPropertyAssignment(holder)
    )
      holder = holder.parent;
  }
  const text = source.getFullText();
  return (ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [])
    .map((c) => text.slice(c.pos, c.end))
    .join('\n');
}

/** Functions over the limit without a reason, as `file:line name (lines)`. */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      const name = nameOf(node, source);
      if (lines > MAX_FUNCTION_LINES && !REASON.test(leadingComments(node, source)))
        long.push(`${file}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

describe('module size', () => {
  it('reads the source folders', () => {
    expect(FILES).toContain('runtime/pipeline/pipeline.ts');
    expect(FILES).not.toContain('sandbox/books/data.ts');
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = FILES.map((file) => ({
      file,
      lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length,
    })).filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines without its reason written above it`, () => {
    expect(FILES.flatMap(longFunctions)).toEqual([]);
  });
});

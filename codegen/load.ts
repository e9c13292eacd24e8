// Loads spec YAML keeping positions, so every diagnostic can point at file:line:col.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { diagnostic, type Diagnostic, type Position } from './diagnostics.ts';

export type PathSegment = string | number;

export interface SpecSource {
  /** Path shown in diagnostics and generated headers, relative to the project root (`specs/cases.yaml`). */
  readonly file: string;
  /** File name without `.yaml`: the connector's key in generated/ and handlers/. */
  readonly stem: string;
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
  readonly data: unknown;
}

export function listSpecFiles(specDir: string): string[] {
  return readdirSync(specDir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(specDir, name));
}

export function loadSpec(path: string, root: string): { source: SpecSource; diagnostics: Diagnostic[] } {
  const text = readFileSync(path, 'utf8');
  return parseSpec(text, relative(root, path).split('\\').join('/'));
}

export function parseSpec(text: string, file: string): { source: SpecSource; diagnostics: Diagnostic[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const diagnostics: Diagnostic[] = [];
  for (const error of doc.errors) {
    const [offset] = error.pos;
    diagnostics.push(
      diagnostic('SPEC001', file, toPosition(lines, offset), error.message.split('\n')[0] ?? error.message),
    );
  }
  const stem = file
    .split('/')
    .pop()!
    .replace(/\.yaml$/, '');
  const data = doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: 100 });
  return { source: { file, stem, doc, lines, data }, diagnostics };
}

function toPosition(lines: LineCounter, offset: number): Position {
  const { line, col } = lines.linePos(offset);
  return { line, col };
}

/**
 * Position of the value at `path` (or of its key when `key` is set). Walks as deep as the document
 * goes, so a path into something that does not exist points at its nearest existing parent.
 */
export function locate(source: SpecSource, path: readonly PathSegment[], key = false): Position {
  let node: unknown = source.doc.contents;
  let best: Node | null = (node as Node | null) ?? null;
  let keyNode: Node | null = null;
  for (const segment of path) {
    keyNode = null;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (!pair) break;
      keyNode = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      break;
    }
    if (node && typeof node === 'object' && 'range' in node) best = node as Node;
    else if (keyNode) best = keyNode;
  }
  const target = key && keyNode ? keyNode : best;
  const offset = target?.range?.[0] ?? 0;
  return toPosition(source.lines, offset);
}

/** Split a JSON pointer (`/tools/3/input`) into segments, numbers for array indexes. */
export function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg));
}

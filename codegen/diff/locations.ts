// Where a catalog change sits in the specs: the YAML file and line a CI system annotates. A change's
// `where` (`cases/list_cases/input.status`, `platform/errors.generic`) is walked down the spec's
// tree as far as it exists (codegen/load.ts `locate`), so a removed item points at its parent.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listSpecFiles, loadSpec, locate, type PathSegment, type SpecSource } from '../load.ts';

export interface SpecLocation {
  readonly file: string;
  readonly line: number;
}

/** A schema path inside a tool (`input.a.b[]`, `result.x`) as spec keys. */
function schemaPath(path: string): PathSegment[] {
  const [head, ...rest] = path.split('.');
  const root = head!.replace(/\[\]|\|\d+/g, '');
  const out: PathSegment[] = [root === 'result' ? 'output' : root];
  if (head !== root) out.push('items');
  for (const part of rest) {
    const name = part.replace(/\[\]|\|\d+|#.*$|=.*$/g, '');
    if (name && name !== '*') out.push('properties', name);
    if (part.includes('[]')) out.push('items');
  }
  return out;
}

/** The spec path of a change inside a section (`errors.x`, `limits.y`, `<tool>/input.z`). */
function sectionPath(source: SpecSource, section: PathSegment[], rest: string[]): PathSegment[] {
  const [first, second] = rest;
  if (first === undefined) return section;
  const dotted = first.split('#')[0]!.split('.');
  const known = ['errors', 'protocolErrors', 'limits', 'limitKinds', 'upstream', 'texts', 'instructions'];
  if (known.includes(dotted[0]!)) return [...section, ...dotted];
  if (dotted[0] === 'checkOrder' || dotted[0] === 'annotations') return [...section, dotted[0]!];
  const data = source.data as Record<string, any> | undefined;
  const list: Array<{ name?: string }> = section[0] === 'platform' ? data?.platform?.systemTools : data?.tools;
  const toolsKey: PathSegment[] = section[0] === 'platform' ? ['platform', 'systemTools'] : ['tools'];
  const index = Array.isArray(list) ? list.findIndex((t) => t?.name === first) : -1;
  if (index < 0) return toolsKey;
  const tool = [...toolsKey, index];
  if (second === undefined) return tool;
  const part = second.split('#')[0]!;
  if (part.startsWith('input') || part.startsWith('result')) return [...tool, ...schemaPath(part)];
  return [...tool, part.split('.')[0]!];
}

/** Locates changes in the specs of `root` (specs/<connector key>.yaml, specs/platform.yaml). */
export function specLocator(root: string): (where: string) => SpecLocation | undefined {
  const dir = join(root, 'specs');
  const sources = new Map<string, SpecSource>();
  if (existsSync(dir))
    for (const path of listSpecFiles(dir)) {
      const { source } = loadSpec(path, root);
      sources.set(source.stem, source);
    }
  return (where) => {
    const [key, ...rest] = where.split('/');
    const source = sources.get(key!);
    if (!source) return undefined;
    const section: PathSegment[] = key === 'platform' ? ['platform'] : ['connector'];
    return { file: source.file, line: locate(source, sectionPath(source, section, rest)).line };
  };
}

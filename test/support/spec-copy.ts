// A temporary copy of this checkout's specs/ with one connector file edited through the YAML
// document API, so a test can try a spec change (a deprecation, a removal) without touching specs/.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument, type Document } from 'yaml';

const SPECS = new URL('../../specs/', import.meta.url).pathname;

export interface SpecCopy {
  readonly root: string;
  readonly specs: string;
  /** Edits `<key>.yaml` of the copy in place. */
  edit(key: string, change: (doc: Document, toolIndex: (name: string) => number) => void): void;
  remove(): void;
}

export function specCopy(): SpecCopy {
  const root = mkdtempSync(join(tmpdir(), 'spec-copy-'));
  const specs = join(root, 'specs');
  cpSync(SPECS, specs, { recursive: true });
  return {
    root,
    specs,
    edit(key, change) {
      const file = join(specs, `${key}.yaml`);
      const doc = parseDocument(readFileSync(file, 'utf8'));
      const tools = (doc.toJS() as { tools: { name: string }[] }).tools;
      change(doc, (name) => {
        const i = tools.findIndex((t) => t.name === name);
        if (i < 0) throw new Error(`${key}.yaml has no tool ${name}`);
        return i;
      });
      writeFileSync(file, doc.toString());
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

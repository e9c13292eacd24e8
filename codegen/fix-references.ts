// `node codegen/main.ts --fix-references`: rewrites every tool a spec text names without a
// reference (SPEC039) as `{{tool:<name>}}`, in place and line by line, so a merge of texts written
// with bare names is converted by one command. Only the names change: the edit is checked by
// parsing the file again and comparing every text with the expected one; a plain scalar that would
// start with `{` is written double-quoted instead. A file whose check fails is left as it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { isScalar } from 'yaml';
import { listSpecFiles, parseSpec, type PathSegment } from './load.ts';
import { findBareNames, referenceScope, systemToolScope, textSites } from './references.ts';
import { isObject } from './schema.ts';

export interface FixReport {
  readonly file: string;
  /** Names rewritten as references. */
  readonly count: number;
  /** Set when the file was left unchanged: why. */
  readonly failed?: string;
}

interface Edit {
  readonly path: PathSegment[];
  readonly start: number;
  readonly end: number;
  readonly raw: string;
  readonly expected: string;
}

const fromNames = (text: string, hits: ReturnType<typeof findBareNames>): string => {
  let out = text;
  for (const h of [...hits].reverse()) out = `${out.slice(0, h.start)}{{tool:${h.name}}}${out.slice(h.end)}`;
  return out;
};

export function fixReferences(specDir: string, root: string): FixReport[] {
  const files = listSpecFiles(specDir);
  const platformFile = files.find((f) => f.endsWith('/platform.yaml'));
  const platformData = platformFile
    ? parseSpec(readFileSync(platformFile, 'utf8'), 'platform.yaml').source.data
    : undefined;
  const systemTools = systemToolScope(
    isObject(platformData) && isObject(platformData.platform) ? platformData.platform : undefined,
  );
  const reports: FixReport[] = [];
  for (const path of files) {
    const file = path.slice(root.length + 1);
    const text = readFileSync(path, 'utf8');
    const { source, diagnostics } = parseSpec(text, file);
    if (diagnostics.length > 0 || !isObject(source.data)) continue;
    const data = source.data;
    const scope = referenceScope(isObject(data.platform) ? data.platform : data, systemTools);
    // First with plain scalars edited in place; if that does not read back (a plain scalar in a
    // flow mapping cannot hold `{`), with every edited plain scalar double-quoted.
    let result: { fixed: string; count: number } | string = 'nothing to do';
    for (const quotePlain of [false, true]) {
      const edits: Edit[] = [];
      let count = 0;
      for (const site of textSites(data)) {
        const hits = findBareNames(site.text, scope);
        if (hits.length === 0) continue;
        const node = source.doc.getIn(site.path, true);
        if (!isScalar(node) || !node.range) continue;
        const [start, end] = node.range;
        const raw = text.slice(start, end);
        const rawHits = findBareNames(raw, scope);
        const expected = fromNames(site.text, hits);
        // The written form holds the same names at other offsets (folding, escapes); a plain scalar
        // cannot start with `{`: such a text is written as a double-quoted (JSON) string instead.
        const plain = node.type === 'PLAIN';
        const quote = rawHits.length !== hits.length || (plain && (quotePlain || expected.startsWith('{')));
        edits.push({
          path: site.path,
          start,
          end,
          raw: quote ? JSON.stringify(expected) : fromNames(raw, rawHits),
          expected,
        });
        count += hits.length;
      }
      if (edits.length === 0) break;
      let fixed = text;
      for (const e of [...edits].sort((a, b) => b.start - a.start))
        fixed = fixed.slice(0, e.start) + e.raw + fixed.slice(e.end);
      const check = parseSpec(fixed, file);
      const wrong =
        check.diagnostics.length > 0
          ? 'the edited file does not parse'
          : edits.find((e) => check.source.doc.getIn(e.path) !== e.expected)?.path.join('.');
      result = wrong ? `${wrong}: convert it by hand` : { fixed, count };
      if (!wrong) break;
    }
    if (result === 'nothing to do') continue;
    if (typeof result === 'string') {
      reports.push({ file, count: 0, failed: result });
      continue;
    }
    const { fixed, count } = result;
    writeFileSync(path, fixed);
    reports.push({ file, count });
  }
  return reports;
}

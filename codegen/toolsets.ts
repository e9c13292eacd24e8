// Toolsets (spec top-level `toolsets:` and each tool's `toolset:`): every connector tool is in
// exactly one declared toolset, no toolset is unknown or empty, ids are lowercase kebab or snake
// case and unique (SPEC040–SPEC044). One `toolset:` key per tool makes "exactly one" structural
// (a second key is a YAML duplicate, SPEC001) and puts each diagnostic at the tool it concerns.
import { closest } from './closest.ts';
import { DIAGNOSTICS, diagnostic, type Diagnostic } from './diagnostics.ts';
import { locate, type PathSegment, type SpecSource } from './load.ts';
import { isObject } from './schema.ts';

/** Lowercase kebab or snake case: what a client types in `X-MCP-Toolsets` and `/x/<toolset>`. */
export const TOOLSET_ID_PATTERN = /^[a-z][a-z0-9]*([-_][a-z0-9]+)*$/;

export function lintToolsets(source: SpecSource): Diagnostic[] {
  const data = isObject(source.data) ? source.data : {};
  if (!isObject(data.connector) || !Array.isArray(data.tools)) return [];
  const file = source.file;
  const at = (path: PathSegment[], key = false) => locate(source, path, key);
  const out: Diagnostic[] = [];
  const declared = new Map<string, number>();
  const toolsets = Array.isArray(data.toolsets) ? data.toolsets : [];
  toolsets.forEach((entry, index) => {
    if (!isObject(entry) || typeof entry.id !== 'string') return;
    const id = entry.id;
    if (!TOOLSET_ID_PATTERN.test(id))
      out.push(
        diagnostic(
          'SPEC043',
          file,
          at(['toolsets', index, 'id']),
          `toolset id \`${id}\` must match ${TOOLSET_ID_PATTERN.source}`,
        ),
      );
    const first = declared.get(id);
    if (first !== undefined)
      out.push(
        diagnostic(
          'SPEC044',
          file,
          at(['toolsets', index, 'id']),
          `toolset \`${id}\` is declared twice (first at line ${at(['toolsets', first, 'id']).line})`,
        ),
      );
    else declared.set(id, index);
  });
  const used = new Set<string>();
  const ids = [...declared.keys()];
  data.tools.forEach((tool, index) => {
    if (!isObject(tool)) return;
    const name = typeof tool.name === 'string' ? tool.name : `#${index}`;
    if (typeof tool.toolset !== 'string') {
      const choices = ids.length ? ` (declared: ${ids.join(', ')})` : ' (the file declares no `toolsets:`)';
      if (tool.toolset === undefined)
        out.push(
          diagnostic('SPEC040', file, at(['tools', index, 'name']), `tool \`${name}\` names no \`toolset:\`${choices}`),
        );
      return;
    }
    used.add(tool.toolset);
    if (!declared.has(tool.toolset)) {
      const guess = closest(tool.toolset, ids);
      out.push(
        diagnostic(
          'SPEC041',
          file,
          at(['tools', index, 'toolset']),
          `tool \`${name}\` names toolset \`${tool.toolset}\`, which \`toolsets:\` does not declare` +
            `${ids.length ? ` (declared: ${ids.join(', ')})` : ''}`,
          guess ? `did you mean \`${guess}\`? ${DIAGNOSTICS.SPEC041.hint}` : undefined,
        ),
      );
    }
  });
  for (const [id, index] of declared) {
    if (!used.has(id))
      out.push(diagnostic('SPEC042', file, at(['toolsets', index, 'id']), `toolset \`${id}\` has no tools`));
  }
  return out;
}

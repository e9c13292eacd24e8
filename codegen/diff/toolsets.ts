// Toolset changes of one connector between two catalogs: a toolset removed breaks a client that
// selects it, a tool moved to another toolset disappears from a client that selected the old one,
// a toolset added (or the toolsets introduced in a catalog that had none) is information.
import type { ChangeCode } from './changes.ts';
import type { CatalogConnector } from './catalog.ts';

type Report = (
  code: ChangeCode,
  where: string,
  message: string,
  before?: unknown,
  after?: unknown,
  key?: string,
) => void;

interface ToolsetEntry {
  readonly id: string;
  readonly title?: unknown;
  readonly description?: unknown;
}

function toolsetsOf(c: CatalogConnector): ToolsetEntry[] {
  return Array.isArray(c.toolsets)
    ? (c.toolsets as unknown[]).filter(
        (s): s is ToolsetEntry => typeof s === 'object' && s !== null && typeof (s as ToolsetEntry).id === 'string',
      )
    : [];
}

export function diffToolsets(a: CatalogConnector, b: CatalogConnector, report: Report): void {
  const at = a.key;
  const before = new Map(toolsetsOf(a).map((s) => [s.id, s]));
  const after = new Map(toolsetsOf(b).map((s) => [s.id, s]));
  for (const [id, s] of before) {
    const now = after.get(id);
    if (!now) {
      report(
        'toolset-removed',
        `${at}/toolsets.${id}`,
        `toolset \`${id}\` removed: a client that selects it is refused`,
        s,
        undefined,
      );
      continue;
    }
    for (const field of ['title', 'description'] as const) {
      if (JSON.stringify(s[field]) !== JSON.stringify(now[field]))
        report(
          'toolset-changed',
          `${at}/toolsets.${id}`,
          `${field} of toolset \`${id}\` changed`,
          s[field],
          now[field],
          field,
        );
    }
  }
  for (const [id, s] of after)
    if (!before.has(id)) report('toolset-added', `${at}/toolsets.${id}`, `toolset \`${id}\` added`, undefined, s);
  // A tool whose toolset was not published before (a catalog without toolsets) has not moved.
  const toolsetA = new Map(a.tools.map((t) => [t.name, t.toolset]));
  for (const t of b.tools) {
    const was = toolsetA.get(t.name);
    if (typeof was === 'string' && was !== t.toolset) {
      report(
        'tool-toolset-changed',
        `${at}/${t.name}`,
        `tool ${t.name} moved from toolset \`${was}\` to \`${String(t.toolset ?? 'none')}\`: a client that ` +
          `selected \`${was}\` loses it`,
        was,
        t.toolset,
      );
    }
  }
}

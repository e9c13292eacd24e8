// Deprecations in the catalog diff (docs/decisions/codegen-and-catalog.md, 'Deprecations carry a
// sunset; only the lint reads the date'): a new deprecation is information, a sunset moved earlier
// dangerous; removing a deprecated tool or argument keeps its class (`tool-removed`,
// `argument-removed`, breaking, same id), acknowledged by the deprecation itself once the sunset
// has passed, and named as early while it has not.
import { type Catalog, type CatalogTool, type Collector, isObj, type Json, keys, obj, same } from './catalog.ts';
import type { CatalogChange, Stability } from './changes.ts';

interface Deprecation {
  readonly reason?: unknown;
  readonly replacement?: unknown;
  readonly sunset?: unknown;
}

const describe = (d: Deprecation) =>
  `${String(d.reason ?? '')}${d.replacement ? ` Use \`${String(d.replacement)}\` instead.` : ''} ` +
  `Sunset ${String(d.sunset ?? 'not given')}.`;

function compare(
  out: Collector,
  stability: Stability,
  where: string,
  what: string,
  added: 'tool-deprecated' | 'argument-deprecated',
  a: unknown,
  b: unknown,
): void {
  if (same(a, b)) return;
  if (!isObj(a) && isObj(b)) out.add(stability, added, where, `${what} deprecated: ${describe(b)}`, undefined, b);
  else if (isObj(a) && !isObj(b))
    out.add(stability, 'deprecation-withdrawn', where, `${what} no longer deprecated`, a, undefined);
  else if (isObj(a) && isObj(b)) {
    const earlier = typeof a.sunset === 'string' && typeof b.sunset === 'string' && b.sunset < a.sunset;
    out.add(
      stability,
      earlier ? 'sunset-advanced' : 'deprecation-changed',
      where,
      earlier
        ? `${what}: sunset moved earlier, ${a.sunset} → ${b.sunset}`
        : `${what}: deprecation changed: ${describe(b)}`,
      a,
      b,
    );
  }
}

/** A tool's own deprecation and its arguments'. */
export function diffDeprecations(out: Collector, stability: Stability, at: string, a: CatalogTool, b: CatalogTool) {
  compare(out, stability, at, `tool ${b.name}`, 'tool-deprecated', a.deprecated, b.deprecated);
  const argsA = obj(a.deprecatedArguments);
  const argsB = obj(b.deprecatedArguments);
  const inputB = obj(obj(b.input).properties);
  for (const name of keys(argsA, argsB)) {
    // An argument removed with its deprecation is reported as removed (and judged by its sunset below).
    if (argsB[name] === undefined && !(name in inputB)) continue;
    compare(out, stability, `${at}/input.${name}`, `argument ${name}`, 'argument-deprecated', argsA[name], argsB[name]);
  }
}

/** The base catalog's deprecation of the item `where` names (`<key>/<tool>` or `<key>/<tool>/input.<arg>`). */
function deprecationAt(base: Catalog, where: string): Json | undefined {
  const m = /^([^/]+)\/([^/]+)(?:\/input\.([^/.#]+))?$/.exec(where);
  if (!m) return undefined;
  const [, section, toolName, arg] = m;
  const tools =
    section === 'platform'
      ? (base.platform.systemTools ?? [])
      : (base.connectors.find((c) => c.key === section)?.tools ?? []);
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) return undefined;
  const d = arg === undefined ? tool.deprecated : obj(tool.deprecatedArguments)[arg];
  return isObj(d) && typeof d.sunset === 'string' ? d : undefined;
}

/**
 * Removals of deprecated items judged by their sunset against `today` (YYYY-MM-DD, UTC): after it,
 * acknowledged with the deprecation as the reason; on or before it, still breaking and unacknowledged,
 * the message saying the sunset has not passed.
 */
export function judgeRemovals(changes: readonly CatalogChange[], base: Catalog, today: string): CatalogChange[] {
  return changes.map((c) => {
    if (c.code !== 'tool-removed' && c.code !== 'argument-removed') return c;
    const d = deprecationAt(base, c.where);
    if (!d) return c;
    const sunset = String(d.sunset);
    if (sunset < today)
      return {
        ...c,
        message: `${c.message} (deprecated; sunset ${sunset} passed)`,
        acknowledged: `deprecated with sunset ${sunset}, which has passed: ${String(d.reason)}`,
      };
    return { ...c, message: `${c.message} before its sunset ${sunset} (deprecated: ${String(d.reason)})` };
  });
}

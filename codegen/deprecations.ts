// Deprecations (spec `deprecated: { reason, replacement?, sunset }` on a tool or on a top-level
// argument of its input): where they may stand and what they may name (SPEC046), and the sunset
// check of `codegen --lint` (SPEC045), which needs "today" and therefore never runs while
// generating (docs/decisions/codegen-and-catalog.md, 'Deprecations carry a sunset; only the lint reads the date').
import { diagnostic, type Diagnostic } from './diagnostics.ts';
import { locate, type PathSegment, type SpecSource } from './load.ts';
import { isObject, type JsonSchema } from './schema.ts';

/**
 * A deprecated tool or argument (spec `deprecated:`): `replacement` is a tool of the connector (for
 * a tool) or an argument of the same tool (for an argument); `sunset` the last day it is served.
 */
export interface DeprecationIR {
  readonly reason: string;
  readonly replacement?: string;
  /** YYYY-MM-DD (UTC). */
  readonly sunset: string;
}

export function deprecationOf(raw: unknown, resolve: (text: string) => string): DeprecationIR | undefined {
  if (!isObject(raw)) return undefined;
  return {
    reason: resolve(String(raw.reason).trim()),
    ...(typeof raw.replacement === 'string' ? { replacement: raw.replacement } : {}),
    sunset: String(raw.sunset),
  };
}

/** The input's deprecated top-level arguments, and the input with each marked `deprecated: true` instead. */
export function splitDeprecations(
  input: JsonSchema,
  resolve: (text: string) => string,
): { input: JsonSchema; deprecated: Record<string, DeprecationIR> } {
  const deprecated: Record<string, DeprecationIR> = {};
  if (!isObject(input.properties)) return { input, deprecated };
  const properties = Object.fromEntries(
    Object.entries(input.properties).map(([name, p]) => {
      const d = isObject(p) ? deprecationOf(p.deprecated, resolve) : undefined;
      if (!d) return [name, p];
      deprecated[name] = d;
      return [name, { ...(p as JsonSchema), deprecated: true }];
    }),
  );
  return { input: { ...input, properties }, deprecated };
}

/** Today's date in UTC as YYYY-MM-DD, the form of a `sunset`. */
export function utcDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Whether a YYYY-MM-DD string is a real calendar day (2026-02-30 is not). */
export function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const parsed = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && utcDay(parsed) === day;
}

interface Site {
  readonly path: PathSegment[];
  readonly what: string;
  readonly deprecated: Record<string, unknown>;
  /** Names `replacement` may take. */
  readonly candidates: readonly string[];
  readonly self: string;
}

function toolsOf(data: Record<string, unknown>): { tools: unknown[]; base: PathSegment[] } {
  if (Array.isArray(data.tools)) return { tools: data.tools, base: ['tools'] };
  const platform = isObject(data.platform) ? data.platform : {};
  return { tools: Array.isArray(platform.systemTools) ? platform.systemTools : [], base: ['platform', 'systemTools'] };
}

/** Every deprecation in its allowed place: on a tool, and on a top-level property of its input. */
function sites(data: Record<string, unknown>): Site[] {
  const { tools, base } = toolsOf(data);
  const names = tools.flatMap((t) => (isObject(t) && typeof t.name === 'string' ? [t.name] : []));
  const out: Site[] = [];
  tools.forEach((t, i) => {
    if (!isObject(t) || typeof t.name !== 'string') return;
    if (isObject(t.deprecated))
      out.push({
        path: [...base, i, 'deprecated'],
        what: `tool \`${t.name}\``,
        deprecated: t.deprecated,
        candidates: names,
        self: t.name,
      });
    const props = isObject(t.input) && isObject(t.input.properties) ? t.input.properties : {};
    for (const [arg, schema] of Object.entries(props))
      if (isObject(schema) && isObject(schema.deprecated))
        out.push({
          path: [...base, i, 'input', 'properties', arg, 'deprecated'],
          what: `argument \`${arg}\` of tool \`${t.name}\``,
          deprecated: schema.deprecated,
          candidates: Object.keys(props),
          self: arg,
        });
  });
  return out;
}

/** Paths of `deprecated` keys inside schemas anywhere but the allowed places. */
function misplaced(value: unknown, path: PathSegment[], allowed: ReadonlySet<string>, out: PathSegment[][]): void {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) misplaced(v, [...path, i], allowed, out);
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, key];
    if (key === 'deprecated' && isObject(child) && !allowed.has(at.join('/'))) out.push(at);
    else if (key !== 'default' && key !== 'const' && key !== 'enum' && key !== 'examples')
      misplaced(child, at, allowed, out);
  }
}

/** SPEC046: a deprecation out of place, a replacement that names nothing (or itself), a sunset that is no day. */
export function lintDeprecations(source: SpecSource): Diagnostic[] {
  const data = isObject(source.data) ? source.data : {};
  const out: Diagnostic[] = [];
  const found = sites(data);
  const allowed = new Set(found.map((s) => s.path.join('/')));
  const stray: PathSegment[][] = [];
  misplaced(data, [], allowed, stray);
  for (const path of stray)
    out.push(
      diagnostic(
        'SPEC046',
        source.file,
        locate(source, path, true),
        '`deprecated` is allowed on a tool and on a top-level property of its `input` only',
      ),
    );
  for (const site of found) {
    const { replacement, sunset } = site.deprecated;
    if (typeof replacement === 'string' && (replacement === site.self || !site.candidates.includes(replacement)))
      out.push(
        diagnostic(
          'SPEC046',
          source.file,
          locate(source, [...site.path, 'replacement']),
          `the replacement of ${site.what}, \`${replacement}\`, is ${
            replacement === site.self
              ? 'the item itself'
              : `not ${site.what.startsWith('tool') ? 'a tool of this file' : 'an argument of the tool'}`
          }`,
        ),
      );
    if (typeof sunset === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(sunset) && !isCalendarDay(sunset))
      out.push(
        diagnostic(
          'SPEC046',
          source.file,
          locate(source, [...site.path, 'sunset']),
          `the sunset of ${site.what}, ${sunset}, is not a calendar day`,
        ),
      );
  }
  return out;
}

/** SPEC045: deprecations whose sunset is before `today` (YYYY-MM-DD, UTC): the item should be gone. */
export function lintSunsets(source: SpecSource, today: string): Diagnostic[] {
  const data = isObject(source.data) ? source.data : {};
  return sites(data)
    .filter((s) => typeof s.deprecated.sunset === 'string' && s.deprecated.sunset < today)
    .map((s) =>
      diagnostic(
        'SPEC045',
        source.file,
        locate(source, [...s.path, 'sunset']),
        `${s.what} is past its sunset ${String(s.deprecated.sunset)} (today is ${today}) and still in the spec`,
      ),
    );
}

// What the catalog diff compares (the catalog summaries' shapes) and collects (changes with stable
// ids), and how it tells a changed text from one that only names renamed tools.
import { CHANGE_CLASSES, type ChangeCode, type CatalogChange, type Stability, severityFor } from './changes.ts';

export type Json = Record<string, unknown>;

export interface CatalogTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly system?: boolean;
  readonly write?: boolean;
  readonly annotations?: Json;
  readonly arguments?: readonly Json[];
  readonly input?: Json;
  readonly limits?: Record<string, number>;
  readonly dataLayer?: boolean;
  readonly errors?: readonly string[];
  readonly result?: unknown;
  readonly [key: string]: unknown;
}

export interface CatalogConnector {
  readonly key: string;
  readonly defaultId: string;
  readonly tools: readonly CatalogTool[];
  readonly [key: string]: unknown;
}

export interface Catalog {
  readonly format?: number;
  readonly platform: Json & { readonly systemTools?: readonly CatalogTool[] };
  readonly connectors: readonly CatalogConnector[];
  readonly [key: string]: unknown;
}

/** Keys derived from others (or bookkeeping): a change to them is reported through their source. */
export const DERIVED_TOOL_KEYS = new Set(['servedAs', 'arguments', 'system']);
/** `connectAccount` shows as the connect_account entry of the connector's tools. */
export const DERIVED_CONNECTOR_KEYS = new Set(['toolCount', 'tools', 'connectAccount']);

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const json = (v: unknown) => JSON.stringify(v);
export const same = (a: unknown, b: unknown) => json(a) === json(b);
export const obj = (v: unknown): Json => (isObj(v) ? v : {});
export const stabilityOf = (c: Json | undefined): Stability =>
  c?.stability === 'early-access' || c?.stability === 'experimental' ? c.stability : 'stable';

export type LimitKind = 'result' | 'input' | 'upstream' | 'setting';

export class Collector {
  readonly changes: CatalogChange[] = [];
  readonly #ids = new Set<string>();

  add(
    stability: Stability,
    code: ChangeCode,
    where: string,
    message: string,
    before?: unknown,
    after?: unknown,
    key?: string,
  ): void {
    let id = `${code}:${where}${key ? (key.startsWith('=') ? key : `#${key}`) : ''}`;
    for (let n = 2; this.#ids.has(id); n++) id = `${id.replace(/~\d+$/, '')}~${n}`;
    this.#ids.add(id);
    const classSeverity = CHANGE_CLASSES[code].severity;
    const severity = severityFor(code, stability);
    this.changes.push({
      id,
      code,
      severity,
      classSeverity,
      ...(severity !== classSeverity && stability !== 'stable' ? { stability } : {}),
      where,
      message,
      ...(before !== undefined ? { before } : {}),
      ...(after !== undefined ? { after } : {}),
      ...('modelBehaviour' in CHANGE_CLASSES[code] ? { modelBehaviour: true as const } : {}),
    });
  }
}

/**
 * The tool names a connector's texts may mention (both catalogs' tools, served or bare) and the
 * renames between them. Spec texts name tools by reference, rendered in the catalog as
 * `<default id>__<tool>` (docs/spec-format.md); a text whose only difference is in those names is
 * reported as a reference change, not as a changed text.
 */
export interface ToolNames {
  readonly pattern?: RegExp;
  /** Old name → new name of every tool the diff takes as renamed. */
  readonly renames: ReadonlyMap<string, string>;
}

export const NO_NAMES: ToolNames = { renames: new Map() };

export function toolNames(names: Iterable<string>, renames: ReadonlyMap<string, string>): ToolNames {
  const list = [...new Set(names)].filter((n) => /^[A-Za-z0-9_-]+$/.test(n)).sort((a, b) => b.length - a.length);
  if (list.length === 0) return { renames };
  return {
    pattern: new RegExp(
      '(?<![A-Za-z0-9_.:/-])(?:[a-z][a-z0-9-]*__)?' +
        `(${list.map((n) => n.replace(/-/g, '\\-')).join('|')})(?![A-Za-z0-9_-])`,
      'g',
    ),
    renames,
  };
}

/**
 * `same`: the texts differ only in how they name the same tools (a referenced tool was renamed,
 * or a bare name became a reference); `other`: only in names, but a name now points at another
 * tool; undefined: the words changed too (or nothing is a tool name).
 */
export function referenceOnly(x: unknown, y: unknown, names: ToolNames): 'same' | 'other' | undefined {
  if (typeof x !== 'string' || typeof y !== 'string' || !names.pattern || x === y) return undefined;
  const split = (text: string) => {
    const refs: string[] = [];
    const skeleton = text.replace(names.pattern!, (_, name: string) => {
      refs.push(name);
      return '\u0000';
    });
    return { skeleton, refs };
  };
  const a = split(x);
  const b = split(y);
  if (a.skeleton !== b.skeleton || a.refs.length === 0) return undefined;
  return a.refs.every((name, i) => (names.renames.get(name) ?? name) === b.refs[i]) ? 'same' : 'other';
}

/** A changed text: a reference change when only the tools it names differ, else `code`. */
export function addText(
  out: Collector,
  stability: Stability,
  code: ChangeCode,
  where: string,
  message: string,
  x: unknown,
  y: unknown,
  names: ToolNames,
  key?: string,
): void {
  const refs = referenceOnly(x, y, names);
  const subject = message.split(':')[0];
  if (refs === 'same')
    out.add(
      stability,
      'tool-reference-renamed',
      where,
      `${subject}: only the names of the tools it names changed (a tool was renamed, or is now named as served)`,
      x,
      y,
      key,
    );
  else if (refs === 'other')
    out.add(
      stability,
      'tool-reference-changed',
      where,
      `${subject}: now names another tool, so the assistant is sent elsewhere`,
      x,
      y,
      key,
    );
  else out.add(stability, code, where, message, x, y, key);
}

export function keys(a: unknown, b: unknown): string[] {
  return [...new Set([...Object.keys(obj(a)), ...Object.keys(obj(b))])].sort();
}

/** Removed tools matched to added ones: same arguments, result, write flag, and title or description. */
export function matchRenames(
  toolsA: readonly CatalogTool[],
  toolsB: readonly CatalogTool[],
  inputOf: (t: CatalogTool) => Json,
): Map<string, CatalogTool> {
  const byNameB = new Set(toolsB.map((t) => t.name));
  const byNameA = new Set(toolsA.map((t) => t.name));
  const removed = toolsA.filter((t) => !byNameB.has(t.name));
  const added = toolsB.filter((t) => !byNameA.has(t.name));
  const renamedTo = new Map<string, CatalogTool>();
  for (const r of removed) {
    const match = added.find(
      (t) =>
        ![...renamedTo.values()].includes(t) &&
        same(inputOf(t), inputOf(r)) &&
        same(t.result, r.result) &&
        t.write === r.write &&
        (same(t.title, r.title) || same(t.description, r.description)),
    );
    if (match) renamedTo.set(r.name, match);
  }
  return renamedTo;
}

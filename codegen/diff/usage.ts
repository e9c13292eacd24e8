// Usage-aware severity (docs/catalog-diff.md, 'Usage: calls per changed tool'): a usage export
// (the JSON `/api/usage` answers, or `npm run admin -- usage <account>` prints, with or without
// --json; one or several, as a JSON array or one per line) gives each changed tool its calls in
// the period; changes are listed by calls, most first; and the rule `uncalled` acknowledges a
// breaking change to a tool nobody called in the period.
import type { AcknowledgementRule } from './acknowledge.ts';
import { type Catalog, isObj, obj } from './catalog.ts';
import type { CatalogChange } from './changes.ts';

export class UsageExportError extends Error {}

export interface UsageExport {
  /** Calls per connector id (the deployment's id, default the spec's), then per tool. */
  readonly calls: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly from?: string;
  readonly to?: string;
  /** How many usage records were summed (one per account). */
  readonly records: number;
}

/** A usage record, unwrapped from the admin CLI's `--json` answer (`{ ok, result }`) where it is one. */
function recordOf(value: unknown, origin: string): Record<string, unknown> {
  const record = isObj(value) && value.ok === true && isObj(value.result) ? value.result : value;
  if (!isObj(record) || !isObj(record.usage) || !isObj(record.usage.byConnector))
    throw new UsageExportError(`${origin}: not a usage record (expected { usage: { byConnector } })`);
  return record.usage;
}

export function parseUsageExport(text: string, origin: string): UsageExport {
  let values: unknown[];
  try {
    const whole = JSON.parse(text) as unknown;
    values = Array.isArray(whole) ? whole : [whole];
  } catch {
    try {
      values = text
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as unknown);
    } catch (error) {
      throw new UsageExportError(`${origin} is not JSON: ${(error as Error).message}`);
    }
  }
  if (values.length === 0) throw new UsageExportError(`${origin} holds no usage record`);
  const calls = new Map<string, Map<string, number>>();
  let from: string | undefined;
  let to: string | undefined;
  for (const value of values) {
    const usage = recordOf(value, origin);
    if (typeof usage.from === 'string' && (from === undefined || usage.from < from)) from = usage.from;
    if (typeof usage.to === 'string' && (to === undefined || usage.to > to)) to = usage.to;
    for (const [id, c] of Object.entries(obj(usage.byConnector))) {
      const tools = calls.get(id) ?? new Map<string, number>();
      calls.set(id, tools);
      for (const [tool, n] of Object.entries(obj(obj(c).byTool)))
        if (typeof n === 'number') tools.set(tool, (tools.get(tool) ?? 0) + n);
    }
  }
  return { calls, records: values.length, ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

export const periodOf = (u: UsageExport) => `${u.from ?? '?'} to ${u.to ?? '?'}`;

/** Calls of the tool (or, without one, the connector) a change's `where` names; platform changes have none. */
function callsAt(where: string, usage: UsageExport, ids: ReadonlyMap<string, readonly string[]>): number | undefined {
  const [key, tool] = where.split('/') as [string, string | undefined];
  if (key === 'platform' || !ids.has(key)) return undefined;
  const sections = ids.get(key)!.flatMap((id) => (usage.calls.has(id) ? [usage.calls.get(id)!] : []));
  let n = 0;
  for (const s of sections)
    if (tool === undefined) for (const v of s.values()) n += v;
    else n += s.get(tool) ?? 0;
  return n;
}

/** The ids a connector's calls are recorded under: its default id in either catalog, and its key. */
function connectorIds(base: Catalog, head: Catalog): Map<string, string[]> {
  const ids = new Map<string, string[]>();
  for (const c of [...base.connectors, ...head.connectors])
    ids.set(c.key, [...new Set([...(ids.get(c.key) ?? []), c.defaultId, c.key])]);
  return ids;
}

/**
 * Each change with the calls of its tool (a connector change: the connector's) in the period, most called first (the
 * order otherwise kept); then breaking changes to tools nobody called acknowledged by the `uncalled` rule.
 */
export function withUsage(
  changes: readonly CatalogChange[],
  usage: UsageExport,
  base: Catalog,
  head: Catalog,
  rules: readonly AcknowledgementRule[],
): CatalogChange[] {
  const ids = connectorIds(base, head);
  const uncalled = rules.find((r) => r.rule === 'uncalled');
  const counted = changes.map((c) => {
    const calls = callsAt(c.where, usage, ids);
    if (calls === undefined) return c;
    const toolLevel = c.where.split('/').length > 1;
    const acknowledge =
      uncalled && toolLevel && calls === 0 && c.severity === 'breaking' && c.acknowledged === undefined;
    return {
      ...c,
      calls,
      ...(acknowledge ? { acknowledged: `rule uncalled: ${uncalled.reason} (no calls ${periodOf(usage)})` } : {}),
    };
  });
  const rank = (c: CatalogChange) => c.calls ?? -1;
  return counted
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(b.c) - rank(a.c) || a.i - b.i)
    .map(({ c }) => c);
}

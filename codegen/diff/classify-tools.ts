// The catalog diff below the connector: upstream settings, limits and their kinds, error texts,
// annotations, and each tool's arguments, result and texts (classify.ts runs it per connector).
import {
  addText,
  type Collector,
  DERIVED_TOOL_KEYS,
  json,
  keys,
  matchRenames,
  NO_NAMES,
  obj,
  same,
  type CatalogTool,
  type Json,
  type LimitKind,
  type ToolNames,
} from './catalog.ts';
import type { Stability } from './changes.ts';
import { diffDeprecations } from './deprecations.ts';
import { diffSchema, type Report } from './schema-diff.ts';

export function diffUpstream(out: Collector, stability: Stability, at: string, a: Json, b: Json): void {
  for (const key of keys(a, b)) {
    if (same(a[key], b[key])) continue;
    const where = `${at}/upstream.${key}`;
    if (key === 'maxResponseBytes' && typeof a[key] === 'number' && typeof b[key] === 'number') {
      const lower = (b[key] as number) < (a[key] as number);
      out.add(
        stability,
        lower ? 'limit-lowered' : 'limit-raised',
        where,
        `upstream response cap ${String(a[key])} → ${String(b[key])} bytes`,
        a[key],
        b[key],
      );
    } else if (key === 'name' || key === 'baseUrl')
      out.add(
        stability,
        'upstream-changed',
        where,
        `upstream ${key} ${json(a[key])} → ${json(b[key])}`,
        a[key],
        b[key],
      );
    else
      out.add(stability, 'setting-changed', where, `upstream ${key} ${json(a[key])} → ${json(b[key])}`, a[key], b[key]);
  }
}

/** Limits of a section, each classified by its kind (a tool's limits by its connector's kinds). */
export function diffLimits(
  out: Collector,
  stability: Stability,
  at: string,
  a: Json,
  b: Json,
  kindsA: Json,
  kindsB: Json,
): void {
  for (const name of keys(a, b)) {
    const x = a[name];
    const y = b[name];
    if (same(x, y)) continue;
    const kind = (kindsB[name] ?? kindsA[name]) as LimitKind | undefined;
    const where = `${at}/limits.${name}`;
    const label = `limit ${name}${kind ? ` (${kind})` : ''}`;
    if (typeof x !== 'number') out.add(stability, 'limit-added', where, `${label} added: ${String(y)}`, x, y);
    else if (typeof y !== 'number') out.add(stability, 'limit-removed', where, `${label} removed (was ${x})`, x, y);
    else if (kind === 'setting' || kind === undefined)
      out.add(stability, 'setting-changed', where, `${label} ${x} → ${y}`, x, y);
    else if (y < x) out.add(stability, 'limit-lowered', where, `${label} lowered ${x} → ${y}`, x, y);
    else
      out.add(
        stability,
        kind === 'upstream' ? 'limit-raised-upstream' : 'limit-raised',
        where,
        `${label} raised ${x} → ${y}${kind === 'upstream' ? ': costs upstream budget' : ''}`,
        x,
        y,
      );
  }
}

/** Kinds of the limit names both sides use (a limit that appears or goes is reported as such, with its kind). */
export function diffLimitKinds(
  out: Collector,
  stability: Stability,
  at: string,
  kindsA: Json,
  kindsB: Json,
  usedA: ReadonlySet<string>,
  usedB: ReadonlySet<string>,
): void {
  for (const name of keys(kindsA, kindsB)) {
    if (same(kindsA[name], kindsB[name]) || !usedA.has(name) || !usedB.has(name)) continue;
    out.add(
      stability,
      'limit-kind-changed',
      `${at}/limitKinds.${name}`,
      `limit ${name} is now ${String(kindsB[name] ?? 'without a kind')} ` +
        `(was ${String(kindsA[name] ?? 'without a kind')})`,
      kindsA[name],
      kindsB[name],
    );
  }
}

/** Limit names a section uses: its own and its tools'. */
export function usedLimits(limits: unknown, tools: readonly CatalogTool[]): Set<string> {
  return new Set([...Object.keys(obj(limits)), ...tools.flatMap((t) => Object.keys(obj(t.limits)))]);
}

export function diffErrors(
  out: Collector,
  stability: Stability,
  at: string,
  a: Json,
  b: Json,
  names: ToolNames = NO_NAMES,
): void {
  for (const code of keys(a, b)) {
    const x = a[code];
    const y = b[code];
    const where = `${at}/errors.${code}`;
    if (same(x, y)) continue;
    if (x === undefined) {
      out.add(stability, 'error-added', where, `error \`${code}\` added`, undefined, y);
      continue;
    }
    if (y === undefined) {
      out.add(
        stability,
        'error-removed',
        where,
        `error \`${code}\` removed: an assistant may rely on its text`,
        x,
        undefined,
      );
      continue;
    }
    const ex = obj(x);
    const ey = obj(y);
    if (!same(ex.name, ey.name))
      out.add(
        stability,
        'error-text-changed',
        where,
        `text of \`${code}\` changed: an assistant may rely on it`,
        ex.text,
        ey.text,
        'text',
      );
    else if (!same(ex.text, ey.text))
      addText(
        out,
        stability,
        'error-text-changed',
        where,
        `text of \`${code}\` changed: an assistant may rely on it`,
        ex.text,
        ey.text,
        names,
        'text',
      );
    if (!same(ex.reconnect ?? false, ey.reconnect ?? false) || !same(ex.upstream ?? [], ey.upstream ?? [])) {
      out.add(
        stability,
        'error-behaviour-changed',
        where,
        `\`${code}\`: reconnect ${String(ex.reconnect ?? false)} → ` +
          `${String(ey.reconnect ?? false)}, upstream ${json(ex.upstream ?? [])} → ${json(ey.upstream ?? [])}`,
        x,
        y,
        'behaviour',
      );
    }
    if (!same(ex.when, ey.when))
      addText(
        out,
        stability,
        'error-when-changed',
        where,
        `when \`${code}\` is answered: described differently`,
        ex.when,
        ey.when,
        names,
        'when',
      );
    for (const key of keys(ex, ey)) {
      if (['text', 'name', 'reconnect', 'upstream', 'when'].includes(key) || same(ex[key], ey[key])) continue;
      out.add(stability, 'changed', where, `${key} of \`${code}\` changed`, ex[key], ey[key], key);
    }
  }
}

export function diffAnnotations(out: Collector, stability: Stability, where: string, a: Json, b: Json): void {
  for (const hint of keys(a, b)) {
    if (!same(a[hint], b[hint]))
      out.add(
        stability,
        'annotation-changed',
        where,
        `${hint}: ${json(a[hint]) ?? 'unset'} → ${json(b[hint]) ?? 'unset'}`,
        a[hint],
        b[hint],
        hint,
      );
  }
}

export function diffTools(
  out: Collector,
  stability: Stability,
  at: string,
  toolsA: readonly CatalogTool[],
  toolsB: readonly CatalogTool[],
  kindsA: Json,
  kindsB: Json,
  inputOf: (t: CatalogTool) => Json,
  names: ToolNames = NO_NAMES,
): void {
  const byNameB = new Map(toolsB.map((t) => [t.name, t]));
  const byNameA = new Map(toolsA.map((t) => [t.name, t]));
  const added = toolsB.filter((t) => !byNameA.has(t.name));
  const renamedTo = matchRenames(toolsA, toolsB, inputOf);
  for (const a of toolsA) {
    const b = byNameB.get(a.name);
    const where = `${at}/${a.name}`;
    if (b) {
      diffTool(out, stability, where, a, b, kindsA, kindsB, inputOf, names);
      continue;
    }
    const to = renamedTo.get(a.name);
    if (to) {
      out.add(
        stability,
        'tool-renamed',
        where,
        `tool ${a.name} renamed to ${to.name}: prompts naming it break`,
        a.name,
        to.name,
      );
      diffTool(out, stability, `${at}/${to.name}`, { ...a, name: to.name }, to, kindsA, kindsB, inputOf, names);
    } else out.add(stability, 'tool-removed', where, `tool ${a.name} removed`);
  }
  const renamed = new Set(renamedTo.values());
  for (const b of added) {
    if (renamed.has(b)) continue;
    const where = `${at}/${b.name}`;
    if (b.write === true) out.add(stability, 'write-tool-added', where, `write tool ${b.name} added`);
    else out.add(stability, 'tool-added', where, `tool ${b.name} added`);
  }
}

export function diffTool(
  out: Collector,
  stability: Stability,
  at: string,
  a: CatalogTool,
  b: CatalogTool,
  kindsA: Json,
  kindsB: Json,
  inputOf: (t: CatalogTool) => Json,
  names: ToolNames = NO_NAMES,
): void {
  if (!same(a.title, b.title))
    addText(out, stability, 'title-changed', at, 'tool title changed', a.title, b.title, names);
  if (!same(a.description, b.description))
    addText(out, stability, 'description-changed', at, 'tool description changed', a.description, b.description, names);
  if (!same(a.write, b.write))
    out.add(
      stability,
      'write-changed',
      at,
      `${b.write === true ? 'now a confirm-gated write tool' : 'no longer a write tool'}`,
      a.write,
      b.write,
    );
  diffAnnotations(out, stability, `${at}/annotations`, obj(a.annotations), obj(b.annotations));
  diffDeprecations(out, stability, at, a, b);
  const report: Report = (code, path, message, before, after, key) =>
    code === 'description-changed' || code === 'title-changed'
      ? addText(out, stability, code, `${at}/${path}`, message, before, after, names, key)
      : out.add(stability, code, `${at}/${path}`, message, before, after, key);
  diffSchema(inputOf(a), inputOf(b), 'input', 'input', report);
  diffSchema(a.result ?? null, b.result ?? null, 'output', 'result', report);
  diffLimits(out, stability, at, obj(a.limits), obj(b.limits), kindsA, kindsB);
  if (!same(a.dataLayer ?? false, b.dataLayer ?? false))
    out.add(
      stability,
      'data-layer-changed',
      at,
      `data layer ${b.dataLayer === true ? 'now used' : 'no longer used'}`,
      a.dataLayer ?? false,
      b.dataLayer ?? false,
    );
  const ea = new Set(a.errors ?? []);
  const eb = new Set(b.errors ?? []);
  for (const code of ea)
    if (!eb.has(code))
      out.add(
        stability,
        'tool-error-removed',
        `${at}/errors`,
        `no longer lists error \`${code}\``,
        code,
        undefined,
        `=${code}`,
      );
  for (const code of eb)
    if (!ea.has(code))
      out.add(
        stability,
        'tool-error-added',
        `${at}/errors`,
        `may now end with error \`${code}\``,
        undefined,
        code,
        `=${code}`,
      );
  for (const key of keys(a, b)) {
    // `toolset`: a move is reported with the connector's toolsets (diff/toolsets.ts).
    const handled = [
      'name',
      'title',
      'description',
      'write',
      'annotations',
      'input',
      'result',
      'limits',
      'dataLayer',
      'errors',
      'toolset',
      'deprecated',
      'deprecatedArguments',
    ];
    if (handled.includes(key) || DERIVED_TOOL_KEYS.has(key)) continue;
    if (!same(a[key], b[key]))
      out.add(
        stability,
        'changed',
        at,
        `${key} of ${at}: ${json(a[key]) ?? 'none'} → ${json(b[key]) ?? 'none'}`,
        a[key],
        b[key],
        key,
      );
  }
}

// Classifies every difference between two catalogs (generated/catalog.json) into the change
// classes of changes.ts. Connectors match by key, tools by name; a removed and an added tool with
// the same arguments, result and title or description are one rename.
import { CHANGE_CLASSES, severityFor, type CatalogChange, type ChangeCode, type Stability } from './changes.ts';
import { diffSchema, type Report } from './schema-diff.ts';
import { diffToolsets } from './toolsets.ts';

type Json = Record<string, unknown>;

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
const DERIVED_TOOL_KEYS = new Set(['servedAs', 'arguments', 'system']);
/** `connectAccount` shows as the connect_account entry of the connector's tools. */
const DERIVED_CONNECTOR_KEYS = new Set(['toolCount', 'tools', 'connectAccount']);

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const json = (v: unknown) => JSON.stringify(v);
const same = (a: unknown, b: unknown) => json(a) === json(b);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const stabilityOf = (c: Json | undefined): Stability =>
  c?.stability === 'early-access' || c?.stability === 'experimental' ? c.stability : 'stable';

type LimitKind = 'result' | 'input' | 'upstream' | 'setting';

class Collector {
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
interface ToolNames {
  readonly pattern?: RegExp;
  /** Old name → new name of every tool the diff takes as renamed. */
  readonly renames: ReadonlyMap<string, string>;
}

const NO_NAMES: ToolNames = { renames: new Map() };

function toolNames(names: Iterable<string>, renames: ReadonlyMap<string, string>): ToolNames {
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
function referenceOnly(x: unknown, y: unknown, names: ToolNames): 'same' | 'other' | undefined {
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
function addText(
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

/** Removed tools matched to added ones: same arguments, result, write flag, and title or description. */
function matchRenames(
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

/** Tool names of a section (its tools in both catalogs, plus the system tools) and its renames. */
function namesOf(
  toolsA: readonly CatalogTool[],
  toolsB: readonly CatalogTool[],
  extra: readonly CatalogTool[],
  inputOf: (t: CatalogTool) => Json,
): ToolNames {
  const renames = new Map([...matchRenames(toolsA, toolsB, inputOf)].map(([from, to]) => [from, to.name]));
  return toolNames(
    [...toolsA, ...toolsB, ...extra].map((t) => t.name),
    renames,
  );
}

/**
 * Without published schemas (a catalog from before format 2), arguments are compared by their
 * catalog summaries: the differences are reported, ranked only where the summary allows it.
 */
function summarySchema(tool: CatalogTool): Json {
  const args = Array.isArray(tool.arguments) ? tool.arguments : [];
  return {
    type: 'object',
    properties: Object.fromEntries(
      args.map((a) => [
        String(a.name),
        {
          'x-type': a.type,
          'x-constraints': a.constraints,
          ...(a.description ? { description: a.description } : {}),
          ...('default' in a ? { default: a.default } : {}),
        },
      ]),
    ),
    required: args.filter((a) => a.required === true).map((a) => String(a.name)),
  };
}

export function diffCatalogs(base: Catalog, head: Catalog): CatalogChange[] {
  const out = new Collector();
  const withSchemas = base.format !== undefined && base.format >= 2 && head.format !== undefined && head.format >= 2;
  const inputOf = (t: CatalogTool) => (withSchemas ? (t.input ?? {}) : summarySchema(t));

  // Platform.
  const pa = base.platform;
  const pb = head.platform;
  const systemNames = namesOf(pa.systemTools ?? [], pb.systemTools ?? [], [], inputOf);
  diffErrors(out, 'stable', 'platform', obj(pa.errors), obj(pb.errors), systemNames);
  diffErrors(out, 'stable', 'platform/protocol', obj(pa.protocolErrors), obj(pb.protocolErrors), systemNames);
  for (const name of keys(pa.instructions, pb.instructions)) {
    const x = obj(pa.instructions)[name];
    const y = obj(pb.instructions)[name];
    if (!same(x, y))
      addText(
        out,
        'stable',
        'instructions-changed',
        `platform/instructions.${name}`,
        `instructions \`${name}\` ${x === undefined ? 'added' : y === undefined ? 'removed' : 'changed'}`,
        x,
        y,
        systemNames,
      );
  }
  for (const kind of keys(pa.annotations, pb.annotations))
    diffAnnotations(
      out,
      'stable',
      `platform/annotations.${kind}`,
      obj(obj(pa.annotations)[kind]),
      obj(obj(pb.annotations)[kind]),
    );
  diffLimits(out, 'stable', 'platform', obj(pa.limits), obj(pb.limits), obj(pa.limitKinds), obj(pb.limitKinds));
  diffLimitKinds(
    out,
    'stable',
    'platform',
    obj(pa.limitKinds),
    obj(pb.limitKinds),
    usedLimits(pa.limits, pa.systemTools ?? []),
    usedLimits(pb.limits, pb.systemTools ?? []),
  );
  // A catalog from before format 2 does not publish the order: nothing to compare then.
  if (withSchemas && !same(pa.checkOrder ?? [], pb.checkOrder ?? [])) {
    const order = (o: unknown) => (Array.isArray(o) && o.length ? o.join(' → ') : 'none');
    out.add(
      'stable',
      'check-order-changed',
      'platform/checkOrder',
      `check order: ${order(pa.checkOrder)} ⇒ ${order(pb.checkOrder)}`,
      pa.checkOrder,
      pb.checkOrder,
    );
  }
  diffTools(
    out,
    'stable',
    'platform',
    pa.systemTools ?? [],
    pb.systemTools ?? [],
    obj(pa.limitKinds),
    obj(pb.limitKinds),
    inputOf,
    systemNames,
  );
  for (const key of keys(pa, pb)) {
    if (
      [
        'errors',
        'protocolErrors',
        'instructions',
        'annotations',
        'limits',
        'limitKinds',
        'checkOrder',
        'systemTools',
      ].includes(key)
    )
      continue;
    if (!same(pa[key], pb[key]))
      out.add('stable', 'changed', `platform/${key}`, `platform ${key} changed`, pa[key], pb[key]);
  }

  // Connectors.
  const connectorsB = new Map(head.connectors.map((c) => [c.key, c]));
  const connectorsA = new Map(base.connectors.map((c) => [c.key, c]));
  for (const a of base.connectors) {
    const b = connectorsB.get(a.key);
    const stability = stabilityOf(a);
    if (!b) {
      out.add(
        stability,
        'connector-removed',
        a.key,
        `connector ${a.key} (\`${a.defaultId}\`) removed with its ${a.tools.length} tools`,
      );
      continue;
    }
    diffConnector(out, stability, a, b, inputOf, withSchemas, [...(pa.systemTools ?? []), ...(pb.systemTools ?? [])]);
  }
  for (const b of head.connectors) {
    if (connectorsA.has(b.key)) continue;
    out.add(
      stabilityOf(b),
      'connector-added',
      b.key,
      `connector ${b.key} (\`${b.defaultId}\`) added with ${b.tools.length} tools`,
    );
    for (const t of b.tools)
      if (t.write === true)
        out.add(stabilityOf(b), 'write-tool-added', `${b.key}/${t.name}`, `write tool ${b.key}/${t.name} added`);
  }
  return out.changes;
}

function keys(a: unknown, b: unknown): string[] {
  return [...new Set([...Object.keys(obj(a)), ...Object.keys(obj(b))])].sort();
}

/** `complete`: both catalogs are format 2 or later, so a key one lacks was removed rather than not yet published. */
function diffConnector(
  out: Collector,
  stability: Stability,
  a: CatalogConnector,
  b: CatalogConnector,
  inputOf: (t: CatalogTool) => Json,
  complete: boolean,
  systemTools: readonly CatalogTool[],
): void {
  const at = a.key;
  const names = namesOf(a.tools, b.tools, systemTools, inputOf);
  if (a.defaultId !== b.defaultId)
    out.add(
      stability,
      'connector-id-changed',
      at,
      `connector id \`${a.defaultId}\` → \`${b.defaultId}\`: endpoint /${a.defaultId}/mcp and every tool name move`,
      a.defaultId,
      b.defaultId,
    );
  if (!same(a.stability ?? 'stable', b.stability ?? 'stable')) {
    // An unknown level promises nothing: it ranks below experimental.
    const rank = (v: unknown) => ({ stable: 3, 'early-access': 2, experimental: 1 })[String(v ?? 'stable')] ?? 0;
    const [sa, sb] = [a.stability ?? 'stable', b.stability ?? 'stable'];
    out.add(
      stability,
      rank(sb) < rank(sa) ? 'stability-lowered' : 'stability-raised',
      at,
      `stability ${String(sa)} → ${String(sb)}`,
      sa,
      sb,
    );
  }
  if (!same(a.credential, b.credential))
    out.add(
      stability,
      'credential-changed',
      at,
      `credential ${String(a.credential)} → ${String(b.credential)}`,
      a.credential,
      b.credential,
    );
  if (!same(a.title, b.title)) out.add(stability, 'title-changed', at, `connector title changed`, a.title, b.title);
  if ((complete || ('description' in a && 'description' in b)) && !same(a.description, b.description))
    addText(
      out,
      stability,
      'description-changed',
      at,
      'connector description (the initialize instructions) changed',
      a.description,
      b.description,
      names,
    );
  if (!same(a.structuredContent, b.structuredContent)) {
    out.add(
      stability,
      b.structuredContent === true ? 'structured-content-added' : 'structured-content-removed',
      at,
      `structuredContent ${String(a.structuredContent)} → ${String(b.structuredContent)}`,
      a.structuredContent,
      b.structuredContent,
    );
  }
  diffUpstream(out, stability, at, obj(a.upstream), obj(b.upstream));
  diffLimits(out, stability, at, obj(a.limits), obj(b.limits), obj(a.limitKinds), obj(b.limitKinds));
  diffLimitKinds(
    out,
    stability,
    at,
    obj(a.limitKinds),
    obj(b.limitKinds),
    usedLimits(a.limits, a.tools),
    usedLimits(b.limits, b.tools),
  );
  diffErrors(out, stability, at, obj(a.errors), obj(b.errors), names);
  for (const name of keys(a.texts, b.texts)) {
    const x = obj(a.texts)[name];
    const y = obj(b.texts)[name];
    if (!same(x, y))
      addText(
        out,
        stability,
        'text-changed',
        `${at}/texts.${name}`,
        `text \`${name}\` ${x === undefined ? 'added' : y === undefined ? 'removed' : 'changed'}`,
        x,
        y,
        names,
      );
  }
  diffTools(out, stability, at, a.tools, b.tools, obj(a.limitKinds), obj(b.limitKinds), inputOf, names);
  diffToolsets(a, b, (code, where, message, before, after, key) =>
    out.add(stability, code, where, message, before, after, key),
  );
  for (const key of keys(a, b)) {
    const handled = [
      'key',
      'defaultId',
      'stability',
      'credential',
      'title',
      'description',
      'structuredContent',
      'upstream',
      'limits',
      'limitKinds',
      'errors',
      'texts',
      'toolsets',
    ];
    if (handled.includes(key) || DERIVED_CONNECTOR_KEYS.has(key)) continue;
    if (!same(a[key], b[key]))
      out.add(
        stability,
        'changed',
        `${at}/${key}`,
        `${key} of ${at}: ${json(a[key]) ?? 'none'} → ${json(b[key]) ?? 'none'}`,
        a[key],
        b[key],
      );
  }
}

function diffUpstream(out: Collector, stability: Stability, at: string, a: Json, b: Json): void {
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
function diffLimits(
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
function diffLimitKinds(
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
function usedLimits(limits: unknown, tools: readonly CatalogTool[]): Set<string> {
  return new Set([...Object.keys(obj(limits)), ...tools.flatMap((t) => Object.keys(obj(t.limits)))]);
}

function diffErrors(
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

function diffAnnotations(out: Collector, stability: Stability, where: string, a: Json, b: Json): void {
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

function diffTools(
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

function diffTool(
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

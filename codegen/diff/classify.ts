// Classifies every difference between two catalogs (generated/catalog.json) into the change
// classes of changes.ts. Connectors match by key, tools by name; a removed and an added tool with
// the same arguments, result and title or description are one rename.
import {
  addText,
  type Catalog,
  type CatalogConnector,
  type CatalogTool,
  Collector,
  DERIVED_CONNECTOR_KEYS,
  type Json,
  json,
  keys,
  matchRenames,
  obj,
  same,
  stabilityOf,
  toolNames,
  type ToolNames,
} from './catalog.ts';
import type { CatalogChange, Stability } from './changes.ts';
import {
  diffAnnotations,
  diffErrors,
  diffLimitKinds,
  diffLimits,
  diffTools,
  diffUpstream,
  usedLimits,
} from './classify-tools.ts';
import { diffToolsets } from './toolsets.ts';
import { judgeRemovals } from './deprecations.ts';
import { utcDay } from '../deprecations.ts';

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

/**
 * Every change from `base` to `head`. `today` (YYYY-MM-DD, UTC; default the clock's) decides whether a deprecated
 * item's removal comes after its sunset.
 */
export function diffCatalogs(base: Catalog, head: Catalog, today: string = utcDay()): CatalogChange[] {
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
  return judgeRemovals(out.changes, base, today).map((c) => withTools(c, head));
}

/** An error text change names the tools of the head catalog that list its code (a platform error: any tool's). */
function withTools(c: CatalogChange, head: Catalog): CatalogChange {
  const m = /^([^/]+)\/errors\.([^/#]+)$/.exec(c.where);
  if (!m || (c.code !== 'error-text-changed' && c.code !== 'error-removed')) return c;
  const [, key, code] = m;
  const sections =
    key === 'platform'
      ? [
          { prefix: '', tools: head.platform.systemTools ?? [] },
          ...head.connectors.map((x) => ({ prefix: `${x.defaultId}__`, tools: x.tools })),
        ]
      : head.connectors.filter((x) => x.key === key).map((x) => ({ prefix: `${x.defaultId}__`, tools: x.tools }));
  const tools = sections.flatMap((s) =>
    s.tools.filter((t) => t.errors?.includes(code!)).map((t) => `${s.prefix}${t.name}`),
  );
  return tools.length ? { ...c, tools } : c;
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
  diffStability(out, stability, at, a.stability ?? 'stable', b.stability ?? 'stable');
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
  diffOtherKeys(out, stability, at, a, b);
}

/** An unknown level promises nothing: it ranks below experimental. */
const STABILITY_RANK: Record<string, number> = { stable: 3, 'early-access': 2, experimental: 1 };

function diffStability(out: Collector, stability: Stability, at: string, sa: unknown, sb: unknown): void {
  if (same(sa, sb)) return;
  const rank = (v: unknown) => STABILITY_RANK[String(v)] ?? 0;
  out.add(
    stability,
    rank(sb) < rank(sa) ? 'stability-lowered' : 'stability-raised',
    at,
    `stability ${String(sa)} → ${String(sb)}`,
    sa,
    sb,
  );
}

/** Connector keys diffConnector compares itself; any other is reported as a plain change. */
const CONNECTOR_KEYS_DIFFED = new Set([
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
]);

function diffOtherKeys(out: Collector, stability: Stability, at: string, a: CatalogConnector, b: CatalogConnector) {
  for (const key of keys(a, b)) {
    if (CONNECTOR_KEYS_DIFFED.has(key) || DERIVED_CONNECTOR_KEYS.has(key)) continue;
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

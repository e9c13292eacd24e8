// The layout the architecture names, checked from the sources: which folder may import which, that
// imports inside runtime/ point down the request path, no connector or tool name in the generic
// runtime, no cast in the generated wiring, no import cycle. Biome's import rules say the same
// while editing (for the request path, its coarser part); this test also sees `import('…')` types.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { ROOT } from './support/golden.ts';

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file names: static, dynamic and type-level imports and re-exports. */
function specifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|^\s*import\s+)'([^']+)'/gm)].map((m) => m[1]!);
}

/** The project path an import points at (`#runtime/x.ts` → `runtime/x.ts`), or undefined for packages. */
function target(file: string, specifier: string): string | undefined {
  const alias = /^#(runtime|generated|handlers)\/(.*)$/.exec(specifier);
  if (alias) return `${alias[1]}/${alias[2]}`;
  if (specifier.startsWith('.')) return relative(ROOT, resolve(ROOT, dirname(file), specifier));
  return undefined;
}

const imports = (dir: string) =>
  sources(dir).flatMap((file) => specifiers(file).map((s) => ({ file, specifier: s, target: target(file, s) })));

/**
 * The runtime along the request path, from the caller down: each folder of runtime/ (and each file
 * at its root) has a rank, and a file imports only its own folder or a folder of lower rank. Two
 * folders of one rank do not import each other (transport/ and portal/ are both entered from the
 * server; metering/ and operations/ both sit over the store). A new folder or root file needs a row
 * (docs/decisions/runtime-layout.md, 'runtime/ has one folder per stage of the request path, ranked, and imports point
 * down').
 */
const RUNTIME_RANKS: Readonly<Record<string, number>> = {
  'app.ts': 14, // the composition root: builds everything below
  transport: 13, // the HTTP server, its routing and checks
  portal: 13, // the portal's pages, beside the transport
  auth: 12, // MCP authorization: the authorization server, access and caller tokens
  mcp: 11, // the JSON-RPC envelope and the method map
  pipeline: 10, // one tools/call: checks, arguments, the handler's ctx
  'gateway-context.ts': 9, // what the request path is handed, and the endpoint instances
  upstream: 8, // the upstream client, its gate and budgets, OAuth grants with upstream providers
  telemetry: 7, // OpenTelemetry spans and metrics export, loaded only when the OTLP variables are set
  metering: 6, // usage, fair use and rate limits
  operations: 6, // logs and metrics, readiness, the admin socket, the audit log
  mail: 5, // mail to people by SMTP or to the outbox, worded by the platform's texts
  secrets: 5, // the vault, its key check, signed links, hashes of stored secrets
  store: 4, // the platform database, its repositories, the in-memory snapshot, the shared store
  config: 3, // the settings table, reading the file and the environment, the checks of combinations
  'redact.ts': 3,
  'protocol-text.ts': 2,
  'trace-context.ts': 2,
  'sleep.ts': 2,
  'heap.ts': 2, // one garbage collection that gives memory back, once start-up is over
  'tool-selection.ts': 2, // which tools of an endpoint a caller may see and call, narrowed by each party
  io: 2, // capped reading of bodies, JSON answers: shared by the inbound and the upstream side
  'handler-api': 1, // what handlers may import; imports nothing above it
};

/** The folder (or root file) of runtime/ a path belongs to: `runtime/store/sql-client.ts` → `store`. */
const unitOf = (path: string) => path.slice('runtime/'.length).split('/')[0]!;

/** Imports inside runtime/ that point up the request path (or sideways between folders of one rank). */
function upwardImports(
  edges: readonly { file: string; target: string | undefined }[],
  ranks: Readonly<Record<string, number>>,
): string[] {
  return edges.flatMap(({ file, target: t }) => {
    if (!t?.startsWith('runtime/')) return [];
    const from = unitOf(file);
    const to = unitOf(t);
    if (from === to || ranks[from]! > ranks[to]!) return [];
    return [`${file} (${from}, rank ${ranks[from]}) imports ${t} (${to}, rank ${ranks[to]})`];
  });
}

describe('layout', () => {
  it('runtime/ imports neither handlers/ nor sandbox/, and of generated/ only the platform', () => {
    const wrong = imports('runtime').filter(
      ({ target: t }) =>
        t &&
        (t.startsWith('handlers/') ||
          t.startsWith('sandbox/') ||
          t.startsWith('bin/') ||
          (t.startsWith('generated/') && !t.startsWith('generated/platform/'))),
    );
    expect(wrong).toEqual([]);
  });

  it('handlers/ reach the runtime only through runtime/handler-api/', () => {
    const wrong = imports('handlers').filter(
      ({ target: t }) =>
        t &&
        (t.startsWith('runtime/')
          ? !t.startsWith('runtime/handler-api/')
          : t.startsWith('sandbox/') || t.startsWith('bin/') || t.startsWith('test/')),
    );
    expect(wrong).toEqual([]);
  });

  it('sandbox/ imports nothing of the project outside sandbox/', () => {
    expect(imports('sandbox').filter(({ target: t }) => t && !t.startsWith('sandbox/'))).toEqual([]);
  });

  it('gives every folder and root file of runtime/ a rank along the request path', () => {
    const units = [...new Set(sources('runtime').map(unitOf))].sort();
    expect(units.filter((unit) => RUNTIME_RANKS[unit] === undefined)).toEqual([]);
    expect(Object.keys(RUNTIME_RANKS).filter((unit) => !units.includes(unit))).toEqual([]);
  });

  it('imports inside runtime/ point down the request path: never to a folder of higher or equal rank', () => {
    expect(upwardImports(imports('runtime'), RUNTIME_RANKS)).toEqual([]);
  });

  it('the rank check refuses an upward and a sideways import, and lets a downward one through', () => {
    const edges = [
      { file: 'runtime/store/state.ts', target: 'runtime/mcp/protocol.ts' },
      { file: 'runtime/portal/kit.ts', target: 'runtime/transport/server.ts' },
      { file: 'runtime/mcp/methods.ts', target: 'runtime/pipeline/pipeline.ts' },
      { file: 'runtime/store/sql-store.ts', target: 'runtime/store/repositories/rows.ts' },
    ];
    expect(upwardImports(edges, RUNTIME_RANKS)).toEqual([
      'runtime/store/state.ts (store, rank 4) imports runtime/mcp/protocol.ts (mcp, rank 11)',
      'runtime/portal/kit.ts (portal, rank 13) imports runtime/transport/server.ts (transport, rank 13)',
    ]);
  });

  it('names no connector and no tool in runtime/', () => {
    const names = new Set<string>();
    for (const [key, { descriptor }] of Object.entries(registry)) {
      names.add(key);
      names.add(descriptor.defaultId);
      // Tool names with an underscore are unmistakable; one-word names (query, aggregate) are ordinary words.
      for (const tool of descriptor.tools) if (tool.name.includes('_')) names.add(tool.name);
    }
    const pattern = new RegExp(
      `(['"\`])(${[...names].join('|')})\\1|\\b(${[...names].filter((n) => n.includes('_')).join('|')})\\b`,
    );
    const hits = sources('runtime').flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('the generated wiring casts nothing', () => {
    const wiring = ['generated/registry.ts', ...Object.keys(registry).map((key) => `generated/${key}/handlers.ts`)];
    for (const file of wiring)
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(/(?<!\*\s)\bas\s+(?!const\b)|<\w+>\s*\w/);
  });

  it('has no import cycle in runtime/', () => {
    const graph = new Map<string, string[]>();
    for (const { file, target: t } of imports('runtime')) {
      if (!t?.startsWith('runtime/')) continue;
      graph.set(file, [...(graph.get(file) ?? []), t]);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (node: string, path: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'open') {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
        return;
      }
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});

// The layout the architecture names, checked from the sources: which folder may import which, no
// connector or tool name in the generic runtime, no cast in the generated wiring, no import cycle.
// Biome's import rules say the same while editing; this test also sees `import('…')` types.
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

const imports = (dir: string) => sources(dir).flatMap((file) => specifiers(file).map((s) => ({ file, specifier: s, target: target(file, s) })));

describe('layout', () => {
  it('runtime/ imports neither handlers/ nor sandbox/, and of generated/ only the platform', () => {
    const wrong = imports('runtime').filter(
      ({ target: t }) => t && (t.startsWith('handlers/') || t.startsWith('sandbox/') || t.startsWith('bin/') || (t.startsWith('generated/') && !t.startsWith('generated/platform/'))),
    );
    expect(wrong).toEqual([]);
  });

  it('handlers/ reach the runtime only through runtime/handler-api/', () => {
    const wrong = imports('handlers').filter(
      ({ target: t }) => t && (t.startsWith('runtime/') ? !t.startsWith('runtime/handler-api/') : t.startsWith('sandbox/') || t.startsWith('bin/') || t.startsWith('test/')),
    );
    expect(wrong).toEqual([]);
  });

  it('sandbox/ imports nothing of the project outside sandbox/', () => {
    expect(imports('sandbox').filter(({ target: t }) => t && !t.startsWith('sandbox/'))).toEqual([]);
  });

  it('names no connector and no tool in runtime/', () => {
    const names = new Set<string>();
    for (const [key, { descriptor }] of Object.entries(registry)) {
      names.add(key);
      names.add(descriptor.defaultId);
      // Tool names with an underscore are unmistakable; one-word names (query, aggregate) are ordinary words.
      for (const tool of descriptor.tools) if (tool.name.includes('_')) names.add(tool.name);
    }
    const pattern = new RegExp(`(['"\`])(${[...names].join('|')})\\1|\\b(${[...names].filter((n) => n.includes('_')).join('|')})\\b`);
    const hits = sources('runtime').flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('the generated wiring casts nothing', () => {
    const wiring = ['generated/registry.ts', ...Object.keys(registry).map((key) => `generated/${key}/handlers.ts`)];
    for (const file of wiring) expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(/(?<!\*\s)\bas\s+(?!const\b)|<\w+>\s*\w/);
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

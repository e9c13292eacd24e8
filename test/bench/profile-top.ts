// Lists the hot spots of a CPU profile (.cpuprofile, as node --cpu-prof or `npm run bench --
// --cpu-prof` writes): self time per function, and per file or package, in percent of busy time.
//
//   node test/bench/profile-top.ts .bench/profiles/gateway-….cpuprofile [--top 30]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The project's root as a file URL, with its trailing slash. */
const ROOT_URL = new URL('../../', import.meta.url).href;

export function where(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return url;
  // The project's own files relative to its root, wherever the clone is.
  return url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : url.replace(/^file:\/\//, '');
}

export function summarise(profile: Profile, top = 30): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, t] of self) {
    const f = byId.get(id)!.callFrame;
    const file = where(f.url);
    const name = `${f.functionName || '(anonymous)'}  ${file}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + t);
    byFile.set(file, (byFile.get(file) ?? 0) + t);
  }
  // Percentages of the time the process was busy: idle samples are left out.
  const idle = [...byFunction].filter(([k]) => k.startsWith('(idle)')).reduce((n, [, t]) => n + t, 0);
  for (const k of [...byFunction.keys()]) if (k.startsWith('(idle)')) byFunction.delete(k);
  byFile.set('(native)', (byFile.get('(native)') ?? 0) - idle);
  const busy = total - idle;
  const pct = (t: number) => `${((t / busy) * 100).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `${pct(t)}  ${k}`);
  return [
    `${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy; percentages of busy time`,
    '',
    'Self time by function:',
    ...list(byFunction, top),
    '',
    'Self time by file or package:',
    ...list(byFile, 20),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-top.ts')) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node test/bench/profile-top.ts <file.cpuprofile> [--top N]');
    process.exit(2);
  }
  const i = process.argv.indexOf('--top');
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, i > 0 ? Number(process.argv[i + 1]) : 30));
}

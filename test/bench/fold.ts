// The `aggregate` fold figure, in a process of its own: CPU time (process.cpuUsage, user + system)
// of folding synthetic ledger rows with handlers/ledger/fold.ts, for 5,000 and 50,000 rows. The rows
// are made before the clock starts, so the figure is the CPU beyond upstream time. When the module is
// absent, or exports nothing this adapter recognises, the job answers `skipped` with the reason.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spread, type Spread } from './lib/stats.ts';
import { exitWithParent, onJob, ready } from './servers/ipc.ts';

export const FOLD_MODULE = resolve(dirname(fileURLToPath(import.meta.url)), '../../handlers/ledger/fold.ts');

type Row = Record<string, unknown>;
const GROUP_BY = ['Account', 'Dim1'];
const SUM = ['Amount', 'Qty'];

/** Rows shaped like the ledger's `GLTransClient`: 60 accounts × 8 dimensions = up to 480 groups. */
export function syntheticRows(n: number): Row[] {
  const rows: Row[] = [];
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < n; i++) {
    const day = 1 + (i % 28);
    rows.push({
      RowId: i + 1,
      Account: String(1000 + Math.floor(next() * 60) * 10),
      Dim1: `D${Math.floor(next() * 8)}`,
      Date: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(day).padStart(2, '0')}T00:00:00`,
      Voucher: 100000 + Math.floor(i / 3),
      Text: `Posting ${i + 1}`,
      // Mostly numbers; a few numeric strings and a few unparseable values, as upstream data has.
      Amount:
        i % 97 === 0
          ? 'n/a'
          : i % 31 === 0
            ? String(Math.round(next() * 100000) / 100)
            : Math.round((next() - 0.4) * 1000000) / 100,
      Qty: i % 13 === 0 ? null : Math.floor(next() * 20),
    });
  }
  return rows;
}

/** Pages of 1,000 rows, as the handler reads them from the ledger. */
function pages(rows: readonly Row[]): Row[][] {
  const out: Row[][] = [];
  for (let i = 0; i < rows.length; i += 1000) out.push(rows.slice(i, i + 1000));
  return out;
}

/** The fold really folded: every row landed in exactly one group. */
function foldedAll(result: unknown, rows: number): boolean {
  const groups = (result as { groups?: Array<{ count?: unknown }> } | undefined)?.groups;
  if (!Array.isArray(groups)) return false;
  return groups.reduce((n, g) => n + (typeof g.count === 'number' ? g.count : 0), 0) === rows;
}

/**
 * The module's documented entry points: `foldPages(pages, { groupBy, sum, maxGroups })`, or
 * `new GroupFold(options)` with `add(page)` and `result()`. Pages are cut before the clock starts.
 */
async function loadFolder(): Promise<{ fold: (p: readonly Row[][]) => unknown; how: string } | { skipped: string }> {
  if (!existsSync(FOLD_MODULE))
    return { skipped: 'handlers/ledger/fold.ts does not exist yet (the ledger connector is being written).' };
  const mod = (await import(pathToFileURL(FOLD_MODULE).href)) as Record<string, unknown>;
  const options = { groupBy: GROUP_BY, sum: SUM, maxGroups: 1000 };
  const shapes: Array<[string, (p: readonly Row[][]) => unknown]> = [];
  if (typeof mod['foldPages'] === 'function') {
    const foldPages = mod['foldPages'] as (p: Iterable<readonly unknown[]>, o: typeof options) => unknown;
    shapes.push(['foldPages(pages of 1,000 rows, { groupBy, sum, maxGroups: 1000 })', (p) => foldPages(p, options)]);
  }
  if (typeof mod['GroupFold'] === 'function') {
    const GroupFold = mod['GroupFold'] as new (
      o: typeof options,
    ) => { add(page: readonly unknown[]): boolean; result(): unknown };
    shapes.push([
      'new GroupFold({ groupBy, sum, maxGroups: 1000 }), add() per page of 1,000 rows, result()',
      (p) => {
        const fold = new GroupFold(options);
        for (const page of p) if (!fold.add(page)) break;
        return fold.result();
      },
    ]);
  }
  const probe = syntheticRows(3_000);
  for (const [how, fold] of shapes) {
    try {
      if (foldedAll(fold(pages(probe)), probe.length)) return { fold, how };
    } catch {
      // try the next shape
    }
  }
  return {
    skipped:
      `handlers/ledger/fold.ts exports ${Object.keys(mod).join(', ') || 'nothing'}, but neither ` +
      'foldPages(pages, options) nor new GroupFold(options).add(page)/result() folded the synthetic ' +
      'rows into groups counting every row. Adapt loadFolder() in test/bench/fold.ts.',
  };
}

export interface FoldFigure {
  readonly rows: number;
  readonly cpuMs: Spread;
  readonly wallMs: Spread;
}

/** Heap held while folding: pages made one at a time and dropped after `add`, as the handler reads them. */
export interface FoldMemory {
  readonly rows: number;
  /** Heap still used after the fold (the groups), measured after a full GC, minus the baseline. */
  readonly retainedKiB: number;
  /** Highest live heap (after a full GC) while a page is held: one page in flight plus the groups. */
  readonly peakKiB: number;
  /** Heap of one page of 1,000 rows, for comparison. */
  readonly onePageKiB: number;
}

export type FoldResult =
  | { readonly skipped: string }
  | { readonly how: string; readonly figures: FoldFigure[]; readonly memory?: FoldMemory };

/** Needs --expose-gc; without it the memory figure is left out. */
export async function measureMemory(rowsTotal: number): Promise<FoldMemory | undefined> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc || !existsSync(FOLD_MODULE)) return undefined;
  const mod = (await import(pathToFileURL(FOLD_MODULE).href)) as {
    GroupFold?: new (o: {
      groupBy: string[];
      sum: string[];
      maxGroups: number;
    }) => { add(page: readonly unknown[]): boolean; result(): unknown };
  };
  if (!mod.GroupFold) return undefined;
  const heap = () => {
    gc();
    return process.memoryUsage().heapUsed;
  };
  const base = heap();
  let page: Row[] | null = syntheticRows(1000);
  const onePage = heap() - base;
  page = null;
  const start = heap();
  const fold = new mod.GroupFold({ groupBy: GROUP_BY, sum: SUM, maxGroups: 1000 });
  let peak = 0;
  for (let done = 0; done < rowsTotal; done += 1000) {
    let rows: Row[] | null = syntheticRows(1000).map((r, i) => ({ ...r, RowId: done + i + 1 }));
    fold.add(rows);
    peak = Math.max(peak, heap() - start); // rows still referenced: the live set while a page is held
    rows = null;
  }
  const result = fold.result();
  const retained = heap() - start;
  if (!foldedAll(result, rowsTotal)) throw new Error('the streamed fold did not count every row');
  void page;
  return {
    rows: rowsTotal,
    retainedKiB: Math.round(retained / 1024),
    peakKiB: Math.round(peak / 1024),
    onePageKiB: Math.round(onePage / 1024),
  };
}

async function measure(sizes: readonly number[], repeats: number): Promise<FoldResult> {
  const loaded = await loadFolder();
  if ('skipped' in loaded) return loaded;
  const figures: FoldFigure[] = [];
  const warm = pages(syntheticRows(5_000));
  for (let i = 0; i < 5; i++) loaded.fold(warm);
  for (const n of sizes) {
    const rows = pages(syntheticRows(n));
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const result = loaded.fold(rows);
      const c = process.cpuUsage(c0);
      if (!foldedAll(result, n)) throw new Error(`the fold of ${n} rows did not count every row`);
      wall.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
    figures.push({ rows: n, cpuMs: spread(cpu), wallMs: spread(wall) });
  }
  const memory = await measureMemory(50_000);
  return { how: loaded.how, figures, ...(memory ? { memory } : {}) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  onJob(async (job) => measure((job['sizes'] as number[]) ?? [5_000, 50_000], Number(job['repeats'] ?? 5)));
  exitWithParent();
  ready();
}

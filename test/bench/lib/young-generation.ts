// What the young generation keeps of some work, from V8's own before/after sizes of every scavenge
// (v8.GCProfiler), not from timings. Objects that outlive a scavenge are copied, and after a second
// one promoted to the old generation, where only a full collection frees them; per-call objects
// that do that turn into long scavenges and full collections under load (docs/decisions/performance.md,
// 'A call's context is a class: no accessor on a per-call object literal').
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

export interface YoungGeneration {
  /** Scavenges during the work (natural ones, and a forced one at the end). */
  readonly scavenges: number;
  /** Of what the young generation held at each scavenge, the share that survived it. */
  readonly survival: number;
  /** Bytes the scavenges moved into the old generation. */
  readonly promotedBytes: number;
}

type HeapStats = v8.GCProfilerResult['statistics'][number]['afterGC'];
const spaceUsed = (stats: HeapStats, name: string) =>
  stats.heapSpaceStatistics.find((space) => space.spaceName === name)?.spaceUsedSize ?? 0;

/** Runs `work` from an empty young generation and reports what its scavenges kept. */
export async function youngGeneration(work: () => void | Promise<void>): Promise<YoungGeneration> {
  gc({ type: 'minor' });
  const profiler = new v8.GCProfiler();
  profiler.start();
  await work();
  gc({ type: 'minor' });
  let scavenges = 0;
  let held = 0;
  let survived = 0;
  let promotedBytes = 0;
  for (const entry of profiler.stop().statistics) {
    if (entry.gcType !== 'Scavenge') continue;
    scavenges++;
    held += spaceUsed(entry.beforeGC, 'new_space');
    survived += spaceUsed(entry.afterGC, 'new_space');
    promotedBytes += spaceUsed(entry.afterGC, 'old_space') - spaceUsed(entry.beforeGC, 'old_space');
  }
  return { scavenges, survival: held > 0 ? survived / held : 0, promotedBytes };
}

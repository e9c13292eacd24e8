// What a server allocates per call, sampled: V8's sampling heap profiler with the objects that minor
// and major collections freed kept in its profile, so the profile's total is what was allocated in
// the window, not what is still alive. Allocation is the one per-call figure of a process that does
// not move with the machine's load (CPU per call moved by a third between runs minutes apart on the
// benchmark's machines), and what the young generation's collections cost follows it. The servers
// run it as a job around a window of calls (`allocation-start`, `allocation-stop`); the harness
// divides by the calls of that window.
import { Session } from 'node:inspector/promises';
import { where } from '../profile-top.ts';

/** Bytes allocated in a window, and the functions that allocated most of them. */
export interface AllocationSample {
  readonly bytes: number;
  /** `name` the function's, `at` its file and line (profile-top.ts's `where`). */
  readonly top: readonly { readonly name: string; readonly at: string; readonly bytes: number }[];
}

/** Sampled once per 4 KiB allocated on average: ~0.1 % spread over 10,000 calls of ~30 KiB. */
const INTERVAL_BYTES = 4096;

interface SamplingNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly SamplingNode[];
}

export class AllocationSampler {
  #session: Session | undefined;

  async start(): Promise<void> {
    if (this.#session) throw new Error('allocation sampling is running already');
    const session = new Session();
    session.connect();
    this.#session = session;
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  async stop(top = 8): Promise<AllocationSample> {
    const session = this.#session;
    if (!session) throw new Error('allocation sampling is not running');
    this.#session = undefined;
    const { profile } = await session.post('HeapProfiler.stopSampling');
    await session.post('HeapProfiler.disable');
    session.disconnect();
    return allocationOf(profile.head as SamplingNode, top);
  }
}

/** The profile's total, and its `top` functions by bytes they allocated themselves. */
export function allocationOf(head: SamplingNode, top: number): AllocationSample {
  const byFunction = new Map<string, { name: string; at: string; bytes: number }>();
  let bytes = 0;
  const stack: SamplingNode[] = [head];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.selfSize > 0) {
      const f = node.callFrame;
      const name = f.functionName || '(anonymous)';
      const at = `${where(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
      const key = `${name} ${at}`;
      const entry = byFunction.get(key) ?? { name, at, bytes: 0 };
      entry.bytes += node.selfSize;
      byFunction.set(key, entry);
      bytes += node.selfSize;
    }
    stack.push(...node.children);
  }
  return {
    bytes,
    top: [...byFunction.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top),
  };
}

/** The sampler's two jobs, for a server's job handler: undefined for any other job. */
export function allocationJob(
  sampler: AllocationSampler,
  op: unknown,
): Promise<AllocationSample | Record<string, never>> | undefined {
  if (op === 'allocation-start') return sampler.start().then(() => ({}));
  if (op === 'allocation-stop') return sampler.stop();
  return undefined;
}

// Readiness (`/readyz`), as opposed to liveness (`/healthz`: the process serves). Ready only when
// the platform database answers a cheap query within a short deadline, every migration of this
// build is applied, the in-memory snapshot was refreshed or confirmed within its bound, and no
// stored credential is sealed with a key version this process lacks (a key retired before
// `keys reencrypt` finished, or a replica not yet given a new key). A shared store (Redis) that
// does not answer only degrades the replica: it serves, failing open (docs/decisions/operations.md,
// 'A replica without Redis stays ready, degraded').
// Each check answers ok or the reason it fails.
import { protocolText } from '../protocol-text.ts';
import type { SharedStore } from '../store/shared-store.ts';
import type { PlatformState } from '../store/state.ts';
import type { PlatformStore } from '../store/store.ts';

export type ReadinessCheckName = 'store' | 'shared_store' | 'migrations' | 'snapshot' | 'keys';

export interface ReadinessReport {
  readonly ready: boolean;
  /** `ok`, or the reason the check fails. */
  readonly checks: Readonly<Partial<Record<ReadinessCheckName, string>>>;
  readonly failing: readonly ReadinessCheckName[];
  /**
   * Checks that fail without taking the replica out of service: it serves, failing open
   * (docs/decisions/operations.md, 'A replica without Redis stays ready, degraded').
   */
  readonly degraded: readonly ReadinessCheckName[];
}

/** A shared store that does not answer degrades a replica (rate limits, fair use, gates fail open); it still serves. */
const DEGRADING: readonly ReadinessCheckName[] = ['shared_store'];

export interface ReadinessOptions {
  readonly store: Pick<PlatformStore, 'ping' | 'pendingMigrations'>;
  readonly shared?: SharedStore;
  readonly state: PlatformState;
  /** The configured credential key versions; stored credentials sealed with another are a failing check. */
  readonly keyVersions?: readonly number[];
  /** Deadline of each check. */
  readonly timeoutMs: number;
  /** The snapshot is stale when it was last confirmed longer ago than this. */
  readonly snapshotMaxAgeMs: number;
  /** Called with every evaluation (readiness gauges). */
  readonly onReport?: (report: ReadinessReport) => void;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  promise.catch(() => {});
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

export class Readiness {
  readonly #o: ReadinessOptions;

  constructor(options: ReadinessOptions) {
    this.#o = options;
  }

  async evaluate(): Promise<ReadinessReport> {
    const { store, shared, state, timeoutMs, snapshotMaxAgeMs } = this.#o;
    const checks: Partial<Record<ReadinessCheckName, string>> = {};
    const storeUp = within(store.ping(), timeoutMs).then(
      () => true,
      () => false,
    );
    const [storeOk, pending, sharedOk] = await Promise.all([
      storeUp,
      storeUp.then((up) => (up ? within(store.pendingMigrations(), timeoutMs).catch(() => -1) : -1)),
      shared
        ? within(shared.ping(), timeoutMs).then(
            () => true,
            () => false,
          )
        : Promise.resolve(undefined),
    ]);
    checks.store = storeOk ? 'ok' : protocolText('not_ready_store');
    if (sharedOk !== undefined) checks.shared_store = sharedOk ? 'ok' : protocolText('not_ready_shared_store');
    // Unknown while the database does not answer: not ready either way.
    checks.migrations =
      pending === 0
        ? 'ok'
        : pending < 0
          ? protocolText('not_ready_store')
          : protocolText('not_ready_migrations', { pending: String(pending) });
    const age = state.age();
    checks.snapshot =
      age <= snapshotMaxAgeMs
        ? 'ok'
        : protocolText('not_ready_snapshot', {
            seconds: String(Math.round(age / 1000)),
            limit_seconds: String(Math.round(snapshotMaxAgeMs / 1000)),
          });
    if (this.#o.keyVersions) {
      const lacking = state.connectionKeyVersions().filter((v) => !this.#o.keyVersions!.includes(v));
      checks.keys = lacking.length === 0 ? 'ok' : protocolText('not_ready_keys', { versions: lacking.join(', ') });
    }
    const notOk = (Object.keys(checks) as ReadinessCheckName[]).filter((k) => checks[k] !== 'ok');
    const failing = notOk.filter((k) => !DEGRADING.includes(k));
    const degraded = notOk.filter((k) => DEGRADING.includes(k));
    const report = { ready: failing.length === 0, checks, failing, degraded };
    this.#o.onReport?.(report);
    return report;
  }
}

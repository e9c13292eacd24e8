// The child side of the harness protocol: announce readiness over the IPC channel, answer numbered
// jobs, and exit when the harness goes away (its IPC channel closes), so no child outlives it.

export interface Job {
  readonly type: 'job';
  readonly id: number;
  readonly [key: string]: unknown;
}

function send(message: unknown): void {
  if (process.send && process.connected) process.send(message);
}

export function ready(data: Record<string, unknown> = {}): void {
  send({ type: 'ready', pid: process.pid, ...data });
}

/** Exits when the harness disconnects or asks to stop; `cleanup` runs first (bounded). */
export function exitWithParent(cleanup: () => Promise<void> = async () => {}): void {
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => process.exit(code), 5_000);
    timer.unref();
    cleanup().then(
      () => process.exit(code),
      (error: unknown) => {
        console.error(`cleanup failed: ${(error as Error)?.message ?? String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('disconnect', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));
}

/** Answers `{ type: 'job', id, … }` messages with `{ type: 'reply', id, ok, result | error }`. */
export function onJob(handler: (job: Job) => Promise<unknown>): void {
  process.on('message', (message: unknown) => {
    const job = message as Job;
    if (job?.type !== 'job') return;
    handler(job).then(
      (result) => send({ type: 'reply', id: job.id, ok: true, result }),
      (error: unknown) =>
        send({ type: 'reply', id: job.id, ok: false, error: (error as Error)?.stack ?? String(error) }),
    );
  });
}

export function argValue(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

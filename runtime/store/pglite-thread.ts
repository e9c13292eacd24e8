// The embedded PostgreSQL (PGlite) in a thread of its own: this file is the worker's side; the
// gateway's side is `createPgliteThreadClient` in sql-client.ts.
// Why a thread: PGlite runs PostgreSQL as WebAssembly on the thread that calls it, so on the main
// thread its start-up (~0.4 s of CPU) and every statement (a usage flush, a snapshot reload) hold
// the event loop. In a worker, start-up overlaps the loading of the gateway's modules on the other
// core, and a statement never delays a request.
// Protocol (one message each way per request, matched by `id`): `query`, `exec`, `begin`,
// `commit`, `rollback`, `close`. A transaction is held open in the worker between `begin` and
// `commit`/`rollback`; its statements name it by `tx`. PGlite serialises everything else behind it.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { collectOnce } from '../heap.ts';

export interface ThreadOptions {
  readonly dataDir?: string;
  readonly startParams: readonly string[];
}

export type ThreadRequest =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly sql: string;
      readonly params: readonly unknown[];
      readonly tx?: number;
    }
  | { readonly id: number; readonly op: 'exec'; readonly sql: string; readonly tx?: number }
  | { readonly id: number; readonly op: 'begin' }
  | { readonly id: number; readonly op: 'commit' | 'rollback'; readonly tx: number }
  | { readonly id: number; readonly op: 'close' };

/** A failed request: the error's name, message and PostgreSQL fields (`code`, `detail`, `constraint`…). */
export interface ThreadFailure {
  readonly name: string;
  readonly message: string;
  readonly fields: Record<string, string | number | undefined>;
}

export type ThreadReply =
  | { readonly id: number; readonly ok: true; readonly result?: unknown }
  | { readonly id: number; readonly ok: false; readonly error: ThreadFailure };

/** What the worker posts once, before any reply: opened, or why not. */
export type ThreadReady = { readonly ready: true } | { readonly ready: false; readonly error: ThreadFailure };

/** PostgreSQL's error fields PGlite sets on its DatabaseError (the store reads `code`). */
const FIELDS = [
  'code',
  'detail',
  'hint',
  'severity',
  'constraint',
  'table',
  'column',
  'schema',
  'position',
  'where',
] as const;

export function describeFailure(error: unknown): ThreadFailure {
  const e = (error ?? {}) as Record<string, unknown>;
  const fields: Record<string, string | number | undefined> = {};
  for (const f of FIELDS) if (typeof e[f] === 'string' || typeof e[f] === 'number') fields[f] = e[f] as string | number;
  return {
    name: typeof e['name'] === 'string' ? e['name'] : 'Error',
    message: typeof e['message'] === 'string' ? e['message'] : String(error),
    fields,
  };
}

/** Thrown inside PGlite's transaction callback to make it roll back. */
class RollBack extends Error {}

async function serve(options: ThreadOptions): Promise<void> {
  const port = parentPort!;
  let db: PGlite;
  try {
    db = await PGlite.create({
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      startParams: [...PGlite.defaultStartParams, ...options.startParams],
    });
  } catch (error) {
    port.postMessage({ ready: false, error: describeFailure(error) } satisfies ThreadReady);
    return;
  }
  // Opening grew this thread's young generation to its maximum (16 MiB with the 8 MiB semi-space)
  // and left garbage; one collection now, before any request, takes ~40 ms here and the thread's
  // heap from 35 to 19 MiB (docs/decisions/performance.md, 'The embedded engine's memory').
  await collectOnce();
  const open = new Map<number, { readonly tx: Transaction; readonly end: (commit: boolean) => void }>();
  let nextTx = 1;
  const reply = (message: ThreadReply) => port.postMessage(message);
  // A transaction's end: COMMIT or ROLLBACK done (or failed), reported to whoever asked for it.
  const pendingOpen = new Map<number, (error: unknown) => void>();
  const ending = new Map<number, { resolve: () => void; reject: (error: unknown) => void }>();
  const settle = (txId: number, error?: unknown) => {
    const wasOpen = open.delete(txId);
    const rejectOpen = pendingOpen.get(txId);
    pendingOpen.delete(txId);
    if (!wasOpen) {
      rejectOpen?.(error ?? new Error('the transaction ended before it opened'));
      return;
    }
    const waiter = ending.get(txId);
    ending.delete(txId);
    if (error === undefined || error instanceof RollBack) waiter?.resolve();
    else waiter?.reject(error);
  };
  const target = (tx: number | undefined): PGlite | Transaction => {
    if (tx === undefined) return db;
    const held = open.get(tx);
    if (!held) throw new Error(`transaction ${tx} is not open`);
    return held.tx;
  };
  port.on('message', (request: ThreadRequest) => {
    const run = async (): Promise<unknown> => {
      switch (request.op) {
        case 'query':
          return (await target(request.tx).query(request.sql, [...request.params])).rows;
        case 'exec':
          await target(request.tx).exec(request.sql);
          return undefined;
        case 'begin': {
          const txId = nextTx++;
          // Resolves when the transaction is open (PGlite has run BEGIN); PGlite commits when the
          // callback returns and rolls back when it throws, so the callback waits for the verdict.
          return new Promise<number>((resolveOpen, rejectOpen) => {
            db.transaction(async (tx) => {
              const verdict = new Promise<boolean>((end) => open.set(txId, { tx, end }));
              resolveOpen(txId);
              if (!(await verdict)) throw new RollBack();
            }).then(
              () => settle(txId),
              (error: unknown) => settle(txId, error),
            );
            // BEGIN itself failed: the callback never ran.
            pendingOpen.set(txId, rejectOpen);
          });
        }
        case 'commit':
        case 'rollback': {
          const held = open.get(request.tx);
          if (!held) throw new Error(`transaction ${request.tx} is not open`);
          const done = new Promise<void>((resolve, reject) => ending.set(request.tx, { resolve, reject }));
          held.end(request.op === 'commit');
          await done;
          return undefined;
        }
        case 'close':
          await db.close();
          return undefined;
      }
    };
    run().then(
      (result) => reply({ id: request.id, ok: true, result }),
      (error: unknown) => reply({ id: request.id, ok: false, error: describeFailure(error) }),
    );
  });
  port.postMessage({ ready: true } satisfies ThreadReady);
}

if (parentPort && (workerData as { pgliteThread?: ThreadOptions } | undefined)?.pgliteThread) {
  void serve((workerData as { pgliteThread: ThreadOptions }).pgliteThread);
}

// The small SQL surface the platform store needs, with one adapter for the embedded PostgreSQL
// (PGlite) and one for a PostgreSQL server (`pg`). Both speak the same SQL dialect; the store and
// the migrations never know which one they talk to.
// Each driver is loaded when its kind of store is opened, not at import: a gateway on the embedded
// store never loads `pg` (~40 ms of start-up), one on PostgreSQL never loads PGlite.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { PoolClient, Pool as PgPool } from 'pg';
import type { ThreadFailure, ThreadReady, ThreadReply, ThreadRequest } from './pglite-thread.ts';
import { ensurePrivateDir, makePrivate } from './private-files.ts';

const require = createRequire(import.meta.url);

export interface SqlClient {
  /** 'embedded' (PGlite) or 'postgres'. */
  readonly kind: 'embedded' | 'postgres';
  /** One statement with `$1`… parameters. */
  query<T>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[] }>;
  /** A script of several statements, no parameters. */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it
   * throws. Calling `transaction` on the `tx` handle joins the running transaction.
   */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// --- PGlite ---------------------------------------------------------------------------------------

export interface PgliteClientOptions {
  /** A directory for a file-backed database; in memory when absent. */
  readonly dataDir?: string;
  /** Deadline of every query, script and transaction (default `DEFAULT_QUERY_TIMEOUT_MS`). */
  readonly queryTimeoutMs?: number;
}

/** Default deadline of one store query: a hanging database must not hold requests without limit. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;

/** A store query that passed its deadline (the database is hanging or unreachable). */
export class StoreTimeoutError extends Error {
  constructor(ms: number) {
    super(`store query took longer than ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * Races a deadline: the embedded engine cannot cancel a statement, but the caller stops waiting.
 * Also bounds a whole store operation whose driver's own deadlines add up (connect, then query).
 */
export function deadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0)) return promise;
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(ms)), ms);
  });
  promise.catch(() => {}); // settles after the deadline: nobody awaits it any more
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The platform's tables are small and one backend serves them: PostgreSQL's server defaults (128 MB
 * shared buffers, shared memory sized for 100 connections) only cost resident memory in an embedded
 * engine, whose WebAssembly memory never shrinks, and the buffer pool is touched whole when the
 * engine opens. Measured (docs/decisions/performance.md, 'The embedded engine's start parameters'):
 * 16 MB of shared buffers instead of 128 took reopening a data directory from ~350 to ~200 MiB RSS;
 * 4 MB and 4 connections took the idle gateway (1,000 tenants, all connectors) from 223 to 208 MiB.
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  '-c',
  'shared_buffers=4MB',
  '-c',
  'max_connections=4',
  '-c',
  'superuser_reserved_connections=0',
  '-c',
  'work_mem=2MB',
  '-c',
  'maintenance_work_mem=8MB',
  '-c',
  'temp_buffers=2MB',
  '-c',
  'wal_buffers=512kB',
];

/** Starts an embedded PostgreSQL (takes a few seconds). */
export async function createPgliteClient(options: PgliteClientOptions = {}): Promise<SqlClient> {
  const { PGlite } = await import('@electric-sql/pglite');
  const startParams = [...PGlite.defaultStartParams, ...PGLITE_START_PARAMS];
  // Private from the first file on: the directory is 0700 before the engine writes into it, and
  // the files its initdb leaves at 0666 are made 0600 once it is open (private-files.ts).
  if (options.dataDir !== undefined) ensurePrivateDir(options.dataDir);
  const db = await PGlite.create(
    options.dataDir === undefined ? { startParams } : { dataDir: options.dataDir, startParams },
  );
  if (options.dataDir !== undefined) makePrivate(options.dataDir);
  return pgliteClient(db, options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
}

function pgliteClient(db: PGlite, timeoutMs: number): SqlClient {
  return {
    kind: 'embedded',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await deadline(db.query<T>(sql, [...params]), timeoutMs);
      return { rows: r.rows };
    },
    async exec(sql: string) {
      await deadline(db.exec(sql), timeoutMs);
    },
    transaction<T>(fn: (tx: SqlClient) => Promise<T>) {
      return deadline(
        db.transaction((tx) => fn(pgliteTransaction(tx))),
        timeoutMs,
      );
    },
    async close() {
      if (!db.closed) await db.close();
    },
  };
}

function pgliteTransaction(tx: Transaction): SqlClient {
  const self: SqlClient = {
    kind: 'embedded',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await tx.query<T>(sql, [...params]);
      return { rows: r.rows };
    },
    async exec(sql: string) {
      await tx.exec(sql);
    },
    transaction<T>(fn: (inner: SqlClient) => Promise<T>) {
      return fn(self);
    },
    close() {
      return Promise.reject(new Error('close() inside a transaction'));
    },
  };
  return self;
}

// --- PGlite in its own thread (pglite-thread.ts) -------------------------------------------------

/** A statement the embedded database refused, with PostgreSQL's fields (`code` '23505'…) as PGlite sets them. */
export class EmbeddedDatabaseError extends Error {
  readonly code?: string;
  constructor(failure: ThreadFailure) {
    super(failure.message);
    this.name = failure.name;
    Object.assign(this, failure.fields);
  }
}

/** The embedded database's thread ended (crashed, or was closed): every later call fails with this. */
export class EmbeddedDatabaseGone extends Error {
  constructor(why: string) {
    super(`the embedded database stopped: ${why}`);
    this.name = 'EmbeddedDatabaseGone';
  }
}

/**
 * The embedded database's client: `opened` settles when its thread has opened it (or failed to);
 * `thread` is that thread (its resource use; tests end it to show a crash).
 */
export type PgliteThreadClient = SqlClient & { readonly opened: Promise<void>; readonly thread: Worker };

/** A request before it gets its id. */
type Unnumbered<R> = R extends unknown ? Omit<R, 'id'> : never;

/**
 * Opens the embedded PostgreSQL in a worker thread and returns its client at once: calls made
 * before it is open wait for it (and fail as it fails). See pglite-thread.ts for why a thread.
 * The thread keeps the process alive only while a call is in flight, like a socket would.
 */
export function createPgliteThreadClient(options: PgliteClientOptions = {}): PgliteThreadClient {
  const timeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  if (options.dataDir !== undefined) ensurePrivateDir(options.dataDir);
  const thread = startPgliteThread(options);
  return Object.assign(threadClient(thread, timeoutMs), { opened: thread.opened, thread: thread.worker });
}

/** The worker thread and its channel: each reply goes to its request; the thread's end fails whatever waits. */
interface PgliteThread {
  readonly worker: Worker;
  /** Settles when the database is open (and its files private), or has failed to open. */
  readonly opened: Promise<void>;
  /** Sends one request; fails at once once the thread is gone. No deadline: the caller sets one. */
  send<T>(request: Unnumbered<ThreadRequest>): Promise<T>;
  isGone(): boolean;
  /** Closed by its client: later requests fail with EmbeddedDatabaseGone. */
  markClosed(): void;
}

/** The process's `--max-semi-space-size` (command line or NODE_OPTIONS), when it was given. */
export function semiSpaceFlag(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string | undefined {
  let found: string | undefined;
  for (const arg of [...nodeOptions.split(/\s+/), ...execArgv]) {
    const m = /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(arg);
    if (m) found = m[1]; // the last one wins, as on Node's command line
  }
  return found;
}

/** The embedded engine's thread's young generation (V8 `maxYoungGenerationSizeMb`). */
export const PGLITE_THREAD_YOUNG_MB = 3;

function startPgliteThread(options: PgliteClientOptions): PgliteThread {
  // V8 sizes a new isolate's young generation by the process's --max-semi-space-size when it is
  // set, over the thread's resourceLimits: with the 8 MiB of every start command the thread's new
  // space grew to 16 MiB under load. The flag is cleared while the thread's isolate is made and set
  // back once it runs (the main thread's heap was sized at start and does not read it again):
  // docs/decisions/performance.md, 'The engine's thread keeps its small young generation'.
  const semi = semiSpaceFlag();
  if (semi !== undefined) setFlagsFromString('--max-semi-space-size=0');
  const worker = new Worker(new URL('./pglite-thread.ts', import.meta.url), {
    workerData: {
      pgliteThread: {
        ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
        startParams: PGLITE_START_PARAMS,
      },
    },
    // Its output is PGlite's own (notices); the gateway's log is the main thread's.
    stdout: false,
    stderr: false,
    // The thread only passes messages to and from the engine: a young generation of 3 MiB. Without
    // it, a gateway started without `--max-semi-space-size` grew this thread's to 128 MiB under load
    // (docs/decisions/performance.md, 'The embedded engine's memory'); with the flag, see above.
    resourceLimits: { maxYoungGenerationSizeMb: PGLITE_THREAD_YOUNG_MB },
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let gone: EmbeddedDatabaseGone | undefined;
  const fail = (why: string) => {
    gone ??= new EmbeddedDatabaseGone(why);
    for (const p of pending.values()) p.reject(gone);
    pending.clear();
    worker.unref();
  };
  let markOpen: () => void;
  let markFailed: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => {
    markOpen = resolve;
    markFailed = reject;
  });
  opened.catch(() => {}); // observed through the calls that wait for it
  if (semi !== undefined) {
    const restore = () => setFlagsFromString(`--max-semi-space-size=${semi}`);
    worker.once('online', restore);
    worker.once('error', restore); // a thread that never ran
  }
  worker.once('message', (first: ThreadReady) => {
    if (!first.ready) {
      const error = new EmbeddedDatabaseError(first.error);
      markFailed(error);
      fail(error.message);
      void worker.terminate();
      return;
    }
    // Files the engine wrote while opening (initdb's, the relation cache's pg_internal.init) are
    // made private before anyone uses the database; a directory that cannot be is not used.
    try {
      if (options.dataDir !== undefined) makePrivate(options.dataDir);
    } catch (error) {
      markFailed(error as Error);
      fail((error as Error).message);
      void worker.terminate();
      return;
    }
    markOpen();
    worker.on('message', (reply: ThreadReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply.result);
      else p.reject(new EmbeddedDatabaseError(reply.error));
    });
  });
  worker.on('error', (error) => {
    markFailed(error);
    fail(error.message);
  });
  worker.on('exit', (code) => {
    markFailed(new EmbeddedDatabaseGone(`its thread exited (${code})`));
    fail(`its thread exited (${code})`);
  });
  return {
    worker,
    opened,
    send<T>(request: Unnumbered<ThreadRequest>): Promise<T> {
      if (gone) return Promise.reject(gone);
      const id = nextId++;
      if (pending.size === 0) worker.ref();
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        worker.postMessage({ ...request, id } as ThreadRequest);
      });
    },
    isGone: () => gone !== undefined,
    markClosed() {
      gone ??= new EmbeddedDatabaseGone('it was closed');
    },
  };
}

/** The SqlClient over the thread; with `tx`, the client of that open transaction. */
function threadClient(thread: PgliteThread, timeoutMs: number, tx?: number): SqlClient {
  const { send, opened } = thread;
  // Waiting for the database to open is not part of a statement: a deadline starts once it is open.
  // The deadline is per statement, as PostgreSQL's statement_timeout on a server: a transaction of
  // several long reads (the snapshot of 100,000 tenants: ~4 s here) is not one slow statement.
  const statement = async <T>(request: Unnumbered<ThreadRequest>): Promise<T> => {
    await opened;
    return deadline(send<T>(request), timeoutMs);
  };
  const alone = tx === undefined;
  const self: SqlClient = {
    kind: 'embedded',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      return { rows: await statement<T[]>({ op: 'query', sql, params: [...params], ...(alone ? {} : { tx }) }) };
    },
    async exec(sql: string) {
      await statement<void>({ op: 'exec', sql, ...(alone ? {} : { tx }) });
    },
    transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
      if (!alone) return fn(self);
      const run = async () => {
        await opened;
        const opening = send<number>({ op: 'begin' });
        let id: number;
        try {
          id = await deadline(opening, timeoutMs);
        } catch (error) {
          // Opened after the caller stopped waiting: rolled back then, or it would hold the database.
          opening
            .then(
              (late) => send({ op: 'rollback', tx: late }),
              () => {},
            )
            .catch(() => {});
          throw error;
        }
        let result: T;
        try {
          result = await fn(threadClient(thread, timeoutMs, id));
        } catch (error) {
          await send({ op: 'rollback', tx: id }).catch(() => {});
          throw error;
        }
        await statement({ op: 'commit', tx: id });
        return result;
      };
      return run();
    },
    async close() {
      if (tx !== undefined) throw new Error('close() inside a transaction');
      if (thread.isGone()) return;
      try {
        await opened;
        await send({ op: 'close' });
      } catch {
        // failed to open, or already gone: nothing to close
      }
      thread.markClosed();
      await thread.worker.terminate();
    },
  };
  return self;
}

// --- PostgreSQL server ----------------------------------------------------------------------------

export interface PostgresClientOptions {
  /** `postgres://user@host:port/db` */
  readonly connectionString: string;
  /**
   * Schema every connection works in (its `search_path`), e.g. a fresh schema per test run. It
   * must already exist. A plain lowercase identifier.
   */
  readonly schema?: string;
  /** Pool size (default 10). */
  readonly max?: number;
  /**
   * Deadline of every query and of opening a connection (default `DEFAULT_QUERY_TIMEOUT_MS`): the
   * client gives up (`query_timeout`, the connection is discarded) and the server cancels the
   * statement (`statement_timeout`). 0 waits without limit.
   */
  readonly queryTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createPostgresClient(options: PostgresClientOptions): SqlClient {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid schema name '${schema}': use lowercase letters, digits and underscores.`);
  }
  const timeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const startup = [
    ...(schema === undefined ? [] : [`-c search_path=${schema}`]),
    ...(timeoutMs > 0 ? [`-c statement_timeout=${timeoutMs}`] : []),
  ];
  // `pg` is CommonJS: required synchronously here, the first time a PostgreSQL store is opened.
  const { Pool } = require('pg') as typeof import('pg');
  const pool: PgPool = new Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    // Startup parameters, so the settings are in place before the first query on every connection.
    ...(startup.length ? { options: startup.join(' ') } : {}),
    ...(timeoutMs > 0 ? { query_timeout: timeoutMs, connectionTimeoutMillis: timeoutMs } : {}),
  });
  // An idle connection that dies (server restart) is dropped by the pool; the next query opens a
  // new one. Without a listener the 'error' event would end the process.
  pool.on('error', () => {});
  let closed = false;
  return {
    kind: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await pool.query(sql, [...params]);
      return { rows: r.rows as T[] };
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: SqlClient) => Promise<T>) {
      const conn = await pool.connect();
      try {
        await conn.query('BEGIN');
      } catch (err) {
        conn.release(asError(err));
        throw err;
      }
      try {
        const result = await fn(postgresTransaction(conn));
        await conn.query('COMMIT');
        conn.release();
        return result;
      } catch (err) {
        try {
          await conn.query('ROLLBACK');
          conn.release();
        } catch (rollbackError) {
          // A connection whose ROLLBACK failed is in an unknown state: the pool destroys it.
          conn.release(asError(rollbackError));
        }
        throw err;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

function postgresTransaction(conn: PoolClient): SqlClient {
  const self: SqlClient = {
    kind: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const r = await conn.query(sql, [...params]);
      return { rows: r.rows as T[] };
    },
    async exec(sql: string) {
      await conn.query(sql);
    },
    transaction<T>(fn: (inner: SqlClient) => Promise<T>) {
      return fn(self);
    },
    close() {
      return Promise.reject(new Error('close() inside a transaction'));
    },
  };
  return self;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

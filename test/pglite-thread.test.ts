// The embedded database in its own thread (runtime/store/pglite-thread.ts and
// createPgliteThreadClient): statements, transactions and PostgreSQL's errors cross the thread
// intact, a long statement leaves the event loop free, a thread that dies fails every call with a
// clear error (never a hang), and the thread never keeps a process alive on its own. The store
// contract itself runs against it in store.test.ts.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPgliteThreadClient,
  EmbeddedDatabaseGone,
  type PgliteThreadClient,
  semiSpaceFlag,
  StoreTimeoutError,
} from '../runtime/store/sql-client.ts';

const ROOT = resolve(import.meta.dirname, '..');
let dir: string;
let db: PgliteThreadClient;

/** A database directory of its own for one test: a copy of a closed, initialised one (initdb takes seconds). */
async function freshDatabase(name: string): Promise<string> {
  const target = join(dir, name);
  await cp(join(dir, 'template'), target, { recursive: true });
  return target;
}

/** Polls `run` until the thread answers it: a long statement queued ahead of it ends first. */
function untilAnswered<T>(run: () => Promise<T>) {
  return expect.poll(
    () =>
      run().then(
        (value) => value,
        () => 'not answered yet',
      ),
    { timeout: 20_000, interval: 100 },
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pglite-thread-'));
  const template = createPgliteThreadClient({ dataDir: join(dir, 'template') });
  await template.query('SELECT 1');
  await template.close();
  db = createPgliteThreadClient({ dataDir: await freshDatabase('db'), queryTimeoutMs: 2000 });
  await db.opened;
  await db.exec('CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, at timestamptz, data bytea)');
}, 60_000);

afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the embedded database in its own thread', () => {
  it('answers statements with their rows, parameters and types intact', async () => {
    const at = new Date('2026-11-27T08:00:00.000Z');
    await db.query('INSERT INTO item (id, name, at, data) VALUES ($1, $2, $3, $4)', [
      1,
      'første',
      at,
      new Uint8Array([0, 255]),
    ]);
    const { rows } = await db.query<{ id: number; name: string; at: Date; data: Uint8Array }>(
      'SELECT id, name, at, data FROM item WHERE id = $1',
      [1],
    );
    expect(rows).toEqual([{ id: 1, name: 'første', at, data: new Uint8Array([0, 255]) }]);
  });

  it("rejects with PostgreSQL's error and its fields (the store reads `code`)", async () => {
    await db.query('INSERT INTO item (id, name) VALUES (2, $1)', ['two']);
    const error = await db.query('INSERT INTO item (id, name) VALUES (2, $1)', ['again']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 'item_pkey' });
    expect((error as Error).message).toMatch(/duplicate key/);
    // The thread goes on serving after a refused statement.
    expect((await db.query('SELECT count(*)::int AS n FROM item WHERE id = 2')).rows).toEqual([{ n: 1 }]);
  });

  it('commits a transaction whose function resolves, and rolls back one that throws', async () => {
    const result = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO item (id, name) VALUES (10, $1)', ['ten']);
      // A nested transaction joins the running one.
      await tx.transaction((inner) => inner.query('INSERT INTO item (id, name) VALUES (11, $1)', ['eleven']));
      return 'done';
    });
    expect(result).toBe('done');
    const thrown = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO item (id, name) VALUES (12, $1)', ['twelve']);
        throw new Error('changed my mind');
      })
      .catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('changed my mind');
    // A statement failing inside the transaction rolls back all of it too.
    const failed = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO item (id, name) VALUES (13, $1)', ['thirteen']);
        await tx.query('INSERT INTO item (id, name) VALUES (10, $1)', ['ten again']);
      })
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: '23505' });
    const { rows } = await db.query<{ id: number }>('SELECT id FROM item WHERE id BETWEEN 10 AND 13 ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([10, 11]);
  });

  it('makes other statements wait while a transaction is open, and never interleaves them into it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO item (id, name) VALUES (20, $1)', ['twenty']);
      order.push('tx wrote');
      await held;
      await t.query('UPDATE item SET name = $1 WHERE id = 20', ['twenty, updated']);
      order.push('tx updated');
    });
    // Started while the transaction is open: runs after it, and sees its committed result.
    await new Promise((r) => setTimeout(r, 50));
    const outside = db.query<{ name: string }>('SELECT name FROM item WHERE id = 20').then((r) => {
      order.push('outside read');
      return r.rows;
    });
    await new Promise((r) => setTimeout(r, 50));
    release();
    await tx;
    expect(await outside).toEqual([{ name: 'twenty, updated' }]);
    expect(order).toEqual(['tx wrote', 'tx updated', 'outside read']);
  });

  it('keeps the event loop free during a long statement, and gives up waiting at the deadline', async () => {
    const quick = createPgliteThreadClient({ dataDir: await freshDatabase('db-deadline'), queryTimeoutMs: 200 });
    try {
      await quick.opened;
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      const error = await quick.query('SELECT pg_sleep(1)').catch((e: unknown) => e);
      clearInterval(timer);
      expect(error).toBeInstanceOf(StoreTimeoutError);
      // On the calling thread PGlite would have held the loop for the whole statement: no tick.
      expect(ticks).toBeGreaterThan(0);
      // The statement ends in its thread; the next ones are served after it.
      await untilAnswered(() => quick.query('SELECT 1 AS one').then((r) => r.rows)).toEqual([{ one: 1 }]);
    } finally {
      await quick.close();
    }
  });

  it('bounds each statement, not a transaction, and never leaves a transaction open behind a deadline', async () => {
    const bounded = createPgliteThreadClient({ dataDir: await freshDatabase('db-bounded'), queryTimeoutMs: 400 });
    try {
      // Three statements of 0.2 s: each within the deadline, together past it (a snapshot of many tenants).
      const slept = await bounded.transaction(async (tx) => {
        for (let i = 0; i < 3; i++) await tx.query('SELECT pg_sleep(0.2)');
        return 'all three';
      });
      expect(slept).toBe('all three');
      // A transaction that waits behind a long statement past the deadline gives up; when it opens
      // later in the thread, it is rolled back there instead of holding the database.
      const long = bounded.query('SELECT pg_sleep(1.2)').catch((e: unknown) => e);
      const waiting = await bounded.transaction((tx) => tx.query('SELECT 1')).catch((e: unknown) => e);
      expect(waiting).toBeInstanceOf(StoreTimeoutError);
      expect(await long).toBeInstanceOf(StoreTimeoutError);
      await untilAnswered(() =>
        bounded.transaction((tx) => tx.query<{ ok: number }>('SELECT 1 AS ok')).then((r) => r.rows),
      ).toEqual([{ ok: 1 }]);
    } finally {
      await bounded.close();
    }
  });

  it('fails every call, pending and later, with a clear error when its thread dies (never a hang)', async () => {
    const doomed = createPgliteThreadClient({ dataDir: await freshDatabase('db-doomed') });
    await doomed.opened;
    const pending = doomed.query('SELECT pg_sleep(0.5)');
    await doomed.thread.terminate();
    await expect(pending).rejects.toBeInstanceOf(EmbeddedDatabaseGone);
    await expect(doomed.query('SELECT 1')).rejects.toThrow(/the embedded database stopped/);
    await expect(doomed.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toBeInstanceOf(EmbeddedDatabaseGone);
    await doomed.close(); // harmless after the end
  });

  it('reports a database that cannot be opened to every waiting call', async () => {
    // A data directory of another PostgreSQL version: the engine refuses it.
    const foreign = join(dir, 'db-foreign');
    await mkdir(foreign, { recursive: true });
    await writeFile(join(foreign, 'PG_VERSION'), '9\n');
    const broken = createPgliteThreadClient({ dataDir: foreign });
    const waiting = broken.query('SELECT 1');
    await expect(broken.opened).rejects.toThrow();
    await expect(waiting).rejects.toThrow();
    await expect(broken.query('SELECT 1')).rejects.toThrow();
    await broken.close();
  });

  it('fails calls after close with the reason, and closes only once', async () => {
    const closing = createPgliteThreadClient({ dataDir: await freshDatabase('db-closing') });
    await closing.query('SELECT 1');
    await closing.close();
    await closing.close();
    await expect(closing.query('SELECT 1')).rejects.toThrow('the embedded database stopped: it was closed');
  });

  it('never keeps a process alive on its own, yet finishes a statement the process awaits', async () => {
    const exitDir = await freshDatabase('db-exit');
    // A script that awaits one statement and never closes: it must print the answer (the thread
    // holds the process while a call is in flight) and then exit by itself (not while idle).
    const script = `
      import { createPgliteThreadClient } from ${JSON.stringify(join(ROOT, 'runtime/store/sql-client.ts'))};
      const db = createPgliteThreadClient({ dataDir: ${JSON.stringify(exitDir)} });
      const { rows } = await db.query('SELECT 41 + 1 AS answer');
      console.log(JSON.stringify(rows));
    `;
    const file = join(dir, 'await-one.mjs');
    writeFileSync(file, script);
    const child = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(child.error).toBeUndefined();
    expect(child.stdout.trim()).toBe('[{"answer":42}]');
    expect(child.status).toBe(0);
  });

  it("opens under the process's --max-semi-space-size, which it clears only while its thread starts", async () => {
    expect(semiSpaceFlag(['--liftoff-only', '--max-semi-space-size=8'], '')).toBe('8');
    expect(semiSpaceFlag([], '--max_semi_space_size=16 --no-warnings')).toBe('16');
    expect(semiSpaceFlag(['--max-semi-space-size=4'], '--max-semi-space-size=16')).toBe('4');
    expect(semiSpaceFlag(['--max-old-space-size=512'], '')).toBeUndefined();
    const flagDir = await freshDatabase('db-flag');
    const script = `
      import { createPgliteThreadClient } from ${JSON.stringify(join(ROOT, 'runtime/store/sql-client.ts'))};
      const db = createPgliteThreadClient({ dataDir: ${JSON.stringify(flagDir)} });
      const { rows } = await db.query('SELECT 6 * 7 AS answer');
      await db.close();
      console.log(JSON.stringify(rows));
    `;
    const file = join(dir, 'with-flag.mjs');
    writeFileSync(file, script);
    const child = spawnSync(process.execPath, ['--max-semi-space-size=8', file], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.error).toBeUndefined();
    expect(child.stdout.trim()).toBe('[{"answer":42}]');
    expect(child.status).toBe(0);
  });
});

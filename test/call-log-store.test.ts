// The call log and the daily usage in the store (migrations 17 and 18), on the embedded PostgreSQL
// (PGlite) and a PostgreSQL server (a fresh schema): one statement appends calls and adds daily usage,
// rows of a deleted account are dropped, filters and paging (also across batches that overlap in
// time), token labels, pruning by age, months with usage; migration 18 moving a row-per-call log.
import { afterAll, beforeAll, describe, expect, it, type TestOptions } from 'vitest';
import type { CallLogRow } from '../runtime/store/call-log.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { migrate } from '../runtime/store/migrate.ts';
import { migrations } from '../runtime/store/migrations.ts';
import { createPgliteClient, createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import { newId, SqlPlatformStore } from '../runtime/store/sql-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { DATABASE_URL, needs } from './support/services.ts';

const BASE = Date.parse('2026-03-14T09:00:00.000Z');
const at = (minutes: number) => new Date(BASE + minutes * 60_000);

function callLogContract(name: string, open: () => Promise<PlatformStore>, close: () => Promise<void>, o: TestOptions) {
  describe(name, o, () => {
    let store: PlatformStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(close);

    async function seed() {
      const account = await store.accounts.createAccount({ name: 'Calls ApS' });
      const ada = await store.users.createUser({ accountId: account.id, email: `${newId('a')}@x.test`, name: 'Ada' });
      const bo = await store.users.createUser({ accountId: account.id, email: `${newId('b')}@x.test`, name: 'Bo' });
      const token = await store.tokens.createToken({ userId: ada.id, label: 'desk-assistant', tokenHash: newId('h') });
      return { account, ada, bo, token };
    }

    const call = (accountId: string, over: Partial<CallLogRow>, minute: number): CallLogRow => ({
      accountId,
      at: at(minute),
      instanceId: 'cases',
      tool: 'find_cases',
      outcome: 'ok',
      detail: 'ok',
      userId: 'u',
      tokenId: '',
      durationMs: 12,
      ...over,
    });

    it('appends calls and daily usage in one go, newest first, with the token label; filters and pages', async () => {
      const { account, ada, bo, token } = await seed();
      const id = account.id;
      await store.callLog.addCalls(
        [
          call(id, { userId: ada.id, tokenId: token.id }, 0),
          call(
            id,
            { userId: ada.id, tokenId: token.id, tool: 'get_case', outcome: 'error', detail: 'upstream_timeout' },
            1,
          ),
          call(
            id,
            { userId: bo.id, instanceId: 'cases-2', outcome: 'refused', detail: 'no_seat', durationMs: null },
            2,
          ),
          call(id, { userId: bo.id, instanceId: 'cases-2' }, 3),
        ],
        [
          { accountId: id, day: '2026-03-14', instanceId: 'cases', userId: ada.id, calls: 2 },
          { accountId: id, day: '2026-03-14', instanceId: 'cases-2', userId: bo.id, calls: 1 },
        ],
      );
      const all = await store.callLog.listCalls(id, {}, 10, 0);
      expect(all.map((c) => c.at.toISOString())).toEqual([3, 2, 1, 0].map((m) => at(m).toISOString()));
      expect(all[3]).toMatchObject({
        tool: 'find_cases',
        userId: ada.id,
        tokenLabel: 'desk-assistant',
        durationMs: 12,
      });
      expect(all[1]).toMatchObject({ outcome: 'refused', detail: 'no_seat', durationMs: null, tokenLabel: '' });
      expect((await store.callLog.listCalls(id, { instanceId: 'cases-2' }, 10, 0)).map((c) => c.detail)).toEqual([
        'ok',
        'no_seat',
      ]);
      expect((await store.callLog.listCalls(id, { tool: 'get_case' }, 10, 0)).map((c) => c.detail)).toEqual([
        'upstream_timeout',
      ]);
      expect((await store.callLog.listCalls(id, { outcome: 'error' }, 10, 0)).map((c) => c.tool)).toEqual(['get_case']);
      expect(await store.callLog.listCalls(id, { userId: bo.id, outcome: 'ok' }, 10, 0)).toHaveLength(1);
      expect((await store.callLog.listCalls(id, {}, 2, 2)).map((c) => c.at.toISOString())).toEqual(
        [1, 0].map((m) => at(m).toISOString()),
      );
      // The filter choices come from the daily and monthly usage, not from a scan of the log.
      expect(await store.callLog.callChoices(id)).toEqual({ instances: ['cases', 'cases-2'], tools: [] });
      await store.usage.addUsage([
        { accountId: id, month: '2026-03', connectorId: 'cases', tool: 'get_case', calls: 1, costUnits: 1 },
        { accountId: id, month: '2026-03', connectorId: 'cases', tool: 'find_cases', calls: 2, costUnits: 2 },
      ]);
      expect((await store.callLog.callChoices(id)).tools).toEqual(['find_cases', 'get_case']);
      // Daily usage adds up (an upsert), and another account sees nothing of it.
      await store.callLog.addCalls(
        [],
        [{ accountId: id, day: '2026-03-14', instanceId: 'cases', userId: ada.id, calls: 3 }],
      );
      expect(await store.callLog.dailyUsage(id, '2026-03')).toEqual([
        { accountId: id, day: '2026-03-14', instanceId: 'cases', userId: ada.id, calls: 5 },
        { accountId: id, day: '2026-03-14', instanceId: 'cases-2', userId: bo.id, calls: 1 },
      ]);
      expect(await store.callLog.dailyUsage(id, '2026-02')).toEqual([]);
      const other = await seed();
      expect(await store.callLog.listCalls(other.account.id, {}, 10, 0)).toEqual([]);
      expect(await store.callLog.dailyUsage(other.account.id, '2026-03')).toEqual([]);
    });

    it('drops rows of a deleted account instead of failing the batch; a deleted account takes its calls', async () => {
      const kept = await seed();
      const gone = await seed();
      await store.accounts.deleteAccount(gone.account.id);
      await store.callLog.addCalls(
        [call(gone.account.id, {}, 0), call(kept.account.id, { userId: kept.ada.id }, 0)],
        [{ accountId: gone.account.id, day: '2026-03-14', instanceId: 'cases', userId: 'u', calls: 1 }],
      );
      expect(await store.callLog.listCalls(kept.account.id, {}, 10, 0)).toHaveLength(1);
      expect(await store.callLog.listCalls(gone.account.id, {}, 10, 0)).toEqual([]);
      const later = await seed();
      await store.callLog.addCalls([call(later.account.id, {}, 0)], []);
      await store.accounts.deleteAccount(later.account.id);
      expect(await store.callLog.listCalls(later.account.id, {}, 10, 0)).toEqual([]);
    });

    it('places calls of overlapping batches (two writers) in time order over many reads; filters, pages', async () => {
      const { account } = await seed();
      const id = account.id;
      const odd = 'we"ird\\,{tool}\u001e';
      // 25 batches of one writer hold the even minutes, 25 of the other the odd ones: each batch spans
      // 5 minutes, overlaps two of the other writer's, and the ids do not follow time.
      for (const writer of [0, 1])
        for (let k = 0; k < 25; k++)
          await store.callLog.addCalls(
            [0, 2, 4].map((step) => {
              const minute = 6 * k + step + writer;
              return call(id, { tool: writer === 1 ? odd : 'find_cases', durationMs: minute }, minute);
            }),
            [],
          );
      const all = await store.callLog.listCalls(id, {}, 500, 0);
      expect(all.map((c) => c.durationMs)).toEqual(Array.from({ length: 150 }, (_, i) => 149 - i));
      expect(new Set(all.map((c) => c.id)).size).toBe(150);
      expect((await store.callLog.listCalls(id, {}, 7, 40)).map((c) => c.durationMs)).toEqual(
        all.slice(40, 47).map((c) => c.durationMs),
      );
      expect((await store.callLog.listCalls(id, { tool: odd }, 5, 3)).map((c) => c.durationMs)).toEqual([
        143, 141, 139, 137, 135,
      ]);
      expect(await store.callLog.listCalls(id, { tool: 'find' }, 5, 0)).toEqual([]);
      expect(await store.callLog.listCalls(id, {}, 0, 0)).toEqual([]);
      // More calls of one account than a batch holds, in one go: several batches, every id its own.
      const many = (await seed()).account.id;
      await store.callLog.addCalls(
        Array.from({ length: 1201 }, (_, i) => call(many, { durationMs: i }, i)),
        [],
      );
      await store.callLog.addCalls([call(many, { durationMs: 5000 }, 5000)], []);
      const listed = await store.callLog.listCalls(many, {}, 2000, 0);
      expect(listed.map((c) => c.durationMs)).toEqual([5000, ...Array.from({ length: 1201 }, (_, i) => 1200 - i)]);
      expect(new Set(listed.map((c) => c.id)).size).toBe(1202);
      // A batch holds old calls beside its newest: the 20 batches read first also hold minutes 0–19,
      // yet the ten batches of minutes 500–509 read after them come before those.
      const wide = (await seed()).account.id;
      for (let k = 0; k < 20; k++)
        await store.callLog.addCalls(
          [call(wide, { durationMs: k }, k), call(wide, { durationMs: 1000 + k }, 1000 + k)],
          [],
        );
      for (let k = 0; k < 10; k++) await store.callLog.addCalls([call(wide, { durationMs: 500 + k }, 500 + k)], []);
      expect((await store.callLog.listCalls(wide, {}, 30, 0)).map((c) => c.durationMs)).toEqual([
        ...Array.from({ length: 20 }, (_, i) => 1019 - i),
        ...Array.from({ length: 10 }, (_, i) => 509 - i),
      ]);
      expect(await store.callLog.listCalls(id, {}, 10, 150)).toEqual([]);
    });

    it("labels a call of an assistant connected with OAuth with the client's name", async () => {
      const { account, ada } = await seed();
      const grantId = newId('grant_');
      await store.mcp.createMcpGrant(
        {
          id: grantId,
          clientId: 'c1',
          clientName: 'Desk Claude',
          userId: ada.id,
          accountId: account.id,
          endpoints: [],
        },
        {
          codeHash: newId('h').padEnd(64, '0'),
          redirectUri: 'http://127.0.0.1:4000/cb',
          codeChallenge: 'challenge',
          expiresAt: at(60),
        },
      );
      await store.callLog.addCalls([call(account.id, { userId: ada.id, tokenId: `oauth:${grantId}` }, 0)], []);
      expect((await store.callLog.listCalls(account.id, {}, 10, 0))[0]).toMatchObject({
        tokenId: `oauth:${grantId}`,
        tokenLabel: 'Desk Claude',
      });
    });

    it('prunes calls older than the cut-off and keeps daily usage; lists the months with usage', async () => {
      const { account } = await seed();
      const id = account.id;
      await store.callLog.addCalls(
        [call(id, {}, -60 * 24 * 40), call(id, {}, -60 * 24 * 10), call(id, {}, 0)],
        [
          { accountId: id, day: '2026-02-02', instanceId: 'cases', userId: 'u', calls: 1 },
          { accountId: id, day: '2026-03-04', instanceId: 'cases', userId: 'u', calls: 1 },
        ],
      );
      await store.usage.addUsage([
        { accountId: id, month: '2025-12', connectorId: 'cases', tool: 'find_cases', calls: 1, costUnits: 1 },
      ]);
      expect(await store.callLog.pruneCalls(at(-60 * 24 * 30))).toBe(1);
      expect((await store.callLog.listCalls(id, {}, 10, 0)).map((c) => c.at.toISOString())).toEqual([
        at(0).toISOString(),
        at(-60 * 24 * 10).toISOString(),
      ]);
      expect(await store.callLog.dailyUsage(id, '2026-02')).toHaveLength(1);
      expect(await store.callLog.usageMonths(id)).toEqual(['2026-03', '2026-02', '2025-12']);
    });
  });
}

let embedded: PlatformStore | undefined;
callLogContract(
  'call log on embedded PostgreSQL (PGlite)',
  async () => (embedded = await openStore({})),
  async () => embedded?.close(),
  {},
);

let admin: SqlClient | undefined;
let server: PlatformStore | undefined;
const schema = newId('call_log_test_');
callLogContract(
  'call log on PostgreSQL',
  async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    server = await openStore({ databaseUrl: DATABASE_URL, schema });
    return server;
  },
  async () => {
    await server?.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  },
  needs('postgres'),
);

describe('migration 18 (calls in batches)', () => {
  it('moves the calls a row each into batches of at most 500 per account in time order; drops the table', async () => {
    const db = await createPgliteClient();
    try {
      await migrate(
        db,
        migrations.filter((m) => m.version <= 17),
      );
      const store = new SqlPlatformStore(db);
      const busy = await store.accounts.createAccount({ name: 'Busy ApS' });
      const quiet = await store.accounts.createAccount({ name: 'Quiet ApS' });
      // 1,001 calls of one account (three batches), one of another; ids not in time order.
      await db.query(
        `INSERT INTO call_log (account_id, at, instance_id, tool, outcome, detail, user_id, token_id, duration_ms)
         SELECT $1, $3::timestamptz + (1000 - g) * interval '1 second', 'cases', 'find_cases', 'ok', 'ok', 'u', '', g
           FROM generate_series(0, 1000) g
         UNION ALL SELECT $2, $3::timestamptz, 'cases-2', 'get_case', 'refused', 'no_seat', 'v', 'tok_1', NULL`,
        [busy.id, quiet.id, at(0).toISOString()],
      );
      await migrate(db);
      const { rows } = await db.query<{ calls: number }>(
        'SELECT calls FROM call_batches WHERE account_id = $1 ORDER BY first_at',
        [busy.id],
      );
      expect(rows.map((r) => Number(r.calls))).toEqual([500, 500, 1]);
      const calls = await store.callLog.listCalls(busy.id, {}, 2000, 0);
      expect(calls).toHaveLength(1001);
      expect(calls.slice(0, 2).map((c) => [c.at.toISOString(), c.durationMs])).toEqual([
        [new Date(BASE + 1000_000).toISOString(), 0],
        [new Date(BASE + 999_000).toISOString(), 1],
      ]);
      expect(await store.callLog.listCalls(quiet.id, {}, 10, 0)).toMatchObject([
        {
          instanceId: 'cases-2',
          tool: 'get_case',
          outcome: 'refused',
          detail: 'no_seat',
          userId: 'v',
          durationMs: null,
        },
      ]);
      const { rows: tables } = await db.query<{ n: number | string }>(
        `SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'call_log'`,
      );
      expect(Number(tables[0]?.n)).toBe(0);
    } finally {
      await db.close();
    }
  });
});

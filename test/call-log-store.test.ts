// The call log and the daily usage in the store (migration 17), on the embedded PostgreSQL (PGlite)
// and a PostgreSQL server (a fresh schema): one statement appends calls and adds daily usage, rows of
// a deleted account are dropped, filters and paging, token labels, pruning by age, months with usage.
import { afterAll, beforeAll, describe, expect, it, type TestOptions } from 'vitest';
import type { CallLogRow } from '../runtime/store/call-log.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import { newId } from '../runtime/store/sql-store.ts';
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
      expect(await store.callLog.pruneCalls(at(-60 * 24 * 30))).toBeGreaterThanOrEqual(1);
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

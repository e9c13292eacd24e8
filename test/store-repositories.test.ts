// Issue 32, item 2: the platform store is a composition of repositories, one per aggregate, over
// one SQL client. A consumer takes only the repositories it uses, so its fake holds only those
// (here: the write guard over `writes`, the snapshot over `changes`, without any database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriteDedup } from '../runtime/pipeline/write-guard.ts';
import { SqlAccounts } from '../runtime/store/repositories/accounts.ts';
import { SqlChanges } from '../runtime/store/repositories/changes.ts';
import { createPgliteClient, type SqlClient } from '../runtime/store/sql-client.ts';
import { SqlPlatformStore } from '../runtime/store/sql-store.ts';
import { PlatformState } from '../runtime/store/state.ts';
import type {
  Account,
  ChangesRepository,
  PlatformChanges,
  PlatformSnapshot,
  WritesRepository,
} from '../runtime/store/store.ts';

const REPOSITORIES = [
  'accounts',
  'users',
  'tokens',
  'connections',
  'links',
  'usage',
  'changes',
  'dataLayer',
  'writes',
  'portal',
  'audit',
  'mcp',
  'notices',
  'callLog',
];

/** The public methods of a repository object (its class's prototype). */
function methods(repository: object): string[] {
  return Object.getOwnPropertyNames(Object.getPrototypeOf(repository)).filter((name) => name !== 'constructor');
}

describe('the store as repositories over one SQL client', () => {
  let client: SqlClient;
  let store: SqlPlatformStore;
  beforeAll(async () => {
    client = await createPgliteClient();
    store = new SqlPlatformStore(client);
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('holds the thirteen repositories, each a separate object, no method in two of them', () => {
    expect(Object.keys(store).filter((key) => key !== 'kind')).toEqual(REPOSITORIES);
    const repositories = REPOSITORIES.map((name) => (store as unknown as Record<string, object>)[name]!);
    expect(new Set(repositories).size).toBe(REPOSITORIES.length);
    const names = repositories.flatMap(methods);
    expect(names.length).toBeGreaterThan(70);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it("a repository opened alone on the same client reads the composed store's writes; the version moves", async () => {
    const changes = new SqlChanges(client);
    const before = await changes.changeVersion();
    const account = await store.accounts.createAccount({ name: 'Composed Ltd' });
    expect(await new SqlAccounts(client).getAccount(account.id)).toEqual(account);
    expect(await changes.changeVersion()).toBeGreaterThan(before);
    expect((await changes.loadSnapshot()).accounts.map((a) => a.id)).toContain(account.id);
  });
});

describe('a consumer over only the repository it uses (no database)', () => {
  it('the write guard of two replicas over one `writes` repository runs an identical write once', async () => {
    const rows = new Map<string, { claimedAt: number; outcome: string | null }>();
    const calls: string[] = [];
    const writes: WritesRepository = {
      async claimWrite(key, at, expiredBefore) {
        calls.push('claim');
        const row = rows.get(key);
        if (row === undefined || row.claimedAt < expiredBefore) {
          rows.set(key, { claimedAt: at, outcome: null });
          return { claimed: true };
        }
        return { claimed: false, outcome: row.outcome };
      },
      async finishWrite(key, outcome) {
        calls.push('finish');
        rows.set(key, { claimedAt: rows.get(key)?.claimedAt ?? 0, outcome });
      },
      async writeOutcome(key) {
        calls.push('outcome');
        return rows.has(key) ? rows.get(key)!.outcome : undefined;
      },
    };
    const replica = () =>
      new WriteDedup({
        store: { writes },
        now: () => 1_000_000,
        pollMs: 1,
        sleep: () => new Promise((r) => setTimeout(r, 1)),
      });
    let written = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const write = async () => {
      written++;
      await held;
      return { id: 'inv_1' };
    };
    const signal = new AbortController().signal;
    const first = replica().run('k', 60_000, signal, write);
    const second = replica().run('k', 60_000, signal, write);
    await new Promise((r) => setTimeout(r, 20));
    release();
    expect(await Promise.all([first, second])).toEqual([{ id: 'inv_1' }, { id: 'inv_1' }]);
    expect(written).toBe(1);
    expect(calls.filter((c) => c === 'claim')).toHaveLength(2);
    expect(calls.filter((c) => c === 'finish')).toHaveLength(1);
  });

  it('the snapshot over one `changes` repository loads in full once, then applies changes by key', async () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const account: Account = { id: 'acc_1', name: 'Before', fairUseMode: 'off', fairUseQuota: null, createdAt: at };
    const snapshot: PlatformSnapshot = {
      accounts: [account],
      users: [],
      tokens: [],
      subscriptions: [],
      seats: [],
      connections: [],
      toolSettings: [],
      version: 1,
    };
    const renamed: PlatformChanges = {
      version: 2,
      touched: {
        accounts: ['acc_1'],
        users: [],
        tokens: [],
        subscriptions: [['acc_1', 'register']],
        seats: [],
        connections: [],
        toolSettings: [],
      },
      accounts: [{ ...account, name: 'After' }],
      users: [],
      tokens: [],
      subscriptions: [{ accountId: 'acc_1', connectorKey: 'register' }],
      seats: [],
      connections: [],
      toolSettings: [],
    };
    const reads: string[] = [];
    const changes: ChangesRepository = {
      async loadSnapshot() {
        reads.push('snapshot');
        return snapshot;
      },
      async changeVersion() {
        reads.push('version');
        return 2;
      },
      async loadChanges(since) {
        reads.push(`changes since ${since}`);
        return renamed;
      },
      async pruneChangeLog() {
        return 0;
      },
    };
    const state = new PlatformState({ changes });
    await state.reload();
    expect(state.account('acc_1')?.name).toBe('Before');
    expect(state.isSubscribed('acc_1', 'register')).toBe(false);
    await state.sync();
    expect(state.account('acc_1')?.name).toBe('After');
    expect(state.isSubscribed('acc_1', 'register')).toBe(true);
    expect(state.storeVersion).toBe(2);
    expect(reads.filter((r) => r === 'snapshot')).toHaveLength(1);
    expect(reads).toContain('changes since 1');
  });
});

// Incremental snapshot updates (docs/decisions/store-and-replicas.md, 'Writes reach the snapshot incrementally, by the
// keys they changed'): a write reaches the in-memory snapshot by the keys it
// changed (the store's change log, read from the snapshot's change version), never by a full
// reload; a replica that missed a broadcast catches up by change version; a replica behind the
// pruned part of the log reloads in full. After any sequence of writes the incremental snapshot
// equals a fresh full load.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import { PlatformState } from '../runtime/store/state.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { issueToken, tokenHash } from '../runtime/auth/caller-tokens.ts';
import { createTenant, rpc, startGateway, type StartedGateway } from './support/gateway.ts';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** Everything the hot path reads, in a comparable form. */
function view(
  state: PlatformState,
  store: { tokens: string[]; accounts: string[]; users: string[]; pairs: [string, string][] },
) {
  return {
    identities: store.tokens.map((h) => {
      const id = state.known(h);
      return id ? { user: id.user, account: id.account, tokenId: id.tokenId } : null;
    }),
    accounts: store.accounts.map((a) => state.account(a) ?? null),
    users: store.users.map((u) => state.user(u) ?? null),
    subscriptions: store.pairs.map(([a, k]) => state.isSubscribed(a, k)),
    seats: store.pairs.map(([u, k]) => state.hasSeat(u, k)),
    connections: store.pairs.map(([a, i]) => state.connection(a, i) ?? null),
    keyVersions: state.connectionKeyVersions(),
    accountIds: state.accountIds().sort(),
  };
}

/** A deterministic generator (the sequence is the same on every run). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

for (const kind of ['embedded', 'postgres'] as const) {
  describe(`incremental snapshot updates (${kind} store)`, () => {
    const schema = `snapchg_${randomBytes(6).toString('hex')}`;
    let admin: SqlClient | undefined;
    let store: PlatformStore;
    beforeAll(async () => {
      if (kind === 'postgres') {
        admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
        await admin.exec(`CREATE SCHEMA ${schema}`);
        store = await openStore({ databaseUrl: DATABASE_URL, schema });
      } else store = await openStore({});
    });
    afterAll(async () => {
      await store?.close();
      await admin?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin?.close();
    });

    it('reads back the keys a write changed, with their current rows (revoked tokens and deletions too)', async () => {
      const t = await createTenant(store, { subscribe: ['register'] });
      const since = await store.changes.changeVersion();
      const tokens = await store.tokens.listTokens(t.user.id);
      await store.tokens.revokeToken(tokens[0]!.id, new Date());
      await store.users.setSeat(t.user.id, 'register', false);
      await store.accounts.setSubscription(t.account.id, 'erp', true);
      await store.connections.putConnection({
        accountId: t.account.id,
        instanceId: 'erp',
        connectorKey: 'erp',
        ciphertext: 'c',
        keyVersion: 1,
      });
      await store.connections.putToolSettings({
        accountId: t.account.id,
        instanceId: 'erp',
        disabledToolsets: [],
        disabledTools: ['list_items'],
        readOnly: true,
      });
      const changes = (await store.changes.loadChanges(since, 1000))!;
      expect(changes.version).toBe(await store.changes.changeVersion());
      expect(changes.touched).toEqual({
        accounts: [],
        users: [],
        tokens: [tokens[0]!.id],
        subscriptions: [[t.account.id, 'erp']],
        seats: [[t.user.id, 'register']],
        connections: [[t.account.id, 'erp']],
        toolSettings: [[t.account.id, 'erp']],
      });
      expect(changes.toolSettings).toMatchObject([
        { instanceId: 'erp', disabledTools: ['list_items'], readOnly: true },
      ]);
      expect(changes.tokens.map((x) => [x.id, x.revokedAt instanceof Date])).toEqual([[tokens[0]!.id, true]]);
      expect(changes.seats).toEqual([]);
      expect(changes.subscriptions).toEqual([{ accountId: t.account.id, connectorKey: 'erp' }]);
      expect(changes.connections.map((c) => c.instanceId)).toEqual(['erp']);

      // Deleting the account removes every row of it: each key is named, none has a row left.
      const before = await store.changes.changeVersion();
      await store.accounts.deleteAccount(t.account.id);
      const gone = (await store.changes.loadChanges(before, 1000))!;
      expect(gone.touched.accounts).toEqual([t.account.id]);
      expect(gone.touched.users).toEqual([t.user.id]);
      expect(gone.touched.tokens).toEqual([tokens[0]!.id]);
      expect(gone.touched.connections).toEqual([[t.account.id, 'erp']]);
      expect(
        [gone.accounts, gone.users, gone.tokens, gone.subscriptions, gone.seats, gone.connections].every(
          (rows) => rows.length === 0,
        ),
      ).toBe(true);
      // Nothing since the current version; too many keys, or a version ahead of the store: a full load.
      expect((await store.changes.loadChanges(await store.changes.changeVersion(), 1000))!.touched.accounts).toEqual(
        [],
      );
      expect(await store.changes.loadChanges(since, 2)).toBeNull();
      expect(await store.changes.loadChanges((await store.changes.changeVersion()) + 5, 1000)).toBeNull();
    });

    it('applies writes incrementally, and the result equals a full load after every step', async () => {
      const state = new PlatformState(store);
      await state.reload();
      const random = prng(kind === 'embedded' ? 20 : 21);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      const tenants = [
        await createTenant(store, { subscribe: ['register'] }),
        await createTenant(store, { subscribe: ['erp'] }),
      ];
      const hashes = tenants.map((t) => tokenHash(t.token));
      const tokenIds = [
        ...(await store.tokens.listTokens(tenants[0]!.user.id)),
        ...(await store.tokens.listTokens(tenants[1]!.user.id)),
      ].map((x) => x.id);
      const users = tenants.map((t) => t.user.id);
      const accounts = tenants.map((t) => t.account.id);
      const steps: Array<() => Promise<unknown>> = [
        async () => {
          const user = pick(users);
          const { token, record } = await issueToken(store, user, 'more');
          hashes.push(tokenHash(token));
          tokenIds.push(record.id);
        },
        () => store.tokens.revokeToken(pick(tokenIds), new Date()),
        () => store.users.setSeat(pick(users), pick(['register', 'erp']), random() < 0.5),
        () => store.accounts.setSubscription(pick(accounts), pick(['register', 'erp']), random() < 0.5),
        () =>
          store.accounts.setFairUse(pick(accounts), {
            mode: pick(['off', 'soft', 'hard'] as const),
            quota: Math.floor(random() * 100),
          }),
        () => store.users.acceptTerms(pick(users), new Date(1_700_000_000_000 + Math.floor(random() * 1e9))),
        () =>
          store.connections.putConnection({
            accountId: pick(accounts),
            instanceId: pick(['register', 'erp', 'erp-2']),
            connectorKey: 'erp',
            ciphertext: 'x',
            keyVersion: pick([1, 2, 3]),
          }),
        () => store.connections.deleteConnection(pick(accounts), pick(['register', 'erp', 'erp-2'])),
        async () => {
          const account = pick(accounts);
          const user = await store.users.createUser({
            accountId: account,
            email: `m-${randomBytes(5).toString('hex')}@example.test`,
            name: 'Member',
          });
          users.push(user.id);
          const { token, record } = await issueToken(store, user.id, 'member');
          hashes.push(tokenHash(token));
          tokenIds.push(record.id);
        },
        async () => {
          // A whole tenant gone (cascade), then a new one in its place.
          const i = Math.floor(random() * tenants.length);
          await store.accounts.deleteAccount(accounts[i]!);
          const t = await createTenant(store, { subscribe: ['register'] });
          tenants[i] = t;
          accounts.push(t.account.id);
          users.push(t.user.id);
          hashes.push(tokenHash(t.token));
          tokenIds.push(...(await store.tokens.listTokens(t.user.id)).map((x) => x.id));
        },
      ];
      const fullBefore = state.stats().fullLoads;
      let moved = 0;
      for (let i = 0; i < 60; i++) {
        const versionBefore = state.storeVersion;
        // One to three writes between catch-ups.
        const writes = 1 + Math.floor(random() * 3);
        // A write that names a row deleted earlier (a revoked user's token, a deleted account) fails
        // with not_found and changes nothing; the comparison below still holds.
        for (let w = 0; w < writes; w++)
          await pick(steps)().catch((error: unknown) => expect(error).toMatchObject({ code: 'not_found' }));
        await state.sync();
        const fresh = new PlatformState(store);
        await fresh.reload();
        const pairs = accounts
          .flatMap((a) => ['register', 'erp', 'erp-2'].map((k): [string, string] => [a, k]))
          .concat(users.flatMap((u) => ['register', 'erp'].map((k): [string, string] => [u, k])));
        const keys = { tokens: hashes, accounts, users, pairs };
        expect(view(state, keys)).toEqual(view(fresh, keys));
        expect(state.storeVersion).toBe(fresh.storeVersion);
        if (state.storeVersion !== versionBefore) moved++;
      }
      const stats = state.stats();
      expect(stats.fullLoads).toBe(fullBefore);
      // Every catch-up after a write that changed the version was incremental.
      expect(moved).toBeGreaterThan(40);
      expect(stats.incremental).toBe(moved);
    });

    it('reloads in full when the change log was pruned past the snapshot, and not before', async () => {
      const state = new PlatformState(store);
      await state.reload();
      const t = await createTenant(store, { subscribe: ['register'] });
      // Pruning what is older than an hour ago leaves the fresh changes: still incremental.
      expect(await store.changes.pruneChangeLog(new Date(Date.now() - 3_600_000))).toBeGreaterThanOrEqual(0);
      await state.sync();
      expect(state.stats()).toMatchObject({ fullLoads: 1, incremental: 1 });
      await store.users.setSeat(t.user.id, 'register', false);
      // Everything pruned: the snapshot's version is behind the log's start.
      expect(await store.changes.pruneChangeLog(new Date(Date.now() + 60_000))).toBeGreaterThan(0);
      await state.sync();
      expect(state.stats()).toMatchObject({ fullLoads: 2, incremental: 1 });
      expect(state.hasSeat(t.user.id, 'register')).toBe(false);
      expect(state.known(tokenHash(t.token))?.user.id).toBe(t.user.id);
      // After a full load the log serves again.
      await store.users.setSeat(t.user.id, 'register', true);
      await state.sync();
      expect(state.stats()).toMatchObject({ fullLoads: 2, incremental: 2 });
      expect(state.hasSeat(t.user.id, 'register')).toBe(true);
    });

    it('serialises concurrent catch-ups: every caller sees the writes made before it asked', async () => {
      const state = new PlatformState(store);
      await state.reload();
      const t = await createTenant(store, { subscribe: ['register'] });
      const first = state.sync();
      await store.accounts.setSubscription(t.account.id, 'erp', true);
      const second = state.sync();
      const third = state.sync();
      await Promise.all([first, second, third]);
      expect(state.isSubscribed(t.account.id, 'erp')).toBe(true);
      expect(state.storeVersion).toBe(await store.changes.changeVersion());
    });
  });
}

describe('two replicas: a write reaches the other one incrementally', () => {
  const schema = `snaprep_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    // No timer catch-up during the test: B learns of A's writes from A's broadcast, or when asked.
    const env = {
      REDIS_URL,
      REDIS_PREFIX: `test-${schema}:`,
      SNAPSHOT_REFRESH_MS: '600000',
      REGISTER_USERNAME: 'u',
      REGISTER_PASSWORD: 'p',
    };
    a = await startGateway(stores[0]!, { env });
    b = await startGateway(stores[1]!, { env });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.close();
  });

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    return check();
  };
  /** A write through replica A as the portal does it: store, then A's refresh (which broadcasts). */
  const throughA = async (write: () => Promise<unknown>) => {
    await write();
    await a.app.context.state.refresh();
  };

  it('token revoke, seat, subscription and connection changes reach B without a full reload', async () => {
    const bState = b.app.context.state;
    const t = await createTenant(stores[0]!, { subscribe: ['register'] });
    await a.app.context.state.refresh();
    expect(await until(() => bState.known(tokenHash(t.token)) !== undefined)).toBe(true);
    const fullLoads = bState.stats().fullLoads;
    const incremental = bState.stats().incremental;

    await throughA(() => stores[0]!.users.setSeat(t.user.id, 'register', false));
    expect(await until(() => !bState.hasSeat(t.user.id, 'register'))).toBe(true);

    await throughA(() => stores[0]!.accounts.setSubscription(t.account.id, 'erp', true));
    expect(await until(() => bState.isSubscribed(t.account.id, 'erp'))).toBe(true);

    await throughA(() =>
      stores[0]!.connections.putConnection({
        accountId: t.account.id,
        instanceId: 'erp',
        connectorKey: 'erp',
        ciphertext: 'sealed',
        keyVersion: 1,
      }),
    );
    expect(await until(() => bState.connection(t.account.id, 'erp')?.ciphertext === 'sealed')).toBe(true);

    const [token] = await stores[0]!.tokens.listTokens(t.user.id);
    expect((await rpc(b.url, 'register', t.token, PING)).status).toBe(200);
    await throughA(() => stores[0]!.tokens.revokeToken(token!.id, new Date()));
    expect(await until(() => bState.known(tokenHash(t.token)) === undefined)).toBe(true);
    expect((await rpc(b.url, 'register', t.token, PING)).status).toBe(401);

    expect(bState.stats().fullLoads).toBe(fullLoads);
    expect(bState.stats().incremental).toBeGreaterThanOrEqual(incremental + 4);
    expect(bState.storeVersion).toBe(await stores[1]!.changes.changeVersion());
  });

  it('a missed broadcast is caught up by change version, incrementally', async () => {
    const bState = b.app.context.state;
    const t = await createTenant(stores[0]!, { subscribe: ['register'] });
    await a.app.context.state.refresh();
    expect(await until(() => bState.hasSeat(t.user.id, 'register'))).toBe(true);
    const fullLoads = bState.stats().fullLoads;
    // Written straight to the store: nobody broadcasts, B still holds the old rows.
    await stores[0]!.users.setSeat(t.user.id, 'register', false);
    await stores[0]!.accounts.setFairUse(t.account.id, { mode: 'hard', quota: 7 });
    await new Promise((r) => setTimeout(r, 50));
    expect(bState.hasSeat(t.user.id, 'register')).toBe(true);
    // The timer's version poll (here called directly) finds the version moved and reads the changes.
    expect(await bState.refreshIfChanged()).toBe(true);
    expect(bState.hasSeat(t.user.id, 'register')).toBe(false);
    expect(bState.account(t.account.id)).toMatchObject({ fairUseMode: 'hard', fairUseQuota: 7 });
    expect(bState.known(tokenHash(t.token))?.account.fairUseQuota).toBe(7);
    expect(bState.stats().fullLoads).toBe(fullLoads);
    expect(await bState.refreshIfChanged()).toBe(false);
  });
});

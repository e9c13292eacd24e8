// One contract suite for `PlatformStore`, run against the embedded PostgreSQL (PGlite, in memory)
// and a PostgreSQL server (a fresh schema per run). Tests share one store per target, so every test
// works on its own accounts and never assumes an empty database. No test depends on the clock:
// expiry is decided by the `now` the test passes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestOptions } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPgliteClient, createPostgresClient } from '../runtime/store/sql-client.ts';
import type { SqlClient } from '../runtime/store/sql-client.ts';
import { newId, SqlPlatformStore, StoreError } from '../runtime/store/sql-store.ts';
import { purgeExpiredLinks } from '../runtime/secrets/signed-links.ts';
import { migrate } from '../runtime/store/migrate.ts';
import type { Migration } from '../runtime/store/migrations.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { PlatformState } from '../runtime/store/state.ts';
import { DATABASE_URL, needs } from './support/services.ts';

interface StoreTarget {
  readonly kind: 'embedded' | 'postgres';
  /** The store every test uses, migrated. Called once. */
  open(): Promise<PlatformStore>;
  /** Closes the store and removes what `open` and `openEmptyPair` created. */
  dispose(): Promise<void>;
  /** Two unmigrated stores on one empty database, for the concurrent-migration test. */
  openEmptyPair?(): Promise<readonly [PlatformStore, PlatformStore]>;
}

const BASE = new Date('2025-03-14T09:26:53.589Z');
const minutes = (n: number) => new Date(BASE.getTime() + n * 60_000);
const hash = () => newId('').padEnd(64, '0');

function storeContract(name: string, target: StoreTarget, options: TestOptions = {}): void {
  describe(name, options, () => {
    let store: PlatformStore;

    beforeAll(async () => {
      store = await target.open();
    });

    afterAll(async () => {
      await target.dispose();
    });

    async function seed(role: 'admin' | 'member' = 'admin') {
      const account = await store.accounts.createAccount({ name: 'Acme ApS' });
      const user = await store.users.createUser({
        accountId: account.id,
        email: `${newId('u')}@acme.example`,
        name: 'Ada',
        role,
      });
      return { account, user };
    }

    it('reports its kind', () => {
      expect(store.kind).toBe(target.kind);
    });

    it('creates, reads and lists accounts', async () => {
      const a = await store.accounts.createAccount({ name: 'Generated' });
      expect(a.id).toMatch(/^acc_[a-z2-7]{20}$/);
      expect(a).toMatchObject({ name: 'Generated', fairUseMode: 'off', fairUseQuota: null });
      expect(a.createdAt).toBeInstanceOf(Date);
      const givenId = newId('acc_given_');
      const b = await store.accounts.createAccount({ id: givenId, name: 'Given' });
      expect(b.id).toBe(givenId);
      expect(await store.accounts.getAccount(a.id)).toEqual(a);
      expect(await store.accounts.getAccount('acc_missing')).toBeNull();
      const ids = (await store.accounts.listAccounts()).map((x) => x.id);
      expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
      await expect(store.accounts.createAccount({ id: givenId, name: 'Again' })).rejects.toMatchObject({
        code: 'conflict',
      });
    });

    it('sets fair-use mode and quota independently', async () => {
      const { account } = await seed();
      await store.accounts.setFairUse(account.id, { mode: 'hard' });
      expect(await store.accounts.getAccount(account.id)).toMatchObject({ fairUseMode: 'hard', fairUseQuota: null });
      await store.accounts.setFairUse(account.id, { quota: 250_000 });
      expect(await store.accounts.getAccount(account.id)).toMatchObject({ fairUseMode: 'hard', fairUseQuota: 250_000 });
      await store.accounts.setFairUse(account.id, { mode: 'soft', quota: null });
      expect(await store.accounts.getAccount(account.id)).toMatchObject({ fairUseMode: 'soft', fairUseQuota: null });
      await store.accounts.setFairUse(account.id, {});
      expect(await store.accounts.getAccount(account.id)).toMatchObject({ fairUseMode: 'soft', fairUseQuota: null });
      await expect(store.accounts.setFairUse('acc_missing', { mode: 'off' })).rejects.toBeInstanceOf(StoreError);
      await expect(store.accounts.setFairUse(account.id, { quota: -1 })).rejects.toThrow(RangeError);
    });

    it('creates users with unique, case-insensitive emails', async () => {
      const account = await store.accounts.createAccount({ name: 'Users' });
      const email = `${newId('Mixed.Case')}@Example.COM`;
      const u = await store.users.createUser({ accountId: account.id, email, name: 'Bo' });
      expect(u.id).toMatch(/^usr_[a-z2-7]{20}$/);
      expect(u).toMatchObject({ accountId: account.id, email, name: 'Bo', role: 'member', termsAcceptedAt: null });
      expect(u.createdAt).toBeInstanceOf(Date);
      expect(await store.users.getUser(u.id)).toEqual(u);
      expect(await store.users.getUser('usr_missing')).toBeNull();
      expect(await store.users.findUserByEmail(email.toLowerCase())).toEqual(u);
      expect(await store.users.findUserByEmail(email.toUpperCase())).toEqual(u);
      expect(await store.users.findUserByEmail('nobody@example.com')).toBeNull();
      await expect(
        store.users.createUser({ accountId: account.id, email: email.toUpperCase(), name: 'Twin' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await expect(
        store.users.createUser({ accountId: 'acc_missing', email: `${newId('x')}@example.com`, name: 'Lost' }),
      ).rejects.toMatchObject({ code: 'not_found' });
      const admin = await store.users.createUser({
        id: newId('usr_given_'),
        accountId: account.id,
        email: `${newId('a')}@example.com`,
        name: 'Al',
        role: 'admin',
      });
      expect(admin.role).toBe('admin');
      const listed = (await store.users.listUsers(account.id)).map((x) => x.id).sort();
      expect(listed).toEqual([u.id, admin.id].sort());
      expect(await store.users.listUsers('acc_missing')).toEqual([]);
    });

    it('records acceptance of the terms', async () => {
      const { user } = await seed();
      await store.users.acceptTerms(user.id, BASE);
      expect((await store.users.getUser(user.id))?.termsAcceptedAt).toEqual(BASE);
      await expect(store.users.acceptTerms('usr_missing', BASE)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('finds tokens by hash and ignores revoked ones', async () => {
      const { account, user } = await seed();
      const tokenHash = hash();
      const t = await store.tokens.createToken({ userId: user.id, label: 'laptop', tokenHash });
      expect(t.id).toMatch(/^tok_[a-z2-7]{20}$/);
      expect(t).toMatchObject({ userId: user.id, label: 'laptop', tokenHash, revokedAt: null });
      const found = await store.tokens.findByTokenHash(tokenHash);
      expect(found).toEqual({ token: t, user, account });
      expect(await store.tokens.findByTokenHash(hash())).toBeNull();
      await expect(store.tokens.createToken({ userId: user.id, label: 'copy', tokenHash })).rejects.toMatchObject({
        code: 'conflict',
      });

      const other = await store.tokens.createToken({
        id: newId('tok_given_'),
        userId: user.id,
        label: 'phone',
        tokenHash: hash(),
      });
      await store.tokens.revokeToken(t.id, minutes(1));
      expect(await store.tokens.findByTokenHash(tokenHash)).toBeNull();
      expect((await store.tokens.findByTokenHash(other.tokenHash))?.token.id).toBe(other.id);
      await store.tokens.revokeToken(t.id, minutes(2)); // the first revocation time stays
      const listed = await store.tokens.listTokens(user.id);
      expect(listed.map((x) => x.id).sort()).toEqual([t.id, other.id].sort());
      expect(listed.find((x) => x.id === t.id)?.revokedAt).toEqual(minutes(1));
      expect(listed.find((x) => x.id === other.id)?.revokedAt).toBeNull();
      await expect(store.tokens.revokeToken('tok_missing', BASE)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('stores a token scope and carries it into the snapshot, full load and incremental', async () => {
      const { user } = await seed();
      const scope = { connectors: ['cases'], toolsets: { cases: ['cases', 'case-economics'] }, readOnly: true };
      const state = new PlatformState(store);
      await state.reload();
      const scoped = await store.tokens.createToken({ userId: user.id, label: 'ci', tokenHash: hash(), scope });
      const plain = await store.tokens.createToken({ userId: user.id, label: 'laptop', tokenHash: hash() });
      expect(scoped.scope).toEqual(scope);
      expect(plain.scope).toBeNull();
      expect((await store.tokens.findByTokenHash(scoped.tokenHash))?.token.scope).toEqual(scope);
      // Two tokens made in the same millisecond have no order of their own: compared by label.
      const listed = await store.tokens.listTokens(user.id);
      expect(Object.fromEntries(listed.map((t) => [t.label, t.scope]))).toEqual({ ci: scope, laptop: null });
      await state.refresh(); // incremental
      expect(state.known(scoped.tokenHash)?.scope).toEqual(scope);
      expect(state.known(plain.tokenHash)?.scope).toBeNull();
      const fresh = new PlatformState(store);
      await fresh.reload(); // full load
      expect(fresh.known(scoped.tokenHash)?.scope).toEqual(scope);
    });

    it('turns subscriptions and seats on and off idempotently', async () => {
      const { account, user } = await seed();
      await store.accounts.setSubscription(account.id, 'cases', true);
      await store.accounts.setSubscription(account.id, 'cases', true);
      await store.accounts.setSubscription(account.id, 'erp', true);
      expect(await store.accounts.listSubscriptions(account.id)).toEqual(['cases', 'erp']);
      await store.accounts.setSubscription(account.id, 'cases', false);
      await store.accounts.setSubscription(account.id, 'cases', false);
      expect(await store.accounts.listSubscriptions(account.id)).toEqual(['erp']);

      await store.users.setSeat(user.id, 'erp', true);
      await store.users.setSeat(user.id, 'erp', true);
      await store.users.setSeat(user.id, 'books', true);
      expect(await store.users.listSeats(user.id)).toEqual(['books', 'erp']);
      await store.users.setSeat(user.id, 'erp', false);
      await store.users.setSeat(user.id, 'erp', false);
      expect(await store.users.listSeats(user.id)).toEqual(['books']);
      expect(await store.accounts.listSubscriptions('acc_missing')).toEqual([]);
      expect(await store.users.listSeats('usr_missing')).toEqual([]);
      await expect(store.accounts.setSubscription('acc_missing', 'erp', true)).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('stores connections and replaces them on reconnect, keeping createdAt', async () => {
      const { account } = await seed();
      const first = await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'erp',
        connectorKey: 'erp',
        ciphertext: 'c1',
        keyVersion: 1,
      });
      expect(first).toMatchObject({
        accountId: account.id,
        instanceId: 'erp',
        connectorKey: 'erp',
        ciphertext: 'c1',
        keyVersion: 1,
      });
      expect(first.createdAt).toBeInstanceOf(Date);
      expect(first.updatedAt).toBeInstanceOf(Date);
      expect(await store.connections.getConnection(account.id, 'erp')).toEqual(first);

      const again = await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'erp',
        connectorKey: 'erp',
        ciphertext: 'c2',
        keyVersion: 2,
      });
      expect(again).toMatchObject({ ciphertext: 'c2', keyVersion: 2 });
      expect(again.createdAt).toEqual(first.createdAt);
      expect(again.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
      expect(await store.connections.getConnection(account.id, 'erp')).toEqual(again);

      const second = await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'erp-2',
        connectorKey: 'erp',
        ciphertext: 'd1',
        keyVersion: 1,
      });
      expect((await store.connections.listConnections(account.id)).map((c) => c.instanceId)).toEqual(['erp', 'erp-2']);
      const all = await store.connections.listConnections();
      expect(all).toEqual(expect.arrayContaining([again, second]));

      await store.connections.deleteConnection(account.id, 'erp');
      await store.connections.deleteConnection(account.id, 'erp'); // already gone: no error
      expect(await store.connections.getConnection(account.id, 'erp')).toBeNull();
      expect(await store.connections.listConnections(account.id)).toEqual([second]);
      await expect(
        store.connections.putConnection({
          accountId: 'acc_missing',
          instanceId: 'erp',
          connectorKey: 'erp',
          ciphertext: 'x',
          keyVersion: 1,
        }),
      ).rejects.toMatchObject({ code: 'not_found' });
    });

    it('replaces a ciphertext only when the key version still matches', async () => {
      const { account } = await seed();
      await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'cases',
        connectorKey: 'cases',
        ciphertext: 'v1',
        keyVersion: 1,
      });
      expect(await store.connections.replaceCiphertext(account.id, 'cases', 7, 'wrong', 8)).toBe(false);
      expect(await store.connections.getConnection(account.id, 'cases')).toMatchObject({
        ciphertext: 'v1',
        keyVersion: 1,
      });
      expect(await store.connections.replaceCiphertext(account.id, 'cases', 1, 'v2', 2)).toBe(true);
      expect(await store.connections.getConnection(account.id, 'cases')).toMatchObject({
        ciphertext: 'v2',
        keyVersion: 2,
      });
      expect(await store.connections.replaceCiphertext(account.id, 'cases', 1, 'stale', 2)).toBe(false);
      expect(await store.connections.getConnection(account.id, 'cases')).toMatchObject({
        ciphertext: 'v2',
        keyVersion: 2,
      });
      expect(await store.connections.replaceCiphertext(account.id, 'nothing', 1, 'x', 2)).toBe(false);
    });

    it('consumes a connect link once and tells used, expired and missing apart', async () => {
      const { account, user } = await seed();
      const link = { accountId: account.id, userId: user.id, instanceId: 'erp', expiresAt: minutes(10) };
      const ok = newId('jti_');
      await store.links.createConnectLink({ jti: ok, ...link });
      expect(await store.links.connectLinkState(ok, minutes(1))).toBe('ok'); // looking does not consume
      expect(await store.links.connectLinkState(ok, minutes(10))).toBe('expired');
      expect(await store.links.connectLinkState('jti_nothing', minutes(1))).toBe('missing');
      expect(await store.links.consumeConnectLink(ok, minutes(1))).toBe('ok');
      expect(await store.links.connectLinkState(ok, minutes(1))).toBe('used');
      expect(await store.links.consumeConnectLink(ok, minutes(2))).toBe('used');
      expect(await store.links.consumeConnectLink(ok, minutes(60))).toBe('used'); // used, and later also expired

      const late = newId('jti_');
      await store.links.createConnectLink({ jti: late, ...link });
      expect(await store.links.consumeConnectLink(late, minutes(11))).toBe('expired');
      expect(await store.links.consumeConnectLink(late, minutes(10))).toBe('expired'); // at the expiry instant
      expect(await store.links.consumeConnectLink(late, minutes(9))).toBe('ok');

      expect(await store.links.consumeConnectLink(newId('jti_'), minutes(1))).toBe('missing');
      await expect(store.links.createConnectLink({ jti: ok, ...link })).rejects.toMatchObject({ code: 'conflict' });
    });

    it('purges connect links a day after they expired, used or not, and keeps the rest', async () => {
      const { account, user } = await seed();
      const link = (expiresAt: Date) => ({
        jti: newId('jti_'),
        accountId: account.id,
        userId: user.id,
        instanceId: 'cases',
        expiresAt,
      });
      const day = 24 * 60;
      const old = link(minutes(-day - 5));
      const oldUsed = link(minutes(-day - 1));
      const recent = link(minutes(-day + 5));
      const valid = link(minutes(30));
      for (const l of [old, oldUsed, recent, valid]) await store.links.createConnectLink(l);
      expect(await store.links.consumeConnectLink(oldUsed.jti, minutes(-day - 2))).toBe('ok');
      expect(await purgeExpiredLinks(store, minutes(0))).toBeGreaterThanOrEqual(2);
      expect(await store.links.connectLinkState(old.jti, minutes(0))).toBe('missing');
      expect(await store.links.connectLinkState(oldUsed.jti, minutes(0))).toBe('missing');
      expect(await store.links.connectLinkState(recent.jti, minutes(0))).toBe('expired');
      expect(await store.links.connectLinkState(valid.jti, minutes(0))).toBe('ok');
      expect(await purgeExpiredLinks(store, minutes(0))).toBe(0);
    });

    it('gives exactly one of 20 concurrent consumers of a link the ok', async () => {
      const { account, user } = await seed();
      const jti = newId('jti_');
      await store.links.createConnectLink({
        jti,
        accountId: account.id,
        userId: user.id,
        instanceId: 'cases',
        expiresAt: minutes(10),
      });
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store.links.consumeConnectLink(jti, minutes(1))),
      );
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'used')).toHaveLength(19);
    });

    it('adds usage as increments and reads it back', async () => {
      const { account } = await seed();
      const row = { accountId: account.id, month: '2025-03', connectorId: 'erp', tool: 'query_entity' };
      await store.usage.addUsage([]);
      await store.usage.addUsage([
        { ...row, calls: 2, costUnits: 2 },
        { ...row, tool: 'list_companies', calls: 1, costUnits: 1 },
        { ...row, month: '2025-04', calls: 5, costUnits: 5 },
      ]);
      await store.usage.addUsage([
        { ...row, calls: 3, costUnits: 3 },
        { ...row, calls: 1, costUnits: 1 }, // the same key twice in one batch
        { ...row, accountId: 'acc_deleted_meanwhile', calls: 1, costUnits: 1 },
      ]);
      expect(await store.usage.getUsage(account.id, '2025-03')).toEqual([
        { ...row, tool: 'list_companies', calls: 1, costUnits: 1 },
        { ...row, calls: 6, costUnits: 6 },
      ]);
      expect(await store.usage.getUsage(account.id, '2025-04')).toEqual([
        { ...row, month: '2025-04', calls: 5, costUnits: 5 },
      ]);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-03')).toBe(7);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-04')).toBe(5);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-05')).toBe(0);
      expect(await store.usage.getMonthCostUnitsOf([account.id, 'acc_without_usage'], '2025-03')).toEqual(
        new Map([
          [account.id, 7],
          ['acc_without_usage', 0],
        ]),
      );
      expect(await store.usage.getMonthCostUnitsOf([], '2025-03')).toEqual(new Map());
      expect(await store.usage.getUsage('acc_deleted_meanwhile', '2025-03')).toEqual([]);
      await expect(store.usage.addUsage([{ ...row, calls: -1, costUnits: 0 }])).rejects.toThrow(RangeError);
    });

    it('applies a usage batch once: the same batch id again (answer lost) adds nothing, concurrently too', async () => {
      const { account } = await seed();
      const rows = [
        { accountId: account.id, month: '2025-06', connectorId: 'cases', tool: 'get_case', calls: 2, costUnits: 2 },
        {
          accountId: 'acc_deleted_meanwhile',
          month: '2025-06',
          connectorId: 'cases',
          tool: 'get_case',
          calls: 1,
          costUnits: 1,
        },
      ];
      const batchId = `batch_${newId('')}`;
      await store.usage.addUsage(rows, batchId);
      await store.usage.addUsage(rows, batchId);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-06')).toBe(2);
      const other = `batch_${newId('')}`;
      await Promise.all(Array.from({ length: 5 }, () => store.usage.addUsage(rows, other)));
      expect(await store.usage.getMonthCostUnits(account.id, '2025-06')).toBe(4);
      // A batch with a new id counts again.
      await store.usage.addUsage(rows, `batch_${newId('')}`);
      expect(await store.usage.getUsage(account.id, '2025-06')).toEqual([{ ...rows[0], calls: 6, costUnits: 6 }]);
    });

    it('drops the ids of settled batches with the next batch, and keeps the ones still in doubt', async () => {
      const { account } = await seed();
      const rows = [
        { accountId: account.id, month: '2025-07', connectorId: 'cases', tool: 'get_case', calls: 1, costUnits: 1 },
      ];
      const [b1, b2, b3] = [`batch_${newId('')}`, `batch_${newId('')}`, `batch_${newId('')}`];
      await store.usage.addUsage(rows, b1);
      await store.usage.addUsage(rows, b2, [b1]); // b1's answer arrived: its id goes
      // Observed from outside: b1 again would now count (the meter never sends a settled id again),
      // b2 (not settled) still counts once.
      await store.usage.addUsage(rows, b2, [b1]);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-07')).toBe(2);
      await store.usage.addUsage(rows, b1, [b2]);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-07')).toBe(3);
      // A batch already applied with its settled list given again changes nothing.
      await store.usage.addUsage(rows, b3, [b1, b2]);
      await store.usage.addUsage(rows, b3, [b1, b2]);
      expect(await store.usage.getMonthCostUnits(account.id, '2025-07')).toBe(4);
    });

    it('loses no increment under concurrent batches', async () => {
      const { account } = await seed();
      const rows = [
        { accountId: account.id, month: '2025-03', connectorId: 'cases', tool: 'get_case', calls: 1, costUnits: 1 },
        { accountId: account.id, month: '2025-03', connectorId: 'cases', tool: 'list_cases', calls: 2, costUnits: 2 },
      ];
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.usage.addUsage(i % 2 === 0 ? rows : [...rows].reverse())),
      );
      expect(await store.usage.getMonthCostUnits(account.id, '2025-03')).toBe(30);
      expect((await store.usage.getUsage(account.id, '2025-03')).map((r) => r.calls)).toEqual([10, 20]);
    });

    it('runs migrate() concurrently without harm', async () => {
      await Promise.all([store.migrate(), store.migrate()]);
      if (target.openEmptyPair) {
        const [a, b] = await target.openEmptyPair();
        await Promise.all([a.migrate(), b.migrate()]);
        const account = await a.accounts.createAccount({ name: 'After migrate' });
        expect(await b.accounts.getAccount(account.id)).toEqual(account);
      }
      expect((await store.accounts.createAccount({ name: 'Still fine' })).name).toBe('Still fine');
    });

    it('loads a snapshot of everything the hot path needs', async () => {
      const { account, user } = await seed();
      const member = await store.users.createUser({
        accountId: account.id,
        email: `${newId('m')}@acme.example`,
        name: 'Mo',
      });
      const live = await store.tokens.createToken({ userId: user.id, label: 'live', tokenHash: hash() });
      const revoked = await store.tokens.createToken({ userId: member.id, label: 'old', tokenHash: hash() });
      await store.tokens.revokeToken(revoked.id, BASE);
      await store.accounts.setSubscription(account.id, 'ledger', true);
      await store.users.setSeat(member.id, 'ledger', true);
      const conn = await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'ledger',
        connectorKey: 'ledger',
        ciphertext: 'x',
        keyVersion: 3,
      });
      await store.accounts.setFairUse(account.id, { mode: 'hard', quota: 10 });

      const snap = await store.changes.loadSnapshot();
      expect(snap.accounts.find((a) => a.id === account.id)).toEqual(await store.accounts.getAccount(account.id));
      expect(
        snap.users
          .filter((u) => u.accountId === account.id)
          .map((u) => u.id)
          .sort(),
      ).toEqual([user.id, member.id].sort());
      expect(snap.users.find((u) => u.id === member.id)).toEqual(member);
      expect(snap.tokens.find((t) => t.id === live.id)).toEqual(live);
      expect(snap.tokens.some((t) => t.id === revoked.id)).toBe(false);
      expect(snap.tokens.every((t) => t.revokedAt === null)).toBe(true);
      expect(snap.subscriptions.filter((s) => s.accountId === account.id)).toEqual([
        { accountId: account.id, connectorKey: 'ledger' },
      ]);
      expect(snap.seats.filter((s) => s.userId === member.id)).toEqual([{ userId: member.id, connectorKey: 'ledger' }]);
      expect(snap.seats.some((s) => s.userId === user.id)).toBe(false);
      expect(snap.connections.filter((c) => c.accountId === account.id)).toEqual([conn]);
    });

    it('keeps an opt-in data layer per connection: a baseline, then first-seen times of new keys', async () => {
      const { account } = await seed();
      await expect(store.dataLayer.enableDataLayer(account.id, 'ledger', BASE)).rejects.toMatchObject({
        code: 'not_found',
      });
      await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'ledger',
        connectorKey: 'ledger',
        ciphertext: 'x',
        keyVersion: 1,
      });
      await store.connections.putConnection({
        accountId: account.id,
        instanceId: 'ledger-2',
        connectorKey: 'ledger',
        ciphertext: 'x',
        keyVersion: 1,
      });
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger')).toBeNull();
      expect(await store.dataLayer.recordSeenItems(account.id, 'ledger', ['A'], minutes(1))).toBeNull();

      const enabled = await store.dataLayer.enableDataLayer(account.id, 'ledger', BASE);
      expect(enabled).toEqual({
        accountId: account.id,
        instanceId: 'ledger',
        enabledAt: BASE,
        baselineAt: null,
        itemCount: 0,
      });
      // idempotent, keeps the first time
      expect(await store.dataLayer.enableDataLayer(account.id, 'ledger', minutes(5))).toEqual(enabled);

      // The first full read after opt-in is the baseline: every key gets the opt-in time.
      const first = await store.dataLayer.recordSeenItems(account.id, 'ledger', ['A', 'B', 'A'], minutes(10));
      expect(first?.sort((x, y) => x.key.localeCompare(y.key))).toEqual([
        { key: 'A', firstSeenAt: BASE, baseline: true },
        { key: 'B', firstSeenAt: BASE, baseline: true },
      ]);
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger')).toMatchObject({
        baselineAt: minutes(10),
        itemCount: 2,
      });

      // Later reads add only unseen keys, at the time they were first seen; a vanished key is kept.
      const second = await store.dataLayer.recordSeenItems(account.id, 'ledger', ['B', 'C'], minutes(20));
      expect(second?.sort((x, y) => x.key.localeCompare(y.key))).toEqual([
        { key: 'B', firstSeenAt: BASE, baseline: true },
        { key: 'C', firstSeenAt: minutes(20), baseline: false },
      ]);
      const third = await store.dataLayer.recordSeenItems(account.id, 'ledger', ['C', 'D'], minutes(30));
      expect(third?.find((x) => x.key === 'C')).toEqual({ key: 'C', firstSeenAt: minutes(20), baseline: false });
      expect(await store.dataLayer.recordSeenItems(account.id, 'ledger', [], minutes(31))).toEqual([]);
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger')).toMatchObject({
        baselineAt: minutes(10),
        itemCount: 4,
      });

      // Another instance of the same account is separate.
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger-2')).toBeNull();

      // Concurrent first syncs: exactly one baseline.
      await store.dataLayer.enableDataLayer(account.id, 'ledger-2', BASE);
      const results = await Promise.all(
        [1, 2, 3].map((n) => store.dataLayer.recordSeenItems(account.id, 'ledger-2', ['X', `Y${n}`], minutes(n))),
      );
      const all = results.flatMap((r) => r ?? []);
      expect(new Set(all.filter((r) => r.key === 'X').map((r) => r.firstSeenAt.getTime()))).toEqual(
        new Set([BASE.getTime()]),
      );
      expect(all.filter((r) => r.baseline).length).toBe(4); // X in all three answers, plus the baseline call's own Y
      expect((await store.dataLayer.getDataLayer(account.id, 'ledger-2'))?.itemCount).toBe(4);

      // Disabling deletes every record; enabling again starts a new baseline.
      expect(await store.dataLayer.disableDataLayer(account.id, 'ledger')).toBe(true);
      expect(await store.dataLayer.disableDataLayer(account.id, 'ledger')).toBe(false);
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger')).toBeNull();
      await store.dataLayer.enableDataLayer(account.id, 'ledger', minutes(40));
      expect(await store.dataLayer.recordSeenItems(account.id, 'ledger', ['C'], minutes(41))).toEqual([
        { key: 'C', firstSeenAt: minutes(40), baseline: true },
      ]);

      // The layer lives and dies with its connection.
      await store.connections.deleteConnection(account.id, 'ledger');
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger')).toBeNull();
      await store.accounts.deleteAccount(account.id);
      expect(await store.dataLayer.getDataLayer(account.id, 'ledger-2')).toBeNull();
    });

    it('deletes an account with everything that belongs to it', async () => {
      const { account, user } = await seed();
      const keep = await seed();
      const token = await store.tokens.createToken({ userId: user.id, label: 't', tokenHash: hash() });
      const keptToken = await store.tokens.createToken({ userId: keep.user.id, label: 't', tokenHash: hash() });
      for (const { account: a, user: u } of [{ account, user }, keep]) {
        await store.accounts.setSubscription(a.id, 'erp', true);
        await store.users.setSeat(u.id, 'erp', true);
        await store.connections.putConnection({
          accountId: a.id,
          instanceId: 'erp',
          connectorKey: 'erp',
          ciphertext: 'x',
          keyVersion: 1,
        });
        await store.usage.addUsage([
          { accountId: a.id, month: '2025-03', connectorId: 'erp', tool: 'list_companies', calls: 1, costUnits: 1 },
        ]);
      }
      const jti = newId('jti_');
      await store.links.createConnectLink({
        jti,
        accountId: account.id,
        userId: user.id,
        instanceId: 'erp',
        expiresAt: minutes(10),
      });

      await store.accounts.deleteAccount(account.id);
      await store.accounts.deleteAccount(account.id); // already gone: no error

      expect(await store.accounts.getAccount(account.id)).toBeNull();
      expect(await store.users.getUser(user.id)).toBeNull();
      expect(await store.users.findUserByEmail(user.email)).toBeNull();
      expect(await store.users.listUsers(account.id)).toEqual([]);
      expect(await store.tokens.findByTokenHash(token.tokenHash)).toBeNull();
      expect(await store.tokens.listTokens(user.id)).toEqual([]);
      expect(await store.accounts.listSubscriptions(account.id)).toEqual([]);
      expect(await store.users.listSeats(user.id)).toEqual([]);
      expect(await store.connections.listConnections(account.id)).toEqual([]);
      expect(await store.usage.getUsage(account.id, '2025-03')).toEqual([]);
      expect(await store.links.consumeConnectLink(jti, minutes(1))).toBe('missing');
      const snap = await store.changes.loadSnapshot();
      expect(snap.accounts.some((a) => a.id === account.id)).toBe(false);
      expect(snap.users.some((u) => u.accountId === account.id)).toBe(false);
      expect(snap.connections.some((c) => c.accountId === account.id)).toBe(false);

      // The other account is untouched.
      expect(await store.accounts.getAccount(keep.account.id)).toEqual(keep.account);
      expect((await store.tokens.findByTokenHash(keptToken.tokenHash))?.user.id).toBe(keep.user.id);
      expect(await store.accounts.listSubscriptions(keep.account.id)).toEqual(['erp']);
      expect(await store.users.listSeats(keep.user.id)).toEqual(['erp']);
      expect(await store.connections.listConnections(keep.account.id)).toHaveLength(1);
      expect(await store.usage.getMonthCostUnits(keep.account.id, '2025-03')).toBe(1);
    });
  });
}

// --- embedded PostgreSQL (PGlite) -----------------------------------------------------------------

let embedded: PlatformStore | undefined;
storeContract('PlatformStore on embedded PostgreSQL (PGlite)', {
  kind: 'embedded',
  async open() {
    embedded = await openStore({});
    return embedded;
  },
  async dispose() {
    await embedded?.close();
  },
});

// The gateway's own form: a file-backed database, in its own thread (pglite-thread.ts).
let threaded: { store: PlatformStore; dir: string } | undefined;
storeContract('PlatformStore on embedded PostgreSQL in its own thread (data directory)', {
  kind: 'embedded',
  async open() {
    const dir = await mkdtemp(join(tmpdir(), 'store-thread-'));
    threaded = { store: await openStore({ dataDir: join(dir, 'db') }), dir };
    return threaded.store;
  },
  async dispose() {
    await threaded?.store.close();
    if (threaded) await rm(threaded.dir, { recursive: true, force: true });
  },
});

describe('embedded store on a data directory', () => {
  it('migrates a new directory concurrently and keeps its data when reopened', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'store-test-'));
    try {
      const first = new SqlPlatformStore(await createPgliteClient({ dataDir }));
      await Promise.all([first.migrate(), first.migrate()]);
      const account = await first.accounts.createAccount({ name: 'Durable' });
      const user = await first.users.createUser({ accountId: account.id, email: 'durable@example.com', name: 'Di' });
      await first.connections.putConnection({
        accountId: account.id,
        instanceId: 'cases',
        connectorKey: 'cases',
        ciphertext: 'c',
        keyVersion: 1,
      });
      await first.usage.addUsage([
        { accountId: account.id, month: '2025-03', connectorId: 'cases', tool: 'get_case', calls: 4, costUnits: 4 },
      ]);
      await first.close();

      const reopened = await openStore({ dataDir });
      try {
        expect(reopened.kind).toBe('embedded');
        expect(await reopened.accounts.getAccount(account.id)).toEqual(account);
        expect(await reopened.users.findUserByEmail('DURABLE@example.com')).toEqual(user);
        expect(await reopened.connections.getConnection(account.id, 'cases')).toMatchObject({
          ciphertext: 'c',
          keyVersion: 1,
        });
        expect(await reopened.usage.getMonthCostUnits(account.id, '2025-03')).toBe(4);
      } finally {
        await reopened.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// --- PostgreSQL server ----------------------------------------------------------------------------

let admin: SqlClient | undefined;
const schemas: string[] = [];
const opened: PlatformStore[] = [];

async function freshSchema(): Promise<string> {
  admin ??= createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
  const schema = newId('store_test_');
  await admin.exec(`CREATE SCHEMA ${schema}`);
  schemas.push(schema);
  return schema;
}

storeContract(
  'PlatformStore on PostgreSQL',
  {
    kind: 'postgres',
    async open() {
      const store = await openStore({ databaseUrl: DATABASE_URL, schema: await freshSchema() });
      opened.push(store);
      return store;
    },
    async openEmptyPair() {
      const schema = await freshSchema();
      const pair = [0, 1].map(
        () => new SqlPlatformStore(createPostgresClient({ connectionString: DATABASE_URL, schema })),
      );
      opened.push(...pair);
      return [pair[0]!, pair[1]!] as const;
    },
    async dispose() {
      await Promise.all(opened.map((s) => s.close()));
      for (const schema of schemas) await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
      await admin?.close();
    },
  },
  needs('postgres'),
);

describe('migrate on a database that is up to date', () => {
  const first: Migration[] = [
    { version: 1, name: 'one', sql: 'CREATE TABLE m_one (id int)' },
    { version: 2, name: 'two', sql: 'CREATE TABLE m_two (id int)' },
  ];
  /** A client that records every statement and transaction it is asked for. */
  function recording(inner: SqlClient, log: string[]): SqlClient {
    const note = (sql: string) => log.push(sql.trim().split(/\s+/).slice(0, 2).join(' '));
    return {
      kind: inner.kind,
      query(sql, params) {
        note(sql);
        return inner.query(sql, params);
      },
      exec(sql) {
        note(sql);
        return inner.exec(sql);
      },
      transaction(fn) {
        log.push('transaction');
        return inner.transaction((tx) => fn(recording(tx, log)));
      },
      close: () => inner.close(),
    };
  }

  it('reads the recorded versions once, without a lock or a transaction, and applies only what is new', async () => {
    const db = await createPgliteClient();
    try {
      const log: string[] = [];
      await migrate(recording(db, log), first);
      expect(log).toContain('transaction');
      log.length = 0;
      await migrate(recording(db, log), first);
      expect(log).toEqual(['SELECT version,']);
      // A build with one more migration takes the locked path and applies just that one.
      log.length = 0;
      await migrate(recording(db, log), [
        ...first,
        { version: 3, name: 'three', sql: 'CREATE TABLE m_three (id int)' },
      ]);
      expect(log).toEqual(
        expect.arrayContaining([
          'transaction',
          "SELECT pg_advisory_xact_lock(hashtext('connector-gateway:migrate'),",
          'CREATE TABLE',
        ]),
      );
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows).toEqual([
        { n: 3 },
      ]);
    } finally {
      await db.close();
    }
  });

  it('refuses a build that names a recorded migration differently, up to date or not', async () => {
    const db = await createPgliteClient();
    try {
      await migrate(db, first);
      const renamed = [first[0]!, { ...first[1]!, name: 'second' }];
      await expect(migrate(db, renamed)).rejects.toThrow(
        "Migration 2 is recorded as 'two' but this build calls it 'second'.",
      );
      await expect(migrate(db, [...renamed, { version: 3, name: 'three', sql: 'SELECT 1' }])).rejects.toThrow(
        'is recorded as',
      );
    } finally {
      await db.close();
    }
  });
});

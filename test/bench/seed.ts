// Seeds benchmark tenants through the platform store: per account one admin user who accepted the
// terms, a subscription and a seat on the company register, fair use in soft mode, and one token.
import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../../runtime/store/sql-client.ts';
import type { PlatformStore } from '../../runtime/store/store.ts';
import { issueToken, TOKEN_PREFIX, tokenHash } from '../../runtime/auth/caller-tokens.ts';

export interface BenchTenant {
  readonly accountId: string;
  readonly userId: string;
  readonly tokenId: string;
  readonly token: string;
}

export async function seedTenants(
  store: PlatformStore,
  count: number,
  connectorKey = 'register',
): Promise<BenchTenant[]> {
  const tenants: BenchTenant[] = [];
  const now = new Date();
  for (let i = 0; i < count; i++) {
    const n = String(i + 1).padStart(4, '0');
    const account = await store.accounts.createAccount({ id: `acc_bench_${n}`, name: `Bench ${n} ApS` });
    await store.accounts.setFairUse(account.id, { mode: 'soft' });
    const user = await store.users.createUser({
      id: `usr_bench_${n}`,
      accountId: account.id,
      email: `bench-${n}@example.test`,
      name: `Bench user ${n}`,
      role: 'admin',
    });
    await store.users.acceptTerms(user.id, now);
    await store.accounts.setSubscription(account.id, connectorKey, true);
    await store.users.setSeat(user.id, connectorKey, true);
    const { token, record } = await issueToken(store, user.id, 'bench');
    tenants.push({ accountId: account.id, userId: user.id, tokenId: record.id, token });
  }
  return tenants;
}

/**
 * The same tenants as `seedTenants`, written with a few set-based statements per chunk of 5,000
 * (100,000 tenants one statement at a time would take many minutes on the embedded engine). Account
 * and user ids match `seedTenants`; tokens are random per run.
 */
export async function seedTenantsBulk(db: SqlClient, count: number, connectorKey = 'register'): Promise<BenchTenant[]> {
  const tenants: BenchTenant[] = [];
  const salt = randomBytes(12).toString('base64url');
  const now = new Date();
  const CHUNK = 5_000;
  for (let start = 0; start < count; start += CHUNK) {
    const ns: string[] = [];
    const hashes: string[] = [];
    for (let i = start; i < Math.min(count, start + CHUNK); i++) {
      const n = String(i + 1).padStart(4, '0');
      const token = `${TOKEN_PREFIX}bench${salt}${n}`;
      ns.push(n);
      hashes.push(tokenHash(token));
      tenants.push({ accountId: `acc_bench_${n}`, userId: `usr_bench_${n}`, tokenId: `tok_bench_${n}`, token });
    }
    await db.transaction(async (tx) => {
      await tx.query(
        "INSERT INTO accounts (id, name, fair_use_mode) SELECT 'acc_bench_' || n, " +
          "'Bench ' || n || ' ApS', 'soft' FROM unnest($1::text[]) AS n",
        [ns],
      );
      await tx.query(
        'INSERT INTO users (id, account_id, email, name, role, terms_accepted_at) ' +
          "SELECT 'usr_bench_' || n, 'acc_bench_' || n, 'bench-' || n || '@example.test', " +
          "'Bench user ' || n, 'admin', $2 FROM unnest($1::text[]) AS n",
        [ns, now],
      );
      await tx.query(
        'INSERT INTO subscriptions (account_id, connector_key) SELECT ' +
          "'acc_bench_' || n, $2 FROM unnest($1::text[]) AS n",
        [ns, connectorKey],
      );
      await tx.query(
        "INSERT INTO seats (user_id, connector_key) SELECT 'usr_bench_' || n, $2 FROM unnest($1::text[]) AS n",
        [ns, connectorKey],
      );
      await tx.query(
        "INSERT INTO tokens (id, user_id, label, token_hash) SELECT 'tok_bench_' || n, " +
          "'usr_bench_' || n, 'bench', h FROM unnest($1::text[], $2::text[]) AS x(n, h)",
        [ns, hashes],
      );
    });
  }
  return tenants;
}

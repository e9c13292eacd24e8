// Seeds benchmark tenants through the platform store: per account one admin user who accepted the
// terms, a subscription and a seat on the company register, fair use in soft mode, and one token.
import type { PlatformStore } from '../../runtime/platform/store.ts';
import { issueToken } from '../../runtime/platform/tokens.ts';

export interface BenchTenant {
  readonly accountId: string;
  readonly userId: string;
  readonly token: string;
}

export async function seedTenants(store: PlatformStore, count: number, connectorKey = 'register'): Promise<BenchTenant[]> {
  const tenants: BenchTenant[] = [];
  const now = new Date();
  for (let i = 0; i < count; i++) {
    const n = String(i + 1).padStart(4, '0');
    const account = await store.createAccount({ id: `acc_bench_${n}`, name: `Bench ${n} ApS` });
    await store.setFairUse(account.id, { mode: 'soft' });
    const user = await store.createUser({ id: `usr_bench_${n}`, accountId: account.id, email: `bench-${n}@example.test`, name: `Bench user ${n}`, role: 'admin' });
    await store.acceptTerms(user.id, now);
    await store.setSubscription(account.id, connectorKey, true);
    await store.setSeat(user.id, connectorKey, true);
    const { token } = await issueToken(store, user.id, 'bench');
    tenants.push({ accountId: account.id, userId: user.id, token });
  }
  return tenants;
}

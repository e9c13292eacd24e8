// The demo tenant of the embedded default: one account with an admin who accepted the terms,
// subscriptions and seats on every enabled connector, and connections to the sandboxes. Idempotent:
// a second start finds the same tenant and token.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfig } from './config.ts';
import type { PlatformStore } from './platform/store.ts';
import type { Vault } from './platform/vault.ts';
import { tokenHash } from './http/server.ts';
import { issueToken } from './tokens.ts';

export const DEMO_ACCOUNT_ID = 'acc_demo';
export const DEMO_USER_ID = 'usr_demo';
export const DEMO_EMAIL = 'demo@example.com';

export interface DemoTenant {
  readonly accountId: string;
  readonly userId: string;
  readonly token: string;
}

export async function seedDemoTenant(store: PlatformStore, vault: Vault, config: GatewayConfig, tenantCredentials: Readonly<Record<string, Record<string, string>>>): Promise<DemoTenant> {
  if (!(await store.getAccount(DEMO_ACCOUNT_ID))) await store.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo ApS' });
  if (!(await store.getUser(DEMO_USER_ID))) await store.createUser({ id: DEMO_USER_ID, accountId: DEMO_ACCOUNT_ID, email: DEMO_EMAIL, name: 'Demo Admin', role: 'admin' });
  const user = (await store.getUser(DEMO_USER_ID))!;
  if (!user.termsAcceptedAt) await store.acceptTerms(DEMO_USER_ID, new Date());
  for (const c of config.connectors.filter((x) => x.enabled)) {
    await store.setSubscription(DEMO_ACCOUNT_ID, c.key, true);
    await store.setSeat(DEMO_USER_ID, c.key, true);
    const credential = tenantCredentials[c.key];
    if (credential) {
      const sealed = vault.seal(JSON.stringify(credential), DEMO_ACCOUNT_ID, c.id);
      await store.putConnection({ accountId: DEMO_ACCOUNT_ID, instanceId: c.id, connectorKey: c.key, ...sealed });
    }
  }
  // The demo token is kept in the data directory (mode 0600) so every start prints the same one.
  const tokenFile = join(config.dataDir, 'demo-token');
  if (existsSync(tokenFile)) {
    const token = readFileSync(tokenFile, 'utf8').trim();
    const found = await store.findByTokenHash(tokenHash(token));
    if (found && found.user.id === DEMO_USER_ID) return { accountId: DEMO_ACCOUNT_ID, userId: DEMO_USER_ID, token };
  }
  const { token } = await issueToken(store, DEMO_USER_ID, 'demo');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  return { accountId: DEMO_ACCOUNT_ID, userId: DEMO_USER_ID, token };
}

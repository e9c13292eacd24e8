// Two gateway replicas on one PostgreSQL refreshing the same expired OAuth connection at once make
// exactly one token request: the first holds the connection row's lock (SELECT … FOR UPDATE) while
// it asks the provider; the second waits on the lock, re-reads the row and finds the new token.
// The provider holds the first refresh until the second replica is seen waiting on the lock
// (pg_stat_activity), so the overlap is certain without any timing.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import type { ConnectorRegistry, ErasedHandler } from '../runtime/handler-api/descriptor-types.ts';
import { storeOAuthGrant } from '../runtime/upstream/oauth.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startFakeIdp, type FakeIdp } from './support/fake-idp.ts';
import {
  createTenant,
  reconnectParts,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { DATABASE_URL, needs } from './support/services.ts';

const CLIENT_ID = 'cg-replica-client-71ad';
const CLIENT_SECRET = 'Rw2~replica-secret-Yh6qN4';
const digest = (value: string) => createHash('sha256').update(value).digest('hex');
const seeToken: ErasedHandler = async (_args, ctx) => ({
  environments: [],
  tokenDigest: ctx.credential?.kind === 'oauth2' ? digest(ctx.credential.accessToken) : null,
});
const testRegistry: ConnectorRegistry = {
  ...registry,
  erp: { ...registry.erp!, handlers: { ...registry.erp!.handlers, list_environments: seeToken } },
};
type RpcResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describe('OAuth refresh across two replicas on PostgreSQL', needs('postgres'), () => {
  const schema = `oauth_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let idp: FakeIdp;
  let a: StartedGateway;
  let b: StartedGateway;
  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    idp = await startFakeIdp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    const env = {
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
      CONNECTOR_ERP_OAUTH_CLIENT_ID: CLIENT_ID,
      CONNECTOR_ERP_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
      CONNECTOR_ERP_OAUTH_BASE_URL: idp.url,
    };
    a = await startGateway(stores[0]!, { registry: testRegistry, env });
    b = await startGateway(stores[1]!, { registry: testRegistry, env });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await idp?.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  const call = (gw: StartedGateway, t: Tenant) =>
    rpc(gw.url, 'erp', t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'erp__list_environments', arguments: {} },
    }).then((r) => (r.json as { result: RpcResult }).result);

  /** Sessions of this test's schema waiting for a row lock. */
  async function lockWaiters(): Promise<number> {
    const { rows } = await admin.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = ' +
        "'Lock' AND query LIKE '%FROM connections WHERE account_id = $1 AND instance_id = $2 FOR UPDATE%'",
    );
    return Number(rows[0]!.n);
  }

  it('makes exactly one token request when both replicas refresh the same expired connection at once', async () => {
    const t = await createTenant(stores[0]!, { subscribe: ['erp'] });
    const refreshToken = idp.grantRefreshToken(
      'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access',
    );
    await storeOAuthGrant(
      a.app.context,
      { accountId: t.account.id, instanceId: 'erp', connectorKey: 'erp' },
      { accessToken: 'at-expired-replicas-Qm4', refreshToken, expiresAt: Date.now() - 1000 },
    );
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();

    let release!: () => void;
    idp.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived!: () => void;
    const firstRefresh = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    idp.onRefresh = () => arrived();
    const before = idp.requests.refresh_token;

    const fromA = call(a, t);
    await firstRefresh; // one replica holds the row lock and waits for the provider
    const fromB = call(b, t);
    while ((await lockWaiters()) < 1) await new Promise((r) => setImmediate(r)); // the other waits on the lock
    idp.hold = undefined;
    release();
    const [ra, rb] = await Promise.all([fromA, fromB]);

    expect(idp.requests.refresh_token - before).toBe(1);
    const row = await stores[0]!.connections.getConnection(t.account.id, 'erp');
    const stored = JSON.parse(a.app.context.vault.open(row!.ciphertext, t.account.id, 'erp')) as {
      accessToken: string;
      refreshToken: string;
    };
    expect(stored.refreshToken).not.toBe(refreshToken); // rotated, stored with the access token
    for (const r of [ra, rb])
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ tokenDigest: digest(stored.accessToken) });
    // Both replicas now call with the fresh token and no further token request.
    await b.app.context.state.refresh();
    await call(b, t);
    await call(a, t);
    expect(idp.requests.refresh_token - before).toBe(1);
  });

  it('a grant refused at refresh on one replica is not retried by the other', async () => {
    const t = await createTenant(stores[0]!, { subscribe: ['erp'] });
    const refreshToken = idp.grantRefreshToken('Financials.ReadWrite.All offline_access');
    await storeOAuthGrant(
      a.app.context,
      { accountId: t.account.id, instanceId: 'erp', connectorKey: 'erp' },
      { accessToken: 'at-expired-revoked-Kd2', refreshToken, expiresAt: Date.now() - 1000 },
    );
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
    idp.onRefresh = undefined;
    idp.refreshMode = 'invalid_grant';
    const before = idp.requests.refresh_token;
    const ra = await call(a, t);
    // B's snapshot still has the unmarked connection: under the lock it reads the mark and stops.
    const rb = await call(b, t);
    idp.refreshMode = 'ok';
    const text = registry.erp!.descriptor.errors.access_expired!.text;
    expect(reconnectParts(ra).text).toBe(text);
    expect(reconnectParts(rb).text).toBe(text);
    expect(idp.requests.refresh_token - before).toBe(1);
  });
});

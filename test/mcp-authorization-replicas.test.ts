// MCP authorization across two replicas on PostgreSQL and Redis (docs/decisions/mcp-authorization.md): clients, grants,
// codes
// and tokens live in the shared database, so a flow begun on one replica finishes on the other, an
// access token issued by one is accepted by the other, and a grant revoked on one is refused by
// the other at once (the revocation bumps the change version; Redis tells the other replica).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { givePassword, PortalClient } from './support/portal.ts';
import { DATABASE_URL, needs, REDIS_URL } from './support/services.ts';

const REDIRECT = 'http://127.0.0.1:40999/cb';

describe('MCP authorization across two replicas (PostgreSQL and Redis)', needs('postgres', 'redis'), () => {
  const schema = `mcpauth_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let stores: PlatformStore[] = [];
  let a: StartedGateway;
  let b: StartedGateway;
  let tenant: Tenant;

  const form = (url: string, body: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    }).then(async (r) => ({
      status: r.status,
      json: (await r.json()) as any,
    }));
  const listTools = (gw: StartedGateway, token: string) =>
    rpc(
      gw.url,
      'register',
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-06-18' },
    );

  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    stores = [
      await openStore({ databaseUrl: DATABASE_URL, schema }),
      await openStore({ databaseUrl: DATABASE_URL, schema }),
    ];
    const env = {
      REDIS_URL,
      REDIS_PREFIX: `test-${schema}:`,
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
      SNAPSHOT_REFRESH_MS: '600000',
    };
    a = await startGateway(stores[0]!, { env });
    b = await startGateway(stores[1]!, { env });
    tenant = await createTenant(stores[0]!, { subscribe: ['register'] });
    await givePassword(stores[0]!, tenant.user.id);
    await a.app.context.state.refresh();
    await b.app.context.state.refresh();
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const s of stores) await s.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
  });

  it('registers on one replica, consents on it, redeems and calls on the other, revokes across', async () => {
    const registered = await fetch(`${a.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Replica assistant',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    const clientId = ((await registered.json()) as any).client_id as string;
    const verifier = randomBytes(32).toString('base64url');
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${a.url}/register/mcp`,
    };
    const started = await fetch(`${a.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
    const consentUrl = started.headers.get('location')!;
    const portal = new PortalClient(a.url);
    expect((await portal.signIn(tenant.user.email)).status).toBe(303);
    await portal.get(consentUrl);
    const answer = await portal.post(consentUrl, { decision: 'allow' });
    const code = new URL(answer.location!).searchParams.get('code')!;
    // The code is redeemed on the other replica (the client is known there: one database).
    const tokens = await form(`${b.url}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    expect((await listTools(a, tokens.json.access_token)).status).toBe(200);
    expect((await listTools(b, tokens.json.access_token)).status).toBe(200);
    // A replay on the first replica is refused: the code was used on the second.
    expect(
      (
        await form(`${a.url}/oauth/token`, {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          client_id: clientId,
        })
      ).json.error,
    ).toBe('invalid_grant');
    // ... and it revoked the grant: at once where it happened, on the other replica as soon as
    // Redis tells it (it held the token in memory).
    expect((await listTools(a, tokens.json.access_token)).status).toBe(401);
    await expect
      .poll(async () => (await listTools(b, tokens.json.access_token)).status, { timeout: 5000, interval: 50 })
      .toBe(401);
  });
});

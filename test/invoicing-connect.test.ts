// The invoicing connect form, over real HTTP against the e-conomic sandbox (docs/decisions/connector-invoicing.md,
// 'Invoicing connect form: the grant token checked before it is stored'): the form asks
// only for the agreement grant token (the app secret token is the deployment's,
// CONNECTOR_INVOICING_APP_SECRET_TOKEN), and the runtime checks the token with one real read
// (spec `connect.verify: validate_connection`, GET /) before it stores anything. A token the
// upstream refuses is not "connected": the form shows the spec's `grant_rejected` text, nothing is
// stored and the link stays usable. Every log line of the file and the metrics are searched for
// the secrets at the end.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invoicingDescriptor } from '../generated/invoicing/descriptor.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { INVOICING_SANDBOX_READONLY_GRANT, startInvoicingSandbox } from '../sandbox/invoicing/server.ts';
import { createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { fetchAs, type PortalClient, portalAs } from './support/portal.ts';

/** Distinctive secrets (not words of any text), so a leak is unmistakable. */
const APP_SECRET = 'Xq7appSecretVv31';
const GRANT = 'Gz8grantKk42Lp';
const REVOKED = 'Rv5revokedGrantYy9';
const UNKNOWN = 'Uk3unknownGrantQq6';

const lines: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  }),
);

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const rejectedText = (status: number) =>
  formatText(invoicingDescriptor.errors.grant_rejected.text, { upstream: 'e-conomic', status });
const unverifiedText = formatText(platformDescriptor.errors.connect_unverified!.text, { upstream: 'e-conomic' });
const resultText = (r: { json: unknown }) =>
  (r.json as { result: { content: Array<{ text: string }> } }).result.content.map((c) => c.text);

describe('the invoicing connect form checks the grant token with the upstream before storing it', () => {
  let store: PlatformStore;
  let sandbox: Awaited<ReturnType<typeof startInvoicingSandbox>>;
  let gw: StartedGateway;

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startInvoicingSandbox({
      appSecrets: [APP_SECRET],
      grants: { [GRANT]: 'readWrite', [REVOKED]: 'readWrite', [INVOICING_SANDBOX_READONLY_GRANT]: 'readOnly' },
    });
    sandbox.revokeGrant(REVOKED);
    gw = await startGateway(store, {
      logger,
      env: {
        CONNECTOR_INVOICING_BASE_URL: sandbox.url,
        CONNECTOR_INVOICING_APP_SECRET_TOKEN: APP_SECRET,
        RATE_LIMIT_BURST: '1000',
        RATE_LIMIT_PER_SECOND: '1000',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
    // Nothing this file did wrote a secret into a log line.
    const all = lines.join('');
    expect(all).toContain('connect check');
    for (const secret of [APP_SECRET, GRANT, REVOKED, UNKNOWN]) expect(all).not.toContain(secret);
  });
  beforeEach(() => {
    sandbox.resetSwitches();
    sandbox.resetStats();
  });

  // A connect link is bound to the user who asked for it: the form is used signed in as that user.
  const clients = new Map<string, PortalClient>();
  const clientOf = (url: string) => [...clients].find(([prefix]) => url.startsWith(prefix))![1];

  /** A tenant and the connect link its first call answers with (not connected yet). */
  async function linkFor(target: StartedGateway = gw): Promise<{ tenant: Tenant; url: string }> {
    const tenant = await createTenant(store, { subscribe: ['invoicing'] });
    await target.app.context.state.refresh();
    const [text] = resultText(
      await rpc(target.url, 'invoicing', tenant.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'invoicing__list_units', arguments: {} },
      }),
    );
    expect(text).toMatch(/^invoicing is not connected yet\. Connect it here: http/);
    const url = text!.slice(text!.indexOf('http'));
    clients.set(url.replace(target.url, gw.url), await portalAs(gw, tenant.user));
    return { tenant, url };
  }

  const fetch = (url: string) => fetchAs(clientOf(url.replace(/^http:\/\/[^/]+/, gw.url)), url);
  const submit = (url: string, token: string) =>
    fetchAs(clientOf(url.replace(/^http:\/\/[^/]+/, gw.url)), url, {
      method: 'POST',
      body: `token=${encodeURIComponent(token)}`,
    });
  const stored = async (tenant: Tenant) => store.connections.getConnection(tenant.account.id, 'invoicing');

  it('the form asks only for the agreement grant token', async () => {
    const { url } = await linkFor();
    const html = await (await fetch(url)).text();
    expect(
      [...html.matchAll(/<input [^>]*name="([^"]+)"/g)].map((m) => m[1]).filter((name) => name !== 'csrf'),
    ).toEqual(['token']);
    expect(html).toContain('type="password"');
    expect(sandbox.stats.requests).toBe(0);
  });

  it('a token the upstream rejects (401) is not connected: spec text shown, nothing stored, one read', async () => {
    const { tenant, url } = await linkFor();
    const page = await submit(url, UNKNOWN);
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain(escapeHtml(rejectedText(401)));
    expect(html).not.toContain('is connected');
    expect(html).not.toContain(UNKNOWN);
    expect(await stored(tenant)).toBeNull();
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /']);
    expect(sandbox.requests[0]!.headers['x-agreementgranttoken']).toBe(UNKNOWN);
    expect(sandbox.requests[0]!.headers['x-appsecrettoken']).toBe(APP_SECRET);
    expect(sandbox.stats.writeLog).toEqual([]);
    // Still not connected for the tools, and the link was not used up.
    const [text] = resultText(
      await rpc(gw.url, 'invoicing', tenant.token, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'invoicing__list_units', arguments: {} },
      }),
    );
    expect(text).toMatch(/^invoicing is not connected yet\./);
    expect((await fetch(url)).status).toBe(200);
  });

  it('a revoked grant is rejected the same way', async () => {
    const { tenant, url } = await linkFor();
    const page = await submit(url, REVOKED);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain(escapeHtml(rejectedText(401)));
    expect(await stored(tenant)).toBeNull();
    expect(sandbox.stats.requests).toBe(1);
  });

  it('an accepted token is stored after exactly one read, and the tools then answer with it', async () => {
    const { tenant, url } = await linkFor();
    // A rejected attempt first: the same link still connects afterwards.
    expect((await submit(url, UNKNOWN)).status).toBe(400);
    sandbox.resetStats();
    const page = await submit(url, GRANT);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Invoicing is connected');
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /']);
    const connection = await stored(tenant);
    expect(connection?.ciphertext).not.toContain(GRANT);
    expect(gw.app.context.vault.open(connection!.ciphertext, tenant.account.id, 'invoicing')).toBe(
      JSON.stringify({ token: GRANT }),
    );
    // The link is single-use: a second submission asks the upstream nothing.
    sandbox.resetStats();
    expect((await submit(url, GRANT)).status).toBe(400);
    expect(sandbox.stats.requests).toBe(0);
    const r = await rpc(gw.url, 'invoicing', tenant.token, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'invoicing__validate_connection', arguments: {} },
    });
    expect(JSON.parse(resultText(r)[0]!)).toEqual({ connected: true });
    expect(sandbox.requests.at(-1)!.headers['x-agreementgranttoken']).toBe(GRANT);
    expect(sandbox.requests.at(-1)!.headers['x-appsecrettoken']).toBe(APP_SECRET);
  });

  it('a read-only grant connects: the check only reads (its writes are refused later, see invoicing-e2e)', async () => {
    const { tenant, url } = await linkFor();
    expect((await submit(url, INVOICING_SANDBOX_READONLY_GRANT)).status).toBe(200);
    expect(await stored(tenant)).not.toBeNull();
    expect(sandbox.stats.writeLog).toEqual([]);
  });

  it('an upstream that cannot answer now (5xx) stores nothing and says the token could not be checked', async () => {
    const { tenant, url } = await linkFor();
    sandbox.setSwitches({ fault: 'serverError' });
    const page = await submit(url, GRANT);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain(escapeHtml(unverifiedText));
    expect(await stored(tenant)).toBeNull();
    expect(sandbox.stats.requests).toBe(1);
    sandbox.resetSwitches();
    expect((await submit(url, GRANT)).status).toBe(200);
  });

  it('without the app secret token setting nothing is stored or asked; calls say it is not configured', async () => {
    const bare = await startGateway(store, {
      logger,
      env: { CONNECTOR_INVOICING_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
    });
    try {
      const tenant = await createTenant(store, { subscribe: ['invoicing'] });
      await bare.app.context.state.refresh();
      const notConfigured = formatText(platformDescriptor.errors.credential_missing.text, {
        connector_id: 'invoicing',
      });
      const [text] = resultText(
        await rpc(bare.url, 'invoicing', tenant.token, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'invoicing__list_units', arguments: {} },
        }),
      );
      expect(text).toBe(notConfigured);
      // The form of a link issued elsewhere (the same account on a configured replica) refuses too.
      const [first] = resultText(
        await rpc(gw.url, 'invoicing', tenant.token, {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'invoicing__list_units', arguments: {} },
        }),
      );
      const link = first!.slice(first!.indexOf('http'));
      clients.set(link, await portalAs(gw, tenant.user));
      const url = link.replace(gw.url, bare.url);
      const page = await submit(url, GRANT);
      expect(page.status).toBe(503);
      expect(await page.text()).toContain(escapeHtml(notConfigured));
      expect(await stored(tenant)).toBeNull();
      expect(sandbox.stats.requests).toBe(0);
    } finally {
      await bare.close();
    }
  });

  it('the connections page of a signed-in user checks the token the same way before storing it', async () => {
    const tenant = await createTenant(store, { subscribe: ['invoicing'] });
    await gw.app.context.state.refresh();
    const portal = await portalAs(gw, tenant.user);
    const path = '/portal/connections/invoicing/connect';
    expect((await portal.get(path)).status).toBe(200);
    const refused = await portal.post(path, { token: UNKNOWN });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain(escapeHtml(rejectedText(401)));
    expect(refused.html).not.toContain(UNKNOWN);
    expect(await stored(tenant)).toBeNull();
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /']);
    sandbox.setSwitches({ fault: 'serverError' });
    expect((await portal.post(path, { token: GRANT })).status).toBe(503);
    expect(await stored(tenant)).toBeNull();
    sandbox.resetSwitches();
    const accepted = await portal.post(path, { token: GRANT });
    expect(accepted.status).toBe(303);
    expect(gw.app.context.vault.open((await stored(tenant))!.ciphertext, tenant.account.id, 'invoicing')).toBe(
      JSON.stringify({ token: GRANT }),
    );
  });

  it('the metrics carry no secret', async () => {
    const text = await gw.app.context.metrics.registry.metrics();
    for (const secret of [APP_SECRET, GRANT, REVOKED, UNKNOWN]) expect(text).not.toContain(secret);
  });
});

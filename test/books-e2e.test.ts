// The bookkeeping-reports connector end to end: an MCP client (the SDK Client) → the gateway → the
// Dinero sandbox over HTTP, connected the way the demo tenant is (bin/demo.ts: sandboxEnv and
// sandboxTenantCredentials, a Visma Connect grant from the sandbox identity provider). What a user
// does first (organisations, accounting years, the result report, overdue invoices), what the Pro
// plan, the throttle and a refused filter look like, silent token refresh and a revoked grant.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, sandboxTenantCredentials } from '../bin/demo.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startIdentityProvider, verifyAccessToken } from '../sandbox/identity/index.ts';
import {
  BOOKS_DEMO_ORG_ID,
  BOOKS_DEMO_ORG_NAME,
  BOOKS_FREE_ORG_ID,
  BOOKS_THROTTLED_ORG_ID,
} from '../sandbox/books/data.ts';
import { startBooksSandbox } from '../sandbox/books/server.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  resultJson,
  resultText,
  startGateway,
  type StartedGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';

const O = BOOKS_DEMO_ORG_ID;

describe('books end to end: the demo wiring (bin/demo.ts) and the SDK Client', () => {
  let store: PlatformStore;
  let sandboxes: SandboxSet;
  let gw: StartedGateway;
  let tenant: Tenant;
  let client: Client;
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name: `books__${name}`, arguments: args });

  beforeAll(async () => {
    store = await openStore({});
    sandboxes = await startSandboxes({ connectors: ['books'] });
    gw = await startGateway(store, {
      env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' },
    });
    const credentials = sandboxTenantCredentials(sandboxes, `${gw.url}/portal/oauth/callback`);
    expect(credentials.books).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      scope: 'dineropublicapi:read offline_access',
    });
    tenant = await createTenant(store, { subscribe: ['books'] });
    await connectTenant(gw, tenant, 'books', credentials.books!);
    client = await mcpClient(gw.url, 'books', tenant.token);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await sandboxes?.close();
    await store?.close();
  });

  it('lists the 52 tools and no connect_account (the spec lists it only on cases and ERP)', async () => {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toHaveLength(52);
    expect(tools).not.toContain('connect_account');
  });

  it('lists the organisations and validates the connection without the Pro plan', async () => {
    const orgs = resultJson(await call('list_organizations'));
    expect(orgs.count).toBe(3);
    expect(orgs.organizations).toContainEqual(
      expect.objectContaining({ id: O, name: BOOKS_DEMO_ORG_NAME, isPro: true }),
    );
    expect(orgs.organizations).toContainEqual(expect.objectContaining({ id: BOOKS_FREE_ORG_ID, isPro: false }));
    expect(resultJson(await call('validate_connection'))).toMatchObject({ connected: true, organizationCount: 3 });
  });

  it('the result report of the demo organisation: income and expense accounts, whole-year totals', async () => {
    const years = resultJson(await call('list_accounting_years', { organizationId: O }));
    const year = years.years.at(-1).name as string;
    const report = resultJson(
      await call('get_result_report', { organizationId: O, accountingYear: year, includeSummaryAccounts: true }),
    );
    expect(report.accountingYear).toBe(year);
    expect(report.count).toBe(report.rows.length);
    expect(report.rows.every((r: { accountNumber: number }) => r.accountNumber < 5000)).toBe(true);
    const turnover = report.rows.find((r: { accountNumber: number }) => r.accountNumber === 1099);
    expect(turnover.amount).toBeLessThan(0); // revenue is a credit
  });

  it('the overdue invoices of the demo organisation, and with not-yet-due ones', async () => {
    const overdue = resultJson(await call('list_invoices_overdue', { organizationId: O, pageSize: 100 }));
    expect(overdue.items.length).toBeGreaterThan(20);
    expect(overdue.items.every((i: { status: string }) => i.status === 'Overdue')).toBe(true);
    expect(overdue.pagination).toMatchObject({ page: 0, pageSize: 100, hasMore: false });
    const unpaid = resultJson(
      await call('list_invoices_overdue', { organizationId: O, includeNotYetDue: true, pageSize: 200 }),
    );
    expect(unpaid.items.length).toBeGreaterThan(overdue.items.length);
  });

  it('a free organisation answers ProPlanRequiredError; the throttled one UpstreamRateLimitError', async () => {
    const free = await call('list_vat_types', { organizationId: BOOKS_FREE_ORG_ID });
    expect(free.isError).toBe(true);
    expect(resultText(free)).toMatch(/^ProPlanRequiredError: Dinero refused access \(HTTP 403\)/);
    const busy = await call('list_vat_types', { organizationId: BOOKS_THROTTLED_ORG_ID });
    expect(resultText(busy)).toMatch(/^UpstreamRateLimitError: /);
  });

  it('a quote in a filter is refused with the friendly text and is not metered', async () => {
    const before = await usageOf(gw.url, tenant.token);
    const refused = await call('list_contacts', { organizationId: O, name: "O'Brien" });
    expect(resultText(refused)).toBe(
      "The value of name contains a single quote ('), which Dinero filters cannot carry. Search " +
        'again without the quote, for example with a part of the text that has none.',
    );
    const after = await usageOf(gw.url, tenant.token);
    expect(after.usage.totalCostUnits).toBe(before.usage.totalCostUnits);
  });

  it('downloads a PDF and a file as base64, and never shows the token', async () => {
    const invoices = resultJson(await call('list_invoices', { organizationId: O, status: 'Paid', pageSize: 1 }));
    const pdf = resultJson(
      await call('download_invoice_pdf', { organizationId: O, invoiceGuid: invoices.items[0].guid }),
    );
    expect(Buffer.from(pdf.base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    const files = resultJson(await call('list_files', { organizationId: O, fileStatus: 'Used', pageSize: 1 }));
    const file = resultJson(await call('download_file', { organizationId: O, fileGuid: files.files[0].fileGuid }));
    expect(file.fileGuid).toBe(files.files[0].fileGuid);
    const grant = sandboxTenantCredentials(sandboxes).books;
    expect(JSON.stringify([pdf, files, file])).not.toContain(String(grant?.accessToken ?? 'none'));
  });
});

describe('books end to end: Visma Connect tokens refresh silently; a revoked grant asks to reconnect', () => {
  let store: PlatformStore;
  let idp: Awaited<ReturnType<typeof startIdentityProvider>>;
  let dinero: Awaited<ReturnType<typeof startBooksSandbox>>;
  let gw: StartedGateway;
  const CLIENT = {
    style: 'visma' as const,
    clientId: 'isv_books_e2e',
    clientSecret: 'books-e2e-secret-Kq93',
    redirectUris: ['http://127.0.0.1:9/portal/oauth/callback'],
  };

  beforeAll(async () => {
    store = await openStore({});
    idp = await startIdentityProvider({});
    idp.registerClient(CLIENT);
    dinero = await startBooksSandbox({
      switches: { rateLimitPerMinute: 0 },
      verifyToken: (token) => {
        const check = verifyAccessToken(token);
        return { valid: check.valid && check.scope.includes('dineropublicapi:read'), expired: check.expired };
      },
    });
    gw = await startGateway(store, {
      env: {
        CONNECTOR_BOOKS_BASE_URL: dinero.url,
        CONNECTOR_BOOKS_OAUTH_BASE_URL: `${idp.endpoints.visma.base}/connect`,
        CONNECTOR_BOOKS_OAUTH_CLIENT_ID: CLIENT.clientId,
        CONNECTOR_BOOKS_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_SECOND: '10000',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await dinero?.close();
    await idp?.close();
    await store?.close();
  });

  /** A tenant whose stored access token expired a while ago, with a live refresh token. */
  async function staleTenant(subject: string): Promise<{ tenant: Tenant; client: Client }> {
    const grant = idp.issueGrant({
      clientId: CLIENT.clientId,
      scope: ['dineropublicapi:read', 'offline_access'],
      subject,
    });
    const tenant = await createTenant(store, { subscribe: ['books'] });
    await connectTenant(gw, tenant, 'books', {
      accessToken: 'expired-access-token-x1',
      refreshToken: grant.refresh_token,
      expiresAt: Date.now() - 60_000,
      scope: grant.scope,
    });
    return { tenant, client: await mcpClient(gw.url, 'books', tenant.token) };
  }

  it('an expired access token is refreshed before the call (refresh_token grant), then the call succeeds', async () => {
    const { client } = await staleTenant('refresh@dinero.example');
    const before = idp.stats.tokenLog.filter((t) => t.grantType === 'refresh_token' && t.status === 200).length;
    const result = await client.callTool({ name: 'books__list_accounting_years', arguments: { organizationId: O } });
    expect(result.isError).toBeFalsy();
    expect(resultJson(result).count).toBe(2);
    expect(idp.stats.tokenLog.filter((t) => t.grantType === 'refresh_token' && t.status === 200).length).toBe(
      before + 1,
    );
    await client.close();
  });

  it('a revoked grant (invalid_grant) → AccessTokenExpiredError, reconnect link, no request, unmetered', async () => {
    const { tenant, client } = await staleTenant('revoked@dinero.example');
    idp.revoke({ subject: 'revoked@dinero.example' });
    const requestsBefore = dinero.stats.requests;
    const result = await client.callTool({ name: 'books__list_invoices', arguments: { organizationId: O } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /^AccessTokenExpiredError: the Dinero access of this connection has expired or was revoked\./,
    );
    expect(JSON.stringify(result.content)).toContain('/portal/');
    expect(dinero.stats.requests).toBe(requestsBefore);
    expect((await usageOf(gw.url, tenant.token)).usage.totalCostUnits).toBe(0);
    await client.close();
  });

  it('an access token the upstream rejects (401) → AccessTokenExpiredError, metered once', async () => {
    const tenant = await createTenant(store, { subscribe: ['books'] });
    await connectTenant(gw, tenant, 'books', {
      accessToken: 'not-a-dinero-token-7Hq',
      refreshToken: 'rt-unused',
      expiresAt: Date.now() + 3_600_000,
      scope: 'dineropublicapi:read offline_access',
    });
    const client = await mcpClient(gw.url, 'books', tenant.token);
    const result = await client.callTool({ name: 'books__get_sales_settings', arguments: { organizationId: O } });
    expect(resultText(result)).toMatch(/^AccessTokenExpiredError: /);
    expect(JSON.stringify(result)).not.toContain('not-a-dinero-token-7Hq');
    expect((await usageOf(gw.url, tenant.token)).usage.totalCostUnits).toBe(1);
    await client.close();
  });
});

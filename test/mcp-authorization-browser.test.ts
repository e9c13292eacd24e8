// MCP authorization end to end as an assistant lives it (docs/decisions/mcp-authorization.md): the official SDK client
// is
// given only the endpoint URL and an OAuth client provider (its client-side auth helpers do the
// discovery, registration, PKCE and token exchange); the browser step — the portal's sign-in and
// the consent page — runs in headless chromium; then the tools work with no token copied by hand.
// Once with dynamic client registration, once with a client ID metadata document.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../bin/demo.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import { connectTenant, createTenant, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { givePassword, TEST_PASSWORD } from './support/portal.ts';
import { skipWith } from './support/services.ts';

const chromiumPath = (() => {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
})();
const ARTIFACTS = join(new URL('..', import.meta.url).pathname, 'test-artifacts', 'mcp-authorization');
const REDIRECT = 'http://127.0.0.1:47613/oauth/callback';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious or critical accessibility violations of the page (axe-core). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(async () =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
const METADATA_DOCUMENT = 'https://assistant.example.com/oauth/client-metadata.json';

/** What an assistant keeps between runs: the SDK asks it for these and hands them back. */
class AssistantAuth implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl: string | undefined;

  constructor(clientMetadataUrl?: string) {
    this.clientMetadataUrl = clientMetadataUrl;
  }

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Browser test assistant',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe(
  'an assistant connects with OAuth in a headless browser',
  skipWith(chromiumPath ? undefined : 'no chromium on PATH (Debian: apt-get install chromium)'),
  () => {
    let store: PlatformStore;
    let sandboxes: SandboxSet;
    let gw: StartedGateway;
    let tenant: Tenant;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      store = await openStore({});
      sandboxes = await startSandboxes({ connectors: ['cases'] });
      gw = await startGateway(store, {
        env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
        // The assistant's client ID metadata document, as its https URL would serve it.
        fetchClientMetadata: async (url) =>
          url === METADATA_DOCUMENT
            ? Response.json({
                client_id: METADATA_DOCUMENT,
                client_name: 'Metadata document assistant',
                redirect_uris: [REDIRECT],
                token_endpoint_auth_method: 'none',
              })
            : new Response('not found', { status: 404 }),
      });
      tenant = await createTenant(store, { subscribe: ['cases'] });
      await givePassword(store, tenant.user.id);
      const credential = sandboxes.started.get('cases')!.running.tenantCredential as { apiKey: string };
      await connectTenant(gw, tenant, 'cases', credential);
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
      // The page's own CSP applies (its form-action must let the answer redirect to the client).
      const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      await sandboxes?.close();
      await store?.close();
    });

    /** The browser step: open the authorization URL, sign in if asked, allow; answers the code the redirect carries. */
    async function consentInBrowser(url: URL, shot: string): Promise<string> {
      let redirected: URL | undefined;
      // The assistant's loopback listener: the browser's request to it is caught, not sent.
      await page.route(`${REDIRECT}*`, async (route) => {
        redirected = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' });
      });
      await page.goto(url.href);
      if (new URL(page.url()).pathname === '/portal/sign-in') {
        await page.getByLabel('Email address').fill(tenant.user.email);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.waitForURL(/\/portal\/authorize\?/);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(
        /^Allow .+ to use your MCP endpoints\?$/,
      );
      const body = await page.textContent('main');
      expect(body).toContain(`${gw.url}/cases/mcp`);
      expect(body).toContain('127.0.0.1:47613');
      // axe-core needs a script: the same page in a second context that bypasses the CSP.
      const auditContext = await browser.newContext({ bypassCSP: true });
      await auditContext.addCookies(await page.context().cookies());
      const auditPage = await auditContext.newPage();
      await auditPage.goto(page.url());
      expect(await axeViolations(auditPage)).toEqual([]);
      await auditContext.close();
      await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${REDIRECT}*`);
      await page.unroute(`${REDIRECT}*`);
      expect(redirected?.searchParams.get('iss')).toBe(gw.url);
      return redirected!.searchParams.get('code')!;
    }

    /** Connect as an assistant does: fail with 401, authorize in the browser, finish, connect again. */
    async function connectWithOAuth(auth: AssistantAuth, shot: string): Promise<Client> {
      const endpoint = new URL(`${gw.url}/cases/mcp`);
      const first = new StreamableHTTPClientTransport(endpoint, { authProvider: auth });
      await expect(new Client({ name: 'oauth-assistant', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      expect(auth.authorizationUrl?.origin).toBe(gw.url);
      expect(auth.authorizationUrl?.searchParams.get('resource')).toBe(endpoint.href);
      const code = await consentInBrowser(auth.authorizationUrl!, shot);
      await first.finishAuth(code);
      expect(auth.saved?.access_token).toMatch(/^cgwa_/);
      const client = new Client({ name: 'oauth-assistant', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: auth }));
      return client;
    }

    it('dynamic client registration: sign in, consent, and the tools work', async () => {
      const auth = new AssistantAuth();
      const client = await connectWithOAuth(auth, 'consent-registered-client');
      expect(auth.client?.client_id).toBeTruthy();
      const { tools } = await client.listTools();
      expect(tools.some((t) => t.name === 'cases__list_cases')).toBe(true);
      const result = await client.callTool({ name: 'cases__list_cases', arguments: {} });
      expect(result.isError).toBeFalsy();
      await client.close();
      // The grant is in the portal (connected assistants) and its audit log.
      await page.goto(`${gw.url}/portal/tokens`);
      expect(await page.textContent('main')).toContain('Browser test assistant');
      const audit = await store.audit.listAudit(tenant.account.id, 20);
      expect(audit.some((e) => e.action === 'oauth.grant' && e.detail.includes('client=Browser test assistant'))).toBe(
        true,
      );
    }, 60_000);

    it('a client ID metadata document as client_id (MCP 2025-11-25 and later)', async () => {
      const auth = new AssistantAuth(METADATA_DOCUMENT);
      // Signed in already in this browser: straight to the consent page.
      const client = await connectWithOAuth(auth, 'consent-metadata-document');
      expect(auth.client?.client_id).toBe(METADATA_DOCUMENT);
      const result = await client.callTool({ name: 'cases__list_cases', arguments: {} });
      expect(result.isError).toBeFalsy();
      await client.close();
    }, 60_000);
  },
);

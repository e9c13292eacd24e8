// Every portal page at a phone's width (375 px) and a laptop's (1,280 px), in a real browser (Debian's
// chromium, headless, playwright-core): no horizontal scrolling of the page (a wide table scrolls in
// its own box) and no axe-core violation of any impact. The pages of an administrator, of a member,
// and of nobody signed in, including the refusal and error pages (not found, an invalid or foreign
// link, a member refused a connect, the OAuth authorization server's error page). Screenshots go to
// test-artifacts/portal-pages/ (gitignored).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../runtime/auth/caller-tokens.ts';
import { signConsentRequest } from '../runtime/auth/mcp-authorization.ts';
import { signLink } from '../runtime/secrets/signed-links.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { connectTenant, createTenant, rpc, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { givePassword, TEST_PASSWORD } from './support/portal.ts';
import { skipWith } from './support/services.ts';

const chromiumPath = (() => {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
})();
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ARTIFACTS = join(new URL('..', import.meta.url).pathname, 'test-artifacts', 'portal-pages');
const WIDTHS = [375, 1280] as const;

type Doc = { document: { documentElement: { scrollWidth: number; clientWidth: number } } };

/** Every axe-core violation of the page, whatever its impact, as `id: target` lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(async () =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; nodes: { target: string[] }[] }[] };
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe(
  'every portal page at 375 and 1,280 px',
  skipWith(chromiumPath ? undefined : 'no chromium on PATH (Debian: apt-get install chromium)'),
  () => {
    let store: PlatformStore;
    let gw: StartedGateway;
    let admin: Tenant;
    let member: Tenant;
    let browser: Browser;

    const connectLink = async (tenant: Tenant, instance: string): Promise<string> => {
      const r = await rpc(gw.url, instance, tenant.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'connect_account', arguments: {} },
      });
      const text = (r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
      return new URL((JSON.parse(text) as { connect_url: string }).connect_url).pathname;
    };
    const teamLink = (userId: string): string => {
      const exp = Math.floor(Date.now() / 1000) + 600;
      const payload = { purpose: 'team' as const, accountId: admin.account.id, userId, connectorKey: 'cases', exp };
      return `/portal/team/${signLink(gw.app.context.vault, payload)}`;
    };

    /** A browser context, signed in through the sign-in form when a user is given. */
    const contextFor = async (user?: Tenant['user']): Promise<BrowserContext> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
      context.setDefaultTimeout(10_000);
      if (user) {
        const page = await context.newPage();
        await page.goto(`${gw.url}/portal/sign-in`);
        await page.getByLabel('Email address').fill(user.email);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${gw.url}/portal`);
        await page.close();
      }
      return context;
    };

    /** The page as it is now: no horizontal page scroll, no axe violation; a screenshot. */
    const inspect = async (page: Page, where: string, file: string): Promise<string[]> => {
      const problems: string[] = [];
      const size = await page.evaluate(() => {
        const root = (globalThis as unknown as Doc).document.documentElement;
        return { scroll: root.scrollWidth, client: root.clientWidth };
      });
      if (size.scroll > size.client) problems.push(`${where}: page scrolls sideways (${size.scroll} > ${size.client})`);
      for (const violation of await axeViolations(page)) problems.push(`${where}: ${violation}`);
      await page.screenshot({ path: join(ARTIFACTS, `${file}.png`), fullPage: true });
      return problems;
    };

    /** Opens each page at both widths: its status, then `inspect`. */
    const checkPages = async (
      context: BrowserContext,
      who: string,
      pages: ReadonlyArray<readonly [name: string, path: string, status: number]>,
    ): Promise<void> => {
      const page = await context.newPage();
      const problems: string[] = [];
      for (const [name, path, status] of pages) {
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 800 });
          const response = await page.goto(`${gw.url}${path}`);
          const where = `${who} ${name} at ${width}px`;
          if (response?.status() !== status) problems.push(`${where}: status ${response?.status()}, not ${status}`);
          problems.push(...(await inspect(page, where, `${who}-${name}-${width}`)));
        }
      }
      await page.close();
      expect(problems).toEqual([]);
    };
    const consentPath = (): string => {
      const request = {
        clientId: 'https://assistant.example/client.json',
        clientName: 'Browser assistant',
        redirectUri: 'https://assistant.example/callback',
        codeChallenge: 'x'.repeat(43),
        endpoints: ['cases'],
        exp: Math.floor(Date.now() / 1000) + 600,
      };
      return `/portal/authorize?request=${signConsentRequest(gw.app.context.vault, request)}`;
    };

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      store = await openStore({});
      gw = await startGateway(store, {
        env: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
        selfServicePurchase: true,
        selfServiceQuota: true,
      });
      admin = await createTenant(store, { subscribe: ['cases', 'erp'] });
      member = await createTenant(store, { accountId: admin.account.id, role: 'member', seats: ['cases'] });
      await givePassword(store, admin.user.id);
      await givePassword(store, member.user.id);
      await connectTenant(gw, admin, 'cases', { apiKey: 'browser-key-Pq55' });
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      await store?.close();
    });

    it("an administrator's pages, with their refusals", async () => {
      const context = await contextFor(admin.user);
      await checkPages(context, 'admin', [
        ['overview', '/portal', 200],
        ['connectors', '/portal/connectors', 200],
        ['team', '/portal/team', 200],
        ['connections', '/portal/connections', 200],
        ['connect-form', '/portal/connections/cases/connect', 200],
        ['connect-oauth', '/portal/connections/erp/connect', 200],
        ['tools', '/portal/connections/cases/tools', 200],
        ['usage', '/portal/usage', 200],
        ['calls', '/portal/calls', 200],
        ['tokens', '/portal/tokens', 200],
        ['terms', '/portal/terms', 200],
        ['data-layer', '/portal/data-layer', 200],
        ['audit', '/portal/audit', 200],
        ['not-found', '/portal/no-such-page', 404],
        ['unknown-instance', '/portal/connections/nope-9/connect', 404],
        ['connect-link-form', await connectLink(admin, 'cases-2'), 200],
        ['team-link-foreign', teamLink(member.user.id), 403],
        ['consent', consentPath(), 200],
      ]);
      await context.close();
    }, 180_000);

    it('the confirmation a revoke asks for, at both widths', async () => {
      await issueToken(store, admin.user.id, 'Laptop assistant');
      await gw.app.context.state.refresh();
      const context = await contextFor(admin.user);
      const page = await context.newPage();
      const problems: string[] = [];
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${gw.url}/portal/tokens`);
        await page.getByRole('button', { name: 'Revoke Laptop assistant' }).click();
        expect(await page.textContent('h1')).toBe('Revoke the token Laptop assistant?');
        problems.push(...(await inspect(page, `revoke confirmation at ${width}px`, `admin-revoke-confirm-${width}`)));
      }
      await page.getByRole('link', { name: 'Cancel, keep it' }).click();
      expect(await page.textContent('h1')).toBe('API tokens');
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);

    it("a member's pages, with their refusals", async () => {
      const context = await contextFor(member.user);
      await checkPages(context, 'member', [
        ['overview', '/portal', 200],
        ['connectors', '/portal/connectors', 200],
        ['team', '/portal/team', 200],
        ['connections', '/portal/connections', 200],
        ['usage', '/portal/usage', 200],
        ['calls', '/portal/calls', 200],
        ['tokens', '/portal/tokens', 200],
        ['connect-refused', '/portal/connections/cases/connect', 403],
        ['connect-link-refused', await connectLink(member, 'cases'), 403],
        ['admin-only', '/portal/audit', 403],
      ]);
      await context.close();
    }, 180_000);

    it('the pages of nobody signed in, and the error pages', async () => {
      const context = await contextFor();
      await checkPages(context, 'anonymous', [
        ['landing', '/', 200],
        ['sign-in', '/portal/sign-in', 200],
        ['forgot-password', '/portal/forgot-password', 200],
        ['set-password', `/portal/set-password/${'x'.repeat(40)}`, 200],
        ['link-invalid', '/portal/team/abc.def', 400],
        ['team-link-sign-in', teamLink(admin.user.id), 200],
        ['connect-link-sign-in', await connectLink(member, 'cases-2'), 200],
        ['authorize-invalid', '/portal/authorize', 400],
        ['oauth-callback-refused', '/portal/oauth/callback', 400],
        ['oauth-error', '/oauth/authorize?client_id=unknown-client&response_type=code', 400],
      ]);
      await context.close();
    }, 180_000);
  },
);

// The portal as a new administrator lives it, in a real browser (Debian's chromium, headless, driven
// by playwright-core), with the gateway running the whole time: sign in, buy a connector, invite a
// colleague and give them a seat, connect the upstream, create a token for the assistant, watch
// usage grow as the assistant calls tools, raise the quota, revoke the token and see the next call
// refused. Every page is checked at 1,280 and 375 px with axe-core (no violation of any impact) and
// for sideways scrolling, and kept as a screenshot under test-artifacts/portal/ (gitignored; a few
// are copied to docs/ for the README).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../bin/demo.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import {
  createTenant,
  mcpClient,
  resultText,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
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
const ARTIFACTS = join(new URL('..', import.meta.url).pathname, 'test-artifacts', 'portal');

/** Every accessibility violation of the page (axe-core), whatever its impact, as `id: target` lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(async () =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

type Doc = { document: { documentElement: { scrollWidth: number; clientWidth: number } } };

/**
 * Checks the page as it stands at 1,280 px and at 375 px (a phone): no axe violation and no
 * sideways scrolling of the page at either width; keeps a screenshot of each.
 */
async function check(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    const size = await page.evaluate(() => {
      const root = (globalThis as unknown as Doc).document.documentElement;
      return { scroll: root.scrollWidth, client: root.clientWidth };
    });
    expect(size.scroll, `${name} at ${width}px scrolls sideways: ${page.url()}`).toBeLessThanOrEqual(size.client);
    expect(await axeViolations(page), `${name} at ${width}px: ${page.url()}`).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, width === 375 ? `${name}-375.png` : `${name}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

describe(
  'the portal in a headless browser',
  skipWith(chromiumPath ? undefined : 'no chromium on PATH (Debian: apt-get install chromium)'),
  () => {
    let store: PlatformStore;
    let sandboxes: SandboxSet;
    let gw: StartedGateway;
    let admin: Tenant;
    let other: Tenant;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let assistant: Client | undefined;
    let assistantToken = '';
    let invitation = '';
    const colleagueEmail = `colleague-${Date.now()}@example.test`;

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      store = await openStore({});
      sandboxes = await startSandboxes({ connectors: ['cases'] });
      gw = await startGateway(store, {
        env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
        selfServicePurchase: true,
        selfServiceQuota: true,
        deliverPasswordLink: (_to, link) => {
          invitation = link;
        },
      });
      // A new company: an administrator with a password and nothing bought yet; another company beside it.
      admin = await createTenant(store, { subscribe: [] });
      other = await createTenant(store, { subscribe: ['cases'] });
      await givePassword(store, admin.user.id);
      await gw.app.context.state.refresh();
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
      context = await browser.newContext({ viewport: { width: 1100, height: 800 }, bypassCSP: true });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
    }, 90_000);
    afterAll(async () => {
      await assistant?.close();
      await browser?.close();
      await gw?.close();
      await sandboxes?.close();
      await store?.close();
    });

    it('signs the administrator in from the sign-in page the portal sends them to', async () => {
      await page.goto(`${gw.url}/portal`);
      expect(page.url()).toContain('/portal/sign-in');
      await check(page, '01-sign-in');
      await page.getByLabel('Email address').fill(admin.user.email);
      await page.getByLabel('Password').fill('Not-the-Password-4411');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.textContent('[role=alert]')).toContain('not right');
      await check(page, '02-sign-in-failed');
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${gw.url}/portal`);
      expect(await page.textContent('h1')).toBe('Overview');
      await check(page, '03-overview');
    }, 60_000);

    it('buys a connector (self-service) and sees it subscribed', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'Connectors', exact: true }).click();
      await check(page, '04-connectors');
      await page.getByRole('button', { name: 'Subscribe to Case management' }).click();
      await page.waitForURL(/done=subscribed/);
      expect(await page.textContent('[role=status]')).toContain('Subscribed.');
      expect(gw.app.context.state.isSubscribed(admin.account.id, 'cases')).toBe(true);
      await check(page, '05-connectors-subscribed');
    }, 60_000);

    it('invites a colleague and gives them a seat, with a count of seats in use and a confirmation', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'Team', exact: true }).click();
      await page.getByLabel('Name').fill('Colleague Carla');
      await page.getByLabel('Email address').fill(colleagueEmail);
      await page.getByRole('button', { name: 'Invite' }).click();
      await expect.poll(() => page.textContent('[role=status]')).toContain(`${colleagueEmail} is invited.`);
      expect(invitation).toMatch(/\/portal\/set-password\//);
      await check(page, '06-team-invited');
      await page.getByRole('navigation').getByRole('link', { name: 'Team', exact: true }).click();
      const seat = page.getByLabel('Seat for Colleague Carla on Case management');
      expect(await seat.isChecked()).toBe(false);
      await seat.check();
      await page.getByRole('button', { name: 'Save seats' }).click();
      await page.waitForURL(/done=seats_saved/);
      expect(await page.textContent('[role=status]')).toBe('Seats saved.');
      expect(await page.textContent('main')).toContain('Case management: 2 of 2 users hold a seat');
      expect(await page.getByLabel('Seat for Colleague Carla on Case management').isChecked()).toBe(true);
      await check(page, '07-team-seats-saved');
    }, 60_000);

    it('connects the upstream from the connections page', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'Connections', exact: true }).click();
      expect(await page.textContent('main')).toContain('never connected');
      await check(page, '08-connections-never');
      await page.getByRole('link', { name: 'Connect cases', exact: true }).click();
      await check(page, '09-connect-form');
      const credential = sandboxes.started.get('cases')!.running.tenantCredential as { apiKey: string };
      await page.getByLabel('API key').fill(credential.apiKey);
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.waitForURL(/done=connected/);
      expect(await page.textContent('[role=status]')).toContain('Connected.');
      expect(await page.textContent('main')).toContain('connected');
      await check(page, '10-connections-connected');
      // The instance's tool settings: every toolset on, nothing changed yet; usable on a phone too.
      await page.getByRole('link', { name: 'Tools of cases', exact: true }).click();
      expect(await page.getByRole('checkbox', { checked: true }).count()).toBeGreaterThan(1);
      await check(page, '10a-tools');
      await page.setViewportSize({ width: 375, height: 800 });
      const pageWidth = () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
          .scrollWidth;
      expect(await page.evaluate(pageWidth)).toBeLessThanOrEqual(375);
      await check(page, '10b-tools-375');
      await page.setViewportSize({ width: 1100, height: 800 });
      await page.goto(`${gw.url}/portal/connections`);
    }, 60_000);

    it('creates a token for the assistant (shown once) and sees usage grow as the assistant calls tools', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'API tokens', exact: true }).click();
      await page.getByLabel('Label (where the token is used)').fill('assistant');
      await page.getByRole('button', { name: 'Create token' }).click();
      assistantToken = ((await page.textContent('.secret')) ?? '').trim();
      expect(assistantToken).toMatch(/^cgw_/);
      await check(page, '11-token-created');
      assistant = await mcpClient(gw.url, 'cases', assistantToken);
      for (let i = 0; i < 3; i++) {
        const result = await assistant.callTool({ name: 'cases__find_cases', arguments: { text: 'solcelleanlæg' } });
        expect(result.isError ?? false, resultText(result)).toBe(false);
      }
      await assistant.callTool({ name: 'cases__list_cases', arguments: {} });
      await page.getByRole('navigation').getByRole('link', { name: 'Usage', exact: true }).click();
      const main = (await page.textContent('main')) ?? '';
      expect(main).toContain('4 of 100000 cost units used');
      expect(await page.locator('svg[role=img] title').textContent()).toContain('Calls by connector');
      expect(await page.locator('table').textContent()).toContain('find_cases');
      await check(page, '12-usage');
      // One more call: the page shows it at the next load.
      await assistant.callTool({ name: 'cases__list_cases', arguments: {} });
      await page.reload();
      expect(await page.textContent('main')).toContain('5 of 100000 cost units used');
    }, 60_000);

    it('raises the fair-use quota where the operator allows it', async () => {
      await page.getByLabel('Monthly quota in cost units').fill('250000');
      await page.getByRole('button', { name: 'Save quota' }).click();
      await page.waitForURL(/done=quota_saved/);
      expect(await page.textContent('main')).toContain('of 250000 cost units used');
      await check(page, '13-usage-quota-saved');
    }, 60_000);

    it('revokes the token and the next call with it is refused', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'API tokens', exact: true }).click();
      await check(page, '14-tokens');
      await page.getByRole('button', { name: 'Revoke assistant' }).click();
      // A confirmation first: the same button again, or a way back.
      expect(await page.textContent('h1')).toBe('Revoke the token assistant?');
      await check(page, '14a-token-revoke-confirm');
      await page.getByRole('button', { name: 'Revoke assistant' }).click();
      await page.waitForURL(/done=token_revoked/);
      expect(await page.textContent('[role=status]')).toContain('Token revoked');
      await check(page, '15-token-revoked');
      const refused = await rpc(gw.url, 'cases', assistantToken, {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'cases__list_cases', arguments: {} },
      });
      expect(refused.status).toBe(401);
    }, 60_000);

    it('shows the terms, the data-layer opt-in and the audit log of every change', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'Terms', exact: true }).click();
      await check(page, '16-terms');
      await page.getByRole('navigation').getByRole('link', { name: 'Data layer', exact: true }).click();
      await check(page, '17-data-layer');
      await page.getByRole('navigation').getByRole('link', { name: 'Audit log', exact: true }).click();
      const audit = (await page.textContent('table')) ?? '';
      for (const action of [
        'session.sign_in',
        'subscription.set',
        'user.invite',
        'seats.set',
        'connection.set',
        'token.create',
        'fair_use.quota',
        'token.revoke',
      ])
        expect(audit).toContain(action);
      expect(audit).not.toContain(assistantToken);
      await check(page, '18-audit');
    }, 60_000);

    it('refuses a form whose CSRF token was removed', async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'API tokens', exact: true }).click();
      const before = (await store.tokens.listTokens(admin.user.id)).length;
      await page.evaluate(() => {
        const { document } = globalThis as unknown as {
          document: { querySelectorAll(selector: string): Iterable<{ remove(): void }> };
        };
        for (const input of document.querySelectorAll('input[name=csrf]')) input.remove();
      });
      await page.getByRole('button', { name: 'Create token' }).click();
      expect(await page.textContent('h1')).toBe('This form cannot be accepted');
      await check(page, '19-csrf-refused');
      expect((await store.tokens.listTokens(admin.user.id)).length).toBe(before);
    }, 60_000);

    it('lets the colleague set a password from the invitation and see only what a member may', async () => {
      const colleague = await browser.newContext({ viewport: { width: 1100, height: 800 }, bypassCSP: true });
      const p = await colleague.newPage();
      await p.goto(invitation);
      await check(p, '20-set-password');
      await p.getByLabel('New password', { exact: true }).fill('Carla-pw-3391-long');
      await p.getByLabel('Repeat the new password').fill('Carla-pw-3391-long');
      await p.getByRole('button', { name: 'Set password and sign in' }).click();
      await p.waitForURL(`${gw.url}/portal`);
      expect(await p.textContent('main')).toContain('your role: member');
      expect(await p.getByRole('navigation').getByRole('link', { name: 'Audit log', exact: true }).count()).toBe(0);
      await check(p, '21-member-overview');
      await p.getByRole('navigation').getByRole('link', { name: 'Team', exact: true }).click();
      expect(await p.getByRole('button', { name: 'Save seats' }).count()).toBe(0);
      await check(p, '22-member-team');
      const forbidden = await p.goto(`${gw.url}/portal/audit`);
      expect(forbidden?.status()).toBe(403);
      await check(p, '23-member-forbidden');
      for (const path of ['/portal', '/portal/team', '/portal/tokens', '/portal/usage', '/portal/connections']) {
        await p.goto(`${gw.url}${path}`);
        const html = await p.content();
        expect(html).not.toContain(other.user.email);
        expect(html).not.toContain(other.account.name);
      }
      await colleague.close();
    }, 60_000);

    it('shows a connect link to someone else as a sign-in prompt, and to its user as the form', async () => {
      const member = await createTenant(store, { subscribe: ['cases'] });
      await givePassword(store, member.user.id);
      await gw.app.context.state.refresh();
      const r = await rpc(gw.url, 'cases-2', member.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'connect_account', arguments: {} },
      });
      const link = (
        JSON.parse((r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text) as {
          connect_url: string;
        }
      ).connect_url;
      // The administrator of another company, signed in, cannot use it.
      const response = await page.goto(link);
      expect(response?.status()).toBe(403);
      expect(await page.locator('[role=alert]').textContent()).toContain('made for another user');
      expect(await page.content()).not.toContain(member.user.email);
      await check(page, '24-connect-link-other-user');
      const fresh = await browser.newContext({ viewport: { width: 1100, height: 800 }, bypassCSP: true });
      const p = await fresh.newPage();
      await p.goto(link);
      await check(p, '25-connect-link-sign-in');
      await p.getByRole('link', { name: 'Sign in to continue' }).click();
      await p.getByLabel('Email address').fill(member.user.email);
      await p.getByLabel('Password').fill(TEST_PASSWORD);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.waitForURL(/\/portal\/connect\//);
      await check(p, '26-connect-link-form');
      const credential = sandboxes.started.get('cases')!.running.tenantCredential as { apiKey: string };
      await p.getByLabel('API key').fill(credential.apiKey);
      await p.getByRole('button', { name: 'Connect' }).click();
      expect(await p.textContent('h1')).toBe('Case management is connected');
      await check(p, '27-connect-link-done');
      await fresh.close();
    }, 60_000);

    it('signs out', async () => {
      await page.goto(`${gw.url}/portal`);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(/done=signed_out/);
      await check(page, '28-signed-out');
      await page.goto(`${gw.url}/portal/usage`);
      expect(page.url()).toContain('/portal/sign-in');
    }, 60_000);
  },
);

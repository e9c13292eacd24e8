// The Calls, Usage and Connections pages in a real browser (Debian's chromium, headless, driven by
// playwright-core) at 375 px and 1,280 px: no horizontal page scroll (tables and snippets scroll in
// their own box), and axe-core finds no violation at all, with the client setup opened.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../bin/demo.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
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

/** Every axe-core violation of the page, whatever its impact, as `id: target` lines. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(async () =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; nodes: { target: string[] }[] }[] };
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const pageWidth = () =>
  (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
    .scrollWidth;

describe(
  'the Calls, Usage and Connections pages at 375 px and 1,280 px',
  skipWith(chromiumPath ? undefined : 'no chromium on PATH (Debian: apt-get install chromium)'),
  () => {
    let store: PlatformStore;
    let sandboxes: SandboxSet;
    let gw: StartedGateway;
    let admin: Tenant;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      store = await openStore({});
      sandboxes = await startSandboxes({ connectors: ['cases'] });
      gw = await startGateway(store, {
        env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
      });
      admin = await createTenant(store, { subscribe: ['cases'] });
      await givePassword(store, admin.user.id);
      const credential = sandboxes.started.get('cases')!.running.tenantCredential as Record<string, unknown>;
      await connectTenant(gw, admin, 'cases', credential);
      const assistant = await mcpClient(gw.url, 'cases', admin.token);
      await assistant.callTool({ name: 'cases__find_cases', arguments: { text: 'solcelleanlæg' } });
      await assistant.callTool({ name: 'cases__no_such_tool_with_a_rather_long_name', arguments: {} });
      await assistant.close();
      await gw.app.context.callLog.flush();
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
      await page.goto(`${gw.url}/portal/sign-in`);
      await page.getByLabel('Email address').fill(admin.user.email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${gw.url}/portal`);
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await gw?.close();
      await sandboxes?.close();
      await store?.close();
    });

    for (const width of [375, 1280]) {
      it(`the Calls page at ${width} px: filters, the log, no page scroll, no axe violation`, async () => {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${gw.url}/portal/calls`);
        expect(await page.locator('tbody tr').count()).toBe(2);
        await page.getByLabel('Outcome').selectOption('refused');
        await page.getByRole('button', { name: 'Show calls' }).click();
        await page.waitForURL(/outcome=refused/);
        expect(await page.locator('tbody tr').count()).toBe(1);
        expect(await page.locator('tbody').textContent()).toContain('unknown_tool');
        expect(await page.evaluate(pageWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
      }, 60_000);

      it(`the Usage page at ${width} px: by day, instance and user, no page scroll, no axe violation`, async () => {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${gw.url}/portal/usage`);
        expect(await page.getByRole('region', { name: /Calls by endpoint instance/ }).textContent()).toContain('cases');
        expect(await page.evaluate(pageWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
      }, 60_000);

      it(`the Connections page at ${width} px , client setup open: no page scroll, no axe violation`, async () => {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${gw.url}/portal/connections`);
        await page.getByText('Client setup for cases', { exact: true }).click();
        expect(await page.locator('details[open] pre').first().textContent()).toContain('"mcpServers"');
        expect(await page.evaluate(pageWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
      }, 60_000);
    }
  },
);

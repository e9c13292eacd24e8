// The OAuth connect flow as a user lives it, in a real headless browser (Debian's chromium driven by
// playwright-core): an assistant's not-connected answer carries a link; the link opens the ERP's
// sandbox identity provider (Entra style), the user signs in and consents, the gateway's callback
// stores the grant, and the next tool call is served with ERP data. The pages are checked with axe.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../bin/demo.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { ERP_DEMO_COMPANY_NAME } from '../sandbox/erp/data.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import {
  createTenant,
  mcpClient,
  resultText,
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

/** Serious or critical accessibility violations of the page (axe-core). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(async () =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; impact: string }[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

describe(
  'ERP OAuth connect flow in a headless browser',
  skipWith(chromiumPath ? undefined : 'no chromium on PATH (Debian: apt-get install chromium)'),
  () => {
    let store: PlatformStore;
    let sandboxes: SandboxSet;
    let gw: StartedGateway;
    let tenant: Tenant;
    let client: Client;
    let browser: Browser;
    /** The provider's redirect back to the gateway in the first flow (code and state). */
    let callbackUrl: string | undefined;

    beforeAll(async () => {
      store = await openStore({});
      sandboxes = await startSandboxes({ connectors: ['erp'] });
      gw = await startGateway(store, {
        env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' },
      });
      sandboxes.started.get('erp')!.running.oauth!.register(`${gw.url}/portal/oauth/callback`);
      tenant = await createTenant(store, { subscribe: ['erp'] });
      await givePassword(store, tenant.user.id);
      client = await mcpClient(gw.url, 'erp', tenant.token);
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await client?.close();
      await gw?.close();
      await sandboxes?.close();
      await store?.close();
    });

    it('goes from the not-connected link through sign-in and consent to a served call', async () => {
      const refused = await client.callTool({ name: 'erp__list_companies', arguments: {} });
      const link = /https?:\/\/\S+\/portal\/connect\/\S+/.exec(resultText(refused))?.[0];
      expect(link, resultText(refused)).toBeDefined();

      const page = await browser.newPage({ bypassCSP: true });
      await page.goto(link!);
      // The link is bound to the user who asked for it: sign in to the portal first, back to the link.
      await page.getByRole('link', { name: 'Sign in to continue' }).click();
      await page.getByLabel('Email address').fill(tenant.user.email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/portal\/connect\//);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: /^Sign in to / }).click();
      // The identity provider's sign-in and consent page.
      await page.getByLabel('Account').fill('someone@contoso.onmicrosoft.com');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Accept' }).click();
      await page.waitForURL(/\/portal\/oauth\/callback/);
      callbackUrl = page.url();
      expect(await page.textContent('h1')).toContain('is connected');
      expect(await axeViolations(page)).toEqual([]);
      await page.close();

      const served = await client.callTool({ name: 'erp__list_companies', arguments: {} });
      expect(served.isError ?? false).toBe(false);
      expect(resultText(served)).toContain(ERP_DEMO_COMPANY_NAME);
    }, 60_000);

    it('refuses the consent answer replayed (its state was spent), storing nothing new', async () => {
      expect(callbackUrl).toBeDefined();
      const before = await store.connections.getConnection(tenant.account.id, 'erp');
      const page = await browser.newPage({ bypassCSP: true });
      const replay = await page.goto(callbackUrl!);
      expect(replay?.status()).toBeGreaterThanOrEqual(400);
      expect(await page.textContent('h1')).toBe('This sign-in cannot be used');
      expect(await axeViolations(page)).toEqual([]);
      await page.close();
      expect((await store.connections.getConnection(tenant.account.id, 'erp'))?.ciphertext).toBe(before?.ciphertext);
    }, 60_000);
  },
);

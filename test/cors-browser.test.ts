// A browser-based MCP client in a real browser (docs/decisions/mcp-surface.md, 'CORS for browser-based MCP clients on
// allowed origins'): Debian's chromium, headless,
// driven by playwright-core, loads a small page from a second local HTTP server — another origin,
// listed in ALLOWED_ORIGINS — whose script speaks MCP to the gateway with fetch and a bearer token:
// initialize, the initialized notification, tools/list and a tools/call served by the case
// sandbox. It reads the 401's WWW-Authenticate and the GET stream's 405 too (exposed, not network
// errors). The same page on an origin not allowed is blocked by the browser at the preflight: no
// request reaches the upstream and nothing is metered.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolText } from '../runtime/protocol-text.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { type CasesSandbox, startCasesSandbox } from '../sandbox/cases/server.ts';
import {
  connectTenant,
  createTenant,
  startGateway,
  type StartedGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';
import { skipWith } from './support/services.ts';

const chromiumPath = (() => {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
})();

/** What the page's script found, step by step, or the error that stopped it. */
interface PageOutcome {
  readonly steps?: Record<string, { status: number; body: unknown; wwwAuthenticate?: string | null }>;
  readonly error?: string;
}

/**
 * The page: its script speaks MCP to `endpoint` with fetch (as a browser MCP client does) and
 * leaves what it saw in `window.outcome`. Nothing but the endpoint and the token is given to it.
 */
function clientPage(endpoint: string, token: string): string {
  const script = `
const endpoint = ${JSON.stringify(endpoint)};
const token = ${JSON.stringify(token)};
async function post(body, extra) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer ' + token,
      ...extra,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
async function run() {
  const steps = {};
  const clientInfo = { name: 'browser-page', version: '1.0.0' };
  const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo };
  steps.initialize = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
  const version = { 'mcp-protocol-version': steps.initialize.body.result.protocolVersion };
  steps.initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, version);
  steps.list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, version);
  const call = { name: 'cases__describe_type', arguments: { name: 'Hour' } };
  steps.call = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: call }, version);
  const stream = await fetch(endpoint, {
    headers: { accept: 'text/event-stream', authorization: 'Bearer ' + token, ...version },
  });
  steps.stream = { status: stream.status, body: null };
  const anonymous = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
  });
  const wwwAuthenticate = anonymous.headers.get('www-authenticate');
  steps.anonymous = { status: anonymous.status, body: await anonymous.json(), wwwAuthenticate };
  return steps;
}
run().then((steps) => { window.outcome = { steps }; }, (error) => { window.outcome = { error: String(error) }; });
`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Browser MCP ' +
    `client</title></head><body><h1>Browser MCP client</h1><script>${script}</script></body></html>`
  );
}

/** A local HTTP server for the page (its origin is http://127.0.0.1:<port>); the page is set once the gateway is up. */
async function pageServer(): Promise<{ server: Server; origin: string; setPage(html: string): void }> {
  let html = '';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setPage: (page) => (html = page),
  };
}

describe(
  'a browser-based MCP client on an allowed origin',
  skipWith(chromiumPath ? undefined : 'no chromium on PATH (Debian: apt-get install chromium)'),
  () => {
    let store: PlatformStore;
    let sandbox: CasesSandbox;
    let gw: StartedGateway;
    let tenant: Tenant;
    let allowedSite: Awaited<ReturnType<typeof pageServer>>;
    let foreignSite: Awaited<ReturnType<typeof pageServer>>;
    let userDataDir: string;
    let browser: BrowserContext;

    beforeAll(async () => {
      allowedSite = await pageServer();
      foreignSite = await pageServer();
      store = await openStore({});
      sandbox = await startCasesSandbox({ rateLimitPerMinute: 100_000 });
      gw = await startGateway(store, {
        env: {
          CONNECTOR_CASES_BASE_URL: sandbox.url,
          ALLOWED_ORIGINS: allowedSite.origin,
          RATE_LIMIT_BURST: '1000',
          RATE_LIMIT_PER_SECOND: '1000',
        },
      });
      tenant = await createTenant(store, { subscribe: ['cases'] });
      await connectTenant(gw, tenant, 'cases', { apiKey: sandbox.tokens.demo });
      for (const site of [allowedSite, foreignSite]) site.setPage(clientPage(`${gw.url}/cases/mcp`, tenant.token));
      userDataDir = mkdtempSync(join(tmpdir(), 'cg-cors-chromium-'));
      browser = await chromium.launchPersistentContext(userDataDir, {
        executablePath: chromiumPath,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      browser.setDefaultTimeout(15_000);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
      await gw?.close();
      await sandbox?.close();
      await store?.close();
      for (const site of [allowedSite, foreignSite]) await new Promise((resolve) => site?.server.close(resolve));
    });

    /** Opens the page of `origin` and waits for its script's outcome; gives the console's errors too. */
    async function runPage(origin: string): Promise<{ outcome: PageOutcome; console: string[] }> {
      const page = await browser.newPage();
      const console: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') console.push(message.text());
      });
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => (globalThis as { outcome?: unknown }).outcome !== undefined);
      const outcome = (await page.evaluate(() => (globalThis as { outcome?: unknown }).outcome)) as PageOutcome;
      await page.close();
      return { outcome, console };
    }

    it('initializes, lists the tools and calls one from a page on the allowed origin', async () => {
      const before = sandbox.stats.requests;
      const { outcome } = await runPage(allowedSite.origin);
      expect(outcome.error).toBeUndefined();
      // Every answer was readable: without its Access-Control-Allow-Origin the browser would have
      // failed the fetch (a TypeError, as on the foreign origin below).
      const steps = outcome.steps!;
      expect(Object.keys(steps)).toEqual(['initialize', 'initialized', 'list', 'call', 'stream', 'anonymous']);
      expect(steps.initialize).toMatchObject({
        status: 200,
        body: { id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'connector-gateway/cases' } } },
      });
      expect(steps.initialized!.status).toBe(202);
      expect(steps.list!.status).toBe(200);
      expect((steps.list!.body as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toContain(
        'cases__describe_type',
      );
      expect(steps.call!.status).toBe(200);
      const result = (steps.call!.body as { result: { isError?: boolean; content: { text: string }[] } }).result;
      expect(result.isError).toBeFalsy();
      const described = JSON.parse(result.content[0]!.text) as {
        found: boolean;
        fields: { items: { name: string }[] };
      };
      expect(described.found).toBe(true);
      expect(described.fields.items.map((f) => f.name)).toContain('billableHours');
      // What a client reads from the refusals: the stream's 405, the 401 and its challenge.
      expect(steps.stream!.status).toBe(405);
      expect(steps.anonymous).toMatchObject({
        status: 401,
        body: { error: { message: protocolText('unauthorized') } },
      });
      expect(steps.anonymous!.wwwAuthenticate).toBe(
        `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/cases/mcp"`,
      );
      expect(sandbox.stats.requests).toBeGreaterThan(before);
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(1);
    });

    it('is blocked by the browser on an origin not allowed: nothing reaches the upstream or the meter', async () => {
      const requests = sandbox.stats.requests;
      const calls = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
      const { outcome, console } = await runPage(foreignSite.origin);
      expect(outcome.steps).toBeUndefined();
      expect(outcome.error).toBe('TypeError: Failed to fetch');
      // Chromium says why: the preflight was refused (403, no Access-Control-Allow-Origin).
      expect(console.join('\n')).toMatch(
        /blocked by CORS policy: Response to preflight request doesn't pass access control check/,
      );
      expect(sandbox.stats.requests).toBe(requests);
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(calls);
    });
  },
);

// Long calls (issue 35 items 1 and 2): a tools/call with `_meta.progressToken` from a client that
// accepts an event stream gets `notifications/progress` and then its result on that stream; without
// a token the answer stays one JSON body; `notifications/cancelled` naming a call in flight aborts
// it, and its upstream requests stop within one page.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallProgress } from '../runtime/pipeline/progress.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { type LedgerSandbox, startLedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  connectTenant,
  createTenant,
  resultJson,
  type StartedGateway,
  startGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';

const AGGREGATE = {
  entity: 'GLTransClient',
  groupBy: ['Account'],
  sum: ['Amount'],
  fromDate: '2025-01-01',
  toDate: '2025-12-31',
};

describe('progress and cancellation of a long tools/call', () => {
  let store: PlatformStore;
  let sandbox: LedgerSandbox;
  let gw: StartedGateway;
  let tenant: Tenant;
  const clients: Client[] = [];

  const post = (body: unknown, accept = 'application/json, text/event-stream') =>
    fetch(`${gw.url}/ledger/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.token}`,
        'content-type': 'application/json',
        accept,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startLedgerSandbox({});
    gw = await startGateway(store, {
      env: { CONNECTOR_LEDGER_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' },
    });
    tenant = await createTenant(store, { subscribe: ['ledger'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('sends progress to the official 1.x client for an aggregate of the postings, then the result', async () => {
    // Slow enough pages that more than one notification passes the 100 ms interval.
    sandbox.setSwitches({ latencyMs: 120 });
    try {
      const client = new Client({ name: 'progress-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/ledger/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${tenant.token}` } },
        }),
      );
      clients.push(client);
      const seen: { progress: number; total?: number; message?: string }[] = [];
      const result = await client.callTool({ name: 'ledger__aggregate', arguments: AGGREGATE }, undefined, {
        onprogress: (p) => seen.push(p),
        timeout: 60_000,
      });
      expect(result.isError).toBeFalsy();
      expect(resultJson(result).groups.length).toBeGreaterThan(0);
      expect(seen.length).toBeGreaterThan(1);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
      // The login counts as the first step; then the handler's own reports, per page read.
      expect(seen.some((p) => /^\d+ rows read$/.test(p.message ?? ''))).toBe(true);
    } finally {
      sandbox.setSwitches({ latencyMs: 0 });
    }
  }, 90_000);

  it.each([
    ['pinned to 2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
    ['in auto mode', {}],
  ])(
    'sends progress to the official 2.x client %s, then the result',
    async (_mode, options) => {
      sandbox.setSwitches({ latencyMs: 120 });
      try {
        const client = new ModernClient({ name: 'progress-2x', version: '2.0.0' }, options as never);
        await client.connect(
          new ModernTransport(new URL(`${gw.url}/ledger/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${tenant.token}` } },
          }),
        );
        const seen: number[] = [];
        try {
          const result = await client.callTool({ name: 'ledger__aggregate', arguments: AGGREGATE }, {
            onprogress: (p: { progress: number }) => seen.push(p.progress),
            timeout: 60_000,
          } as never);
          expect(result.isError).toBeFalsy();
          expect(seen.length).toBeGreaterThan(1);
        } finally {
          await client.close();
        }
      } finally {
        sandbox.setSwitches({ latencyMs: 0 });
      }
    },
    90_000,
  );

  it('answers one JSON body without a progress token, and for a call that ends before any progress', async () => {
    const plain = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ledger__aggregate', arguments: AGGREGATE },
    });
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(((await plain.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    // A token, but a client that takes JSON only: JSON.
    const jsonOnly = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ledger__list_product_groups', arguments: {}, _meta: { progressToken: 'p' } },
      },
      'application/json',
    );
    expect(jsonOnly.headers.get('content-type')).toContain('application/json');
  });

  it('aborts a call named by notifications/cancelled: its upstream requests stop within one page', async () => {
    sandbox.setSwitches({ latencyMs: 150 });
    try {
      const usageBefore = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
      const before = sandbox.stats.queryLog.length;
      const answer = post({
        jsonrpc: '2.0',
        id: 'long-1',
        method: 'tools/call',
        params: { name: 'ledger__aggregate', arguments: AGGREGATE },
      });
      for (let i = 0; i < 400 && sandbox.stats.queryLog.length === before; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(sandbox.stats.queryLog.length).toBeGreaterThan(before);
      const cancelled = await post({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'long-1', reason: 'the person stopped it' },
      });
      expect(cancelled.status).toBe(202);
      const atCancel = sandbox.stats.queryLog.length;
      const reply = (await (await answer).json()) as { result: { isError?: boolean } };
      expect(reply.result.isError).toBe(true);
      await new Promise((r) => setTimeout(r, 500));
      // The page in flight at the cancel may still arrive; nothing after it.
      expect(sandbox.stats.queryLog.length - atCancel).toBeLessThanOrEqual(1);
      // A cancelled call that reached the upstream is metered once, like any failure after an upstream request.
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls - usageBefore).toBe(1);
    } finally {
      sandbox.setSwitches({ latencyMs: 0 });
    }
  }, 60_000);

  it('bounds the notifications: at most one per interval, only growing, with total where known', () => {
    const sent: string[] = [];
    let now = 0;
    const progress = new CallProgress(
      't',
      (n) => sent.push(n),
      100,
      () => now,
    );
    progress.upstreamAnswered(1);
    progress.upstreamAnswered(2); // within the interval: dropped
    now = 150;
    progress.report(2, 5, 'page 2');
    now = 300;
    progress.upstreamAnswered(9); // the handler reports itself now: upstream answers no longer count
    progress.report(2, 5); // not growing: dropped
    now = 450;
    progress.report(3, 2); // a total below the progress is left out
    expect(sent.map((s) => JSON.parse(s).params)).toEqual([
      { progressToken: 't', progress: 1, message: 'upstream request 1 answered' },
      { progressToken: 't', progress: 2, total: 5, message: 'page 2' },
      { progressToken: 't', progress: 3 },
    ]);
  });
});

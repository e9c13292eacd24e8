// The ledger connector end to end: an MCP client → the gateway → the Uniconta sandbox over HTTP.
// The questions an accountant asks: units sold per product group in a quarter, and postings by
// account for a year; the aggregate limits; reconnect-required; no write endpoint ever called.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  ledgerCompanyData,
  LEDGER_DEMO_COMPANY_ID,
  LEDGER_DEMO_INTERACTIVE_PASSWORD,
  LEDGER_DEMO_INTERACTIVE_USER,
  LEDGER_DEMO_PASSWORD,
  LEDGER_DEMO_USER,
  LEDGER_NON_NUMERIC_ACCOUNT,
} from '../sandbox/ledger/data.ts';
import { LEDGER_UNKNOWN_PROPERTY_MODES, startLedgerSandbox, type LedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  createTenant,
  mcpClient,
  startGateway,
  type StartedGateway,
  type Tenant,
  resultJson,
  resultText,
  connectTenant,
} from './support/gateway.ts';

const json = resultJson;
const text = resultText;

// The whole suite runs against an upstream that ignores unknown properties and one that rejects
// them with 400 (the sandbox's `unknownProperties` option): the connector must need neither.
describe.each(LEDGER_UNKNOWN_PROPERTY_MODES)(
  'ledger end to end against its sandbox (unknown properties: %s)',
  (mode) => {
    let store: PlatformStore;
    let sandbox: LedgerSandbox;
    let gw: StartedGateway;
    let tenant: Tenant;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name: `ledger__${name}`, arguments: args });
    const connect = (t: Tenant, credential: Record<string, string>) => connectTenant(gw, t, 'ledger', credential);

    beforeAll(async () => {
      store = await openStore({});
      sandbox = await startLedgerSandbox({ unknownProperties: mode });
      gw = await startGateway(store, {
        env: { CONNECTOR_LEDGER_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_SECOND: '10000' },
      });
      tenant = await createTenant(store, { subscribe: ['ledger'] });
      await connect(tenant, {
        username: LEDGER_DEMO_USER,
        password: LEDGER_DEMO_PASSWORD,
        companyId: String(LEDGER_DEMO_COMPANY_ID),
      });
      client = await mcpClient(gw.url, 'ledger', tenant.token);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await gw?.close();
      await sandbox?.close();
      await store?.close();
    });

    it('answers "units sold per product group in a quarter" with the documented recipe', async () => {
      const groups = json(await call('list_product_groups'));
      expect(groups.items.map((g: { Group: string }) => g.Group)).toContain('EBIKES');
      const items = json(
        await call('list_inventory_items', { group: 'EBIKES', limit: 1000, fields: ['Item', 'Name', 'Group'] }),
      );
      expect(items.count).toBeGreaterThan(0);
      const itemList = items.items.map((i: { Item: string }) => i.Item).join(';');
      const tx = json(
        await call('list_inventory_transactions', {
          item: itemList,
          fromDate: '2026-04-01',
          toDate: '2026-06-30',
          limit: 1000,
        }),
      );
      const sold = tx.items
        .filter((t: { Qty: number }) => t.Qty < 0)
        .reduce((s: number, t: { Qty: number }) => s - t.Qty, 0);
      expect(sold).toBe(53);
      for (const t of tx.items) expect(t.Date >= '2026-04-01' && t.Date < '2026-07-01').toBe(true);
    });

    it('aggregates a year of postings by account, and truncates two years past 50 pages', async () => {
      const year = json(
        await call('aggregate', {
          entity: 'GLTransClient',
          groupBy: ['Account'],
          sum: ['Amount'],
          fromDate: '2025-01-01',
          toDate: '2025-12-31',
        }),
      );
      expect(year.truncated).toBe(false);
      expect(year.rowsScanned).toBeGreaterThan(20_000);
      expect(year.pages).toBe(Math.ceil(year.rowsScanned / 1000));
      const total = year.groups.reduce((s: number, g: { sums: { Amount: number } }) => s + g.sums.Amount, 0);
      expect(Math.abs(total)).toBeLessThan(1); // every voucher balances
      expect(year.nonNumeric).toEqual({ Amount: expect.any(Number) });
      const all = json(await call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] }));
      expect(all).toMatchObject({ truncated: true, pages: 50, rowsScanned: 50_000 });
    }, 60_000);

    it('pages aggregate in a unique order: rows whose sort keys tie are neither repeated nor skipped', async () => {
      sandbox.setSwitches({ unstableTieOrder: true });
      try {
        const rows = (
          ledgerCompanyData(LEDGER_DEMO_COMPANY_ID)!.entities.GLTransClient as ReadonlyArray<Record<string, unknown>>
        ).filter((r) => String(r['Date']).startsWith('2025-0'));
        // Voucher numbers and line numbers summed: a repeated or skipped posting changes the sums.
        const expected = {
          Voucher: rows.reduce((s, r) => s + (r['Voucher'] as number), 0),
          VoucherLine: rows.reduce((s, r) => s + (r['VoucherLine'] as number), 0),
        };
        expect(rows.length).toBeGreaterThan(5000);
        // Before: sorted on Date alone, the pages repeated some postings and skipped others.
        const result = json(
          await call('aggregate', {
            entity: 'GLTransClient',
            sum: ['Voucher', 'VoucherLine'],
            fromDate: '2025-01-01',
            toDate: '2025-09-30',
          }),
        );
        expect(result.rowsScanned).toBe(rows.length);
        expect(result.groups[0]).toEqual({ key: {}, count: rows.length, sums: expected });
        expect(result).not.toHaveProperty('unstableOrder');
      } finally {
        sandbox.setSwitches({ unstableTieOrder: false });
      }
    }, 60_000);

    it('needs no undocumented property: 50,000+ postings aggregated and items by sales price, no RowId', async () => {
      sandbox.resetStats();
      // Before: every sorted or paged read added RowId; an upstream rejecting unknown properties
      // answered 400 ("Uniconta rejected the query … HTTP 400" / "Tool invocation failed.").
      const byAccount = await call('aggregate', { entity: 'GLTransClient', groupBy: ['Account'], sum: ['Amount'] });
      expect(byAccount.isError, text(byAccount)).toBeFalsy();
      const result = json(byAccount);
      expect(result).toMatchObject({
        entity: 'GLTransClient',
        rowsScanned: 50_000,
        pages: 50,
        truncated: true,
        nonNumeric: { Amount: expect.any(Number) },
      });
      expect(result.groupCount).toBeGreaterThan(50);
      expect(result).not.toHaveProperty('unstableOrder');
      const bySalesPrice = await call('list_inventory_items', { sortBy: 'sales_price' });
      expect(bySalesPrice.isError, text(bySalesPrice)).toBeFalsy();
      const items = json(bySalesPrice);
      expect(items).toMatchObject({ entity: 'InvItemClient', count: 50, truncated: true });
      const prices = items.items.map((i: { SalesPrice1: number }) => i.SalesPrice1);
      expect(prices).toEqual([...prices].sort((a: number, b: number) => b - a));
      const log = sandbox.stats.queryLog;
      expect(log.filter((q) => q.entity === 'GLTransClient')).toHaveLength(51); // 50 pages and the probe
      expect(log.filter((q) => q.entity === 'InvItemClient')).toHaveLength(1);
      for (const q of log) expect(JSON.stringify(q.body)).not.toMatch(/rowid/i);
      expect(sandbox.switches.unknownProperties).toBe(mode);
    }, 60_000);

    it('pages list_inventory_items by sales price with nextOffset: each item once, unstable ties too', async () => {
      sandbox.setSwitches({ unstableTieOrder: true });
      try {
        const seen: string[] = [];
        let offset: number | null = 0;
        while (offset !== null) {
          const page = json(
            await call('list_inventory_items', {
              sortBy: 'sales_price',
              sortDescending: false,
              limit: 40,
              offset,
              fields: ['Item', 'SalesPrice1'],
            }),
          );
          expect(page).not.toHaveProperty('unstableOrder');
          seen.push(...page.items.map((i: { Item: string }) => i.Item));
          offset = page.nextOffset;
        }
        expect(seen).toHaveLength(150);
        expect(new Set(seen).size).toBe(150);
      } finally {
        sandbox.setSwitches({ unstableTieOrder: false });
      }
    }, 60_000);

    it('refuses more than 1,000 groups, and never sums unparseable numbers', async () => {
      const r = await call('aggregate', { entity: 'GLTransClient', groupBy: ['Voucher'], sum: ['Amount'] });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/more than 1000 groups/);
      const odd = json(
        await call('aggregate', {
          entity: 'GLTransClient',
          filters: [{ PropertyName: 'Account', FilterValue: LEDGER_NON_NUMERIC_ACCOUNT }],
          sum: ['Amount'],
        }),
      );
      expect(odd.groups[0].count).toBeGreaterThan(0);
      expect(odd.nonNumeric.Amount).toBeGreaterThan(0);
    }, 60_000);

    it('lists with the spec list-result rules', async () => {
      const debtors = json(await call('list_debtors', { limit: 5 }));
      expect(debtors).toMatchObject({ entity: 'DebtorClient', count: 5 });
      expect(debtors.total).toBeGreaterThan(5);
      const page = json(await call('list_inventory_items', { sortBy: 'sales_price', limit: 10, offset: 0 }));
      expect(page).toMatchObject({ count: 10, truncated: true, offset: 0, nextOffset: 10 });
      expect(page).not.toHaveProperty('total');
      const q = json(
        await call('query', {
          entity: 'InvItemClientUser',
          filters: [{ PropertyName: 'Group', FilterValue: 'EBIKES' }],
          fields: ['Item', 'Brand', 'NoSuchField'],
          limit: 3,
        }),
      );
      expect(q.unknownFields).toEqual(['NoSuchField']);
      expect(q.items[0]).toHaveProperty('Brand');
    });

    it('matches exact arguments exactly: a wildcard is refused before any request, never matched', async () => {
      const before = sandbox.stats.requests;
      // Before: get_account_balance {"account":"10*"} returned account 1000 and list_debtors {"cvr":"*"} every debtor.
      for (const [tool, args] of [
        ['get_account_balance', { account: '10*' }],
        ['get_account_balance', { account: '10?0' }],
        ['list_debtors', { cvr: '*' }],
        ['list_gl_accounts', { account: '1*' }],
        ['list_inventory_items', { group: 'EBIKE?' }],
      ] as const) {
        const r = await call(tool, args);
        expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
        expect(text(r)).toBe('Tool invocation failed.');
      }
      expect(sandbox.stats.requests).toBe(before);
      expect(json(await call('get_account_balance', { account: '1010' }))).toMatchObject({ Account: '1010' });
    });

    it('bounds the rows a list reads to count total: 50,000+ postings come back truncated, without total', async () => {
      sandbox.resetStats();
      // Before: list_gl_transactions {} read all postings (8.6 MB) on every call to count them.
      const all = json(await call('list_gl_transactions'));
      expect(all).toMatchObject({ entity: 'GLTransClient', count: 50, truncated: true });
      expect(all).not.toHaveProperty('total');
      const body = sandbox.stats.lastRequest?.body as Array<Record<string, unknown>>;
      expect(body.at(-1)).toEqual({ Take: expect.any(Number) });
      const narrow = json(
        await call('list_gl_transactions', { account: '1010', fromDate: '2025-01-01', toDate: '2025-01-31' }),
      );
      expect(narrow.total).toBeGreaterThan(0);
      expect(narrow).not.toHaveProperty('truncated');
    });

    it('asks to reconnect on a wrong password, a non-server-login user or a wrong company', async () => {
      for (const credential of [
        { username: LEDGER_DEMO_USER, password: 'not-the-password-7x', companyId: String(LEDGER_DEMO_COMPANY_ID) },
        {
          username: LEDGER_DEMO_INTERACTIVE_USER,
          password: LEDGER_DEMO_INTERACTIVE_PASSWORD,
          companyId: String(LEDGER_DEMO_COMPANY_ID),
        },
        { username: LEDGER_DEMO_USER, password: LEDGER_DEMO_PASSWORD, companyId: '49999' },
      ]) {
        const t = await createTenant(store, { subscribe: ['ledger'] });
        await connect(t, credential);
        const c = await mcpClient(gw.url, 'ledger', t.token);
        const r = await c.callTool({ name: 'ledger__list_companies', arguments: {} });
        expect(r.isError).toBe(true);
        expect(text(r)).toMatch(/connection must be re-established/);
        expect(text(r)).not.toContain(credential.password);
        await c.close();
      }
    });

    it('an HTML maintenance page at login is an outage (generic text), not a refused login; no harm done', async () => {
      try {
        for (const status of [200, 503] as const) {
          sandbox.setSwitches({ loginMaintenancePage: status });
          // Before: with 200 the tool said the user name or password was invalid (reconnect_required).
          const r = await call('list_companies');
          expect(r.isError, `maintenance page with ${status}`).toBe(true);
          expect(text(r)).toBe('Tool invocation failed.');
        }
      } finally {
        sandbox.setSwitches({ loginMaintenancePage: 0 });
      }
      expect(json(await call('list_companies')).count).toBeGreaterThan(0);
    });

    it('never calls a write endpoint', () => {
      expect(sandbox.stats.writeLog).toEqual([]);
    });
  },
);

// One deadline per call (the spec's "15 s per call"): the ledger's login and its query share the
// connector's timeout. Shortened through the registry the gateway is given, as the fault tests do.
describe('ledger: the connector timeout bounds the whole call, login and query together', () => {
  const TIMEOUT_MS = 3000;
  // Each request alone is within the timeout; both together are almost twice it.
  const LATENCY_MS = 2800;
  let store: PlatformStore;
  let sandbox: LedgerSandbox;
  let gw: StartedGateway;
  let tenant: Tenant;

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startLedgerSandbox({});
    const ledger = registry.ledger;
    const shortened = {
      ...registry,
      ledger: {
        ...ledger,
        descriptor: { ...ledger.descriptor, upstream: { ...ledger.descriptor.upstream, timeoutMs: TIMEOUT_MS } },
      },
    } as typeof registry;
    gw = await startGateway(store, {
      registry: shortened,
      env: { CONNECTOR_LEDGER_BASE_URL: sandbox.url, RATE_LIMIT_BURST: '1000' },
    });
    tenant = await createTenant(store, { subscribe: ['ledger'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('a slow login then a slow query ends at the deadline with the timeout text, not after the sum', async () => {
    const client = await mcpClient(gw.url, 'ledger', tenant.token);
    try {
      // Healthy first: the same call answers when the upstream is quick.
      expect(json(await client.callTool({ name: 'ledger__list_companies', arguments: {} })).count).toBeGreaterThan(0);
      sandbox.setSwitches({ latencyMs: LATENCY_MS, faultScope: 'all' });
      sandbox.resetStats();
      const started = performance.now();
      // Before: login 2.8 s, then the query 2.8 s, each within its own 3 s: answered after 5.6 s.
      const r = await client.callTool({ name: 'ledger__list_companies', arguments: {} });
      const elapsed = performance.now() - started;
      expect(r.isError).toBe(true);
      // A timeout has no text of its own in the ledger spec: the connector's generic text.
      expect(text(r)).toBe(registry.ledger.descriptor.errors.generic.text);
      expect(sandbox.stats.logins).toBe(1);
      expect(sandbox.stats.queries).toBe(1);
      // A correctness bound, not a speed assertion: the call ended by its deadline (plus slack for
      // a busy machine), well before the 5.6 s the two requests would have taken.
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(2 * LATENCY_MS - 600);
    } finally {
      sandbox.setSwitches({ latencyMs: 0 });
      await client.close();
    }
  }, 30_000);
});

// The five company-register tools end to end: an MCP client → the gateway → the register sandbox
// over HTTP (the real wire format), including faults, the dormant connector and the shared throttle.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { DEMO_CVR, LOGISTICS_CVR, NAMESAKE_NAME, UNKNOWN_CVR } from '../sandbox/register/data.ts';
import { startRegisterSandbox, type RegisterSandbox } from '../sandbox/register/server.ts';
import {
  createTenant,
  mcpClient,
  startGateway,
  type StartedGateway,
  type Tenant,
  resultJson,
  resultText,
  usageOf,
} from './support/gateway.ts';

const validators = registry.register.validators as unknown as Record<string, (d: unknown) => boolean>;
const parse = (r: unknown) => resultJson(r) as Record<string, unknown>;
const text = resultText;

describe('company register end to end against its sandbox', () => {
  let store: PlatformStore;
  let sandbox: RegisterSandbox;
  let gw: StartedGateway;
  let tenant: Tenant;
  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startRegisterSandbox({ username: 'gw', password: 'sandbox-secret', maxConcurrent: 2 });
    gw = await startGateway(store, {
      env: {
        CONNECTOR_REGISTER_BASE_URL: sandbox.url,
        REGISTER_USERNAME: 'gw',
        REGISTER_PASSWORD: 'sandbox-secret',
        REGISTER_MAX_CONCURRENT: '2',
        RATE_LIMIT_BURST: '100',
      },
    });
    tenant = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
  });
  afterAll(async () => {
    await gw?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('answers all five tools with results that match the spec', async () => {
    const client = await mcpClient(gw.url, 'register', tenant.token);
    const search = await client.callTool({ name: 'register__soeg_virksomhed', arguments: { query: 'Demo', size: 3 } });
    const found = parse(search) as {
      total: number;
      companies: Array<{ cvrNummer: number; reklamebeskyttet: boolean; kapital?: unknown }>;
    };
    expect(found.total).toBe(5);
    expect(found.companies).toHaveLength(3);
    for (const c of found.companies) {
      expect(typeof c.reklamebeskyttet).toBe('boolean');
      expect(c).not.toHaveProperty('kapital');
    }
    expect(validators.output_soeg_virksomhed!(found)).toBe(true);

    const company = parse(
      await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: String(DEMO_CVR) } }),
    );
    expect(company).toMatchObject({ cvrNummer: DEMO_CVR, kapital: 1000000, kapitalValuta: 'DKK' });
    expect(validators.output_hent_virksomhed!(company)).toBe(true);
    expect(
      parse(await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: UNKNOWN_CVR } })),
    ).toEqual({ found: false, cvrNummer: UNKNOWN_CVR });

    const units = parse(
      await client.callTool({ name: 'register__find_produktionsenheder', arguments: { cvrNummer: LOGISTICS_CVR } }),
    ) as { total: number; units: Array<{ status: string }> };
    expect(units.total).toBe(5);
    expect(units.units.map((u) => u.status)).toContain('Ophørt');
    expect(validators.output_find_produktionsenheder!(units)).toBe(true);

    const owners = parse(
      await client.callTool({ name: 'register__find_ejere', arguments: { cvrNummer: DEMO_CVR } }),
    ) as {
      antal: number;
      antalAktive: number;
      ejere: Array<{
        ejerandel: { procent: number; raavaerdi: string; kilde: string } | null;
        type: string;
        cvrNummer: number | null;
      }>;
    };
    expect(owners.antal).toBeGreaterThan(owners.antalAktive);
    const beneficial = owners.ejere.find((e) => e.ejerandel?.raavaerdi === '0.688');
    expect(beneficial?.ejerandel).toMatchObject({ procent: 68.8, kilde: 'Reelle ejere' });
    for (const e of owners.ejere) if (e.type === 'PERSON') expect(e.cvrNummer).toBeNull();
    expect(validators.output_find_ejere!(owners)).toBe(true);

    const persons = parse(
      await client.callTool({ name: 'register__find_virksomheder_for_person', arguments: { navn: NAMESAKE_NAME } }),
    ) as { total: number; personer: unknown[] };
    expect(persons.total).toBe(2);
    expect(persons.personer).toHaveLength(2);
    expect(validators.output_find_virksomheder_for_person!(persons)).toBe(true);
    await client.close();
    // The sandbox saw the platform's Basic credential, never the caller's token.
    expect(String(sandbox.stats.lastRequest?.headers.authorization)).toBe(
      `Basic ${Buffer.from('gw:sandbox-secret').toString('base64')}`,
    );
  });

  it('publishes cvrNummer as 8 digits (integer or string) on every tool; 3 digits are refused, unmetered', async () => {
    const client = await mcpClient(gw.url, 'register', tenant.token);
    const ajv = new Ajv({ strict: false });
    const { tools } = await client.listTools();
    const taking = tools.filter((t) => 'cvrNummer' in ((t.inputSchema.properties ?? {}) as Record<string, unknown>));
    expect(taking.map((t) => t.name).sort()).toEqual([
      'register__find_ejere',
      'register__find_produktionsenheder',
      'register__hent_virksomhed',
    ]);
    for (const tool of taking) {
      expect((tool.inputSchema.properties as Record<string, unknown>)['cvrNummer']).toMatchObject({
        type: ['integer', 'string'],
        minimum: 10000000,
        maximum: 99999999,
        pattern: '^[1-9][0-9]{7}$',
      });
      // What a client checks against the published schema: both forms agree on the same numbers.
      const valid = ajv.compile(tool.inputSchema);
      for (const good of ['12345678', 12345678, '99999999', 10000000])
        expect(valid({ cvrNummer: good }), `${tool.name} ${JSON.stringify(good)}`).toBe(true);
      for (const bad of ['123', 123, '123456789', 123456789, '01234567', '1234567', ' 12345678', '1234567a'])
        expect(valid({ cvrNummer: bad }), `${tool.name} ${JSON.stringify(bad)}`).toBe(false);
    }
    for (const cvrNummer of ['123', 123, '123456789', '01234567']) {
      const before = (await usageOf(gw.url, tenant.token)).usage.totalCalls;
      const requests = sandbox.stats.requests;
      const refused = await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe(registry.register.descriptor.errors.generic.text);
      expect(sandbox.stats.requests).toBe(requests);
      expect((await usageOf(gw.url, tenant.token)).usage.totalCalls).toBe(before);
    }
    await client.close();
  });

  it('maps register faults to the spec errors, with the status and never a secret', async () => {
    const client = await mcpClient(gw.url, 'register', tenant.token);
    const call = () => client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: DEMO_CVR } });
    try {
      sandbox.setFault('unauthorized');
      const auth = await call();
      expect(auth.isError).toBe(true);
      expect(text(auth)).toMatch(/^RegisterAuthError: /);
      sandbox.setFault('forbidden');
      expect(text(await call())).toMatch(/^RegisterAuthError: /);
      sandbox.setFault('server_error');
      // the sandbox's server_error fault is a 503
      expect(text(await call())).toBe('RegisterApiError: the company register answered HTTP 503.');
      sandbox.setFault('html_200');
      expect(text(await call())).toBe('RegisterApiError: the company register answered HTTP 200.');
      for (const r of [auth]) expect(JSON.stringify(r)).not.toContain('sandbox-secret');
    } finally {
      sandbox.setFault('none');
      await client.close();
    }
  });

  it('never lets more than REGISTER_MAX_CONCURRENT calls reach the register at once', async () => {
    sandbox.resetStats();
    sandbox.setFault('slow', { delayMs: 150 });
    try {
      const clients = await Promise.all([0, 1, 2].map(() => mcpClient(gw.url, 'register', tenant.token)));
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          clients[i % 3]!.callTool({ name: 'register__soeg_virksomhed', arguments: { query: 'Demo' } }),
        ),
      );
      for (const r of results) expect(r.isError).toBeFalsy();
      expect(sandbox.stats.maxConcurrentSeen).toBe(2);
      expect(sandbox.stats.overLimitEvents).toBe(0);
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      sandbox.setFault('none');
    }
  });

  it('shuts down gracefully: an in-flight call finishes and its usage is flushed to the store', async () => {
    const other = await startGateway(store, {
      env: { CONNECTOR_REGISTER_BASE_URL: sandbox.url, REGISTER_USERNAME: 'gw', REGISTER_PASSWORD: 'sandbox-secret' },
    });
    const t = await createTenant(store, { subscribe: ['register'] });
    await other.app.context.state.refresh();
    const client = await mcpClient(other.url, 'register', t.token);
    sandbox.setFault('slow', { delayMs: 300 });
    try {
      const inFlight = client.callTool({ name: 'register__soeg_virksomhed', arguments: { query: 'Demo' } });
      await new Promise((r) => setTimeout(r, 100));
      const closing = other.close();
      const result = await inFlight;
      await closing;
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(text(result)).total).toBe(5);
      const month = other.app.context.meter.month(new Date());
      expect(await store.usage.getUsage(t.account.id, month)).toEqual([
        expect.objectContaining({ connectorId: 'register', tool: 'soeg_virksomhed', calls: 1 }),
      ]);
    } finally {
      sandbox.setFault('none');
      await client.close().catch(() => {});
    }
  });

  it('is dormant without deployment credentials, and refuses to start with half of them', async () => {
    const dormant = await startGateway(store, { env: { CONNECTOR_REGISTER_BASE_URL: sandbox.url } });
    try {
      const a = await mcpClient(dormant.url, 'register', tenant.token);
      expect(text(await a.callTool({ name: 'register__soeg_virksomhed', arguments: { query: 'Demo' } }))).toBe(
        'CredentialMissingError: register is not configured on this ' +
          'gateway. Ask the operator to configure its credentials.',
      );
      await a.close();
    } finally {
      await dormant.close();
    }
    // A username without its password is refused by name (docs/decisions/operations.md).
    await expect(
      startGateway(store, { env: { CONNECTOR_REGISTER_BASE_URL: sandbox.url, REGISTER_USERNAME: 'gw' } }),
    ).rejects.toThrow(/REGISTER_USERNAME .*without REGISTER_PASSWORD/);
  });
});

// Upstream faults end to end: an MCP client → the gateway → the company-register connector →
// a real local upstream that misbehaves (test/support/faulty-upstream.ts). Every fault ends in
// the connector's spec text, is metered exactly once, never follows a redirect, leaves no
// upstream socket open and never shows the credential. The register's 20 s deadline is shortened
// through the registry the gateway is given (the only change to the connector).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import {
  type FaultMode,
  type FaultyUpstream,
  startCountingServer,
  startFaultyUpstream,
} from './support/faulty-upstream.ts';
import {
  createTenant,
  mcpClient,
  resultText,
  startGateway,
  type StartedGateway,
  type Tenant,
  usageOf,
} from './support/gateway.ts';

const USERNAME = 'gw-faults';
const PASSWORD = 'Qv8-faulty-9zx';
const BASIC = Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64');
const TIMEOUT_MS = 1500;
const CVR = 12345678;

const register = registry.register.descriptor;
const GENERIC = register.errors.generic.text;
const apiText = (status: number) => register.errors.register_api.text.replace('{status}', String(status));

/** The generated registry with the register's deadline (and, optionally, its retry policy) changed. */
function registryWith(retry: typeof register.upstream.retry = register.upstream.retry): typeof registry {
  return {
    ...registry,
    register: {
      ...registry.register,
      descriptor: { ...register, upstream: { ...register.upstream, timeoutMs: TIMEOUT_MS, retry } },
    },
  } as typeof registry;
}

describe('upstream faults end to end (company register against a faulty upstream)', () => {
  let store: PlatformStore;
  let upstream: FaultyUpstream;
  let elsewhere: Awaited<ReturnType<typeof startCountingServer>>;
  let gw: StartedGateway;
  let retrying: StartedGateway;
  let tenant: Tenant;
  const waits: number[] = [];

  beforeAll(async () => {
    store = await openStore({});
    upstream = await startFaultyUpstream();
    elsewhere = await startCountingServer('127.0.0.2');
    const env = {
      CONNECTOR_REGISTER_BASE_URL: upstream.url,
      REGISTER_USERNAME: USERNAME,
      REGISTER_PASSWORD: PASSWORD,
      RATE_LIMIT_BURST: '1000',
    };
    gw = await startGateway(store, { env, registry: registryWith() });
    retrying = await startGateway(store, {
      env,
      registry: registryWith({ onThrottle: 'once', maxWaitMs: 5000, defaultWaitMs: 1000 }),
      upstreamSleep: async (ms) => {
        waits.push(ms);
      },
    });
    tenant = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    await retrying.app.context.state.refresh();
  });
  let gatewaysClosed = false;
  async function closeGateways(): Promise<void> {
    if (gatewaysClosed) return;
    gatewaysClosed = true;
    await retrying?.close();
    await gw?.close();
  }
  afterAll(async () => {
    await closeGateways();
    await upstream?.close();
    await elsewhere?.close();
    await store?.close();
  });

  /** One call in `mode`: its text, the upstream requests it made, and the metering it caused. */
  async function callIn(
    mode: FaultMode,
    through: StartedGateway = gw,
  ): Promise<{ text: string; isError: boolean; requests: number; metered: number; raw: string }> {
    upstream.setMode(mode);
    const before = upstream.requests.length;
    const usedBefore = (await usageOf(through.url, tenant.token)).usage.totalCalls;
    const client = await mcpClient(through.url, 'register', tenant.token);
    try {
      const result = await client.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: CVR } });
      const usedAfter = (await usageOf(through.url, tenant.token)).usage.totalCalls;
      return {
        text: resultText(result),
        isError: result.isError === true,
        requests: upstream.requests.length - before,
        metered: usedAfter - usedBefore,
        raw: JSON.stringify(result),
      };
    } finally {
      await client.close();
      upstream.setMode({ kind: 'ok' });
    }
  }

  function expectNoSecret(raw: string): void {
    expect(raw).not.toContain(PASSWORD);
    expect(raw).not.toContain(BASIC);
    expect(raw).not.toContain(USERNAME);
  }

  /** The sockets of the requests made since `from` are closed (the server saw the connection end). */
  async function expectSocketsClosed(from: number): Promise<void> {
    await Promise.all(upstream.requests.slice(from).map((r) => r.closed(3000)));
  }

  const cases: ReadonlyArray<{ name: string; mode: FaultMode; text: string; aborts: boolean }> = [
    { name: 'hang (never answers)', mode: { kind: 'hang' }, text: GENERIC, aborts: true },
    { name: 'trickle (a byte every 200 ms)', mode: { kind: 'trickle', everyMs: 200 }, text: GENERIC, aborts: true },
    { name: 'reset mid-body', mode: { kind: 'reset_mid_body' }, text: GENERIC, aborts: true },
    // Too large carries no HTTP status of its own: the gateway stands in for the register (502).
    { name: '50 MB body', mode: { kind: 'huge_body', bytes: 50 * 1024 * 1024 }, text: apiText(502), aborts: true },
    { name: 'non-JSON 200', mode: { kind: 'non_json_200' }, text: apiText(200), aborts: false },
  ];

  for (const c of cases) {
    it(`${c.name} ends in "${c.text}", metered once, socket ${c.aborts ? 'closed' : 'idle'}`, async () => {
      const from = upstream.requests.length;
      const r = await callIn(c.mode);
      expect(r.isError).toBe(true);
      expect(r.text).toBe(c.text);
      expect(r.requests).toBe(1);
      expect(r.metered).toBe(1);
      expectNoSecret(r.raw);
      expect(upstream.requests[from]!.headers.authorization).toBe(`Basic ${BASIC}`);
      if (c.aborts) await expectSocketsClosed(from);
      else expect(upstream.busySockets()).toBe(0);
    });
  }

  it('a redirect to another host ends in register_api 302 and is never followed', async () => {
    const r = await callIn({ kind: 'redirect', location: `${elsewhere.url}/virksomhed/_search` });
    expect(r.text).toBe(apiText(302));
    expect(r.requests).toBe(1);
    expect(r.metered).toBe(1);
    expect(elsewhere.requests).toHaveLength(0);
    expectNoSecret(r.raw);
    expect(upstream.busySockets()).toBe(0);
  });

  const retryAfters: ReadonlyArray<{ header: string | undefined; wait: number }> = [
    { header: '0', wait: 0 },
    { header: '-1', wait: 1000 }, // not a number of seconds, not an HTTP date: the default wait
    { header: 'abc', wait: 1000 },
    { header: 'Mon, 01 Jan 2001 00:00:00 GMT', wait: 0 },
    { header: '99999', wait: 5000 },
    { header: undefined, wait: 1000 },
  ];

  for (const { header } of retryAfters) {
    it(`429 with Retry-After ${JSON.stringify(header ?? 'absent')} ends in register_api 429, no retry`, async () => {
      const r = await callIn({ kind: 'throttle', retryAfter: header, times: 2 });
      expect(r.text).toBe(apiText(429));
      expect(r.requests).toBe(1);
      expect(r.metered).toBe(1);
      expectNoSecret(r.raw);
      expect(upstream.busySockets()).toBe(0);
    });
  }

  for (const { header, wait } of retryAfters) {
    it(`onThrottle once, Retry-After ${JSON.stringify(header ?? 'absent')}: waits in bounds, retries`, async () => {
      waits.length = 0;
      const again = await callIn({ kind: 'throttle', retryAfter: header, times: 2 }, retrying);
      expect(again.text).toBe(apiText(429));
      expect(again.requests).toBe(2);
      expect(again.metered).toBe(1);
      expect(waits).toHaveLength(1);
      expect(waits[0]).toBe(wait);

      waits.length = 0;
      const once = await callIn({ kind: 'throttle', retryAfter: header, times: 1 }, retrying);
      expect(JSON.parse(once.text)).toEqual({ found: false, cvrNummer: CVR });
      expect(once.requests).toBe(2);
      expect(once.metered).toBe(1);
      expect(waits).toHaveLength(1);
      expectNoSecret(once.raw);
    });
  }

  it('big bodies of concurrent calls never hold more than the body budget at once; every call completes', async () => {
    const MiB = 1024 * 1024;
    const BUDGET = 2 * MiB;
    // A gateway of its own with a small budget and the spec's deadline; bodies of 1.5 MiB, half of
    // them chunked (those reserve the register's 8 MiB cap, that is the whole budget).
    const env = {
      CONNECTOR_REGISTER_BASE_URL: upstream.url,
      REGISTER_USERNAME: USERNAME,
      REGISTER_PASSWORD: PASSWORD,
      RATE_LIMIT_BURST: '1000',
      UPSTREAM_BODY_BUDGET_BYTES: String(BUDGET),
    };
    const small = await startGateway(store, { env });
    const clients: Array<Awaited<ReturnType<typeof mcpClient>>> = [];
    let sampling = true;
    let sampled = 0;
    let samples = 0;
    try {
      await small.app.context.state.refresh();
      const gauge = small.app.context.metrics.registry.getSingleMetric('gateway_upstream_body_bytes_reserved')!;
      for (let i = 0; i < 6; i++) clients.push(await mcpClient(small.url, 'register', tenant.token));
      const sampler = (async () => {
        while (sampling) {
          const value = (await gauge.get()).values[0]?.value ?? 0;
          sampled = Math.max(sampled, value);
          samples++;
          await new Promise((r) => setImmediate(r));
        }
      })();
      upstream.setMode({ kind: 'padded_ok', bytes: 1.5 * MiB });
      const results = await Promise.all(
        clients.map((c) => c.callTool({ name: 'register__hent_virksomhed', arguments: { cvrNummer: CVR } })),
      );
      sampling = false;
      await sampler;
      for (const r of results) expect(JSON.parse(resultText(r))).toEqual({ found: false, cvrNummer: CVR });
      const budget = small.app.context.bodyBudget;
      expect(budget.total).toBe(BUDGET);
      expect(budget.highWater).toBeGreaterThanOrEqual(1.5 * MiB);
      expect(budget.highWater).toBeLessThanOrEqual(BUDGET);
      expect(samples).toBeGreaterThan(0);
      expect(sampled).toBeLessThanOrEqual(BUDGET);
      expect(budget.reserved).toBe(0);
      const metrics = await (await fetch(`${small.url}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_upstream_body_bytes_reserved 0$/m);
      expect(metrics).toMatch(/^gateway_upstream_bodies_waiting 0$/m);
    } finally {
      sampling = false;
      upstream.setMode({ kind: 'ok' });
      for (const c of clients) await c.close();
      await small.close();
    }
  });

  it('a healthy answer after all that, and closing the gateways closes every upstream socket', async () => {
    const r = await callIn({ kind: 'ok' });
    expect(JSON.parse(r.text)).toEqual({ found: false, cvrNummer: CVR });
    await closeGateways();
    await upstream.allClosed(3000);
    expect(upstream.openSockets()).toBe(0);
  });
});

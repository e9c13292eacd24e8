// The check order the catalog publishes (generated/catalog.json `platform.checkOrder`, from
// specs/platform.yaml) is the order the gateway really checks a tools/call in: for every pair of
// steps a before b, a call that fails both gets a's answer — its text, no upstream request unless a
// is the upstream, and nothing metered. The order is read from the catalog, so a changed spec is
// tested as declared; the gateway's start-up assertion (runtime/pipeline/check-order.ts) is tested
// here too. One gateway over one embedded store for the whole file.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { closeOnce, listen } from '../sandbox/http-kit.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { assertCheckOrder, type CheckStep, IMPLEMENTED_CHECK_ORDER } from '../runtime/pipeline/check-order.ts';
import {
  connectTenant,
  createTenant,
  resultText,
  rpc,
  startGateway,
  usageOf,
  type StartedGateway,
} from './support/gateway.ts';

const catalog = JSON.parse(readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8')) as {
  platform: { checkOrder: string[] };
};
const declared = catalog.platform.checkOrder as CheckStep[];

const texts = platformDescriptor.errors;
/** A spec text with its `{placeholders}` as wildcards, matched whole. */
const template = (text: string) =>
  new RegExp(`^${text.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[a-z_]+\}/g, '.+')}$`, 's');

// The case-management connector: a tenant credential (so `connection` can fail per tenant) and a
// free-query tool whose arguments are easy to make invalid.
const CONNECTOR = 'cases';
const TOOL = `${CONNECTOR}__graphql_query`;
const VALID_ARGS = { query: '{ ping }' };
const INVALID_ARGS = { query: 42 };

/** What a call ended with: the text, the upstream requests it made, the calls metered for it. */
interface Outcome {
  readonly text: string;
  readonly upstreamRequests: number;
  readonly metered: number;
}

/** How each step's refusal looks. Every step before the upstream makes no request and meters nothing. */
const REFUSAL: Readonly<Record<CheckStep, { text: RegExp; upstreamRequests: number; metered: number }>> = {
  tool_name: { text: template(texts.unknown_tool.text), upstreamRequests: 0, metered: 0 },
  subscription: { text: template(texts.not_subscribed.text), upstreamRequests: 0, metered: 0 },
  seat: { text: template(texts.no_seat.text), upstreamRequests: 0, metered: 0 },
  connection: { text: template(texts.not_connected.text), upstreamRequests: 0, metered: 0 },
  fair_use: { text: template(texts.fair_use_blocked.text), upstreamRequests: 0, metered: 0 },
  // Invalid arguments and a failed upstream share the generic text: the difference is the request and the unit.
  arguments: { text: template(texts.generic.text), upstreamRequests: 0, metered: 0 },
  // Upstream down (HTTP 503): one request, no retry, one cost unit whatever the outcome (DECISIONS §8, §11).
  upstream: { text: template(texts.generic.text), upstreamRequests: 1, metered: 1 },
};

describe('check order of a tools/call', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let upstreamDown = false;
  let upstreamRequests = 0;
  let closeUpstream: () => Promise<void>;

  beforeAll(async () => {
    // The upstream: a GraphQL answer while up, HTTP 503 while down; it counts what reaches it.
    const server = createServer((req, res) => {
      upstreamRequests++;
      req.resume();
      req.on('end', () => {
        if (upstreamDown) res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { ping: 'pong' } }));
      });
    });
    const { origin } = await listen(server, 0, '127.0.0.1');
    closeUpstream = closeOnce(server);
    store = await openStore({});
    gw = await startGateway(store, {
      env: { CONNECTOR_CASES_BASE_URL: `${origin}/graphql`, RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000' },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
    await closeUpstream?.();
  });

  /** One call on a fresh tenant that fails exactly the given steps and passes every other. */
  async function callFailing(...faults: CheckStep[]): Promise<Outcome> {
    const fails = new Set(faults);
    const t = await createTenant(store, {
      subscribe: fails.has('subscription') ? [] : [CONNECTOR],
      seats: fails.has('seat') ? [] : [CONNECTOR],
    });
    if (!fails.has('connection')) await connectTenant(gw, t, CONNECTOR, { apiKey: 'check-order-key' });
    if (fails.has('fair_use')) await store.accounts.setFairUse(t.account.id, { mode: 'hard', quota: 0 });
    await gw.app.context.state.refresh();
    upstreamDown = fails.has('upstream');
    const before = upstreamRequests;
    const name = fails.has('tool_name') ? `${CONNECTOR}__no_such_tool` : TOOL;
    const args = fails.has('arguments') ? INVALID_ARGS : VALID_ARGS;
    const r = await rpc(gw.url, CONNECTOR, t.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    expect(r.status).toBe(200);
    const result = (r.json as { result: { isError?: boolean } }).result;
    const upstreamMade = upstreamRequests - before;
    const usage = await usageOf(gw.url, t.token);
    if (faults.length > 0) expect(result.isError).toBe(true);
    return { text: resultText(result), upstreamRequests: upstreamMade, metered: usage.usage.totalCalls };
  }

  function expectRefusedAt(outcome: Outcome, step: CheckStep): void {
    const want = REFUSAL[step];
    expect(outcome.text).toMatch(want.text);
    expect({ upstreamRequests: outcome.upstreamRequests, metered: outcome.metered }).toEqual({
      upstreamRequests: want.upstreamRequests,
      metered: want.metered,
    });
  }

  it('the catalog and the generated platform data declare the same order, of steps this test can fail', () => {
    expect(platformDescriptor.checkOrder).toEqual(declared);
    expect([...declared].sort()).toEqual(Object.keys(REFUSAL).sort());
  });

  it('the gateway started, so its pipeline implements the declared order; any other order stops it', () => {
    expect(() => assertCheckOrder(declared)).not.toThrow();
    expect([...IMPLEMENTED_CHECK_ORDER]).toEqual(declared);
    for (let i = 0; i + 1 < declared.length; i++) {
      const swapped = [...declared];
      [swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!];
      expect(() => assertCheckOrder(swapped)).toThrow(/check order mismatch/);
    }
    expect(() => assertCheckOrder(declared.slice(1))).toThrow(/check order mismatch/);
    expect(() => assertCheckOrder([])).toThrow(/declares platform\.checkOrder \(none\)/);
  });

  it('a call failing nothing reaches the upstream once and is metered once', async () => {
    const outcome = await callFailing();
    expect(JSON.parse(outcome.text)).toEqual({ ping: 'pong' });
    expect({ upstreamRequests: outcome.upstreamRequests, metered: outcome.metered }).toEqual({
      upstreamRequests: 1,
      metered: 1,
    });
  });

  // Each fault alone gives its own step's answer: so a pair test below cannot pass because the later fault was never
  // made.
  for (const step of declared) {
    it(`failing only ${step} gets the ${step} answer`, async () => {
      expectRefusedAt(await callFailing(step), step);
    });
  }

  const pairs = declared.flatMap((a, i) => declared.slice(i + 1).map((b, j) => ({ a, b, adjacent: j === 0 })));
  for (const { a, b, adjacent } of pairs) {
    it(`failing ${a} and ${b}${adjacent ? ' (adjacent)' : ''} gets the ${a} answer`, async () => {
      expectRefusedAt(await callFailing(a, b), a);
    });
  }

  it('failing every step gets the first step’s answer', async () => {
    expectRefusedAt(await callFailing(...declared), declared[0]!);
  });
});
